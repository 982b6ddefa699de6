// Package scratch holds one reusable buffer for work that runs again and
// again with the same sizes (a preconditioner's products and triangular
// solves, once per CG iteration), so that its scratch is allocated once
// and counted once in a memory plan.
//
// sync.Pool does not fit that plan: a buffer put back lands in the
// current P's private slot, where a Get on another P does not look, so a
// goroutine that moves between Ps allocates again and the pool ends up
// holding up to one buffer per P (measured: a FALKON iteration at M =
// 1,100 reallocated its 174 KB panels on most calls with two Ps). A Slot
// holds at most one buffer, weakly while nobody uses it, so the garbage
// collector still frees it when the work has stopped, as a pool's would
// be.
package scratch

import (
	"sync"
	"weak"
)

// Slot is a single reusable buffer of T. The zero value is empty and ready
// to use; a Slot must not be copied after first use. Safe for concurrent
// use: a Get while the buffer is out allocates a new one (so concurrent
// users each hold their own), and Put keeps the one put last.
type Slot[T any] struct {
	mu  sync.Mutex
	buf weak.Pointer[[]T]
}

// Get returns a buffer of n values (contents undefined): the slot's if it
// holds one of at least n values and the garbage collector has not taken
// it, else a new one. The slot is empty until Put.
func (s *Slot[T]) Get(n int) *[]T {
	s.mu.Lock()
	p := s.buf.Value()
	s.buf = weak.Pointer[[]T]{}
	s.mu.Unlock()
	if p != nil && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]T, n)
	return &b
}

// Put gives b back to the slot for the next Get, held weakly: the garbage
// collector may free it if no Get takes it first. b must not be used after.
func (s *Slot[T]) Put(b *[]T) {
	if b == nil {
		return
	}
	w := weak.Make(b)
	s.mu.Lock()
	s.buf = w
	s.mu.Unlock()
}
