package model_test

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// FitWeighted with an integer weight fits the data with that row repeated:
// here the last point counts twice, and a weight 0 leaves a point out.
func ExampleKRR_FitWeighted() {
	ctx := context.Background()
	x := mat.NewDense(5, 1, []float64{0, 1, 2, 3, 4})
	y := []float64{0, 1, 4, 9, 100}
	w := []float64{1, 1, 1, 2, 0}
	weighted := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3}
	if err := weighted.FitWeighted(ctx, x, y, w); err != nil {
		fmt.Println(err)
		return
	}
	// The same data written out: the last point twice, the outlier gone.
	xr := mat.NewDense(5, 1, []float64{0, 1, 2, 3, 3})
	yr := []float64{0, 1, 4, 9, 9}
	repeated := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3}
	if err := repeated.Fit(ctx, xr, yr); err != nil {
		fmt.Println(err)
		return
	}
	at := mat.NewDense(1, 1, []float64{2.5})
	p, _ := weighted.Predict(at)
	q, _ := repeated.Predict(at)
	fmt.Printf("weighted %.6f, repeated %.6f\n", p[0], q[0])
	// Output:
	// weighted 6.943509, repeated 6.943509
}
