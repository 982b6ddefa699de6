package solver

import "unsafe"

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
type Cache[T float32 | float64] struct {
	colLen int
	fill   func(key int, dst []T)
	cap    int     // maximum number of slots
	slot   []int32 // key → slot, −1 when absent
	key    []int   // slot → key
	data   [][]T
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
	per := int64(unsafe.Sizeof(T(0))) * int64(max(colLen, 1))
	c := int(min(int64(keys), max(2, budget/per)))
	c = max(c, min(2, keys))
	slot := make([]int32, keys)
	for i := range slot {
		slot[i] = -1
	}
	return &Cache[T]{colLen: colLen, fill: fill, cap: c, slot: slot, head: -1, tail: -1}
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
		return c.data[s]
	}
	c.misses++
	col := c.insert(key)
	c.fill(key, col)
	return col
}

// insert gives key a slot, evicting the least recently used column when full.
func (c *Cache[T]) insert(key int) []T {
	var s int32
	if len(c.data) < c.cap {
		s = int32(len(c.data))
		c.data = append(c.data, make([]T, c.colLen))
		c.key = append(c.key, key)
		c.prev = append(c.prev, -1)
		c.next = append(c.next, -1)
	} else {
		s = c.tail
		c.unlink(s)
		c.slot[c.key[s]] = -1
		c.key[s] = key
	}
	c.slot[key] = s
	c.pushFront(s)
	return c.data[s]
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
		f(c.key[s], c.data[s])
	}
}

// Put makes key the most recently used column without computing it and
// returns its storage for the caller to fill. It counts neither a hit nor a
// miss.
func (c *Cache[T]) Put(key int) []T {
	if s := c.slot[key]; s >= 0 {
		c.touch(s)
		return c.data[s]
	}
	return c.insert(key)
}
