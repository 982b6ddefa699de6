package binfmt

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Matrix kinds: the byte that opens every matrix field.
const (
	kindNil   = 0 // no matrix
	kindEmpty = 1 // a zero-sized *mat.Dense
	kindDense = 2 // rows, columns, row-major float64 data
	kindCSR   = 3 // rows, columns, compressed sparse rows (format version ≥ 3)
)

// MaxCSRCols is the most columns a sparse matrix field may have: column
// indices are int32, as in the kernel package's sparse rows.
const MaxCSRCols = math.MaxInt32 + 1

// CSR holds a decoded sparse matrix field: Rows = len(Indptr)−1 rows of Cols
// columns, row i holding Values[Indptr[i]:Indptr[i+1]] at the strictly
// increasing column indices Indices[Indptr[i]:Indptr[i+1]], Indptr[0] = 0.
// (The callers turn it into the kernel package's CSR rows: this package
// knows numbers, not kernels.)
type CSR struct {
	Rows, Cols int
	Indptr     []int
	Indices    []int32
	Values     []float64
}

// CSR writes a sparse matrix field with cols columns and len(indptr)−1 rows:
// row i holds values[indptr[i]:indptr[i+1]] at the strictly increasing column
// indices indices[indptr[i]:indptr[i+1]] (indptr[0] need not be 0). The field is
//
//	kind byte 3, rows, cols, nnz          unsigned varints
//	rows × (non-zeros of the row)         unsigned varints
//	nnz × column index                    unsigned varints, per row the first
//	                                      index, then each gap minus one
//	nnz × value                           float64 bit patterns, 8 bytes
//
// so a matrix costs at most 8·nnz + 5·nnz + 5·rows + 16 bytes (at most
// 8 + 1 bytes a non-zero when gaps are below 128), and each value is stored
// exactly. Arrays that are not a valid CSR matrix are an error (nothing is
// written then).
func (e *Enc) CSR(cols int, indptr []int, indices []int32, values []float64) error {
	if err := checkCSR(cols, indptr, indices, values); err != nil {
		return err
	}
	rows := len(indptr) - 1
	p0, p1 := indptr[0], indptr[rows]
	e.buf = append(e.buf, kindCSR)
	e.spill()
	e.Uint(uint64(rows))
	e.Uint(uint64(cols))
	e.Uint(uint64(p1 - p0))
	for i := range rows {
		e.Uint(uint64(indptr[i+1] - indptr[i]))
	}
	for i := range rows {
		prev := int64(-1)
		for _, j := range indices[indptr[i]:indptr[i+1]] {
			e.Uint(uint64(int64(j) - prev - 1))
			prev = int64(j)
		}
	}
	e.floats(values[p0:p1])
	return nil
}

// checkCSR checks the arrays of a sparse matrix before writing them.
func checkCSR(cols int, indptr []int, indices []int32, values []float64) error {
	if cols < 0 || int64(cols) > MaxCSRCols {
		return fmt.Errorf("sparse matrix with %d columns (at most %d)", cols, int64(MaxCSRCols))
	}
	if len(indptr) == 0 {
		return fmt.Errorf("sparse matrix without row pointers")
	}
	rows := len(indptr) - 1
	if indptr[0] < 0 || indptr[rows] > len(indices) || indptr[rows] > len(values) {
		return fmt.Errorf("sparse matrix row pointers %d…%d outside the %d indices and %d values", indptr[0], indptr[rows], len(indices), len(values))
	}
	for i := range rows {
		a, b := indptr[i], indptr[i+1]
		if b < a {
			return fmt.Errorf("sparse matrix row pointers decrease at row %d", i)
		}
		prev := int32(-1)
		for _, j := range indices[a:b] {
			if j <= prev || int(j) >= cols {
				return fmt.Errorf("sparse matrix row %d: column index %d not increasing or not below %d columns", i, j, cols)
			}
			prev = j
		}
	}
	return nil
}

