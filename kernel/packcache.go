package kernel

import "sync"

// packCache recycles the packing buffers of one of the dense product types
// (Dense in float64, DenseF32 in float32): a blocked factorization calls
// them M/256 times with buffers of up to 2·256·M values, and fresh memory
// would be faulted in and zeroed on every call. pool holds released buffers
// (per P, as sync.Pool does); slot holds the largest one released while a
// Reserve is open (holds > 0), seen from every P.
type packCache[T float32 | float64] struct {
	pool  sync.Pool
	mu    sync.Mutex
	holds int
	buf   *[]T // the slot: nil when none or taken
	// alloc makes a new buffer of n values; large ones are advised onto
	// huge pages (faulting fresh memory in 2 MiB pages costs about half
	// the CPU time of 4 KiB ones on the project's VM, package hugemem).
	alloc func(n int) []T
}

// poolTries is how many pooled buffers packCache.get looks at.
const poolTries = 4

// get returns a buffer of at least n values (contents undefined) from the
// slot or the pool, or new; the caller hands it back with put.
func (c *packCache[T]) get(n int) *[]T {
	c.mu.Lock()
	if b := c.buf; b != nil && cap(*b) >= n {
		c.buf = nil
		c.mu.Unlock()
		*b = (*b)[:n]
		return b
	}
	c.mu.Unlock()
	// The pool may hold buffers of several sizes (one per P, and products of
	// other shapes): look at a few, dropping the ones too small, before
	// allocating.
	for range poolTries {
		b, ok := c.pool.Get().(*[]T)
		if !ok {
			break
		}
		if cap(*b) >= n {
			*b = (*b)[:n]
			return b
		}
	}
	b := c.alloc(n)
	return &b
}

// put hands back a buffer of get: while a Reserve is open, into the slot
// when it is at least as large as the one there (which goes to the pool),
// else into the pool.
func (c *packCache[T]) put(b *[]T) {
	c.mu.Lock()
	if old := c.buf; c.holds > 0 && (old == nil || cap(*old) <= cap(*b)) {
		c.buf = b
		c.mu.Unlock()
		if old != nil {
			c.pool.Put(old)
		}
		return
	}
	c.mu.Unlock()
	c.pool.Put(b)
}

// reserve readies a buffer of n values (none when n is 0) and holds the
// slot open until the returned release is called (see Dense.Reserve).
// Reserves may nest and overlap; the slot's buffer goes back to the pool
// when the last is released.
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
			c.pool.Put(c.buf)
			c.buf = nil
		}
	}
}

// drain empties the cache's slot and pool (tests that count allocations
// start from it; two collections first empty sync.Pool's victim caches).
func (c *packCache[T]) drain() {
	for c.pool.Get() != nil {
	}
	c.mu.Lock()
	c.buf = nil
	c.mu.Unlock()
}
