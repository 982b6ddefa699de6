package model_test

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/approx"

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

// FALKON on a noiseless 1-d regression: 400 points, 40 uniformly sampled
// centers, preconditioned CG. The validation error is recorded at every
// iteration.
func ExampleFalkon() {
	n := 400
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		v := -3 + 6*float64(i)/float64(n-1)
		x.Set(i, 0, v)
		y[i] = math.Sin(v)
	}
	xv := mat.NewDense(3, 1, []float64{-1, 0.5, 2})
	yv := []float64{math.Sin(-1), math.Sin(0.5), math.Sin(2)}
	m := &model.Falkon{
		Kernel:     kernel.Gaussian{Gamma: 0.5},
		Lambda:     1e-9,
		M:          40,
		MaxIter:    50,
		Seed:       1,
		Validation: &model.ValidationSet{X: xv, Y: yv},
	}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := m.Predict(xv)
	fmt.Printf("sin(-1) ≈ %.3f, sin(0.5) ≈ %.3f, sin(2) ≈ %.3f\n", pred[0], pred[1], pred[2])
	info := m.Info()
	last := info.History[len(info.History)-1]
	fmt.Println(info.M, "centers,", info.Preconditioner, "preconditioner, validation RMSE below 1e-3:", last.ValError < 1e-3)
	// Output:
	// sin(-1) ≈ -0.841, sin(0.5) ≈ 0.479, sin(2) ≈ 0.909
	// 40 centers, falkon preconditioner, validation RMSE below 1e-3: true
}

// Kernel ridge regression on random Fourier features: the linearized kernel
// machine, ridge regression in 200 dimensions.
func ExampleFeatureRidge() {
	n := 300
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		v := -3 + 6*float64(i)/float64(n-1)
		x.Set(i, 0, v)
		y[i] = math.Sin(v)
	}
	m := &model.KRR{
		Kernel: kernel.Gaussian{Gamma: 0.5},
		Lambda: 1e-8,
		Approx: model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 200}}},
		Seed:   1,
	}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := m.Predict(mat.NewDense(1, 1, []float64{1}))
	fmt.Printf("%s backend, rank %d: sin(1) ≈ %.2f\n", m.Info().Backend, m.Info().Rank, pred[0])
	// Output:
	// features backend, rank 200: sin(1) ≈ 0.84
}
