package model_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// With Probability an SVR also fits LIBSVM's model of its residuals
// (svm-train -s 3 -b 1): a Laplace distribution of scale σ, from which
// PredictInterval gives intervals around the predictions. Here the noise
// is Laplace with scale 0.2.
func ExampleSVR_PredictInterval() {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 600
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		v := 6 * rng.Float64()
		x.Set(i, 0, v)
		y[i] = math.Sin(v) + 0.2*(rng.ExpFloat64()-rng.ExpFloat64())
	}
	s := &model.SVR{Kernel: kernel.Gaussian{Gamma: 1}, C: 10, Epsilon: 0.05, Probability: true, Seed: 3}
	if err := s.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	lo, hi, err := s.PredictInterval(mat.NewDense(1, 1, []float64{math.Pi / 2}), 0.9)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("σ ≈ %.1f; 90%% interval at π/2: [%.1f, %.1f]\n", s.Info().Sigma, lo[0], hi[0])
	// Output:
	// σ ≈ 0.2; 90% interval at π/2: [0.6, 1.4]
}
