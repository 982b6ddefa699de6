package kernel_test

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ExampleOp_MulTMul computes K(X,C)ᵀ(K(X,C)v), the product FALKON's conjugate
// gradient needs at every iteration, without forming K(X,C).
func ExampleOp_MulTMul() {
	x := mat.NewDense(4, 2, []float64{0, 0, 1, 0, 0, 1, 1, 1})
	c := mat.NewDense(2, 2, []float64{0, 0, 1, 1})
	v := mat.NewDense(2, 1, []float64{1, -1})
	op := kernel.NewOp(kernel.Gaussian{Gamma: 0.5}, x, c, kernel.Options{})
	w := mat.NewDense(2, 1, nil)
	if err := op.MulTMul(context.Background(), w, v); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f %.4f\n", w.At(0, 0), w.At(1, 0))
	// Output: 0.3996 -0.3996
}

// ExampleOp_Block forms a small kernel matrix in float32 mode, whose error
// on kernel values is below 1e-6.
func ExampleOp_Block() {
	x := mat.NewDense(2, 1, []float64{0, 1})
	op := kernel.NewOp(kernel.GaussianSigma(1), x, x, kernel.Options{Float32: true})
	k := mat.NewDense(2, 2, nil)
	if err := op.Block(context.Background(), k); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f %.6f\n%.6f %.6f\n", k.At(0, 0), k.At(0, 1), k.At(1, 0), k.At(1, 1))
	// Output:
	// 1.000000 0.606531
	// 0.606531 1.000000
}
