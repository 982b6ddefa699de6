package binfmt

import (
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Dec reads payload fields, from a payload in memory (NewDec) or from a
// reader through a window of chunk bytes (Open). The first error is sticky:
// later reads return zero values and Err reports it.
type Dec struct {
	buf  []byte // the payload (NewDec) or the window; buf[off:] is not decoded yet
	off  int
	pos  int64 // payload offset of buf[0]
	size int64 // payload length
	err  error
	// version is the file's format version (Version for NewDec).
	version int

	// Streaming (Open) only.
	src io.Reader   // the payload: the file's reader limited to size bytes
	raw io.Reader   // the file's reader, for the checksum after the payload
	crc hash.Hash32 // the checksum of the header and the payload read so far
}

// NewDec reads the payload p.
func NewDec(p []byte) *Dec { return &Dec{buf: p, size: int64(len(p)), version: Version} }

// NewDecVersion reads the payload p of a file of format version v.
func NewDecVersion(p []byte, v int) *Dec {
	d := NewDec(p)
	d.version = v
	return d
}

// Version is the format version of the file being read: fields added in a
// later version than the file's are absent from its payload.
func (d *Dec) Version() int { return d.version }

// Err returns the first error met, wrapping ErrFormat.
func (d *Dec) Err() error { return d.err }

// Fail records an error (if none yet) about the payload's content.
func (d *Dec) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
	}
}

// at is the payload offset of the next byte to decode.
func (d *Dec) at() int64 { return d.pos + int64(d.off) }

// left is the number of payload bytes not decoded yet.
func (d *Dec) left() int64 { return d.size - d.at() }

// fill makes at least n ≤ chunk bytes available at buf[off:], reading from
// the source when streaming; false, with an error naming what was being
// read, when the payload ends first.
func (d *Dec) fill(n int, what string) bool {
	if len(d.buf)-d.off >= n {
		return true
	}
	if d.src == nil || int64(n) > d.left() {
		d.Fail("truncated %s at byte %d", what, d.at())
		return false
	}
	if d.buf == nil {
		d.buf = make([]byte, 0, chunk)
	}
	m := copy(d.buf[:cap(d.buf)], d.buf[d.off:])
	d.pos += int64(d.off)
	d.buf, d.off = d.buf[:m], 0
	for len(d.buf) < n {
		k, err := d.src.Read(d.buf[len(d.buf):cap(d.buf)])
		d.crc.Write(d.buf[len(d.buf) : len(d.buf)+k])
		d.buf = d.buf[:len(d.buf)+k]
		if k == 0 && err != nil {
			if err == io.EOF {
				d.Fail("truncated %s at byte %d", what, d.at())
			} else {
				d.Fail("reading %s at byte %d: %v", what, d.at(), err)
			}
			return false
		}
	}
	return true
}

// Done checks that the whole payload was read and returns Err. For a Dec
// from Open it also reads the rest of the payload (after an error, without
// decoding it) and the checksum, and a checksum mismatch is reported,
// wrapping ErrChecksum, in place of any error the corrupt bytes caused.
func (d *Dec) Done() error {
	unread := d.left()
	if d.src != nil {
		complete := d.drain()
		d.src = nil
		if !complete {
			return fmt.Errorf("%w: truncated payload", ErrFormat)
		}
		var sum [4]byte
		if _, err := io.ReadFull(d.raw, sum[:]); err != nil {
			return truncated("checksum", err)
		}
		if got, want := d.crc.Sum32(), binary.LittleEndian.Uint32(sum[:]); got != want {
			return fmt.Errorf("%w: %w (stored %08x, computed %08x)", ErrFormat, ErrChecksum, want, got)
		}
	}
	if d.err == nil && unread != 0 {
		d.Fail("%d unread bytes after the last field", unread)
	}
	return d.err
}

// drain reads the payload bytes not read from the source yet, without
// decoding them (for the checksum); false when the source ends early.
func (d *Dec) drain() bool {
	if cap(d.buf) == 0 {
		d.buf = make([]byte, 0, chunk)
	}
	for d.pos+int64(len(d.buf)) < d.size {
		d.pos += int64(len(d.buf))
		d.buf, d.off = d.buf[:0], 0
		k, err := d.src.Read(d.buf[:cap(d.buf)])
		d.crc.Write(d.buf[:k])
		d.buf = d.buf[:k]
		if k == 0 && err != nil {
			return false
		}
	}
	return true
}

// Uint reads an unsigned varint.
func (d *Dec) Uint() uint64 {
	if d.err != nil || !d.fill(int(min(binary.MaxVarintLen64, d.left())), "varint") {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated varint at byte %d", d.at())
		return 0
	}
	d.off += n
	return v
}

