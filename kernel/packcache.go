package kernel

import (
	"sync"
	"weak"
)

// packCache recycles the packing buffers of one of the dense product types
// (Dense in float64, DenseF32 in float32): a blocked factorization calls
// them M/256 times with buffers of up to 2·256·M values, and fresh memory
// would be faulted in and zeroed on every call; a preconditioner's solves,
// once per CG iteration, call them with the same sizes each time.
//
// It holds at most two buffers, both seen from every P: buf, held strongly
// while a Reserve is open (holds > 0), and spare, held weakly otherwise, so
// that the garbage collector frees it once the products have stopped (as
// package scratch's Slot does). A sync.Pool used to hold the spare: a
// buffer put back there lands in the current P's private slot, which a Get
// on another P does not look in, so repeated products on a goroutine that
// moved between Ps allocated their buffer again (measured: 2.5 MB on most
// of a float64 solver.Chol's repeated 64-column solves at M = 2,000 with
// two Ps, see TestPackCacheAcrossPs).
type packCache[T float32 | float64] struct {
	mu    sync.Mutex
	holds int
	buf   *[]T              // the reserved slot: nil when none or taken
	spare weak.Pointer[[]T] // the largest buffer put back; cleared by get
	// alloc makes a new buffer of n values; large ones are advised onto
	// huge pages, which these buffers, reused by every product, gain from
	// (package hugemem gives both machines' first-touch costs: on machine
	// A 2 MiB pages cost about half the CPU time of 4 KiB ones, on machine
	// D 3–6 times as much for cold memory).
	alloc func(n int) []T
}

// get returns a buffer of at least n values (contents undefined) from the
// reserved slot or the spare, or new; the caller hands it back with put. A
// spare too small is left where it is (a later, smaller product may use
// it; a put of a larger buffer replaces it).
func (c *packCache[T]) get(n int) *[]T {
	c.mu.Lock()
	if b := c.buf; b != nil && cap(*b) >= n {
		c.buf = nil
		c.mu.Unlock()
		*b = (*b)[:n]
		return b
	}
	if b := c.spare.Value(); b != nil && cap(*b) >= n {
		c.spare = weak.Pointer[[]T]{}
		c.mu.Unlock()
		*b = (*b)[:n]
		return b
	}
	c.mu.Unlock()
	b := c.alloc(n)
	return &b
}

// put hands back a buffer of get: while a Reserve is open, into the
// reserved slot when it is at least as large as the one there (which
// becomes the spare); otherwise it becomes the spare if it is at least as
// large as the spare (the smaller of the two is left to the collector).
func (c *packCache[T]) put(b *[]T) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.buf; c.holds > 0 && (old == nil || cap(*old) <= cap(*b)) {
		c.buf = b
		b = old
		if b == nil {
			return
		}
	}
	c.keep(b)
}

// keep makes b the spare unless the spare is larger; c.mu is held.
func (c *packCache[T]) keep(b *[]T) {
	if s := c.spare.Value(); s == nil || cap(*s) <= cap(*b) {
		c.spare = weak.Make(b)
	}
}

// reserve readies a buffer of n values (none when n is 0) and holds the
// slot open until the returned release is called (see Dense.Reserve).
// Reserves may nest and overlap; the slot's buffer becomes the spare when
// the last is released.
func (c *packCache[T]) reserve(n int) (release func()) {
	c.mu.Lock()
	c.holds++
	c.mu.Unlock()
	if n > 0 {
		c.put(c.get(n))
	}
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.holds--
		if c.holds == 0 && c.buf != nil {
			c.keep(c.buf)
			c.buf = nil
		}
	}
}

// drain empties the cache's slot and spare (tests that count allocations
// start from it).
func (c *packCache[T]) drain() {
	c.mu.Lock()
	c.buf = nil
	c.spare = weak.Pointer[[]T]{}
	c.mu.Unlock()
}
