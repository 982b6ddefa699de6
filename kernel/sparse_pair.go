package kernel

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// This file evaluates kernels between two sparse rows, the sparse–sparse
// half of the sparse path: exact kernel matrices and the SVM's kernel
// columns, where both arguments are data points. Two rows are walked together
// in increasing column order (a sorted-index merge), so a pair costs
// O(nnz(x) + nnz(y)) and never touches the zeros.
//
// The Gaussian kernel merges ‖x − y‖² directly (Σ over the union of
// (x_k − y_k)², with x_k² and y_k² where only one side is stored) instead of
// expanding ‖x‖² + ‖y‖² − 2x·y with precomputed norms: the merge costs the
// same either way, and the direct sum has no cancellation when x and y are
// close, so it needs no clamp at zero and no norm arrays.

// CSRRows is a compressed-sparse-row matrix assembled by the kernel package
// from rows of another Sparse matrix (SubsetRows). It implements Sparse, so
// it can be passed wherever data X is taken.
type CSRRows struct {
	indptr  []int
	indices []int32
	values  []float64
	cols    int
}

var _ Sparse = (*CSRRows)(nil)

// SubsetRows returns the rows idx of x, in that order (repeats allowed), as a
// new CSRRows that shares nothing with x. idx must be in range (callers pick
// rows of their own data); an empty idx gives a 0-row matrix.
func SubsetRows(x Sparse, idx []int) *CSRRows {
	indptr, indices, values := x.CSR()
	_, d := x.Dims()
	nnz := 0
	for _, i := range idx {
		nnz += indptr[i+1] - indptr[i]
	}
	out := &CSRRows{indptr: make([]int, 1, len(idx)+1), indices: make([]int32, 0, nnz), values: make([]float64, 0, nnz), cols: d}
	for _, i := range idx {
		out.indices = append(out.indices, indices[indptr[i]:indptr[i+1]]...)
		out.values = append(out.values, values[indptr[i]:indptr[i+1]]...)
		out.indptr = append(out.indptr, len(out.values))
	}
	return out
}

// Dims returns the numbers of rows and columns.
func (m *CSRRows) Dims() (r, c int) { return len(m.indptr) - 1, m.cols }

// At returns the element at row i, column j.
func (m *CSRRows) At(i, j int) float64 {
	if i < 0 || i >= len(m.indptr)-1 || j < 0 || j >= m.cols {
		panic(mat.ErrIndexOutOfRange)
	}
	for p := m.indptr[i]; p < m.indptr[i+1]; p++ {
		if int(m.indices[p]) == j {
			return m.values[p]
		}
	}
	return 0
}

// T returns the implicit transpose.
func (m *CSRRows) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// CSR returns the row pointers, column indices and values.
func (m *CSRRows) CSR() (indptr []int, indices []int32, values []float64) {
	return m.indptr, m.indices, m.values
}

// SparseDot returns x·y for two sparse vectors given by strictly increasing
// indices and their values, by a sorted-index merge; the products of common
// indices are summed in increasing index order.
func SparseDot(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
	var s float64
	p, q := 0, 0
	for p < len(xi) && q < len(yi) {
		switch a, b := xi[p], yi[q]; {
		case a == b:
			s += xv[p] * yv[q]
			p++
			q++
		case a < b:
			p++
		default:
			q++
		}
	}
	return s
}

// SparseSqDist returns ‖x − y‖² for two sparse vectors (as SparseDot), summed
// over the union of their indices in increasing order.
func SparseSqDist(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
	var s float64
	p, q := 0, 0
	for p < len(xi) && q < len(yi) {
		switch a, b := xi[p], yi[q]; {
		case a == b:
			d := xv[p] - yv[q]
			s += d * d
			p++
			q++
		case a < b:
			s += xv[p] * xv[p]
			p++
		default:
			s += yv[q] * yv[q]
			q++
		}
	}
	for ; p < len(xi); p++ {
		s += xv[p] * xv[p]
	}
	for ; q < len(yi); q++ {
		s += yv[q] * yv[q]
	}
	return s
}

// SparseL1Dist returns ‖x − y‖₁ for two sparse vectors (as SparseDot), summed
// over the union of their indices in increasing order.
func SparseL1Dist(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
	var s float64
	p, q := 0, 0
	for p < len(xi) && q < len(yi) {
		switch a, b := xi[p], yi[q]; {
		case a == b:
			s += math.Abs(xv[p] - yv[q])
			p++
			q++
		case a < b:
			s += math.Abs(xv[p])
			p++
		default:
			s += math.Abs(yv[q])
			q++
		}
	}
	for ; p < len(xi); p++ {
		s += math.Abs(xv[p])
	}
	for ; q < len(yi); q++ {
		s += math.Abs(yv[q])
	}
	return s
}

