package datasets

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// ReadLIBSVMSparseFile reads a LIBSVM/svmlight file (gzip and bzip2
// compression detected and undone) into a CSR matrix and labels, without a
// dense detour. dim, when positive, fixes the number of columns (an index
// above it is an error); otherwise it is the largest index seen. Malformed
// data, a repeated index within a row included, gives a *ParseError naming
// the file and line.
func ReadLIBSVMSparseFile(ctx context.Context, path string, dim int) (*CSR, []float64, error) {
	in, err := OpenInput(ctx, path, LIBSVM)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	return in.ReadSparse(ctx, dim)
}

// CSRFromDense returns the CSR matrix of x's non-zero entries (x must be
// finite; a non-finite entry is an error, as in NewCSR).
func CSRFromDense(x *mat.Dense) (*CSR, error) {
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("%w: csr from an empty matrix", ErrInput)
	}
	n, d := x.Dims()
	indptr := make([]int, 1, n+1)
	var indices []int32
	var values []float64
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if v != 0 {
				indices = append(indices, int32(j))
				values = append(values, v)
			}
		}
		indptr = append(indptr, len(values))
	}
	return NewCSR(n, d, indptr, indices, values)
}
