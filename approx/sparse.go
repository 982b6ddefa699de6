package approx

import (
	"fmt"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Sparse data (kernel.Sparse, such as datasets.CSR) stays sparse in the
// uniform, leverage-score, recursive-RLS and BLESS samplers: kernel blocks
// between data rows and landmarks come from the kernel engine's sparse
// paths (sparse X against sparse centers), kernel diagonals from
// kernel.SparseDiag, and the sampled landmarks — the returned ones and the
// intermediate ones of the recursive and BLESS levels — are CSR copies of
// the chosen rows (points.Landmarks), dense only when kernel.PreferDenseCenters
// says so. k-means Nyström and randomized clustered Nyström run k-means on
// CSR rows with dense centroids (M×d), planned and refused above their
// memory bound (see cluster.KMeans). Exact leverage scores take a dense copy (they
// are O(n³) anyway).

// checkLandmarks validates landmark points: a dense matrix with
// check.Matrix, a sparse one by points.CheckSparse.
func checkLandmarks(p mat.Matrix) error {
	if s, ok := p.(kernel.Sparse); ok {
		if err := points.CheckSparse(s, 0); err != nil {
			return fmt.Errorf("landmarks: %w", err)
		}
		return nil
	}
	d, ok := p.(*mat.Dense)
	if !ok {
		d = kernel.DenseOf(p)
	}
	return check.Matrix("landmarks", d)
}

// copyLandmarks returns a copy of landmark points that shares nothing with
// p: CSR rows stay CSR.
func copyLandmarks(p mat.Matrix) mat.Matrix {
	if s, ok := p.(kernel.Sparse); ok {
		r, _ := s.Dims()
		return kernel.SubsetRows(s, points.Iota(r))
	}
	return mat.DenseCopyOf(p)
}

// diagOf writes k(x_i, x_i) for the rows of x (dense or sparse) into dst.
func diagOf(k kernel.Kernel, dst []float64, x mat.Matrix) {
	if s, ok := x.(kernel.Sparse); ok {
		kernel.SparseDiag(k, dst, s)
		return
	}
	k.Diag(dst, x.(*mat.Dense))
}

// firstRow returns row 0 of x (dense or sparse) as a one-row matrix.
func firstRow(x mat.Matrix) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return kernel.SubsetRows(s, []int{0})
	}
	_, d := x.Dims()
	return x.(*mat.Dense).Slice(0, 1, 0, d)
}

// inputCols validates x for a map fitted on d columns. Dense x must have d
// columns (check.Cols). Sparse x must have no non-zero at a column ≥ d (an
// error, never a silent drop); a sparse x that declares a different number
// of columns but has no such non-zero is read as d-dimensional — LIBSVM test
// files are often narrower or wider than the training file for that reason
// alone.
func inputCols(x mat.Matrix, d int) (mat.Matrix, error) {
	s, ok := x.(kernel.Sparse)
	if !ok {
		xd := kernel.DenseOf(x)
		if err := check.Cols(xd, d); err != nil {
			return nil, err
		}
		return xd, nil
	}
	n, c := s.Dims()
	if c != d {
		indptr, indices, _ := s.CSR()
		if len(indptr) == n+1 {
			for i := 0; i < n; i++ {
				for p := indptr[i]; p < indptr[i+1]; p++ {
					if int(indices[p]) >= d {
						return nil, fmt.Errorf("%w: X row %d has a non-zero at column %d, the map was fitted on %d columns", check.ErrInput, i, indices[p], d)
					}
				}
			}
		}
		s = kernel.SparseWithCols(s, d)
	}
	if err := points.CheckSparse(s, 0); err != nil {
		return nil, err
	}
	return s, nil
}
