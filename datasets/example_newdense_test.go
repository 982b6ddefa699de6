package datasets_test

import (
	"fmt"

	"github.com/landmark-ml/landmark/datasets"
)

// Build X from one's own rows in memory allocated as the readers allocate
// theirs (huge pages on Linux for a large X), then pass it to an
// estimator's Fit as any *mat.Dense.
func ExampleNewDense() {
	rows := [][]float64{{1, 2}, {3, 4}, {5, 6}}
	x, err := datasets.NewDense(len(rows), len(rows[0]))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, r := range rows {
		x.SetRow(i, r)
	}
	fmt.Println(x.Dims())
	fmt.Println(x.At(2, 1))
	_, err = datasets.NewDense(0, 2)
	fmt.Println(err)
	// Output:
	// 3 2
	// 6
	// invalid input: a 0×2 matrix: rows and columns must be at least 1
}
