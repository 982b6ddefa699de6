package approx_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// levExampleData returns 95 points near 0 and 5 points near 10 on a line.
func levExampleData() *mat.Dense {
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(100, 1, nil)
	for i := 0; i < 100; i++ {
		c := 0.0
		if i >= 95 {
			c = 10
		}
		x.Set(i, 0, c+0.1*rng.NormFloat64())
	}
	return x
}

// Exact ridge leverage scores: the 5 isolated points each carry far more
// leverage than the 95 crowded ones, and the scores sum to d_eff. (Each
// cluster is nearly rank one: eigenvalues ≈ 95 and ≈ 5, so d_eff ≈
// 95/96 + 5/6 plus a little from the clusters' spread, and an isolated point
// has ≈ (5/6)/5.)
func ExampleExactLeverage() {
	x := levExampleData()
	k := kernel.Gaussian{Gamma: 0.5}
	// Ridge is absolute (K + ridge·I): the project's λ = 0.01 with n = 100.
	scores, deff, err := approx.ExactLeverage(context.Background(), x, k, 0.01*100)
	if err != nil {
		panic(err)
	}
	fmt.Printf("d_eff = %.2f\n", deff)
	fmt.Printf("crowded point %.3f, isolated point %.3f\n", scores[0], scores[99])
	// Output:
	// d_eff = 2.36
	// crowded point 0.015, isolated point 0.172
}

// The fixed-size Recursive RLS sampler returns exactly m landmarks with
// weights 1/√pᵢ.
func ExampleRecursiveRLS_Sample() {
	x := levExampleData()
	k := kernel.Gaussian{Gamma: 0.5}
	lm, err := approx.RecursiveRLS{}.Sample(context.Background(), x, k, 10, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	isolated := 0
	for _, i := range lm.Indices {
		if i >= 95 {
			isolated++
		}
	}
	fmt.Println(len(lm.Indices), "landmarks,", len(lm.Weights), "weights, isolated ones:", isolated > 0)
	// Output:
	// 10 landmarks, 10 weights, isolated ones: true
}

// One BLESS run gives dictionaries for a whole path of λ (K + λnI), from
// λ₀ = κ² = 1 down by the step q = 2.
func ExampleBLESS_Path() {
	x := levExampleData()
	k := kernel.Gaussian{Gamma: 0.5}
	path, err := approx.BLESS{}.Path(context.Background(), x, k, 0.01, rand.New(rand.NewPCG(1, 3)))
	if err != nil {
		panic(err)
	}
	for _, step := range path {
		fmt.Printf("λ = %.4g\n", step.Lambda)
	}
	// Output:
	// λ = 0.5
	// λ = 0.25
	// λ = 0.125
	// λ = 0.0625
	// λ = 0.03125
	// λ = 0.01562
	// λ = 0.01
}