// Int64 reads a signed varint.
func (d *Dec) Int64() int64 {
	if d.err != nil || !d.fill(int(min(binary.MaxVarintLen64, d.left())), "varint") {
		return 0
	}
	v, n := binary.Varint(d.buf[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated varint at byte %d", d.at())
		return 0
	}
	d.off += n
	return v
}

// Int reads a signed varint that must fit an int.
func (d *Dec) Int() int {
	v := d.Int64()
	if v > math.MaxInt || v < math.MinInt {
		d.Fail("integer %d out of range", v)
		return 0
	}
	return int(v)
}

// Count reads the number of items that follow, each taking at least
// minBytes ≥ 1 bytes; a count the bytes left (after the count itself) cannot
// hold is an error, so the caller may allocate the items safely.
func (d *Dec) Count(what string, minBytes int) int {
	v := d.Uint()
	if d.err != nil {
		return 0
	}
	if most := d.left() / int64(max(minBytes, 1)); v > uint64(most) {
		d.Fail("%s = %d, at most %d possible in the %d bytes left", what, v, most, d.left())
		return 0
	}
	return int(v)
}

// Float reads a float64.
func (d *Dec) Float() float64 {
	if d.err != nil {
		return 0
	}
	if !d.fill(8, "float") {
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.buf[d.off:]))
	d.off += 8
	return v
}

// floats reads len(dst) float64 bit patterns into dst.
func (d *Dec) floats(dst []float64) {
	for len(dst) > 0 && d.err == nil {
		k := min(len(dst), chunk/8)
		if !d.fill(8*k, "floats") {
			return
		}
		src := d.buf[d.off : d.off+8*k]
		for i := range dst[:k] {
			dst[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
		}
		d.off += 8 * k
		dst = dst[k:]
	}
}

// bytes reads len(dst) bytes into dst.
func (d *Dec) bytes(dst []byte) {
	for len(dst) > 0 && d.err == nil {
		k := min(len(dst), chunk)
		if !d.fill(k, "bytes") {
			return
		}
		d.off += copy(dst, d.buf[d.off:d.off+k])
		dst = dst[k:]
	}
}

// Bool reads a byte that must be 0 or 1.
func (d *Dec) Bool() bool {
	if d.err != nil {
		return false
	}
	if !d.fill(1, "bool") {
		return false
	}
	b := d.buf[d.off]
	d.off++
	if b > 1 {
		d.Fail("bool byte %d at byte %d", b, d.at()-1)
	}
	return b == 1
}

// Blob reads a length-prefixed byte slice (a copy).
func (d *Dec) Blob() []byte {
	n := d.Count("byte length", 1)
	if d.err != nil {
		return nil
	}
	b := make([]byte, n)
	d.bytes(b)
	return b
}

// String reads a length-prefixed string.
func (d *Dec) String() string {
	n := d.Count("string length", 1)
	if d.err != nil || n == 0 {
		return ""
	}
	b := make([]byte, n)
	d.bytes(b)
	return string(b)
}

// Floats reads a float64 slice (nil when empty).
func (d *Dec) Floats() []float64 {
	n := d.Count("float count", 8)
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]float64, n)
	d.floats(v)
	return v
}

// Ints reads an int slice (nil when empty).
func (d *Dec) Ints() []int {
	n := d.Count("int count", 1)
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = d.Int()
	}
	return v
}

// kind reads the byte that opens a matrix field.
func (d *Dec) kind() byte {
	if d.err != nil {
		return 0
	}
	if !d.fill(1, "matrix") {
		return 0
	}
	k := d.buf[d.off]
	d.off++
	return k
}

// Dense reads a matrix written by Enc.Dense; a sparse matrix field is an
// error (Data reads either).
func (d *Dec) Dense() *mat.Dense {
	kind := d.kind()
	if d.err != nil {
		return nil
	}
	if kind > kindDense {
		d.Fail("matrix kind %d", kind)
		return nil
	}
	return d.denseBody(kind)
}

// denseBody reads a matrix of kind nil, empty or dense after its kind byte.
func (d *Dec) denseBody(kind byte) *mat.Dense {
	switch kind {
	case kindNil:
		return nil
	case kindEmpty:
		return &mat.Dense{}
	}
	r := d.Count("matrix rows", 8)
	c := d.Count("matrix columns", 8)
	if d.err != nil {
		return nil
	}
	if most := d.left() / 8; r == 0 || c == 0 || int64(c) > most/int64(r) {
		d.Fail("matrix %d×%d does not fit in the %d bytes left", r, c, d.left())
		return nil
	}
	data := make([]float64, r*c)
	d.floats(data)
	if d.err != nil {
		return nil
	}
	return mat.NewDense(r, c, data)
}

// Matrix reads a matrix written by Enc.Dense that must be present, non-empty,
// finite and of the given shape (a negative dimension means any); what names
// it in the error.
func (d *Dec) Matrix(what string, rows, cols int) *mat.Dense {
	return d.checkDense(what, d.Dense(), rows, cols)
}

// checkDense checks a decoded dense matrix as Matrix describes.
func (d *Dec) checkDense(what string, m *mat.Dense, rows, cols int) *mat.Dense {
	if d.err != nil {
		return nil
	}
	if m == nil || m.IsEmpty() {
		d.Fail("%s is missing", what)
		return nil
	}
	r, c := m.Dims()
	if (rows >= 0 && r != rows) || (cols >= 0 && c != cols) {
		d.Fail("%s is %d×%d, want %d×%d", what, r, c, rows, cols)
		return nil
	}
	if !finite(m.RawMatrix().Data) { // denseBody returns contiguous storage
		d.Fail("%s has non-finite entries", what)
		return nil
	}
	return m
}
