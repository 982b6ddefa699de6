package binfmt

import (
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/kernel"
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
// indices are int32, as in kernel.Sparse.
const MaxCSRCols = math.MaxInt32 + 1

// CSR writes a sparse matrix field with cols columns and len(indptr)−1 rows:
// row i holds values[indptr[i]:indptr[i+1]] at the strictly increasing column
// indices indices[indptr[i]:indptr[i+1]] (the layout of kernel.Sparse;
// indptr[0] need not be 0). The field is
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
	if cols < 0 || cols > MaxCSRCols {
		return fmt.Errorf("binfmt: sparse matrix with %d columns (at most %d)", cols, MaxCSRCols)
	}
	if len(indptr) == 0 {
		return fmt.Errorf("binfmt: sparse matrix without row pointers")
	}
	rows := len(indptr) - 1
	if indptr[0] < 0 || indptr[rows] > len(indices) || indptr[rows] > len(values) {
		return fmt.Errorf("binfmt: sparse matrix row pointers %d…%d outside the %d indices and %d values", indptr[0], indptr[rows], len(indices), len(values))
	}
	for i := range rows {
		a, b := indptr[i], indptr[i+1]
		if b < a {
			return fmt.Errorf("binfmt: sparse matrix row pointers decrease at row %d", i)
		}
		prev := int32(-1)
		for _, j := range indices[a:b] {
			if j <= prev || int(j) >= cols {
				return fmt.Errorf("binfmt: sparse matrix row %d: column index %d not increasing or not below %d columns", i, j, cols)
			}
			prev = j
		}
	}
	return nil
}

// Sparse writes the sparse matrix x as a CSR field (see CSR).
func (e *Enc) Sparse(x kernel.Sparse) error {
	_, c := x.Dims()
	indptr, indices, values := x.CSR()
	return e.CSR(c, indptr, indices, values)
}

// Data writes a data matrix in its own format: a kernel.Sparse as a CSR
// field, a *mat.Dense as Dense does (nil and empty included), any other
// matrix as a dense copy. Dec.Data reads it back.
func (e *Enc) Data(x mat.Matrix) error {
	switch m := x.(type) {
	case nil:
		e.Dense(nil)
	case *mat.Dense:
		e.Dense(m)
	case kernel.Sparse:
		return e.Sparse(m)
	default:
		e.Dense(mat.DenseCopyOf(m))
	}
	return nil
}

// csrBody reads a CSR field after its kind byte. Every count is checked
// against the bytes left before anything is allocated: a row takes at least
// one byte (its count) and a non-zero at least nine (an index varint and a
// value). Row counts must sum to nnz and not exceed cols; column indices must
// be strictly increasing within a row and below cols.
func (d *Dec) csrBody() *kernel.CSRRows {
	rows := d.Count("sparse matrix rows", 1)
	cols := d.Uint()
	nnz := d.Count("sparse matrix non-zeros", 9)
	if d.err != nil {
		return nil
	}
	if cols > MaxCSRCols {
		d.Fail("sparse matrix with %d columns (at most %d)", cols, MaxCSRCols)
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
	return kernel.NewCSRRows(int(cols), indptr, indices, values)
}

// CSR reads a sparse matrix written by Enc.CSR that must be present, of the
// given shape (a negative dimension means any; rows ≥ 1) and with finite
// values; what names it in the error.
func (d *Dec) CSR(what string, rows, cols int) *kernel.CSRRows {
	kind := d.kind()
	if d.err != nil {
		return nil
	}
	if kind != kindCSR {
		d.Fail("%s: matrix kind %d, want a sparse matrix (%d)", what, kind, kindCSR)
		return nil
	}
	m := d.csrBody()
	if d.err != nil {
		return nil
	}
	if !d.checkShape(what, m, rows, cols) {
		return nil
	}
	_, _, values := m.CSR()
	if !finite(values) {
		d.Fail("%s has non-finite entries", what)
		return nil
	}
	return m
}

// Data reads a data matrix written by Enc.Data (or Enc.Dense, or Enc.CSR):
// a *mat.Dense or a *kernel.CSRRows, present, non-empty, finite and of the
// given shape (a negative dimension means any); what names it in the error.
func (d *Dec) Data(what string, rows, cols int) mat.Matrix {
	kind := d.kind()
	if d.err != nil {
		return nil
	}
	switch kind {
	case kindCSR:
		m := d.csrBody()
		if d.err != nil {
			return nil
		}
		if !d.checkShape(what, m, rows, cols) {
			return nil
		}
		if _, _, values := m.CSR(); !finite(values) {
			d.Fail("%s has non-finite entries", what)
			return nil
		}
		return m
	case kindNil, kindEmpty, kindDense:
		if m := d.checkDense(what, d.denseBody(kind), rows, cols); m != nil {
			return m
		}
		return nil // an untyped nil, not a nil *mat.Dense in the interface
	}
	d.Fail("%s: matrix kind %d", what, kind)
	return nil
}

// checkShape checks a decoded sparse matrix: at least one row and column,
// and the given shape.
func (d *Dec) checkShape(what string, m mat.Matrix, rows, cols int) bool {
	r, c := m.Dims()
	if r == 0 || c == 0 {
		d.Fail("%s is missing (%d×%d)", what, r, c)
		return false
	}
	if (rows >= 0 && r != rows) || (cols >= 0 && c != cols) {
		d.Fail("%s is %d×%d, want %d×%d", what, r, c, rows, cols)
		return false
	}
	return true
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
