package model

import (
	"context"
	"fmt"
	"slices"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// Exact KRR on sparse data: the n×n kernel matrix is formed from the sparse
// rows (kernel.SparseColumns, one column per training point, scattered once)
// and factored exactly as on dense data; the fitted predictor keeps the
// training rows sparse.

// fitExactSparse is ExactKRR.FitKRR for sparse X.
func fitExactSparse(ctx context.Context, k kernel.Kernel, x kernel.Sparse, y *mat.Dense, p KRRProblem) (KRRPredictor, KRRInfo, error) {
	workers, limit, chol, report := p.Workers, p.MemoryLimit, p.Cholesky, p.report
	n, d := x.Dims()
	_, t := y.Dims()
	_, _, values := x.CSR()
	w := parallel.Workers(workers)
	// K + λnI, the sparse data (12 bytes a non-zero), the targets, one
	// column per worker, the column index (kernel.SparseIndex) or, for
	// kernels without one, a scatter vector per worker: u elements for the
	// Laplacian on X with its u non-zero columns renumbered
	// (compactColumns, 4 bytes a non-zero for the new indices and 4 for
	// the sorted copy that finds them, freed before the Gram matrix; the
	// copy alone when u ≥ d/2 leaves X as it is), d for other kernels;
	// and the blocked Cholesky's workspace (as ExactKRR, with the
	// solve's); and the predictor's own arrays: α, the
	// copy of the targets solved in place (n·t), its biases (t), and its
	// copy of X's rows as the centers (kernel.SubsetRows: 12 bytes a
	// non-zero and 8 a row), all allocated by the fit.
	gx := kernel.Sparse(x)
	gram := int64(w) * int64(d) * 8
	if indexedKernel(k) {
		gram = kernel.SparseIndexBytes(n, len(values))
	} else if cx, u := compactColumns(k, x); u < d {
		gx, gram = cx, int64(w)*int64(u)*8+8*int64(len(values))
	} else if _, ok := k.(kernel.Laplacian); ok {
		// Not renumbered (u ≥ d/2), but compactColumns made its sorted
		// copy of the indices to find u.
		gram += 4 * int64(len(values))
	}
	need := bytesF64(int64(n)*int64(n)+2*int64(n)*int64(t)+int64(t)+int64(w)*int64(n)+int64(n+1)) + 2*12*int64(len(values)) + gram +
		solver.BlockedScratchBytes(n) + kernel.Dense{}.SyrkPackBytes(n, min(n, solver.BlockedWidth)) + exactSolveBytes(n, t)
	info := KRRInfo{Backend: "exact", Rank: n, Penalty: p.Lambda * float64(n), MemoryBytes: need}
	if err := checkMemory(fmt.Sprintf("exact KRR on sparse X (n=%d)", n), need, limit); err != nil {
		return nil, info, err
	}
	km := mat.NewDense(n, n, nil)
	if err := sparseGram(ctx, k, gx, km, workers); err != nil {
		return nil, info, err
	}
	if err := report(1, 2); err != nil {
		return nil, info, err
	}
	sw := p.rootWeights()
	raw := km.RawMatrix()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride:]
		for j := 0; j < i; j++ { // the Laplacian's sums are not symmetric in rounding
			row[j] = raw.Data[j*raw.Stride+i]
		}
		if sw != nil {
			scaleTo(row[:i+1], sw[i], sw[:i+1])
		}
		row[i] += info.Penalty
	}
	c, err := solver.CholeskyBlocked(ctx, km, chol, kernel.Dense{Workers: workers})
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: exact: %w", err)
	}
	info.Jitter, info.CholAttempts = c.Jitter, c.Attempts
	if err := ctx.Err(); err != nil {
		return nil, info, err
	}
	alpha, err := weightedSolve(c, y, sw)
	if err != nil {
		return nil, info, err
	}
	if err := report(2, 2); err != nil {
		return nil, info, err
	}
	centers := kernel.SubsetRows(x, seq(n))
	return &sparseExpansion{dec: &svmDecision{k: k, sv: centers, w: alpha, bias: make([]float64, t), workers: workers}}, info, nil
}

