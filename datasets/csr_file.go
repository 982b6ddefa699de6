package datasets

import (
	"context"
	"fmt"
	"io"

	"github.com/landmark-ml/landmark/kernel"
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

// ReadLIBSVMTestFile reads a LIBSVM test file for a model fitted on d
// columns into a CSR matrix with d columns, or more when the file has a
// non-zero at a column ≥ d: such columns are coordinates in which every
// training row is zero, which the estimators accept for sparse data as
// LIBSVM does (model: test-time features). rows and cols count the rows
// holding such a non-zero and the distinct such columns (see CSR.ForModel),
// for the caller to report. Errors are those of ReadLIBSVMSparseFile.
func ReadLIBSVMTestFile(ctx context.Context, path string, d int) (x *CSR, y []float64, rows, cols int, err error) {
	in, err := OpenInput(ctx, path, LIBSVM)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer in.Close()
	return in.ReadTest(ctx, d)
}

// readLIBSVMTest is ReadLIBSVMTestFile on a stream for a model of opt.Dim
// columns; opt.AllowUnlabelled allows rows without labels, opt.ZeroBased
// reads 0-based indices.
func readLIBSVMTest(ctx context.Context, r io.Reader, opt ReadOptions) (x *CSR, y []float64, rows, cols int, err error) {
	d := opt.Dim
	s, c, err := parseLIBSVM(ctx, r, ReadOptions{minDim: d, AllowUnlabelled: opt.AllowUnlabelled, ZeroBased: opt.ZeroBased, sparse: true, shape: opt.shape})
	if err != nil {
		return nil, nil, 0, 0, err
	}
	m := s.csr
	if s.at != nil {
		m = s.placedCSR
	}
	x, rows, cols = m(c).ForModel(d)
	return x, s.labels(), rows, cols, nil
}

// CSRFromDense returns the CSR matrix of x's non-zero entries (x must be
// finite; a non-finite entry is an error, as in NewCSR). The conversion is
// kernel.CSRRowsOf, Landmark's one dense→sparse conversion.
func CSRFromDense(x *mat.Dense) (*CSR, error) {
	if x == nil || x.IsEmpty() {
		return nil, fmt.Errorf("datasets: csr from dense: %w: the matrix is empty", ErrInput)
	}
	n, d := x.Dims()
	indptr, indices, values := kernel.CSRRowsOf(x).CSR()
	return NewCSR(n, d, indptr, indices, values)
}

// Density is the fraction of the entries of x that are not zero: the
// stored share for a *CSR (CSR.Density), kernel.NonZeros over n·d for any
// other matrix; 0 for an empty matrix. The dense-or-sparse storage rule
// (experiments.SparseDensity) compares it with a threshold.
func Density(x mat.Matrix) float64 {
	if c, ok := x.(*CSR); ok {
		return c.Density()
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return 0
	}
	if x32, ok := x.(*kernel.Dense32); ok {
		nz := 0
		for i := range n {
			for _, v := range x32.RawRow(i) {
				if v != 0 {
					nz++
				}
			}
		}
		return float64(nz) / (float64(n) * float64(d))
	}
	return float64(kernel.NonZeros(x)) / (float64(n) * float64(d))
}
