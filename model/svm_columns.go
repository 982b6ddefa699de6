package model

import (
	"context"
	"math"
	"sync"
	"sync/atomic"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// kernelColumns serves the SVM solvers one kernel column K(X, x_i) at a time.
//
// For the Gaussian, polynomial and linear kernels a column is one
// matrix-vector product X·x_i (gonum BLAS) mapped through the kernel with the
// squared row norms computed once at construction; other kernels go through
// their Eval. Sparse data (kernel.Sparse) is kept as it is: a column is
// computed through kernel.SparseIndex (X's non-zeros by column: only the
// entries in x_i's columns are touched) or, for other kernels,
// kernel.SparseColumns (x_i scattered into a dense scratch vector, each
// row's non-zeros gathered against it), never from a dense copy of X. Long columns are split across workers. Block products (the
// gradient rebuilds) use the kernel package's block engine.
type kernelColumns struct {
	k       kernel.Kernel
	x       *mat.Dense            // dense data, or nil
	sx      kernel.Sparse         // sparse data, or nil
	ix      *kernel.SparseIndex   // sparse data, Gaussian/linear/polynomial kernel
	sc      *kernel.SparseColumns // sparse data, other kernels
	bufs    *sync.Pool            // d-element zeroed scratch vectors of sc.Column
	norms   []float64             // squared row norms (Gaussian only)
	diag    []float64
	workers int
}

var (
	_ solver.Columns    = (*kernelColumns)(nil)
	_ solver.Subsetter  = (*kernelColumns)(nil)
	_ solver.Multiplier = (*kernelColumns)(nil)
)

const (
	// parallelColumn is the column length from which a column is split across workers.
	parallelColumn = 8192
	// parallelWork is, for dense X, the multiply-adds of a column (n·d)
	// from which it is split: below it the goroutines' start and wake-up
	// cost more than they save. Measured on machine E (2026-11-28, bench
	// svr and bench svm, two workers): cadata's 16,512 × 8 (ε-SVR) took
	// 9.4–9.8 s split against 7.0–8.2 s serial, ijcnn1's 20,000 × 22 1.3–1.9 s
	// against 1.3–1.7 s, and all 49,990 × 22 rows 4.5–4.6 s split against
	// 5.5–5.6 s serial.
	parallelWork = 1 << 19
	// columnChunk is the number of rows computed by one matrix-vector product.
	columnChunk = 2048
)

func newKernelColumns(k kernel.Kernel, xm mat.Matrix, workers int) *kernelColumns {
	n, _ := xm.Dims()
	if sx, ok := xm.(kernel.Sparse); ok {
		return newSparseColumns(k, sx, workers)
	}
	x := xm.(*mat.Dense)
	c := &kernelColumns{k: k, x: x, workers: max(workers, 1), diag: make([]float64, n)}
	k.Diag(c.diag, x)
	if _, ok := k.(kernel.Gaussian); ok {
		c.norms = make([]float64, n)
		for i := range n {
			r := x.RawRowView(i)
			c.norms[i] = blas64.Dot(blas64.Vector{N: len(r), Inc: 1, Data: r}, blas64.Vector{N: len(r), Inc: 1, Data: r})
		}
	}
	return c
}

func (c *kernelColumns) Len() int           { return len(c.diag) }
func (c *kernelColumns) Diag(i int) float64 { return c.diag[i] }

// Column writes K(x_r, x_i) for every row r into dst. Long columns are cut
// into chunks of columnChunk rows whatever the number of workers, so that the
// values do not depend on it; the chunks go to the workers when the column is
// long and, for dense X, costly enough (parallelColumn, parallelWork).
func (c *kernelColumns) Column(i int, dst []float64) {
	n := len(c.diag)
	w := c.workers
	if n < parallelColumn || w == 1 || c.x != nil && n*c.x.RawMatrix().Cols < parallelWork {
		for r0 := 0; r0 < n; r0 += columnChunk {
			c.rows(i, r0, min(r0+columnChunk, n), dst)
		}
		return
	}
	chunks := (n + columnChunk - 1) / columnChunk
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(w, chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= chunks {
					return
				}
				r0 := k * columnChunk
				c.rows(i, r0, min(r0+columnChunk, n), dst)
			}
		}()
	}
	wg.Wait()
}

