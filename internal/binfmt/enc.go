package binfmt

import (
	"encoding/binary"
	"hash"
	"io"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Enc writes payload fields. The zero Enc appends them to a byte slice
// (Bytes); the Encs WriteFunc passes to its fill function count the bytes or
// write them to the file in chunks.
type Enc struct {
	buf   []byte
	w     io.Writer   // streaming: buf is written to w once it holds chunk bytes
	crc   hash.Hash32 // streaming: the checksum of everything written
	count bool        // counting: buf is dropped once it holds chunk bytes
	n     int64       // bytes written (or counted) and dropped from buf
	err   error       // the first write error (streaming)
}

// Bytes returns the encoded payload of an in-memory Enc (the zero Enc).
func (e *Enc) Bytes() []byte { return e.buf }

// spill writes or drops buf once it holds chunk bytes (never for an
// in-memory Enc).
func (e *Enc) spill() {
	if len(e.buf) >= chunk && (e.w != nil || e.count) {
		e.flush()
	}
}

// flush writes or drops buf.
func (e *Enc) flush() {
	if e.w == nil && !e.count {
		return
	}
	if e.w != nil && e.err == nil {
		e.crc.Write(e.buf)
		_, e.err = e.w.Write(e.buf)
	}
	e.n += int64(len(e.buf))
	e.buf = e.buf[:0]
}

// Uint writes an unsigned varint.
func (e *Enc) Uint(v uint64) {
	e.buf = binary.AppendUvarint(e.buf, v)
	e.spill()
}

// Int writes a signed varint.
func (e *Enc) Int(v int) { e.Int64(int64(v)) }

// Int64 writes a signed varint.
func (e *Enc) Int64(v int64) {
	e.buf = binary.AppendVarint(e.buf, v)
	e.spill()
}

// Float writes the 8-byte IEEE-754 bit pattern of v (NaN payloads included).
func (e *Enc) Float(v float64) {
	e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v))
	e.spill()
}

// floats writes the bit patterns of v without a length (counting them
// without encoding when the Enc only counts).
func (e *Enc) floats(v []float64) {
	if e.count {
		e.flush()
		e.n += 8 * int64(len(v))
		return
	}
	for len(v) > 0 {
		k := min(len(v), chunk/8)
		for _, f := range v[:k] {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(f))
		}
		e.spill()
		v = v[k:]
	}
}

// Bool writes one byte, 0 or 1.
func (e *Enc) Bool(v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
	e.spill()
}

// bytes writes b without a length.
func (e *Enc) bytes(b []byte) {
	for len(b) > 0 {
		k := min(len(b), chunk)
		e.buf = append(e.buf, b[:k]...)
		e.spill()
		b = b[k:]
	}
}

// String writes a length-prefixed string.
func (e *Enc) String(s string) {
	e.Uint(uint64(len(s)))
	e.buf = append(e.buf, s...)
	e.spill()
}

// Blob writes a length-prefixed byte slice (a nested file, for example).
func (e *Enc) Blob(b []byte) {
	e.Uint(uint64(len(b)))
	e.bytes(b)
}

// Floats writes a length-prefixed float64 slice.
func (e *Enc) Floats(v []float64) {
	e.Uint(uint64(len(v)))
	e.floats(v)
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
		raw := m.RawMatrix()
		for i := 0; i < r; i++ {
			e.floats(raw.Data[i*raw.Stride : i*raw.Stride+c])
		}
	}
	e.spill()
}
