// Package binfmt is the container and field encoding of Landmark's saved
// models and approximations (the format is documented for users in the
// "Saved models" section of package model's documentation).
//
// A file is
//
//	offset  size  field
//	0       8     magic "LANDMARK"
//	8       2     format version, uint16 little-endian (Version)
//	10      1     length L of the type tag, 1 ≤ L ≤ MaxTag
//	11      L     type tag, ASCII (e.g. "model.KRR", "approx.NystromMap")
//	11+L    8     payload length P, uint64 little-endian
//	19+L    P     payload (fields written by Enc, read by Dec)
//	19+L+P  4     CRC-32C (Castagnoli) of bytes [0, 19+L+P), little-endian
//
// Payload fields are unsigned and signed varints (encoding/binary), IEEE-754
// float64 bit patterns (8 bytes, little-endian), length-prefixed strings,
// float and int slices, and matrices (a kind byte, then rows, columns and
// either the row-major data or, for sparse matrices, the compressed rows; see
// Enc.CSR). Every length read is bounded by the bytes left in the
// payload before anything is allocated, so a corrupt or hostile file costs
// at most its own size in memory and fails with an error wrapping ErrFormat.
package binfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Magic opens every saved file.
const Magic = "LANDMARK"

// Version is the format version this build writes. Version 2 added Falkon's
// Patience and FalkonInfo.BestIteration; version 3 added sparse (CSR)
// matrices (matrix kind 3, written by Enc.CSR). Version 3 is a superset of
// version 2, so files of both are read (MinVersion); files of version 1 are
// refused with ErrVersion rather than misread.
const Version = 3

// MinVersion is the oldest format version this build reads.
const MinVersion = 2

// MaxTag is the longest type tag.
const MaxTag = 64

// ErrFormat is wrapped by every error about a malformed, truncated, corrupted,
// unsupported or unexpected saved file.
var ErrFormat = errors.New("invalid saved file")

// ErrChecksum is wrapped (together with ErrFormat) when the CRC does not match.
var ErrChecksum = errors.New("checksum mismatch")

// ErrVersion is wrapped (together with ErrFormat) when the file's format
// version is not Version.
var ErrVersion = errors.New("unsupported format version")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Write writes one file: the header with tag, the payload and its checksum.
func Write(w io.Writer, tag string, payload []byte) error {
	if len(tag) < 1 || len(tag) > MaxTag {
		return fmt.Errorf("binfmt: tag %q: length must be 1…%d", tag, MaxTag)
	}
	buf := make([]byte, 0, 23+len(tag)+len(payload))
	buf = append(buf, Magic...)
	buf = binary.LittleEndian.AppendUint16(buf, Version)
	buf = append(buf, byte(len(tag)))
	buf = append(buf, tag...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(payload)))
	buf = append(buf, payload...)
	buf = binary.LittleEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
	_, err := w.Write(buf)
	return err
}