// csrBody reads a CSR field after its kind byte. Every count is checked
// against the bytes left before anything is allocated: a row takes at least
// one byte (its count) and a non-zero at least nine (an index varint and a
// value). Row counts must sum to nnz and not exceed cols; column indices must
// be strictly increasing within a row and below cols.
func (d *Dec) csrBody() *CSR {
	rows := d.Count("sparse matrix rows", 1)
	cols := d.Uint()
	nnz := d.Count("sparse matrix non-zeros", 9)
	if d.err != nil {
		return nil
	}
	if cols > MaxCSRCols {
		d.Fail("sparse matrix with %d columns (at most %d)", cols, int64(MaxCSRCols))
		return nil
	}
	if need := uint64(rows) + 9*uint64(nnz); need > uint64(d.left()) {
		d.Fail("sparse matrix of %d rows and %d non-zeros does not fit in the %d bytes left", rows, nnz, d.left())
		return nil
	}
	indptr := make([]int, rows+1)
	for i := range rows {
		c := d.Uint()
		if d.err != nil {
			return nil
		}
		if c > cols || c > uint64(nnz-indptr[i]) {
			d.Fail("sparse matrix row %d: %d non-zeros (%d columns, %d non-zeros left)", i, c, cols, nnz-indptr[i])
			return nil
		}
		indptr[i+1] = indptr[i] + int(c)
	}
	if indptr[rows] != nnz {
		d.Fail("sparse matrix rows hold %d non-zeros, the header says %d", indptr[rows], nnz)
		return nil
	}
	indices := make([]int32, nnz)
	for i := range rows {
		next := uint64(0) // the smallest index the next entry may take
		for p := indptr[i]; p < indptr[i+1]; p++ {
			g := d.Uint()
			if d.err != nil {
				return nil
			}
			if g >= cols-next { // next + g ≥ cols, without overflow
				d.Fail("sparse matrix row %d: column index beyond %d columns", i, cols)
				return nil
			}
			j := next + g
			indices[p] = int32(j)
			next = j + 1
		}
	}
	values := make([]float64, nnz)
	d.floats(values)
	if d.err != nil {
		return nil
	}
	return &CSR{Rows: rows, Cols: int(cols), Indptr: indptr, Indices: indices, Values: values}
}

// CSR reads a sparse matrix written by Enc.CSR that must be present, of the
// given shape (a negative dimension means any; rows ≥ 1) and with finite
// values; what names it in the error.
func (d *Dec) CSR(what string, rows, cols int) *CSR {
	kind := d.kind()
	if d.err != nil {
		return nil
	}
	if kind != kindCSR {
		d.Fail("%s: matrix kind %d, want a sparse matrix (%d)", what, kind, kindCSR)
		return nil
	}
	return d.checkCSR(what, d.csrBody(), rows, cols)
}

// checkCSR checks a decoded sparse matrix as CSR describes.
func (d *Dec) checkCSR(what string, m *CSR, rows, cols int) *CSR {
	if d.err != nil {
		return nil
	}
	if m.Rows == 0 || m.Cols == 0 {
		d.Fail("%s is missing (%d×%d)", what, m.Rows, m.Cols)
		return nil
	}
	if (rows >= 0 && m.Rows != rows) || (cols >= 0 && m.Cols != cols) {
		d.Fail("%s is %d×%d, want %d×%d", what, m.Rows, m.Cols, rows, cols)
		return nil
	}
	if !finite(m.Values) {
		d.Fail("%s has non-finite entries", what)
		return nil
	}
	return m
}

// Data reads a data matrix field written by Enc.Dense or Enc.CSR, present,
// non-empty, finite and of the given shape (a negative dimension means any):
// either a dense matrix or a sparse one, the other result nil (both nil after
// an error); what names it in the error.
func (d *Dec) Data(what string, rows, cols int) (*mat.Dense, *CSR) {
	kind := d.kind()
	if d.err != nil {
		return nil, nil
	}
	switch kind {
	case kindCSR:
		return nil, d.checkCSR(what, d.csrBody(), rows, cols)
	case kindNil, kindEmpty, kindDense:
		return d.checkDense(what, d.denseBody(kind), rows, cols), nil
	}
	d.Fail("%s: matrix kind %d", what, kind)
	return nil, nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