// sparsePairFunc returns k(x, y) on sparse vectors for the kernels with a
// merge form (Gaussian, Laplacian, polynomial, linear), or nil.
func sparsePairFunc(k Kernel) func(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
	switch kk := k.(type) {
	case Gaussian:
		g := -kk.Gamma
		return func(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
			return expNeg(g * SparseSqDist(xi, xv, yi, yv))
		}
	case Laplacian:
		g := -kk.Gamma
		return func(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
			return expNeg(g * SparseL1Dist(xi, xv, yi, yv))
		}
	case Polynomial:
		return func(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
			return ipow(kk.Gamma*SparseDot(xi, xv, yi, yv)+kk.Coef0, kk.Degree)
		}
	case Sigmoid:
		return func(xi []int32, xv []float64, yi []int32, yv []float64) float64 {
			return math.Tanh(kk.Gamma*SparseDot(xi, xv, yi, yv) + kk.Coef0)
		}
	case Linear:
		return SparseDot
	}
	return nil
}

// SparsePairColumn writes k(x_r, y_j) for the rows r in [r0, r0+len(dst)) of
// x into dst: a piece of the kernel column of the point y_j. The built-in
// kernels use the merge (Precomputed a search of x_r's indices for y_j's
// serial); any other kernel its Eval on dense copies of the two rows. It panics on out-of-range rows or mismatched dimensions,
// as Block does.
func SparsePairColumn(k Kernel, dst []float64, x Sparse, r0 int, y Sparse, j int) {
	_, d := x.Dims()
	if _, dy := y.Dims(); d != dy {
		panic(mat.ErrShape)
	}
	xp, xi, xv := x.CSR()
	yp, yi, yv := y.CSR()
	yi, yv = yi[yp[j]:yp[j+1]], yv[yp[j]:yp[j+1]]
	if _, ok := k.(Precomputed); ok {
		s := sparseSerial(yi, yv, d)
		for r := range dst {
			a, b := xp[r0+r], xp[r0+r+1]
			dst[r] = sparsePrecomputed(xi[a:b], xv[a:b], s)
		}
		return
	}
	if f := sparsePairFunc(k); f != nil {
		for r := range dst {
			a, b := xp[r0+r], xp[r0+r+1]
			dst[r] = f(xi[a:b], xv[a:b], yi, yv)
		}
		return
	}
	u, w := make([]float64, d), make([]float64, d)
	scatter(w, yi, yv)
	for r := range dst {
		a, b := xp[r0+r], xp[r0+r+1]
		clear(u)
		scatter(u, xi[a:b], xv[a:b])
		dst[r] = k.Eval(u, w)
	}
}

func scatter(dst []float64, idx []int32, val []float64) {
	for p, c := range idx {
		dst[c] = val[p]
	}
}

// SparsePairBlock writes K(X, Y) into dst (rows(X)×rows(Y)) for two sparse
// matrices, row blocks of X on opt.Workers workers (opt.BlockRows is not
// used: every entry is computed on its own, so the result does not depend on
// the split). It returns ErrParam for mismatched shapes and the context's
// error if cancelled.
func SparsePairBlock(ctx context.Context, k Kernel, dst *mat.Dense, x, y Sparse, opt Options) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: SparsePairBlock: %w", err)
	}
	if k == nil || dst == nil || x == nil || y == nil {
		return fmt.Errorf("%w: sparse pair block needs a kernel, dst, X and Y", ErrParam)
	}
	n, d := x.Dims()
	m, dy := y.Dims()
	if rd, cd := dst.Dims(); d != dy || rd != n || cd != m {
		return fmt.Errorf("%w: sparse pair block: X %d×%d, Y %d×%d, dst %d×%d", ErrParam, n, d, m, dy, rd, cd)
	}
	const rows = 64
	tasks := (n + rows - 1) / rows
	col := make([][]float64, parallel.Workers(opt.Workers))
	raw := dst.RawMatrix()
	return parallel.For(ctx, tasks, opt.Workers, func(w, t int) {
		r0, r1 := t*rows, min((t+1)*rows, n)
		if col[w] == nil {
			col[w] = make([]float64, rows)
		}
		c := col[w][:r1-r0]
		for j := 0; j < m; j++ {
			SparsePairColumn(k, c, x, r0, y, j)
			for r, v := range c {
				raw.Data[(r0+r)*raw.Stride+j] = v
			}
		}
	})
}

// SparseDiag writes k(x_i, x_i) for every row of x into dst (len rows(x)):
// 1 for the shift-invariant kernels, (γ‖x‖² + c₀)^degree and ‖x‖² for the
// polynomial and linear kernels, Eval otherwise.
func SparseDiag(k Kernel, dst []float64, x Sparse) {
	n, _ := x.Dims()
	switch k.(type) {
	case Gaussian, Laplacian:
		for i := range dst[:n] {
			dst[i] = 1
		}
		return
	}
	for i := range dst[:n] {
		SparsePairColumn(k, dst[i:i+1], x, i, x, i)
	}
}