// compactColumns returns, for the Laplacian kernel, x with the u columns
// that hold a non-zero renumbered 0…u−1 in ascending order, and u, when
// u < d/2 (else x and d). The Laplacian's scatter/gather
// (kernel.SparseColumns) sees two points only through their stored
// entries, visited in column order, which the renumbering keeps: every
// kernel value is the same to the bit, and the scatter vectors take u ≤ nnz
// elements instead of d (two of 800 MB each at d = 10⁸). Other kernels
// (which might read a column's position; the Gaussian, linear and
// polynomial go through kernel.SparseIndex) get x and d. The row pointers
// and values are shared; the renumbered indices are a new array.
func compactColumns(k kernel.Kernel, x kernel.Sparse) (kernel.Sparse, int) {
	_, d := x.Dims()
	if _, ok := k.(kernel.Laplacian); !ok {
		return x, d
	}
	indptr, indices, values := x.CSR()
	lo, hi := indptr[0], indptr[len(indptr)-1]
	cols := slices.Clone(indices[lo:hi])
	slices.Sort(cols)
	cols = slices.Compact(cols)
	u := len(cols)
	if 2*u >= d {
		return x, d
	}
	re := make([]int32, len(indices))
	for p := lo; p < hi; p++ {
		j, _ := slices.BinarySearch(cols, indices[p])
		re[p] = int32(j)
	}
	return kernel.NewCSRRows(u, indptr, re, values), u
}

// sparseGram writes K(X, X) into dst: row i is the kernel column of x_i,
// rows on the workers; through kernel.SparseIndex when the kernel has one
// (the same values as the scatter/gather, without a d-element buffer per
// worker).
func sparseGram(ctx context.Context, k kernel.Kernel, x kernel.Sparse, dst *mat.Dense, workers int) error {
	n, d := x.Dims()
	if ix, ok := kernel.NewSparseIndex(k, x); ok {
		return parallel.For(ctx, n, workers, func(_, i int) { ix.RowColumn(dst.RawRowView(i), 0, i) })
	}
	sc := kernel.NewSparseColumns(k, x)
	indptr, indices, values := x.CSR()
	bufs := make([][]float64, parallel.Workers(workers))
	return parallel.For(ctx, n, workers, func(w, i int) {
		if bufs[w] == nil {
			bufs[w] = make([]float64, d)
		}
		sc.Column(dst.RawRowView(i), 0, indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]], bufs[w])
	})
}

// seq returns 0, 1, …, n−1.
func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// sparseExpansion is exact KRR's predictor f(x) = Σⱼ α_j k(x, x_j) over
// sparse training rows x_j: an svmDecision without bias, which evaluates
// dense or sparse x. It is saved as a kernel expansion with sparse centers
// and loads back as a sparseExpansion.
type sparseExpansion struct {
	dec *svmDecision
}

var _ KRRPredictor = (*sparseExpansion)(nil)

// Outputs is the number of output columns.
func (e *sparseExpansion) Outputs() int {
	_, t := e.dec.w.Dims()
	return t
}

// Decision sets dst = K(x, centers)·α.
func (e *sparseExpansion) Decision(ctx context.Context, dst, x *mat.Dense) error {
	return e.decide(ctx, dst, x)
}

func (e *sparseExpansion) decide(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	out, err := e.dec.eval(ctx, x)
	if err != nil {
		return err
	}
	dst.Copy(out)
	return nil
}

// sparseDecider is a KRR predictor that evaluates sparse rows as they are.
type sparseDecider interface {
	decide(ctx context.Context, dst *mat.Dense, x mat.Matrix) error
}

var (
	_ sparseDecider = (*sparseExpansion)(nil)
	_ sparseDecider = (*MEKAExpansion)(nil)
)

// decide is Decision for dense or sparse x.
func (e *MEKAExpansion) decide(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	return e.MEKA.Expand(ctx, dst, x, e.Beta)
}
