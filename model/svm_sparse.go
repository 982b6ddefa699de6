package model

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Sparse inputs (kernel.Sparse, such as datasets.CSR) of the exact kernel
// methods — SVM, exact KRR — stay sparse: kernel values between two data
// points come from the sorted-index merge of kernel.SparsePairColumn, as
// LIBSVM computes them, and no dense copy of X is made.

// checkSparse validates sparse data with d columns (d ≤ 0: training data,
// any positive number of columns): the CSR arrays are consistent, column
// indices ascend strictly within each row (a repeated index is an error) and
// lie below d, and every value is finite. An empty row is the zero vector.
// When d > 0 and x declares a different number of columns, the result is a
// view of x with d columns, so a test file that happens to use fewer columns
// than the training file can be predicted; a non-zero at a column ≥ d is an
// error, never dropped.
func checkSparse(x kernel.Sparse, d int) (kernel.Sparse, error) {
	n, c := x.Dims()
	if n <= 0 || c <= 0 {
		return nil, fmt.Errorf("%w: X is empty (%d×%d)", ErrInput, n, c)
	}
	limit := c
	if d > 0 {
		limit = d
	}
	indptr, indices, values := x.CSR()
	if len(indptr) != n+1 || indptr[0] != 0 || indptr[n] != len(indices) || len(indices) != len(values) {
		return nil, fmt.Errorf("%w: X: sparse arrays inconsistent (rows %d, indptr %d, indices %d, values %d)",
			ErrInput, n, len(indptr), len(indices), len(values))
	}
	for i := 0; i < n; i++ {
		if indptr[i+1] < indptr[i] {
			return nil, fmt.Errorf("%w: X: row pointers decrease at row %d", ErrInput, i)
		}
		prev := int32(-1)
		for p := indptr[i]; p < indptr[i+1]; p++ {
			j := indices[p]
			switch {
			case j == prev:
				return nil, fmt.Errorf("%w: X row %d: column %d repeated", ErrInput, i, j)
			case j < prev:
				return nil, fmt.Errorf("%w: X row %d: column %d after %d, columns must ascend", ErrInput, i, j, prev)
			case int(j) >= limit && d > 0:
				return nil, fmt.Errorf("%w: X row %d has a non-zero at column %d, the model was fitted on %d columns", ErrInput, i, j, d)
			case int(j) >= limit:
				return nil, fmt.Errorf("%w: X row %d: column %d beyond the dimension %d", ErrInput, i, j, c)
			}
			if v := values[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: X[%d,%d] is %v", ErrInput, i, j, v)
			}
			prev = j
		}
	}
	if d > 0 && c != d {
		return kernel.SparseWithCols(x, d), nil
	}
	return x, nil
}

// exactInput returns x ready for an exact kernel method: a validated sparse
// matrix as it is, or the dense matrix (anything else through a dense copy).
// d ≤ 0 checks training data with labels y, d > 0 data for a model fitted on
// d columns (y unused).
func exactInput(x mat.Matrix, y []float64, d int) (mat.Matrix, error) {
	if s, ok := x.(kernel.Sparse); ok {
		xs, err := checkSparse(s, d)
		if err != nil {
			return nil, err
		}
		if d <= 0 {
			n, _ := s.Dims()
			if err := check.Vector("y", y, n); err != nil {
				return nil, err
			}
		}
		return xs, nil
	}
	xd := kernel.DenseOf(x)
	var err error
	if d > 0 {
		err = check.Cols(xd, d)
	} else {
		err = check.XY(xd, y)
	}
	if err != nil {
		return nil, err
	}
	return xd, nil
}

// dataBytesPerRow is the memory planning stand-in for d in the SVM plans:
// d for dense data, and for sparse data the average non-zeros a row times
// 1.5 (12 bytes a non-zero against 8 a dense entry), at least 1.
func dataBytesPerRow(x mat.Matrix) int {
	if s, ok := x.(kernel.Sparse); ok {
		n, _ := s.Dims()
		_, _, v := s.CSR()
		return max(1, (3*len(v)+2*n-1)/(2*n))
	}
	_, d := x.Dims()
	return d
}

// pickRows returns the rows idx of x, a copy in x's own format.
func pickRows(x mat.Matrix, idx []int) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return kernel.SubsetRows(s, idx)
	}
	if x32, ok := x.(*kernel.Dense32); ok {
		_, d := x32.Dims()
		v := make([]float32, 0, len(idx)*d)
		for _, i := range idx {
			v = append(v, x32.RawRow(i)...)
		}
		out, _ := kernel.NewDense32(len(idx), d, v) // len(idx)·d values: no error but for no rows
		if out == nil {
			return &mat.Dense{}
		}
		return out
	}
	return gatherRows(x.(*mat.Dense), idx)
}

