package model_test

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Exact kernel ridge regression on five points of y = x².
func ExampleKRR() {
	x := mat.NewDense(5, 1, []float64{-2, -1, 0, 1, 2})
	y := []float64{4, 1, 0, 1, 4}
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-6}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := m.Predict(mat.NewDense(2, 1, []float64{1, 2}))
	fmt.Printf("f(1) = %.3f, f(2) = %.3f\n", pred[0], pred[1])
	info := m.Info()
	fmt.Printf("%s KRR, n = %d, λn = %.0e\n", info.Backend, info.N, info.Penalty)
	// Output:
	// f(1) = 1.000, f(2) = 4.000
	// exact KRR, n = 5, λn = 5e-06
}

// Classification with labels other than ±1: KRR regresses ±1 codes and
// predicts by the sign.
func ExampleKRR_classification() {
	x := mat.NewDense(6, 1, []float64{-3, -2, -1, 1, 2, 3})
	y := []float64{10, 10, 10, 20, 20, 20}
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3, Task: model.Classification}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := m.Predict(mat.NewDense(2, 1, []float64{-2.5, 0.5}))
	fmt.Println(pred)
	// Output:
	// [10 20]
}
