package approx

import (
	"fmt"
	"math"

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
// the chosen rows (landmarkRows), dense only when kernel.PreferDenseCenters
// says so. k-means Nyström and randomized clustered Nyström run k-means on
// CSR rows with dense centroids (M×d), planned and refused above their
// memory bound (see KMeans). Exact leverage scores take a dense copy (they
// are O(n³) anyway).

// landmarkRows returns the rows idx of x as landmarks: for sparse x a CSR
// copy of those rows (kernel.SubsetRows), or its dense copy when at least a
// quarter of its entries are non-zero (kernel.PreferDenseCenters); for
// dense x a dense copy (gatherRows).
func landmarkRows(x mat.Matrix, idx []int) mat.Matrix {
	s, ok := x.(kernel.Sparse)
	if !ok {
		return gatherRows(x, idx)
	}
	sub := kernel.SubsetRows(s, idx)
	if len(idx) > 0 && kernel.PreferDenseCenters(sub) {
		return kernel.DenseOf(sub)
	}
	return sub
}

// checkLandmarks validates landmark points: a dense matrix with
// check.Matrix, a sparse one by checkSparseData.
func checkLandmarks(p mat.Matrix) error {
	if s, ok := p.(kernel.Sparse); ok {
		if err := checkSparseData(s); err != nil {
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
		return kernel.SubsetRows(s, levIota(r))
	}
	return mat.DenseCopyOf(p)
}

// dataOf returns x as the samplers read it: a sparse matrix as it is,
// anything else as a *mat.Dense (kernel.DenseOf).
func dataOf(x mat.Matrix) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return s
	}
	return kernel.DenseOf(x)
}

// checkData validates X: a dense matrix with check.Matrix, a sparse one by
// checkSparseData.
func checkData(x mat.Matrix) error {
	if s, ok := x.(kernel.Sparse); ok {
		return checkSparseData(s)
	}
	return check.Matrix("X", x.(*mat.Dense))
}

// checkSparseData checks that sparse X is non-empty with consistent CSR
// arrays, column indices strictly ascending within a row and inside the
// declared dimension (a repeated index is an error), and finite values. An
// empty row is the zero vector.
func checkSparseData(x kernel.Sparse) error {
	n, d := x.Dims()
	if n <= 0 || d <= 0 {
		return fmt.Errorf("%w: X is empty (%d×%d)", check.ErrInput, n, d)
	}
	indptr, indices, values := x.CSR()
	if len(indptr) != n+1 || indptr[0] != 0 || indptr[n] != len(indices) || len(indices) != len(values) {
		return fmt.Errorf("%w: X: sparse arrays inconsistent (rows %d, indptr %d, indices %d, values %d)",
			check.ErrInput, n, len(indptr), len(indices), len(values))
	}
	for i := 0; i < n; i++ {
		if indptr[i+1] < indptr[i] {
			return fmt.Errorf("%w: X: row pointers decrease at row %d", check.ErrInput, i)
		}
		prev := int32(-1)
		for p := indptr[i]; p < indptr[i+1]; p++ {
			j := indices[p]
			if j <= prev || int(j) >= d {
				return fmt.Errorf("%w: X row %d: column %d after %d (columns must ascend, below %d)", check.ErrInput, i, j, prev, d)
			}
			if v := values[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: X[%d,%d] is %v", check.ErrInput, i, j, v)
			}
			prev = j
		}
	}
	return nil
}

// gatherRows returns a new dense matrix holding the rows idx of x (dense or
// sparse), in that order.
func gatherRows(x mat.Matrix, idx []int) *mat.Dense {
	if len(idx) == 0 {
		return &mat.Dense{}
	}
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	if s, ok := x.(kernel.Sparse); ok {
		indptr, indices, values := s.CSR()
		for i, r := range idx {
			row := out.RawRowView(i)
			for p := indptr[r]; p < indptr[r+1]; p++ {
				row[indices[p]] = values[p]
			}
		}
		return out
	}
	xd := x.(*mat.Dense)
	for i, r := range idx {
		out.SetRow(i, xd.RawRowView(r))
	}
	return out
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
	if err := checkSparseData(s); err != nil {
		return nil, err
	}
	return s, nil
}
