package kernel

import (
	"runtime"
	"sync"
	"weak"
)

// packCache recycles the packing buffers of one of the dense product types
// (Dense in float64, DenseF32 in float32): a blocked factorization calls
// them M/256 times with buffers of up to 2·256·M values, and fresh memory
// would be faulted in and zeroed on every call; a preconditioner's solves,
// once per CG iteration, call them with the same sizes each time.
//
// It holds buf, strongly while a Reserve is open (holds > 0), and up to
// maxSpares spares, weakly, all seen from every P, so that the garbage
// collector frees them once the products have stopped (as package
// scratch's Slot does). A sync.Pool used to hold the spare: a buffer put
// back there lands in the current P's private slot, which a Get on another
// P does not look in, so repeated products on a goroutine that moved
// between Ps allocated their buffer again (measured: 2.5 MB on most of a
// float64 solver.Chol's repeated 64-column solves at M = 2,000 with two Ps,
// see TestPackCacheAcrossPs). One spare was too few where products run
// concurrently on the workers (approx/cluster's assignment pass, one
// product per worker and block): two workers getting at once found one
// spare, the second allocated, and the second put replaced the first, so
// a buffer was allocated again nearly every block (1.2–2.4 MB more than
// the plan of a 1,500-row pass, TestAssignPlanned; see
// TestPackCacheConcurrent).
type packCache[T float32 | float64] struct {
	mu     sync.Mutex
	holds  int
	buf    *[]T                // the reserved slot: nil when none or taken
	spares []weak.Pointer[[]T] // buffers put back, at most maxSpares; get clears what it takes
	// alloc makes a new buffer of n values; large ones are advised onto
	// huge pages, which these buffers, reused by every product, gain from
	// (package hugemem gives both machines' first-touch costs: on machine
	// A 2 MiB pages cost about half the CPU time of 4 KiB ones, on machine
	// D 3–6 times as much for cold memory).
	alloc func(n int) []T
}

// maxSpares bounds the spares a packCache keeps: one per P that can run a
// product at once. They are held weakly, so they cost memory only until the
// next collection after the products stop.
func maxSpares() int { return max(runtime.GOMAXPROCS(0), 1) }

// get returns a buffer of at least n values (contents undefined) from the
// reserved slot or the smallest spare that is large enough, or new; the
// caller hands it back with put. Spares too small are left where they are
// (a later, smaller product may use them).
func (c *packCache[T]) get(n int) *[]T {
	if b := c.reuse(n); b != nil {
		return b
	}
	b := c.alloc(n)
	return &b
}

// reuse is get without the new buffer: nil when neither the reserved slot
// nor a spare holds n values.
func (c *packCache[T]) reuse(n int) *[]T {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.buf; b != nil && cap(*b) >= n {
		c.buf = nil
		*b = (*b)[:n]
		return b
	}
	best, at := (*[]T)(nil), -1
	for i, w := range c.spares {
		if b := w.Value(); b != nil && cap(*b) >= n && (best == nil || cap(*b) < cap(*best)) {
			best, at = b, i
		}
	}
	if best == nil {
		return nil
	}
	c.spares[at] = weak.Pointer[[]T]{}
	*best = (*best)[:n]
	return best
}

// take removes b from the spares and reports whether it was there (a
// caller that knows which buffer it last put back, and what it holds,
// takes that one back; false when it was taken or collected since).
func (c *packCache[T]) take(b *[]T) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, w := range c.spares {
		if w.Value() == b {
			c.spares[i] = weak.Pointer[[]T]{}
			return true
		}
	}
	return false
}

// put hands back a buffer of get: while a Reserve is open, into the
// reserved slot when it is at least as large as the one there (which
// becomes a spare); otherwise it becomes a spare (keep).
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

// keep makes b a spare: in a free place (an empty or collected one) while
// there are fewer than maxSpares, else in place of the smallest spare if
// that is no larger than b (else b is left to the collector); c.mu is held.
func (c *packCache[T]) keep(b *[]T) {
	small, at := -1, -1
	for i, w := range c.spares {
		s := w.Value()
		if s == nil {
			c.spares[i] = weak.Make(b)
			return
		}
		if at < 0 || cap(*s) < small {
			small, at = cap(*s), i
		}
	}
	if len(c.spares) < maxSpares() {
		c.spares = append(c.spares, weak.Make(b))
		return
	}
	if at >= 0 && small <= cap(*b) {
		c.spares[at] = weak.Make(b)
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

// drain empties the cache's slot and spares (tests that count allocations
// start from it).
func (c *packCache[T]) drain() {
	c.mu.Lock()
	c.buf = nil
	c.spares = nil
	c.mu.Unlock()
}
