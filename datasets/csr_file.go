package datasets

import (
	"context"
	"os"
)

// ReadLIBSVMSparseFile reads a LIBSVM/svmlight file (gzip and bzip2
// compression detected and undone) into a CSR matrix and labels, without a
// dense detour. dim, when positive, fixes the number of columns (an index
// above it is an error); otherwise it is the largest index seen. Malformed
// data, a repeated index within a row included, gives a *ParseError naming
// the file and line.
func ReadLIBSVMSparseFile(ctx context.Context, path string, dim int) (*CSR, []float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	br, closeFn, err := decompress(f)
	if err != nil {
		return nil, nil, withFile(err, path)
	}
	defer closeFn()
	x, y, err := ReadLIBSVMSparse(ctx, br, dim)
	if err != nil {
		return nil, nil, withFile(err, path)
	}
	return x, y, nil
}
