package model

import (
	"fmt"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Centers of the Nyström-type estimators (Falkon, Nyström KRR) are a
// *mat.Dense or CSR rows (kernel.Sparse, such as the *kernel.CSRRows the
// samplers return for rows of sparse X). Sparse centers stay sparse through
// K_MM, the K_nM products and prediction (the kernel engine takes sparse
// centers as they are), and their memory is their non-zeros: 12 bytes each
// and 8 a row, instead of 8·M·d. Centers at least a quarter non-zero are
// held dense (kernel.PreferDenseCenters, measured in docs/performance.md, "Kernel engine").

// CenterForm describes how centers are held: "dense" or
// "sparse (CSR, nnz non-zeros)". Estimators report it in their Info.
func CenterForm(c mat.Matrix) string {
	if s, ok := c.(kernel.Sparse); ok {
		indptr, _, _ := s.CSR()
		return fmt.Sprintf("sparse (CSR, %d non-zeros)", indptr[len(indptr)-1])
	}
	if c == nil {
		return ""
	}
	return "dense"
}

// checkCenters validates user-given centers for a model on d columns: dense
// centers with check.Cols, sparse ones with checkSparse and their declared
// number of columns.
func checkCenters(c mat.Matrix, d int) error {
	if s, ok := c.(kernel.Sparse); ok {
		if _, err := checkSparse(s, 0); err != nil {
			return err
		}
		if _, cols := s.Dims(); cols != d {
			return fmt.Errorf("%w: X has %d columns, the model was fitted on %d", ErrInput, cols, d)
		}
		return nil
	}
	return check.Cols(kernel.DenseOf(c), d)
}

// denseCenters reports whether sparse centers s are held dense for kernel
// k: when the engine has no sparse form for k (kernel.SparseCenterForm) or
// the dense form is faster (kernel.PreferDenseCenters).
func denseCenters(k kernel.Kernel, s kernel.Sparse) bool {
	return !kernel.SparseCenterForm(k) || kernel.PreferDenseCenters(s)
}

// ownCenters returns the centers an estimator keeps: a private copy of
// user-given centers (CSR stays CSR) when copied, and in either case the
// representation the engine runs with for k (denseCenters).
func ownCenters(k kernel.Kernel, c mat.Matrix, copied bool) mat.Matrix {
	s, ok := c.(kernel.Sparse)
	if !ok {
		if copied {
			return mat.DenseCopyOf(c)
		}
		return kernel.DenseOf(c)
	}
	if denseCenters(k, s) {
		return kernel.DenseOf(s)
	}
	if copied {
		r, _ := s.Dims()
		idx := make([]int, r)
		for i := range idx {
			idx[i] = i
		}
		return kernel.SubsetRows(s, idx)
	}
	return s
}

// centerShape is what a memory plan knows of the centers before they exist.
type centerShape struct {
	m, d   int
	nnz    int64 // sparse: the non-zeros, or a bound for sampled centers
	sparse bool
}

// givenShape is the shape of existing centers c for kernel k.
func givenShape(k kernel.Kernel, c mat.Matrix) centerShape {
	m, d := c.Dims()
	s, ok := c.(kernel.Sparse)
	if !ok || denseCenters(k, s) {
		return centerShape{m: m, d: d}
	}
	indptr, _, _ := s.CSR()
	return centerShape{m: m, d: d, nnz: int64(indptr[len(indptr)-1]), sparse: true}
}

// sampledShape bounds the m centers a row sampler draws from x: dense for
// dense x; for sparse x the non-zeros of its m longest rows, held dense when
// that bound reaches a quarter of m·d (then the dense plan, 8md, is the
// larger of the two forms the centers can take).
func sampledShape(k kernel.Kernel, x mat.Matrix, m int) centerShape {
	_, d := x.Dims()
	if _, ok := x.(kernel.Sparse); !ok || !kernel.SparseCenterForm(k) {
		return centerShape{m: m, d: d}
	}
	b := approx.LandmarkBytes(x, m)
	if b == bytesF64(int64(m)*int64(d)) {
		return centerShape{m: m, d: d}
	}
	return centerShape{m: m, d: d, nnz: (b - 8*int64(m+1)) / 12, sparse: true}
}

// bytes is the memory of the centers themselves.
func (c centerShape) bytes() int64 {
	if c.sparse {
		return kernel.CSRBytes(c.m, c.nnz)
	}
	return bytesF64(int64(c.m) * int64(c.d))
}

// stub is a matrix of the centers' shape for planning the kernel engine's
// scratch (Op.ScratchBytes reads only shapes and non-zero counts): dense
// centers are an allocated M×d matrix, as before; sparse ones carry row
// pointers only.
func (c centerShape) stub() mat.Matrix {
	if !c.sparse {
		return mat.NewDense(max(c.m, 1), max(c.d, 1), nil)
	}
	indptr := make([]int, c.m+1)
	indptr[c.m] = int(c.nnz)
	return kernel.NewCSRRows(c.d, indptr, nil, nil)
}

// form is CenterForm of the planned centers.
func (c centerShape) form() string {
	if c.sparse {
		return fmt.Sprintf("sparse (CSR, at most %d non-zeros)", c.nnz)
	}
	return "dense"
}
