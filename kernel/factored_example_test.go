package kernel_test

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ExampleNewFactored factors K(X, C) over a one-hot column pair: column 0
// is continuous, columns 1 and 2 one-hot, so every product runs at
// dimension 1 on two groups of rows, and gives the unfactored product up to
// rounding.
func ExampleNewFactored() {
	x := mat.NewDense(6, 3, []float64{
		0.3, 1, 0,
		-1.2, 0, 1,
		0.8, 1, 0,
		2.0, 0, 1,
		-0.4, 0, 1,
		1.1, 1, 0,
	})
	c := mat.NewDense(2, 3, []float64{0.5, 1, 0, -1, 0.5, 0.5}) // S-values need not be X's
	k := kernel.Gaussian{Gamma: 0.5}
	s, ok := kernel.DetectSplit(x, 0)
	if !ok {
		fmt.Println("no split")
		return
	}
	f, err := kernel.NewFactored(k, x, c, s, kernel.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := mat.NewDense(2, 1, []float64{1, -1})
	got, want := mat.NewDense(2, 1, nil), mat.NewDense(2, 1, nil)
	if err := f.MulTMul(context.Background(), got, v); err != nil {
		fmt.Println(err)
		return
	}
	if err := kernel.NewOp(k, x, c, kernel.Options{}).MulTMul(context.Background(), want, v); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s)
	fmt.Printf("%.6f %.6f\n", got.At(0, 0), got.At(1, 0))
	fmt.Println(math.Abs(got.At(0, 0)-want.At(0, 0)) < 1e-14, math.Abs(got.At(1, 0)-want.At(1, 0)) < 1e-14)
	// Output:
	// 1 dense + 2 two-valued columns, 2 patterns
	// 1.880560 -0.375201
	// true true
}
