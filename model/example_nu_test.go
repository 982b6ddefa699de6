package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// With Nu set, SVM is ν-SVC (LIBSVM's svm-train -s 1, scikit-learn's
// NuSVC): ν replaces C and bounds the share of margin errors from above
// and of support vectors from below. The fit is a C-SVC fit with
// C = 1/r, which Info reports.
func ExampleSVM_nu() {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(2*(i%2) - 1)
		x.Set(i, 0, rng.NormFloat64()+y[i])
		x.Set(i, 1, rng.NormFloat64())
	}
	s := &model.SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.4}
	if err := s.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	task := s.Info().Tasks[0]
	fmt.Printf("support vectors: %.0f%% of the rows (ν = 40%%); C = 1/r ≈ %.1f\n", 100*float64(task.SV)/float64(n), 1/task.R)
	// Output:
	// support vectors: 44% of the rows (ν = 40%); C = 1/r ≈ 0.8
}
