package scratch

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// A buffer put back is returned by the next Get of at most its size, from
// any goroutine (sync.Pool's per-P slots would miss across Ps); a larger
// Get allocates; the contents are the buffer's; a Get while it is out
// allocates another.
func TestSlotReuse(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // nothing freed behind the test's back
	var s Slot[float64]
	a := s.Get(100)
	if len(*a) != 100 {
		t.Fatalf("len %d, want 100", len(*a))
	}
	(*a)[0] = 7
	s.Put(a)
	for range 20 {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // another goroutine, likely another P
			defer wg.Done()
			b := s.Get(50)
			if b != a || len(*b) != 50 || (*b)[0] != 7 {
				t.Errorf("Get(50) = %p (len %d), want the buffer put back %p", b, len(*b), a)
			}
			s.Put(b)
		}()
		wg.Wait()
	}
	b := s.Get(10)
	if c := s.Get(10); c == b {
		t.Errorf("a Get while the buffer is out returned it again")
	}
	s.Put(b)
	if c := s.Get(200); c == b || len(*c) != 200 {
		t.Errorf("Get(200) returned the 100-value buffer or the wrong length %d", len(*c))
	}
	s.Put(nil) // no-op
}

// The slot holds its buffer weakly: after Put and two collections with
// nothing else referring to it, a Get allocates anew.
func TestSlotWeak(t *testing.T) {
	var s Slot[byte]
	b := s.Get(1 << 20)
	addr := &(*b)[0]
	s.Put(b)
	b = nil
	runtime.GC()
	runtime.GC()
	if c := s.Get(1 << 20); &(*c)[0] == addr {
		t.Errorf("the buffer survived two collections with no user")
	}
}
