package kernel

import "gonum.org/v1/gonum/mat"

// Sparse is implemented by compressed-sparse-row matrices (datasets.CSR).
// The kernel package recognizes sparse data through this interface only, so
// it never imports the package that defines the concrete type. Row i holds
// the values values[indptr[i]:indptr[i+1]] at the column indices
// indices[indptr[i]:indptr[i+1]], strictly increasing within a row.
type Sparse interface {
	mat.Matrix
	CSR() (indptr []int, indices []int32, values []float64)
}

// DenseOf returns the data matrix x as a *mat.Dense. A *mat.Dense (including
// a nil one) is returned as it is, without a copy, so the dense path is
// unchanged. Any other mat.Matrix, a Sparse one included, is copied into a new
// dense matrix: callers that have a sparse path test for Sparse first. A nil
// interface gives a nil *mat.Dense, which the callers' own input checks
// reject.
func DenseOf(x mat.Matrix) *mat.Dense {
	switch v := x.(type) {
	case nil:
		return nil
	case *mat.Dense:
		return v
	case Sparse:
		r, c := v.Dims()
		if r == 0 || c == 0 {
			return nil
		}
		d := mat.NewDense(r, c, nil)
		for i := 0; i < r; i++ {
			DenseRow(d.RawRowView(i), v, i)
		}
		return d
	default:
		r, c := v.Dims()
		if r == 0 || c == 0 {
			return nil
		}
		return mat.DenseCopyOf(v)
	}
}
