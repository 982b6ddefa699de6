package solver

import (
	"unsafe"

	"github.com/landmark-ml/landmark/internal/hugemem"
)

// Cache keeps recently used kernel columns within a byte budget and evicts the
// least recently used one when full, as LIBSVM's kernel cache does (Chang &
// Lin, LIBSVM: a library for support vector machines, ACM TIST 2011, Sect. 5.1).
//
// Columns have a fixed length; a column is computed by the fill function on a
// miss. At least two columns are always kept, so that the two columns an SMO
// step needs are both valid at once: the slice returned by Get stays valid
// until two further Get calls with other keys have been made.
//
// The element type is float64, or float32 to hold twice as many columns in
// the same budget (LIBSVM's Qfloat).
//
// The columns live in one block of memory, allocated with the cache (in 2
// MiB pages where this host faults 4 KiB pages slowly: hugemem.FreshSlice)
// and touched as columns are filled. Restrict moves a cache to a shorter
// column length within the same block, so that a solver whose active set
// shrinks neither allocates nor faults in new memory.
type Cache[T float32 | float64] struct {
	colLen int
	fill   func(key int, dst []T)
	budget int64
	cap    int     // maximum number of slots
	slot   []int32 // key → slot, −1 when absent
	key    []int   // slot → key
	arena  []T     // slot s holds arena[s·colLen : (s+1)·colLen]
	used   int     // slots in use: 0…used−1
	prev   []int32 // LRU list over slots; head is the most recently used
	next   []int32
	head   int32
	tail   int32
	hits   int64
	misses int64
}

// NewCache returns an empty cache for keys in [0, keys) whose columns have
// colLen elements and are computed by fill. budget is in bytes; the cache
// holds max(2, budget / (size·colLen)) columns, size the bytes of T (8 or
// 4), and never more than keys.
func NewCache[T float32 | float64](keys, colLen int, budget int64, fill func(key int, dst []T)) *Cache[T] {
	c := newCache(keys, colLen, budget, fill, capacity[T](keys, colLen, budget))
	c.arena = hugemem.FreshSlice[T](c.cap * colLen)
	return c
}

// capacity is the number of columns of colLen elements a budget holds, at
// most keys and at least two (or keys when fewer).
func capacity[T float32 | float64](keys, colLen int, budget int64) int {
	per := int64(unsafe.Sizeof(T(0))) * int64(max(colLen, 1))
	c := int(min(int64(keys), max(2, budget/per)))
	return max(c, min(2, keys))
}

func newCache[T float32 | float64](keys, colLen int, budget int64, fill func(key int, dst []T), cap int) *Cache[T] {
	slot := make([]int32, keys)
	for i := range slot {
		slot[i] = -1
	}
	return &Cache[T]{colLen: colLen, fill: fill, budget: budget, cap: cap, slot: slot, head: -1, tail: -1,
		key: make([]int, cap), prev: make([]int32, cap), next: make([]int32, cap)}
}

// column returns slot s's storage.
func (c *Cache[T]) column(s int32) []T {
	return c.arena[int(s)*c.colLen : (int(s)+1)*c.colLen : (int(s)+1)*c.colLen]
}

// Restrict returns a cache for keys in [0, keys) whose columns have colLen
// ≤ c's column length and are computed by fill, on c's memory; c must not be
// used after. A column of c whose key maps to newKey(key) ≥ 0 is kept under
// that key, restricted to the rows from (new row → row of c's column,
// ascending), in its place in the LRU order; the others are dropped. The new
// cache holds as many columns as c's budget allows at the new length, within
// c's block of memory.
func (c *Cache[T]) Restrict(keys, colLen int, fill func(key int, dst []T), newKey func(key int) int, from []int32) *Cache[T] {
	capNew := min(capacity[T](keys, colLen, c.budget), len(c.arena)/max(colLen, 1))
	if capNew < min(2, keys) { // only when colLen > c.colLen: a fresh block
		return NewCache(keys, colLen, c.budget, fill)
	}
	r := newCache(keys, colLen, c.budget, fill, capNew)
	r.arena = c.arena
	// Compact the kept columns to the front of the block in slot order:
	// the column of slot s moves to slot j ≤ s and each of its elements
	// to a position at or before the one it is read from (from is
	// ascending), so that nothing is overwritten before it is read.
	moved := make([]int32, c.used)
	for s := range c.used {
		moved[s] = -1
		k := newKey(c.key[s])
		if k < 0 || r.used == capNew {
			continue
		}
		src := c.arena[s*c.colLen : (s+1)*c.colLen]
		dst := r.arena[r.used*colLen : (r.used+1)*colLen]
		for p, q := range from {
			dst[p] = src[q]
		}
		moved[s] = int32(r.used)
		r.key[r.used] = k
		r.slot[k] = int32(r.used)
		r.used++
	}
	for s := c.tail; s >= 0; s = c.prev[s] {
		if m := moved[s]; m >= 0 {
			r.pushFront(m)
		}
	}
	return r
}

// Capacity returns the number of columns the cache can hold.
func (c *Cache[T]) Capacity() int { return c.cap }

// Stats returns the number of hits and misses so far.
func (c *Cache[T]) Stats() (hits, misses int64) { return c.hits, c.misses }

// Get returns column key, computing it on a miss. The caller must not modify it.
func (c *Cache[T]) Get(key int) []T {
	if s := c.slot[key]; s >= 0 {
		c.hits++
		c.touch(s)
		return c.column(s)
	}
	c.misses++
	col := c.insert(key)
	c.fill(key, col)
	return col
}

// insert gives key a slot, evicting the least recently used column when full.
func (c *Cache[T]) insert(key int) []T {
	var s int32
	if c.used < c.cap {
		s = int32(c.used)
		c.used++
		c.prev[s], c.next[s] = -1, -1
	} else {
		s = c.tail
		c.unlink(s)
		c.slot[c.key[s]] = -1
	}
	c.key[s] = key
	c.slot[key] = s
	c.pushFront(s)
	return c.column(s)
}

func (c *Cache[T]) touch(s int32) {
	if c.head == s {
		return
	}
	c.unlink(s)
	c.pushFront(s)
}

func (c *Cache[T]) unlink(s int32) {
	p, n := c.prev[s], c.next[s]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
	c.prev[s], c.next[s] = -1, -1
}

func (c *Cache[T]) pushFront(s int32) {
	c.prev[s] = -1
	c.next[s] = c.head
	if c.head >= 0 {
		c.prev[c.head] = s
	}
	c.head = s
	if c.tail < 0 {
		c.tail = s
	}
}

// Each calls f on every cached column from the least to the most recently
// used.
func (c *Cache[T]) Each(f func(key int, col []T)) {
	for s := c.tail; s >= 0; s = c.prev[s] {
		f(c.key[s], c.column(s))
	}
}

// Put makes key the most recently used column without computing it and
// returns its storage for the caller to fill. It counts neither a hit nor a
// miss.
func (c *Cache[T]) Put(key int) []T {
	if s := c.slot[key]; s >= 0 {
		c.touch(s)
		return c.column(s)
	}
	return c.insert(key)
}