// Read reads one file from r, checks magic, version and checksum, and returns
// its tag and payload. It reads exactly the file's bytes, so several files can
// follow each other in one stream. Memory grows with the bytes actually read,
// never with a length field alone.
func Read(r io.Reader) (tag string, payload []byte, err error) {
	head := make([]byte, 11)
	if _, err := io.ReadFull(r, head); err != nil {
		return "", nil, truncated("header", err)
	}
	if string(head[:8]) != Magic {
		return "", nil, fmt.Errorf("%w: not a Landmark file (magic %q, want %q)", ErrFormat, head[:8], Magic)
	}
	if v := binary.LittleEndian.Uint16(head[8:]); v < MinVersion || v > Version {
		return "", nil, fmt.Errorf("%w: %w %d (this build reads versions %d to %d)", ErrFormat, ErrVersion, v, MinVersion, Version)
	}
	tl := int(head[10])
	if tl < 1 || tl > MaxTag {
		return "", nil, fmt.Errorf("%w: type tag length %d, want 1…%d", ErrFormat, tl, MaxTag)
	}
	rest := make([]byte, tl+8)
	if _, err := io.ReadFull(r, rest); err != nil {
		return "", nil, truncated("header", err)
	}
	tag = string(rest[:tl])
	for _, c := range []byte(tag) {
		if c < 0x21 || c > 0x7e {
			return "", nil, fmt.Errorf("%w: type tag %q is not printable ASCII", ErrFormat, tag)
		}
	}
	plen := binary.LittleEndian.Uint64(rest[tl:])
	if plen > math.MaxInt64-4 {
		return "", nil, fmt.Errorf("%w: payload length %d", ErrFormat, plen)
	}
	// ReadAll grows its buffer with the data, so a lying length costs
	// nothing but a "truncated" error.
	body, err := io.ReadAll(io.LimitReader(r, int64(plen)+4))
	if err != nil {
		return "", nil, fmt.Errorf("%w: reading payload: %w", ErrFormat, err)
	}
	if uint64(len(body)) != plen+4 {
		return "", nil, fmt.Errorf("%w: truncated: payload and checksum need %d bytes, got %d", ErrFormat, plen+4, len(body))
	}
	h := crc32.New(castagnoli)
	h.Write(head)
	h.Write(rest)
	h.Write(body[:plen])
	if got, want := h.Sum32(), binary.LittleEndian.Uint32(body[plen:]); got != want {
		return "", nil, fmt.Errorf("%w: %w (stored %08x, computed %08x)", ErrFormat, ErrChecksum, want, got)
	}
	return tag, body[:plen], nil
}

func truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: truncated %s", ErrFormat, what)
	}
	return fmt.Errorf("%w: reading %s: %w", ErrFormat, what, err)
}

// Enc appends payload fields to a byte slice.
type Enc struct {
	buf []byte
}

// Bytes returns the encoded payload.
func (e *Enc) Bytes() []byte { return e.buf }

// Uint writes an unsigned varint.
func (e *Enc) Uint(v uint64) { e.buf = binary.AppendUvarint(e.buf, v) }

// Int writes a signed varint.
func (e *Enc) Int(v int) { e.buf = binary.AppendVarint(e.buf, int64(v)) }

// Int64 writes a signed varint.
func (e *Enc) Int64(v int64) { e.buf = binary.AppendVarint(e.buf, v) }

// Float writes the 8-byte IEEE-754 bit pattern of v (NaN payloads included).
func (e *Enc) Float(v float64) { e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v)) }

// Bool writes one byte, 0 or 1.
func (e *Enc) Bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
}

// String writes a length-prefixed string.
func (e *Enc) String(s string) {
	e.Uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
}

// Blob writes a length-prefixed byte slice (a nested file, for example).
func (e *Enc) Blob(b []byte) {
	e.Uint(uint64(len(b)))
	e.buf = append(e.buf, b...)
}

// Floats writes a length-prefixed float64 slice.
func (e *Enc) Floats(v []float64) {
	e.Uint(uint64(len(v)))
	for _, f := range v {
		e.Float(f)
	}
}

// Ints writes a length-prefixed int slice.
func (e *Enc) Ints(v []int) {
	e.Uint(uint64(len(v)))
	for _, x := range v {
		e.Int(x)
	}
}

// Dense writes a matrix: nil, empty (zero-sized) or rows×cols data.
func (e *Enc) Dense(m *mat.Dense) {
	switch {
	case m == nil:
		e.buf = append(e.buf, kindNil)
	case m.IsEmpty():
		e.buf = append(e.buf, kindEmpty)
	default:
		r, c := m.Dims()
		e.buf = append(e.buf, kindDense)
		e.Uint(uint64(r))
		e.Uint(uint64(c))
		e.buf = slices.Grow(e.buf, 8*r*c)
		raw := m.RawMatrix()
		for i := 0; i < r; i++ {
			for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
				e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
			}
		}
	}
}

