package model_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// One KRR, four solvers: KRR.Approx swaps the backend and nothing else
// changes. On 1,500 noisy rows of a smooth function every backend reaches
// the noise level (σ = 0.1) with a rank far below n.
func ExampleKRR_backends() {
	d, err := datasets.Smooth{N: 2000}.Generate(rand.New(rand.NewPCG(3, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	train, _ := d.Subset(idx[:1500])
	test, _ := d.Subset(idx[1500:])

	for _, backend := range []model.KRRApprox{
		nil,                      // exact: Cholesky of K + λnI
		model.NystromKRR{M: 100}, // Nyström on 100 uniform centers
		model.MEKAKRR{Options: meka.Options{Clusters: 4, Rank: 25}},                     // MEKA: 4 clusters, rank 25 each
		model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 300}}}, // 300 random Fourier features
	} {
		m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-5, Approx: backend, Seed: 1}
		if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
			fmt.Println(err)
			return
		}
		pred, _ := m.Predict(test.X)
		var sse float64
		for i, p := range pred {
			sse += (p - test.Y[i]) * (p - test.Y[i])
		}
		info := m.Info()
		fmt.Printf("%-13s rank %4d  test RMSE %.2f\n", info.Backend, info.Rank, math.Sqrt(sse/float64(len(pred))))
	}
	// Output:
	// exact         rank 1500  test RMSE 0.10
	// nystrom       rank  100  test RMSE 0.10
	// meka-woodbury rank  100  test RMSE 0.10
	// features      rank  300  test RMSE 0.10
}
