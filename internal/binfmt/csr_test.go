package binfmt

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// csrCase is a sparse matrix in the layout of Enc.CSR.
type csrCase struct {
	cols    int
	indptr  []int
	indices []int32
	values  []float64
}

// csrCases covers empty rows, a 0-row matrix, row pointers that do not start
// at 0 (a view into larger arrays), large gaps (multi-byte varints), the
// largest column index an int32 holds, and values that only an exact
// bit-pattern copy keeps (−0, NaN payloads are excluded: Data rejects them).
func csrCases() []csrCase {
	return []csrCase{
		{cols: 5, indptr: []int{0, 2, 2, 5}, indices: []int32{0, 4, 1, 2, 3}, values: []float64{1, -2, math.Copysign(0, -1), math.SmallestNonzeroFloat64, math.MaxFloat64}},
		{cols: 3, indptr: []int{0}},
		{cols: 7, indptr: []int{0, 0, 0}},
		{cols: 1000, indptr: []int{2, 3, 5}, indices: []int32{9, 9, 999, 0, 128}, values: []float64{9, 9, 0.5, 1e300, -1e-300}},
		{cols: MaxCSRCols, indptr: []int{0, 2}, indices: []int32{0, math.MaxInt32}, values: []float64{1, 2}},
	}
}