// rows writes K(x_r, x_i) for r in [r0, r1) into dst[r0:r1].
func (c *kernelColumns) rows(i, r0, r1 int, dst []float64) {
	if c.sx != nil {
		c.sparseRows(i, r0, r1, dst)
		return
	}
	raw := c.x.RawMatrix()
	xi := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
	out := dst[r0:r1]
	gemv := func() {
		a := blas64.General{Rows: r1 - r0, Cols: raw.Cols, Stride: raw.Stride, Data: raw.Data[r0*raw.Stride:]}
		blas64.Gemv(blas.NoTrans, 1, a, blas64.Vector{N: raw.Cols, Inc: 1, Data: xi}, 0, blas64.Vector{N: len(out), Inc: 1, Data: out})
	}
	switch k := c.k.(type) {
	case kernel.Gaussian:
		gemv()
		ni := c.norms[i]
		ng := -k.Gamma
		for r, dot := range out {
			d := c.norms[r0+r] + ni - 2*dot
			if d < 0 {
				d = 0 // round-off in the expanded form
			}
			out[r] = math.Exp(ng * d)
		}
	case kernel.Linear:
		gemv()
	case kernel.Polynomial:
		gemv()
		for r, dot := range out {
			out[r] = math.Pow(k.Gamma*dot+k.Coef0, float64(k.Degree))
		}
	case kernel.Sigmoid:
		gemv()
		for r, dot := range out {
			out[r] = math.Tanh(k.Gamma*dot + k.Coef0)
		}
	default:
		for r := range out {
			out[r] = c.k.Eval(raw.Data[(r0+r)*raw.Stride:(r0+r)*raw.Stride+raw.Cols], xi)
		}
	}
}

// Subset returns the kernel columns of the rows idx.
func (c *kernelColumns) Subset(idx []int) solver.Columns {
	if c.sx != nil {
		return newSparseColumns(c.k, kernel.SubsetRows(c.sx, idx), c.workers)
	}
	s := &kernelColumns{k: c.k, x: gatherRows(c.x, idx), workers: c.workers, diag: make([]float64, len(idx))}
	for r, i := range idx {
		s.diag[r] = c.diag[i]
	}
	if c.norms != nil {
		s.norms = make([]float64, len(idx))
		for r, i := range idx {
			s.norms[r] = c.norms[i]
		}
	}
	return s
}

// MulVec sets dst = K(X_rows, X_cols)·v with the block engine.
func (c *kernelColumns) MulVec(ctx context.Context, rows, cols []int, v, dst []float64) error {
	if c.sx != nil {
		return c.sparseMulVec(ctx, rows, cols, v, dst)
	}
	op := kernel.NewOp(c.k, gatherRows(c.x, rows), gatherRows(c.x, cols), kernel.Options{Workers: c.workers})
	return op.Mul(ctx, mat.NewDense(len(rows), 1, dst), mat.NewDense(len(cols), 1, v))
}

// gatherRows copies the rows idx (non-empty) of x into a new matrix.
func gatherRows(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for r, i := range idx {
		copy(out.RawRowView(r), x.RawRowView(i))
	}
	return out
}

// taskRows returns the rows idx of x (dense or sparse), without a copy when
// idx is all of them in order (a binary task uses every row).
func taskRows(x mat.Matrix, idx []int) mat.Matrix {
	if n, _ := x.Dims(); len(idx) == n && (n == 0 || idx[n-1] == n-1) {
		return x
	}
	return pickRows(x, idx)
}