// sparseIndexPlan is the memory of the kernel.SparseIndex a sparse SVM fit
// holds (0 for dense data or a kernel that is not indexed): for the largest
// sub-problem (rows tasks[t]), the index over its rows and half as much again
// for an index built while that one is alive — over the active rows when
// shrinking restricts the problem (at most half of them), or over the
// support vectors when the gradient is rebuilt.
func sparseIndexPlan(k kernel.Kernel, x mat.Matrix, tasks [][]int) int64 {
	s, ok := x.(kernel.Sparse)
	if !ok {
		return 0
	}
	if !indexedKernel(k) {
		return 0
	}
	indptr, _, _ := s.CSR()
	var most int64
	for _, rows := range tasks {
		nnz := 0
		for _, i := range rows {
			nnz += indptr[i+1] - indptr[i]
		}
		most = max(most, kernel.SparseIndexBytes(len(rows), nnz))
	}
	return most * 3 / 2
}

// scatterPlan is the memory of the d-element scatter vectors the kernel
// columns of sparse x take for a kernel SparseIndex does not cover (the
// Laplacian, other kernels): one per worker, each 8d bytes — 16 MB a worker
// at d = 2,000,000 whatever the non-zeros. Dense x and indexable kernels
// take none.
func scatterPlan(k kernel.Kernel, x mat.Matrix, workers int) int64 {
	if _, ok := x.(kernel.Sparse); !ok {
		return 0
	}
	switch k.(type) {
	case kernel.Gaussian, kernel.Linear, kernel.Polynomial, kernel.Sigmoid:
		return 0
	}
	_, d := x.Dims()
	return 8 * int64(d) * int64(max(workers, 1))
}

// indexedKernel reports whether kernel.NewSparseIndex serves k.
func indexedKernel(k kernel.Kernel) bool {
	switch k.(type) {
	case kernel.Gaussian, kernel.Linear, kernel.Polynomial, kernel.Sigmoid:
		return true
	}
	return false
}

// newSparseColumns returns the kernel columns of sparse data x: through
// kernel.SparseIndex (X's non-zeros by column, no length-d array) for the
// Gaussian, linear, polynomial and sigmoid kernels, by kernel.SparseColumns'
// scatter/gather (a d-element scratch vector per worker) for the others.
// Both give bit-identical columns.
func newSparseColumns(k kernel.Kernel, x kernel.Sparse, workers int) *kernelColumns {
	n, d := x.Dims()
	c := &kernelColumns{k: k, sx: x, workers: max(workers, 1), diag: make([]float64, n)}
	if ix, ok := kernel.NewSparseIndex(k, x); ok {
		c.ix = ix
	} else {
		c.sc = kernel.NewSparseColumns(k, x)
		c.bufs = &sync.Pool{New: func() any { b := make([]float64, d); return &b }}
	}
	kernel.SparseDiag(k, c.diag, x)
	return c
}

// sparseRows writes K(x_r, x_i) for r in [r0, r1) into dst[r0:r1].
func (c *kernelColumns) sparseRows(i, r0, r1 int, dst []float64) {
	if c.ix != nil {
		c.ix.RowColumn(dst[r0:r1], r0, i)
		return
	}
	indptr, indices, values := c.sx.CSR()
	b := c.bufs.Get().(*[]float64)
	c.sc.Column(dst[r0:r1], r0, indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]], *b)
	c.bufs.Put(b)
}

// sparseMulVec sets dst = K(X_rows, X_cols)·v for sparse X: blocks of rows on
// the workers, each row's sum taken over cols in their order. With an
// indexable kernel the columns' rows are indexed (kernel.SparseIndex) and
// each row r gets K(x_r, X_cols) as one column, dotted with v; otherwise
// each column j of X_cols is scattered once per block of rows. Both sum the
// same products in the same order.
func (c *kernelColumns) sparseMulVec(ctx context.Context, rows, cols []int, v, dst []float64) error {
	indptr, indices, values := c.sx.CSR()
	const chunk = 256
	tasks := (len(rows) + chunk - 1) / chunk
	if ix, ok := kernel.NewSparseIndex(c.k, kernel.SubsetRows(c.sx, cols)); ok {
		return parallel.For(ctx, tasks, c.workers, func(_, t int) {
			kr := make([]float64, len(cols))
			for r := t * chunk; r < min((t+1)*chunk, len(rows)); r++ {
				i := rows[r]
				ix.Column(kr, 0, indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]])
				var s float64
				for q, kv := range kr {
					s += kv * v[q]
				}
				dst[r] = s
			}
		})
	}
	sc := kernel.NewSparseColumns(c.k, kernel.SubsetRows(c.sx, rows))
	_, d := c.sx.Dims()
	return parallel.For(ctx, tasks, c.workers, func(_, t int) {
		r0, r1 := t*chunk, min((t+1)*chunk, len(rows))
		buf, col := make([]float64, d), make([]float64, r1-r0)
		acc := dst[r0:r1]
		clear(acc)
		for q, j := range cols {
			sc.Column(col, r0, indices[indptr[j]:indptr[j+1]], values[indptr[j]:indptr[j+1]], buf)
			for r, kv := range col {
				acc[r] += kv * v[q]
			}
		}
	})
}

