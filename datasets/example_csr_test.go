package datasets_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
)

// Sparse LIBSVM text read straight into CSR form: only the non-zeros are
// stored (12 bytes each plus one int a row), never an n×d dense matrix. The
// result goes to any estimator's Fit as it is.
func ExampleReadLIBSVMSparse() {
	text := `+1 3:0.5 120:1
-1 1:2 7:-1.5
+1
-1 120:0.25
`
	x, y, err := datasets.ReadLIBSVMSparse(context.Background(), strings.NewReader(text), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, c := x.Dims()
	fmt.Printf("%d×%d, %d non-zeros (density %.4f), labels %v\n", r, c, x.NNZ(), x.Density(), y)
	indptr, indices, values := x.CSR()
	for i := range r {
		fmt.Printf("row %d: columns %v values %v\n", i, indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]])
	}
	fmt.Println("x[3][119] =", x.At(3, 119)) // LIBSVM's 1-based index 120
	// Output:
	// 4×120, 5 non-zeros (density 0.0104), labels [1 -1 1 -1]
	// row 0: columns [2 119] values [0.5 1]
	// row 1: columns [0 6] values [2 -1.5]
	// row 2: columns [] values []
	// row 3: columns [119] values [0.25]
	// x[3][119] = 0.25
}