// Kernel writes a kernel by its kernel.Spec (nil is allowed). Kernels defined
// outside package kernel cannot be saved.
func (e *Enc) Kernel(k kernel.Kernel) error {
	if k == nil {
		e.String("")
		return nil
	}
	s, ok := kernel.SpecOf(k)
	if !ok {
		return fmt.Errorf("binfmt: kernel %T has no kernel.Spec and cannot be saved", k)
	}
	e.String(s.Type)
	e.Float(s.Gamma)
	e.Float(s.Sigma)
	e.Int(s.Degree)
	e.Float(s.Coef0)
	return nil
}

// Dec reads payload fields. The first error is sticky: later reads return
// zero values and Err reports it.
type Dec struct {
	buf []byte
	off int
	err error
}

// NewDec reads the payload p.
func NewDec(p []byte) *Dec { return &Dec{buf: p} }

// Err returns the first error met, wrapping ErrFormat.
func (d *Dec) Err() error { return d.err }

// Fail records an error (if none yet) about the payload's content.
func (d *Dec) Fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
	}
}

// Done checks that the whole payload was read and returns Err.
func (d *Dec) Done() error {
	if d.err == nil && d.off != len(d.buf) {
		d.Fail("%d unread bytes after the last field", len(d.buf)-d.off)
	}
	return d.err
}

func (d *Dec) left() int { return len(d.buf) - d.off }

// Uint reads an unsigned varint.
func (d *Dec) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated varint at byte %d", d.off)
		return 0
	}
	d.off += n
	return v
}

// Int64 reads a signed varint.
func (d *Dec) Int64() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf[d.off:])
	if n <= 0 {
		d.Fail("bad or truncated varint at byte %d", d.off)
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
	if most := d.left() / max(minBytes, 1); v > uint64(most) {
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
	if d.left() < 8 {
		d.Fail("truncated float at byte %d", d.off)
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(d.buf[d.off:]))
	d.off += 8
	return v
}

// Bool reads a byte that must be 0 or 1.
func (d *Dec) Bool() bool {
	if d.err != nil {
		return false
	}
	if d.left() < 1 {
		d.Fail("truncated bool at byte %d", d.off)
		return false
	}
	b := d.buf[d.off]
	d.off++
	if b > 1 {
		d.Fail("bool byte %d at byte %d", b, d.off-1)
	}
	return b == 1
}

// Blob reads a length-prefixed byte slice (a copy).
func (d *Dec) Blob() []byte {
	n := d.Count("byte length", 1)
	if d.err != nil {
		return nil
	}
	b := append([]byte(nil), d.buf[d.off:d.off+n]...)
	d.off += n
	return b
}

// String reads a length-prefixed string.
func (d *Dec) String() string {
	n := d.Count("string length", 1)
	if d.err != nil {
		return ""
	}
	s := string(d.buf[d.off : d.off+n])
	d.off += n
	return s
}

// Floats reads a float64 slice (nil when empty).
func (d *Dec) Floats() []float64 {
	n := d.Count("float count", 8)
	if d.err != nil || n == 0 {
		return nil
	}
	v := make([]float64, n)
	for i := range v {
		v[i] = d.Float()
	}
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
	if d.left() < 1 {
		d.Fail("truncated matrix at byte %d", d.off)
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
	if most := d.left() / 8; r == 0 || c == 0 || c > most/r {
		d.Fail("matrix %d×%d does not fit in the %d bytes left", r, c, d.left())
		return nil
	}
	data := make([]float64, r*c)
	src := d.buf[d.off : d.off+8*len(data)]
	for i := range data {
		data[i] = math.Float64frombits(binary.LittleEndian.Uint64(src[8*i:]))
	}
	d.off += 8 * len(data)
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

// Kernel reads a kernel written by Enc.Kernel and validates it with
// kernel.New; nil when none was saved.
func (d *Dec) Kernel() kernel.Kernel {
	typ := d.String()
	if d.err != nil || typ == "" {
		return nil
	}
	s := kernel.Spec{Type: typ, Gamma: d.Float(), Sigma: d.Float(), Degree: d.Int(), Coef0: d.Float()}
	if d.err != nil {
		return nil
	}
	k, err := kernel.New(s)
	if err != nil {
		d.Fail("kernel: %v", err)
		return nil
	}
	return k
}
