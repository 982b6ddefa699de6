package model_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// A fit on sparse rows: a CSR matrix (datasets.CSR, 5 non-zeros in each row
// of 50 columns) goes to Fit as it is, without a dense copy. FALKON samples
// its centers as CSR rows and runs every kernel product sparse; the model is
// the one a fit on the dense copy gives, up to rounding.
func ExampleFalkon_sparse() {
	rng := rand.New(rand.NewPCG(1, 2))
	x, y, err := datasets.SparseRegression(2500, 50, 5, rng) // y = w·x + 0.1·noise
	if err != nil {
		fmt.Println(err)
		return
	}
	train := make([]int, 2000)
	test := make([]int, 500)
	for i := range train {
		train[i] = i
	}
	for i := range test {
		test[i] = 2000 + i
	}
	xtr, _ := x.Rows(train)
	xte, _ := x.Rows(test)

	sparse := &model.Falkon{Kernel: kernel.Linear{}, Lambda: 1e-8, M: 200, Seed: 1}
	if err := sparse.Fit(context.Background(), xtr, y[:2000]); err != nil {
		fmt.Println(err)
		return
	}
	dense := &model.Falkon{Kernel: kernel.Linear{}, Lambda: 1e-8, M: 200, Seed: 1}
	if err := dense.Fit(context.Background(), xtr.ToDense(), y[:2000]); err != nil {
		fmt.Println(err)
		return
	}
	ps, _ := sparse.Predict(xte)
	pd, _ := dense.Predict(xte.ToDense())
	var sse, diff float64
	for i, p := range ps {
		sse += (p - y[2000+i]) * (p - y[2000+i])
		diff = math.Max(diff, math.Abs(p-pd[i]))
	}
	fmt.Println("centers:", sparse.Info().CenterForm)
	fmt.Printf("test RMSE %.1f, the noise level\n", math.Sqrt(sse/float64(len(ps))))
	fmt.Println("same predictions as the dense fit:", diff < 1e-8)
	// Output:
	// centers: sparse (CSR, 1000 non-zeros)
	// test RMSE 0.1, the noise level
	// same predictions as the dense fit: true
}