// Sparse matrices read back with the same shape, row pointers (rebased at
// 0), column indices and value bits; Data gives back a dense matrix for
// dense fields and a *CSR for sparse ones.
func TestCSRRoundTrip(t *testing.T) {
	for ci, c := range csrCases() {
		var e Enc
		if err := e.CSR(c.cols, c.indptr, c.indices, c.values); err != nil {
			t.Fatalf("case %d: %v", ci, err)
		}
		d := NewDec(e.Bytes())
		d.kind()
		m := d.csrBody()
		if err := d.Done(); err != nil {
			t.Fatalf("case %d: %v", ci, err)
		}
		rows := len(c.indptr) - 1
		if m.Rows != rows || m.Cols != c.cols {
			t.Fatalf("case %d: %d×%d, want %d×%d", ci, m.Rows, m.Cols, rows, c.cols)
		}
		ip, ix, vs := m.Indptr, m.Indices, m.Values
		p0, p1 := c.indptr[0], c.indptr[rows]
		for i := range c.indptr {
			if ip[i] != c.indptr[i]-p0 {
				t.Fatalf("case %d: indptr %v, want %v rebased", ci, ip, c.indptr)
			}
		}
		if !slices.Equal(ix, c.indices[p0:p1]) {
			t.Fatalf("case %d: indices %v, want %v", ci, ix, c.indices[p0:p1])
		}
		for p, v := range vs {
			if math.Float64bits(v) != math.Float64bits(c.values[p0+p]) {
				t.Fatalf("case %d: value %d is %v, want %v", ci, p, v, c.values[p0+p])
			}
		}
		// The bytes are those the layout in Enc.CSR's documentation gives:
		// re-encoding the decoded matrix writes the same field.
		var e2 Enc
		if err := e2.CSR(m.Cols, m.Indptr, m.Indices, m.Values); err != nil || !bytes.Equal(e2.Bytes(), e.Bytes()) {
			t.Fatalf("case %d: re-encoding differs (%v)", ci, err)
		}
	}

	var e Enc
	x := &CSR{Rows: 2, Cols: 4, Indptr: []int{0, 1, 3}, Indices: []int32{3, 0, 2}, Values: []float64{1.5, -2, 7}}
	dn := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	if err := e.CSR(x.Cols, x.Indptr, x.Indices, x.Values); err != nil {
		t.Fatal(err)
	}
	e.Dense(dn)
	d := NewDec(e.Bytes())
	if gd, gs := d.Data("sparse", 2, 4); gd != nil || gs == nil || !sameData(nil, gs, nil, x) {
		t.Fatalf("sparse data: %v %v %v", gd, gs, d.Err())
	}
	if gd, gs := d.Data("dense", 2, 2); gs != nil || !mat.Equal(gd, dn) {
		t.Fatalf("dense data: %v %v %v", gd, gs, d.Err())
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	// Dense refuses a sparse field; CSR refuses a dense one.
	e = Enc{}
	_ = e.CSR(x.Cols, x.Indptr, x.Indices, x.Values)
	e.Dense(dn)
	d = NewDec(e.Bytes())
	if d.Dense() != nil || !errors.Is(d.Err(), ErrFormat) {
		t.Errorf("Dense read a sparse field: %v", d.Err())
	}
	d = NewDec(e.Bytes()[len(e.Bytes())-(1+2+32):])
	if d.CSR("m", -1, -1) != nil || !errors.Is(d.Err(), ErrFormat) {
		t.Errorf("CSR read a dense field: %v", d.Err())
	}
}

// The encoder refuses arrays that are not a CSR matrix, writing nothing.
func TestCSREncodeRejects(t *testing.T) {
	bad := []csrCase{
		{cols: -1, indptr: []int{0}},
		{cols: MaxCSRCols + 1, indptr: []int{0}},
		{cols: 3},
		{cols: 3, indptr: []int{0, 2}, indices: []int32{0}, values: []float64{1}},
		{cols: 3, indptr: []int{1, 0}, indices: []int32{0}, values: []float64{1}},
		{cols: 3, indptr: []int{0, 2}, indices: []int32{1, 1}, values: []float64{1, 2}},
		{cols: 3, indptr: []int{0, 2}, indices: []int32{2, 1}, values: []float64{1, 2}},
		{cols: 3, indptr: []int{0, 1}, indices: []int32{3}, values: []float64{1}},
		{cols: 3, indptr: []int{0, 1}, indices: []int32{-1}, values: []float64{1}},
	}
	for i, c := range bad {
		var e Enc
		if err := e.CSR(c.cols, c.indptr, c.indices, c.values); err == nil || len(e.Bytes()) != 0 {
			t.Errorf("case %d accepted (%d bytes written)", i, len(e.Bytes()))
		}
	}
}

// csrField returns the bytes of the field: kind, rows, cols, nnz, the row
// counts, the index gaps and the values, each given as varints or floats.
func csrField(rows, cols, nnz uint64, counts, gaps []uint64, values []float64) []byte {
	var e Enc
	e.buf = append(e.buf, kindCSR)
	e.Uint(rows)
	e.Uint(cols)
	e.Uint(nnz)
	for _, c := range counts {
		e.Uint(c)
	}
	for _, g := range gaps {
		e.Uint(g)
	}
	for _, v := range values {
		e.Float(v)
	}
	return e.Bytes()
}

// Corrupt sparse fields fail with ErrFormat, before allocating anything a
// hostile count asks for; every truncation of a valid field fails too.
func TestCSRDecodeRejects(t *testing.T) {
	bad := map[string][]byte{
		"huge rows":               csrField(1<<40, 4, 0, nil, nil, nil),
		"huge nnz":                csrField(1, 4, 1<<40, []uint64{1}, []uint64{0}, []float64{1}),
		"rows and nnz too many":   csrField(9, 4, 1, make([]uint64, 9), []uint64{0}, []float64{1}),
		"too many columns":        csrField(1, MaxCSRCols+1, 0, []uint64{0}, nil, nil),
		"row count above cols":    csrField(1, 1, 2, []uint64{2}, []uint64{0, 0}, []float64{1, 2}),
		"row counts above nnz":    csrField(2, 4, 1, []uint64{1, 1}, []uint64{0, 0}, []float64{1, 2}),
		"row counts below nnz":    csrField(2, 4, 2, []uint64{1, 0}, []uint64{0, 0}, []float64{1, 2}),
		"index beyond cols":       csrField(1, 4, 1, []uint64{1}, []uint64{4}, []float64{1}),
		"later index past cols":   csrField(1, 4, 2, []uint64{2}, []uint64{2, 1}, []float64{1, 2}),
		"gap overflows":           csrField(1, 4, 2, []uint64{2}, []uint64{1, math.MaxUint64}, []float64{1, 2}),
		"non-finite value":        csrField(1, 4, 1, []uint64{1}, []uint64{0}, []float64{math.Inf(1)}),
		"NaN value":               csrField(1, 4, 1, []uint64{1}, []uint64{0}, []float64{math.NaN()}),
		"zero rows":               csrField(0, 4, 0, nil, nil, nil),
		"zero columns":            csrField(1, 0, 0, []uint64{0}, nil, nil),
		"unknown kind":            {4, 1, 1, 0, 0},
		"empty":                   {},
		"values cut":              csrField(1, 4, 1, []uint64{1}, []uint64{0}, nil),
		"counts cut after header": csrField(3, 4, 0, nil, nil, nil),
	}
	for name, b := range bad {
		d := NewDec(b)
		if m, s := d.Data("m", -1, -1); m != nil || s != nil || !errors.Is(d.Err(), ErrFormat) {
			t.Errorf("%s: got %v %v, err %v", name, m, s, d.Err())
		}
	}
	// A missing, empty, truncated or non-finite dense field fails too.
	for _, b := range [][]byte{{kindNil}, {kindEmpty}, {kindDense, 1, 1}, {kindDense, 1, 1, 0, 0, 0, 0, 0, 0, 0xf0, 0x7f}} {
		d := NewDec(b)
		if m, s := d.Data("m", -1, -1); m != nil || s != nil || !errors.Is(d.Err(), ErrFormat) {
			t.Errorf("dense field % x: got %#v %v, err %v", b, m, s, d.Err())
		}
	}
	var e Enc
	c := csrCases()[3]
	if err := e.CSR(c.cols, c.indptr, c.indices, c.values); err != nil {
		t.Fatal(err)
	}
	full := e.Bytes()
	for n := range len(full) {
		d := NewDec(full[:n])
		if m, s := d.Data("m", -1, -1); m != nil || s != nil || !errors.Is(d.Err(), ErrFormat) {
			t.Errorf("truncated at %d of %d bytes: got %v %v, err %v", n, len(full), m, s, d.Err())
		}
	}
	// Shape checks.
	d := NewDec(full)
	if _, s := d.Data("m", 2, 999); s != nil || !errors.Is(d.Err(), ErrFormat) {
		t.Errorf("wrong shape accepted: %v", d.Err())
	}
}

// The field costs what Enc.CSR's documentation says: here 20 non-zeros a
// row at gaps below 128 take 8 + 1 bytes each, plus one byte a row count
// and the header.
func TestCSRSize(t *testing.T) {
	const rows, per = 100, 20
	indptr := make([]int, rows+1)
	var indices []int32
	var values []float64
	for i := range rows {
		for k := range per {
			indices = append(indices, int32(5*k+i%5))
			values = append(values, float64(i*per+k)+0.5)
		}
		indptr[i+1] = len(values)
	}
	var e Enc
	if err := e.CSR(100, indptr, indices, values); err != nil {
		t.Fatal(err)
	}
	// kind 1 + rows 1 + cols 1 + nnz 2 (2,000 < 2¹⁴) + 100 counts + 2,000·9.
	if want := 1 + 1 + 1 + 2 + rows + rows*per*9; len(e.Bytes()) != want {
		t.Fatalf("%d bytes, want %d", len(e.Bytes()), want)
	}
}

// FuzzCSR feeds arbitrary bytes to Data: an error wrapping ErrFormat, or a
// matrix that re-encodes to a field reading back as the same matrix (not
// necessarily the same bytes: a varint may be written with redundant
// continuation bytes).
func FuzzCSR(f *testing.F) {
	for _, c := range csrCases() {
		var e Enc
		if err := e.CSR(c.cols, c.indptr, c.indices, c.values); err != nil {
			f.Fatal(err)
		}
		f.Add(e.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDec(b)
		m, s := d.Data("m", -1, -1)
		if d.Err() != nil {
			if !errors.Is(d.Err(), ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", d.Err())
			}
			return
		}
		var e Enc
		if s != nil {
			if err := e.CSR(s.Cols, s.Indptr, s.Indices, s.Values); err != nil {
				t.Fatal(err)
			}
		} else {
			e.Dense(m)
		}
		d2 := NewDec(e.Bytes())
		m2, s2 := d2.Data("m", -1, -1)
		if err := d2.Done(); err != nil || !sameData(m, s, m2, s2) {
			t.Fatalf("re-encoded matrix reads back as %v %v (%v)", m2, s2, err)
		}
	})
}

// sameData reports whether two decoded matrices, each dense (da, db) or
// sparse (sa, sb), are equal: same kind, shape and contents (sparse ones
// compared by their arrays).
func sameData(da *mat.Dense, sa *CSR, db *mat.Dense, sb *CSR) bool {
	if (sa == nil) != (sb == nil) {
		return false
	}
	if sa == nil {
		return mat.Equal(da, db)
	}
	return sa.Rows == sb.Rows && sa.Cols == sb.Cols && slices.Equal(sa.Indptr, sb.Indptr) &&
		slices.Equal(sa.Indices, sb.Indices) && slices.Equal(sa.Values, sb.Values)
}
