package kernel

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Precomputed is a kernel whose values the caller computed, LIBSVM's -t 4
// and scikit-learn's kernel="precomputed": the kernel of strings, graphs or
// any other objects, or one computed elsewhere. Its rows are kernel rows in
// LIBSVM's layout: the row of a training point x_i is
//
//	[i, K(x_i, x_1), K(x_i, x_2), …, K(x_i, x_n)]
//
// (the serial number i, 1-based, then the kernel against the n training
// points in their order), so that d = n + 1; a query point x has [any,
// K(x, x_1), …, K(x, x_n)], its first entry unused (LIBSVM's "0:?").
// k(x, y) = x[serial(y)], where y is a training row: the serial picks y's
// column of x's kernel row. Rows of a subset of the training points (a
// cross-validation fold, the support vectors) keep their serials, which
// still index the full kernel rows.
//
// The estimators that need only k between the given rows take it: the
// SVMs and exact KRR (package model). Those that make new points (k-means
// centers, random features) or transform X (feature scaling) cannot.
// CheckPrecomputed checks the serials of training rows; Eval, Block and
// Diag give NaN for a row whose serial is not an integer in [1, d−1].
type Precomputed struct{}

// serial returns the column of a row's serial y0 in kernel rows of d
// entries, or −1 when y0 is not an integer in [1, d−1].
func serial(y0 float64, d int) int {
	if !(y0 >= 1 && y0 <= float64(d-1)) || y0 != math.Trunc(y0) {
		return -1
	}
	return int(y0)
}

// Eval returns x[y[0]]: K(x, y) for a training row y (NaN for a bad serial).
func (Precomputed) Eval(x, y []float64) float64 {
	if len(x) != len(y) {
		panic(fmt.Sprintf("kernel: precomputed rows of %d and %d entries", len(x), len(y)))
	}
	s := -1
	if len(y) > 0 {
		s = serial(y[0], len(y))
	}
	if s < 0 {
		return math.NaN()
	}
	return x[s]
}

// Block writes dst[i][j] = a_i[b_j[0]]: K(A, B) for training rows B.
func (p Precomputed) Block(dst, a, b *mat.Dense) {
	ra, da := a.Dims()
	rb, db := b.Dims()
	if dr, dc := dst.Dims(); dr != ra || dc != rb || da != db {
		panic(fmt.Sprintf("kernel: precomputed block %d×%d of %d×%d and %d×%d rows", dr, dc, ra, da, rb, db))
	}
	cols := make([]int, rb)
	for j := range cols {
		cols[j] = serial(b.At(j, 0), db)
	}
	for i := range ra {
		row := a.RawRowView(i)
		out := dst.RawRowView(i)
		for j, s := range cols {
			if s < 0 {
				out[j] = math.NaN()
			} else {
				out[j] = row[s]
			}
		}
	}
}

// Diag writes a_i[a_i[0]], K(x_i, x_i), into dst.
func (Precomputed) Diag(dst []float64, a *mat.Dense) {
	r, d := a.Dims()
	if len(dst) != r {
		panic(fmt.Sprintf("kernel: precomputed diagonal of %d rows into %d", r, len(dst)))
	}
	for i := range dst {
		row := a.RawRowView(i)
		if s := serial(row[0], d); s >= 0 {
			dst[i] = row[s]
		} else {
			dst[i] = math.NaN()
		}
	}
}

// ShiftInvariant returns false.
func (Precomputed) ShiftInvariant() bool { return false }

// Validate returns nil: the kernel has no parameters.
func (Precomputed) Validate() error { return nil }

// String returns "precomputed".
func (Precomputed) String() string { return "precomputed" }

// CheckPrecomputed checks that x holds training rows of a precomputed
// kernel: at least two columns, and in each row a serial number, an
// integer in [1, d−1], in column 0. The error (wrapping ErrParam) names the
// first bad row, 0-based.
func CheckPrecomputed(x mat.Matrix) error {
	n, d := x.Dims()
	if d < 2 {
		return fmt.Errorf("%w: precomputed kernel rows have %d columns, want the serial number and the kernel against each training point", ErrParam, d)
	}
	for i := range n {
		var v float64
		if sp, ok := x.(Sparse); ok {
			indptr, indices, values := sp.CSR()
			if a := indptr[i]; a < indptr[i+1] && indices[a] == 0 {
				v = values[a]
			}
		} else {
			v = x.At(i, 0)
		}
		if serial(v, d) < 0 {
			return fmt.Errorf("%w: precomputed kernel: row %d has serial number %g in column 0, want an integer from 1 to %d (the number of training points; LIBSVM's 0:i)", ErrParam, i, v, d-1)
		}
	}
	return nil
}

// sparsePrecomputed returns x's entry at column s from a sparse row's
// sorted indices and values (0 when not stored), or NaN for s < 0.
func sparsePrecomputed(xi []int32, xv []float64, s int) float64 {
	if s < 0 {
		return math.NaN()
	}
	p := sort.Search(len(xi), func(k int) bool { return int(xi[k]) >= s })
	if p < len(xi) && int(xi[p]) == s {
		return xv[p]
	}
	return 0
}

// sparseSerial is the serial of a sparse row of d columns (its stored
// column 0; −1 when absent or bad).
func sparseSerial(yi []int32, yv []float64, d int) int {
	if len(yi) == 0 || yi[0] != 0 {
		return -1
	}
	return serial(yv[0], d)
}