// evalSparse computes the decision values K(X, S)·W + b when X or the
// support vectors S are sparse, in blocks of rows of X on the decision's
// workers: K(X_B, S) row by row through kernel.SparseIndex over S (built
// once) when X is sparse and the kernel indexable, column by column with
// kernel.SparseColumns (each support vector scattered once per block) for
// other kernels, and by kernel.SparseBlock (sparse support vectors against
// dense rows) when X is dense.
// Every entry of K is computed on its own and every output row by one
// product, so the result does not depend on the number of workers.
func (dec *svmDecision) evalSparse(ctx context.Context, x mat.Matrix, out *mat.Dense) error {
	if xd, ok := x.(*mat.Dense); ok {
		if _, pre := dec.k.(kernel.Precomputed); pre {
			// kernel.SparseBlock below computes K(S, X), which a
			// precomputed kernel, read from X's rows, is not: take X's
			// rows as CSR, through K(X, S).
			x = kernel.CSRRowsOf(xd)
		}
	}
	n, d := x.Dims()
	m, _ := dec.sv.Dims()
	const chunk = 256
	tasks := (n + chunk - 1) / chunk
	var sp []int
	var si []int32
	var sv []float64
	if _, ok := x.(kernel.Sparse); ok {
		svs, ok := dec.sv.(kernel.Sparse)
		if !ok {
			svs = kernel.CSRRowsOf(dec.sv.(*mat.Dense))
		}
		sp, si, sv = svs.CSR()
		// Indexed support vectors: row r of K(X_B, S) is one column
		// K(S, x_r), with the same values as the scatter/gather below.
		if ix, ok := kernel.NewSparseIndex(dec.k, svs); ok {
			xp, xi, xv := x.(kernel.Sparse).CSR()
			return parallel.ForErr(ctx, tasks, dec.workers, func(_, t int) error {
				r0, r1 := t*chunk, min((t+1)*chunk, n)
				kb := mat.NewDense(r1-r0, m, nil)
				for r := r0; r < r1; r++ {
					ix.Column(kb.RawRowView(r-r0), 0, xi[xp[r]:xp[r+1]], xv[xp[r]:xp[r+1]])
				}
				out.Slice(r0, r1, 0, out.RawMatrix().Cols).(*mat.Dense).Mul(kb, dec.w)
				return nil
			})
		}
	}
	// The d-float scatter buffer of the sparse × sparse path is per worker,
	// not per block: with d in the millions it would dominate the memory
	// the blocks of K need.
	bufs := make([][]float64, parallel.Workers(dec.workers))
	return parallel.ForErr(ctx, tasks, dec.workers, func(w, t int) error {
		r0, r1 := t*chunk, min((t+1)*chunk, n)
		kb := mat.NewDense(r1-r0, m, nil)
		idx := make([]int, r1-r0)
		for r := range idx {
			idx[r] = r0 + r
		}
		if xs, ok := x.(kernel.Sparse); ok {
			sc := kernel.NewSparseColumns(dec.k, kernel.SubsetRows(xs, idx))
			if bufs[w] == nil {
				bufs[w] = make([]float64, d)
			}
			buf, col := bufs[w], make([]float64, r1-r0)
			for j := 0; j < m; j++ {
				sc.Column(col, 0, si[sp[j]:sp[j+1]], sv[sp[j]:sp[j+1]], buf)
				for r, v := range col {
					kb.Set(r, j, v)
				}
			}
		} else {
			kt := mat.NewDense(m, r1-r0, nil)
			if err := kernel.SparseBlock(dec.k, kt, dec.sv.(kernel.Sparse), gatherRows(x.(*mat.Dense), idx)); err != nil {
				return err
			}
			kb.CloneFrom(kt.T())
		}
		out.Slice(r0, r1, 0, out.RawMatrix().Cols).(*mat.Dense).Mul(kb, dec.w)
		return nil
	})
}

// appendRow appends row i of x (dense or sparse, densified) to dst.
func appendRow(dst []float64, x mat.Matrix, i int) []float64 {
	if s, ok := x.(kernel.Sparse); ok {
		_, d := s.Dims()
		start := len(dst)
		dst = append(dst, make([]float64, d)...)
		kernel.DenseRow(dst[start:], s, i)
		return dst
	}
	return append(dst, x.(*mat.Dense).RawRowView(i)...)
}
