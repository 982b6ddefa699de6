package datasets

import "github.com/landmark-ml/landmark/internal/hugemem"

// chunkValues is about how many values a chunk of a CSV read holds (512 KiB
// of float64) once the read has grown; the first chunk holds about
// firstChunkValues, each next one twice its predecessor's rows up to
// chunkValues, so that a small file's chunks are about its size.
const (
	chunkValues      = 1 << 16
	firstChunkValues = 1 << 10
)

// chunks holds the values of a read whose length is known only at its end,
// in chunks of whole rows that are never copied as the read grows (an
// appended slice would be copied at each growth and keep up to 25% spare
// capacity at the end), until gather copies them once into a slice of
// exactly the length read.
type chunks[T float32 | float64] struct {
	width    int   // values a row
	list     [][]T // every chunk but the last is full
	reserved bool  // list[0] was made by reserve
}

// reserve makes the first chunk hold rows rows, for a read that knows an
// upper bound of its length (ReadOptions.rowsHint): its values are then
// read in place, and gather returns that chunk without a copy when it is
// at most a sixteenth longer than the values read (else copies, as
// always). Call it before the first add.
func (c *chunks[T]) reserve(rows int) {
	c.list = [][]T{hugemem.Slice[T](rows * c.width)[:0]}
	c.reserved = true
}

// inPlace reports whether gather will return the reserved chunk as it is:
// the only chunk, at most a sixteenth (or two rows) longer than its values.
func (c *chunks[T]) inPlace() bool {
	if !c.reserved || len(c.list) != 1 {
		return false
	}
	n := len(c.list[0])
	return cap(c.list[0])-n <= max(n/16, 2*c.width)
}

// add appends one row of c.width values.
func (c *chunks[T]) add(row ...T) {
	if len(c.list) == 0 || len(c.list[len(c.list)-1])+len(row) > cap(c.list[len(c.list)-1]) {
		rows := max(1, firstChunkValues/c.width)
		if n := len(c.list); n > 0 {
			rows = min(max(1, chunkValues/c.width), 2*cap(c.list[n-1])/c.width)
		}
		c.list = append(c.list, make([]T, 0, rows*c.width))
	}
	last := &c.list[len(c.list)-1]
	*last = append(*last, row...)
}

// bytes is the memory of the chunks: their capacity, size bytes a value.
func (c *chunks[T]) bytes(size int) int64 {
	var n int64
	for _, b := range c.list {
		n += int64(cap(b))
	}
	return n * int64(size)
}

// gather returns the values added, in one slice whose capacity is its
// length (a reserved chunk: at most a sixteenth or two rows more), and lets
// the chunks go.
func (c *chunks[T]) gather() []T {
	n := 0
	for _, b := range c.list {
		n += len(b)
	}
	if c.inPlace() {
		// The reserved chunk, with little spare room (a header line, a
		// final newline): kept as it is, no second copy.
		out := c.list[0]
		c.list = nil
		return out
	}
	out := hugemem.Slice[T](n)[:0] // X: in 2 MiB pages, as newDense
	for i, b := range c.list {
		out = append(out, b...)
		c.list[i] = nil
	}
	c.list = nil
	return out
}

// reserve holds X and y in place for the rest of the read when the file's
// lines bound its rows (ReadOptions.rowsHint): the rows left are at most
// the lines from the first data line on, and X is allocated once, at that
// size, instead of gathered from chunks into a second copy at the end, so
// that the values are held once, not twice. It reserves nothing when
// that size would pass the read's memory bound (the chunks then stop the
// read at the bound, with its error).
func (c *csvRows) reserve(line int, header bool) {
	rows := c.opt.rowsHint - line + 1 // lines from this one to the end
	if header {
		rows--
	}
	if c.opt.rowsHint <= 0 || rows < 1 {
		return
	}
	size := int64(8)
	if c.opt.Float32 {
		size = 4
	}
	budget := c.opt.MaxBytes
	if budget <= 0 {
		budget = defaultMaxBytes
	}
	if float64(rows)*(float64(c.dx)*float64(size)+8) > float64(budget) {
		return
	}
	if c.opt.Float32 {
		c.xs32.reserve(rows)
	} else {
		c.xs.reserve(rows)
	}
	if c.target >= 0 {
		c.ys.reserve(rows)
	}
}