// SparseWithCols returns the rows of x as a CSRRows with cols columns,
// sharing x's arrays. It lets data read with fewer (or more) declared columns
// than a model was fitted on be used as is; checking that every stored
// column index is below cols is the caller's job.
func SparseWithCols(x Sparse, cols int) *CSRRows {
	indptr, indices, values := x.CSR()
	return &CSRRows{indptr: indptr, indices: indices, values: values, cols: cols}
}

// SparseColumns computes kernel columns k(x_r, y) between the rows of a
// sparse X and one sparse point y at a time by scatter and gather: y is
// spread into a dense scratch vector, then each row of X costs nnz(x_r)
// loads and multiply-adds, with no index comparisons. x·y is summed over
// x_r's non-zeros in column order, which gives the same value as
// SparseDot's merge (the extra terms are exact zeros). The Gaussian kernel
// uses ‖x_r‖² + ‖y‖² − 2x·y (clamped at 0) with X's squared row norms
// computed once; the Laplacian ‖y‖₁ + Σ_{k∈nz(x_r)} (|x_k − y_k| − |y_k|).
// It is the form the SVM's kernel cache uses, as LIBSVM's.
type SparseColumns struct {
	k     Kernel
	x     Sparse
	norms []float64 // squared row norms of X (Gaussian), else nil
}

// NewSparseColumns returns the column evaluator of kernel k over the rows of
// x; it computes X's squared row norms for the Gaussian kernel.
func NewSparseColumns(k Kernel, x Sparse) *SparseColumns {
	c := &SparseColumns{k: k, x: x}
	if _, ok := k.(Gaussian); ok {
		n, _ := x.Dims()
		c.norms = make([]float64, n)
		indptr, _, values := x.CSR()
		for i := range c.norms {
			var s float64
			for _, v := range values[indptr[i]:indptr[i+1]] {
				s += v * v
			}
			c.norms[i] = s
		}
	}
	return c
}

// Column writes k(x_r, y) for the rows r in [r0, r0+len(dst)) of X into dst,
// for the point y with strictly increasing column indices yi and values yv.
// buf is scratch space of at least d elements, all zero on entry; it is zero
// again on return. Kernels other than the four built-in ones use the merge
// form (SparsePairColumn's Eval fallback).
func (c *SparseColumns) Column(dst []float64, r0 int, yi []int32, yv []float64, buf []float64) {
	xp, xi, xv := c.x.CSR()
	for p, j := range yi {
		buf[j] = yv[p]
	}
	defer func() {
		for _, j := range yi {
			buf[j] = 0
		}
	}()
	dotRow := func(r int) float64 {
		var s float64
		for p := xp[r]; p < xp[r+1]; p++ {
			s += xv[p] * buf[xi[p]]
		}
		return s
	}
	switch kk := c.k.(type) {
	case Precomputed:
		_, d := c.x.Dims()
		s := sparseSerial(yi, yv, d)
		for r := range dst {
			a, b := xp[r0+r], xp[r0+r+1]
			dst[r] = sparsePrecomputed(xi[a:b], xv[a:b], s)
		}
		return
	case Gaussian:
		var yn float64
		for _, v := range yv {
			yn += v * v
		}
		g := -kk.Gamma
		for r := range dst {
			d := c.norms[r0+r] + yn - 2*dotRow(r0+r)
			dst[r] = expNeg(g * max(d, 0))
		}
	case Laplacian:
		var y1 float64
		for _, v := range yv {
			y1 += math.Abs(v)
		}
		g := -kk.Gamma
		for r := range dst {
			s := y1
			for p := xp[r0+r]; p < xp[r0+r+1]; p++ {
				b := buf[xi[p]]
				s += math.Abs(xv[p]-b) - math.Abs(b)
			}
			dst[r] = expNeg(g * max(s, 0))
		}
	case Polynomial:
		for r := range dst {
			dst[r] = ipow(kk.Gamma*dotRow(r0+r)+kk.Coef0, kk.Degree)
		}
	case Sigmoid:
		for r := range dst {
			dst[r] = math.Tanh(kk.Gamma*dotRow(r0+r) + kk.Coef0)
		}
	case Linear:
		for r := range dst {
			dst[r] = dotRow(r0 + r)
		}
	default:
		_, d := c.x.Dims()
		u, w := make([]float64, d), make([]float64, d)
		scatter(w, yi, yv)
		for r := range dst {
			a, b := xp[r0+r], xp[r0+r+1]
			clear(u)
			scatter(u, xi[a:b], xv[a:b])
			dst[r] = c.k.Eval(u, w)
		}
	}
}

// NewCSRRows returns the CSRRows with cols columns and the given arrays,
// used as they are: row i holds values[indptr[i]:indptr[i+1]] at the
// strictly increasing column indices indices[indptr[i]:indptr[i+1]], all
// below cols. The arrays are trusted (callers build them from valid data).
func NewCSRRows(cols int, indptr []int, indices []int32, values []float64) *CSRRows {
	return &CSRRows{indptr: indptr, indices: indices, values: values, cols: cols}
}
