package model

import (
	"context"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Sparse X in the Nyström-type estimators (Falkon, Nyström KRR): the K_nM
// products run on the kernel engine's sparse path (kernel.Op takes
// kernel.Sparse as it is), the centers sampled from its rows stay CSR unless
// a quarter of their entries are non-zero (centers.go), and memory plans
// count the CSR arrays instead of n·d and M·d.

// inputBytes is the memory X takes: 8·n·d for dense X, and for sparse X its
// CSR arrays — 12 bytes a non-zero (a float64 value and an int32 column
// index) and 8 a row pointer.
func inputBytes(x mat.Matrix) int64 {
	if s, ok := x.(kernel.Sparse); ok {
		n, _ := s.Dims()
		_, _, v := s.CSR()
		return 12*int64(len(v)) + 8*int64(n+1)
	}
	if x32, ok := x.(*kernel.Dense32); ok {
		return x32.Bytes()
	}
	n, d := x.Dims()
	return bytesF64(int64(n) * int64(d))
}

// csrRange is rows [r0, r1) of a sparse matrix, sharing its arrays: the row
// pointers are a sub-slice (they index the full column and value arrays).
type csrRange struct {
	indptr  []int
	indices []int32
	values  []float64
	cols    int
}

var _ kernel.Sparse = csrRange{}

func (c csrRange) Dims() (r, cols int) { return len(c.indptr) - 1, c.cols }

func (c csrRange) At(i, j int) float64 {
	for p := c.indptr[i]; p < c.indptr[i+1]; p++ {
		if int(c.indices[p]) == j {
			return c.values[p]
		}
	}
	return 0
}

func (c csrRange) T() mat.Matrix { return mat.Transpose{Matrix: c} }

func (c csrRange) CSR() ([]int, []int32, []float64) { return c.indptr, c.indices, c.values }

// rowRange returns rows [r0, r1) of x, dense or sparse, without copying.
func rowRange(x mat.Matrix, r0, r1 int) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		indptr, indices, values := s.CSR()
		_, d := s.Dims()
		return csrRange{indptr: indptr[r0 : r1+1], indices: indices, values: values, cols: d}
	}
	if x32, ok := x.(*kernel.Dense32); ok {
		return x32.Rows(r0, r1)
	}
	_, d := x.Dims()
	return x.(*mat.Dense).Slice(r0, r1, 0, d)
}

// decideAny is decide for dense or sparse x: sparse x goes to a predictor
// that takes sparse rows as it is, non-zeros beyond column d included
// (decideBeyond), and to other predictors as a dense copy.
func decideAny(pred KRRPredictor, d int, xIn mat.Matrix) (*mat.Dense, error) {
	if sd, ok := pred.(sparseDecider); ok {
		return decideBeyond(pred, sd, d, predKernel(pred), xIn)
	}
	x, err := exactInput(xIn, nil, d)
	if err != nil {
		return nil, err
	}
	return decide(pred, d, kernel.DenseOf(x))
}

var _ sparseDecider = (*KernelExpansion)(nil)

// decide is Decision for dense or sparse x (validated by the caller): the
// kernel engine takes sparse rows as they are.
func (e *KernelExpansion) decide(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	if s, ok := x.(kernel.Sparse); ok && e.Kernel != nil && e.Centers != nil && e.Coef != nil {
		return kernel.NewOp(e.Kernel, s, e.Centers, kernel.Options{Workers: e.Workers}).Mul(ctx, dst, e.Coef)
	}
	return e.Decision(ctx, dst, kernel.DenseOf(x))
}

// isSparse reports whether x is sparse (kernel.Sparse).
func isSparse(x mat.Matrix) bool {
	_, ok := x.(kernel.Sparse)
	return ok
}
