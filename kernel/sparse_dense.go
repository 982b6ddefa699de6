package kernel

import "gonum.org/v1/gonum/mat"

// NonZeros returns the number of entries of x that are not zero. For a
// Sparse x it counts the stored values that are not zero (an explicitly
// stored zero does not count); for any other matrix it reads every entry.
// It is the one non-zero count of Landmark: datasets.Density, the storage
// rule of experiments and the dense→sparse conversion all use it.
func NonZeros(x mat.Matrix) int {
	nz := 0
	switch v := x.(type) {
	case Sparse:
		_, _, values := v.CSR()
		for _, e := range values {
			if e != 0 {
				nz++
			}
		}
	case *mat.Dense:
		r, _ := v.Dims()
		for i := 0; i < r; i++ {
			for _, e := range v.RawRowView(i) {
				if e != 0 {
					nz++
				}
			}
		}
	default:
		r, c := x.Dims()
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				if x.At(i, j) != 0 {
					nz++
				}
			}
		}
	}
	return nz
}

// CSRRowsOf returns the non-zero entries of dense x as sparse rows, column
// indices ascending within a row; zero entries are not stored. The arrays
// are allocated once at their exact size (a first pass counts the
// non-zeros), and share nothing with x. It is the one dense→sparse
// conversion of Landmark: datasets.CSRFromDense and the sparse support
// vectors of model.SVM use it.
func CSRRowsOf(x *mat.Dense) *CSRRows {
	n, d := x.Dims()
	nnz := NonZeros(x)
	out := &CSRRows{indptr: make([]int, 1, n+1), indices: make([]int32, 0, nnz), values: make([]float64, 0, nnz), cols: d}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if v != 0 {
				out.indices = append(out.indices, int32(j))
				out.values = append(out.values, v)
			}
		}
		out.indptr = append(out.indptr, len(out.values))
	}
	return out
}

// DenseRow writes row i of the sparse matrix x into dst (len(dst) is x's
// number of columns): the stored values at their columns, zeros elsewhere.
// It is the one sparse→dense conversion of a row; DenseOf uses it for whole
// matrices.
func DenseRow(dst []float64, x Sparse, i int) {
	indptr, indices, values := x.CSR()
	clear(dst)
	for p := indptr[i]; p < indptr[i+1]; p++ {
		dst[indices[p]] = values[p]
	}
}
