package binfmt

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Every field type reads back exactly what was written, NaN payloads and
// signed zeros included.
func TestFieldsRoundTrip(t *testing.T) {
	var e Enc
	e.Uint(math.MaxUint64)
	e.Int(-7)
	e.Int64(math.MinInt64)
	e.Float(math.Copysign(0, -1))
	e.Float(math.NaN())
	e.Bool(true)
	e.String("γ=½")
	e.Blob([]byte{0, 1, 2})
	e.Floats([]float64{1.5, math.Inf(-1)})
	e.Ints([]int{-1, 0, 1 << 40})
	e.Dense(nil)
	e.Dense(&mat.Dense{})
	e.Dense(mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}))
	d := NewDec(e.Bytes())
	if d.Uint() != math.MaxUint64 || d.Int() != -7 || d.Int64() != math.MinInt64 {
		t.Error("integers")
	}
	if z := d.Float(); z != 0 || !math.Signbit(z) {
		t.Error("-0")
	}
	if !math.IsNaN(d.Float()) || !d.Bool() || d.String() != "γ=½" || !bytes.Equal(d.Blob(), []byte{0, 1, 2}) {
		t.Error("float/bool/string/blob")
	}
	if f := d.Floats(); len(f) != 2 || f[0] != 1.5 || !math.IsInf(f[1], -1) {
		t.Errorf("floats %v", f)
	}
	if v := d.Ints(); len(v) != 3 || v[0] != -1 || v[2] != 1<<40 {
		t.Errorf("ints %v", v)
	}
	if d.Dense() != nil || !d.Dense().IsEmpty() {
		t.Error("nil/empty matrices")
	}
	if m := d.Dense(); !mat.Equal(m, mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})) {
		t.Error("matrix")
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
}

// Counts larger than the bytes left are rejected before allocation; a count
// that fits only when the bytes of the count itself are included (the bug
// FuzzDecode found) is rejected too.
func TestCountBounds(t *testing.T) {
	var e Enc
	e.Uint(1 << 62) // a huge matrix
	e.Uint(1 << 62)
	d := NewDec(append([]byte{2}, e.Bytes()...))
	if d.Dense() != nil || !errors.Is(d.Err(), ErrFormat) {
		t.Errorf("huge matrix: %v", d.Err())
	}
	// A string length of 2 followed by one byte: the varint itself is one of
	// the "3 bytes" a bound computed before reading it would allow.
	d = NewDec([]byte{2, 'a'})
	if d.String() != "" || !errors.Is(d.Err(), ErrFormat) {
		t.Errorf("short string: %v", d.Err())
	}
	d = NewDec([]byte{1, 0, 0, 0, 0, 0, 0, 0})
	if d.Floats() != nil || !errors.Is(d.Err(), ErrFormat) {
		t.Errorf("short floats: %v", d.Err())
	}
	d = NewDec([]byte{2})
	if d.Bool(); !errors.Is(d.Err(), ErrFormat) {
		t.Error("bool byte 2 accepted")
	}
	d = NewDec([]byte{0, 1})
	d.Bool()
	if err := d.Done(); !errors.Is(err, ErrFormat) {
		t.Error("trailing byte accepted")
	}
}

func TestContainer(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, "x.Y", []byte("payload")); err != nil {
		t.Fatal(err)
	}
	if err := Write(&b, "second", nil); err != nil {
		t.Fatal(err)
	}
	tag, p, err := Read(&b)
	if err != nil || tag != "x.Y" || string(p) != "payload" {
		t.Fatalf("%q %q %v", tag, p, err)
	}
	if tag, p, err = Read(&b); err != nil || tag != "second" || len(p) != 0 {
		t.Fatalf("second file: %q %q %v", tag, p, err)
	}
	if err := Write(&b, "", nil); err == nil {
		t.Error("empty tag written")
	}
	// A payload length far beyond the data: an error, not a huge allocation.
	var h bytes.Buffer
	_ = Write(&h, "t", nil)
	raw := h.Bytes()
	for i := 12; i < 20; i++ {
		raw[i] = 0x7f
	}
	if _, _, err := Read(bytes.NewReader(raw)); !errors.Is(err, ErrFormat) {
		t.Errorf("lying length: %v", err)
	}
}
