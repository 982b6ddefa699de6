package meka_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// exampleClusters returns n points around c well-separated centers in 2-D.
func exampleClusters(n, c int, rng *rand.Rand) *mat.Dense {
	x := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		s := float64(i % c)
		x.Set(i, 0, 10*s+rng.NormFloat64())
		x.Set(i, 1, 10*math.Mod(s, 2)+rng.NormFloat64())
	}
	return x
}

// Fit MEKA on clustered data, check its error on a few rows against the exact
// kernel, and solve a kernel ridge regression with the Woodbury identity.
func ExampleFit() {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	x := exampleClusters(600, 4, rng)
	k := kernel.Gaussian{Gamma: 0.5}
	m, err := meka.Fit(ctx, x, k, meka.Options{Rank: 10, Clusters: 4, PSD: true}, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	st := m.Stats()
	fmt.Println("clusters:", m.Clusters(), "total rank:", m.Rank(), "linked pairs:", st.Linked)

	// Relative Frobenius error on 50 rows.
	idx := make([]int, 50)
	for i := range idx {
		idx[i] = 12 * i
	}
	approxRows := mat.NewDense(50, 600, nil)
	if err := m.Rows(ctx, approxRows, idx); err != nil {
		fmt.Println(err)
		return
	}
	var num, den float64
	for a, i := range idx {
		for j := 0; j < 600; j++ {
			e := k.Eval(x.RawRowView(i), x.RawRowView(j))
			num += (e - approxRows.At(a, j)) * (e - approxRows.At(a, j))
			den += e * e
		}
	}
	fmt.Printf("relative error %.3f\n", math.Sqrt(num/den))

	// KRR: (W L Wᵀ + λnI)α = y, with λ = 1e-4 (multiplied by n).
	y := mat.NewDense(600, 1, nil)
	for i := 0; i < 600; i++ {
		y.Set(i, 0, math.Sin(x.At(i, 0)))
	}
	sol, err := m.Solve(ctx, 1e-4, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("method:", sol.Method, "residual below 1e-10:", sol.Residuals[0] < 1e-10)
	// Output:
	// clusters: 4 total rank: 40 linked pairs: 6
	// relative error 0.103
	// method: woodbury residual below 1e-10: true
}

// MEKA is a feature map: φ(x)·φ(y) is the (PSD-fixed) approximation of k(x, y),
// for training and new points alike.
func ExampleMap_Transform() {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	x := exampleClusters(400, 4, rng)
	k := kernel.Gaussian{Gamma: 0.5}
	m, err := meka.Fit(ctx, x, k, meka.Options{Rank: 12, Clusters: 4, PSD: true}, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	xnew := mat.NewDense(2, 2, []float64{0.3, -0.2, 0.1, 0.4}) // two points near the first center
	phi := mat.NewDense(2, m.Dim(), nil)
	if err := m.Transform(ctx, phi, xnew); err != nil {
		fmt.Println(err)
		return
	}
	got := mat.Dot(phi.RowView(0), phi.RowView(1))
	want := k.Eval(xnew.RawRowView(0), xnew.RawRowView(1))
	fmt.Printf("exact %.3f, MEKA features %.3f\n", want, got)
	// Output:
	// exact 0.819, MEKA features 0.803
}

// BKA keeps the exact diagonal blocks of a k-means partition; its memory is
// 8·Σn_s² bytes and its ridge solve is one Cholesky per block.
func ExampleFitBKA() {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	x := exampleClusters(400, 4, rng)
	b, err := meka.FitBKA(ctx, x, kernel.Gaussian{Gamma: 0.5}, meka.BKAOptions{Clusters: 4}, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("cluster sizes:", b.Stats().Sizes, "bytes:", b.Bytes())
	y := mat.NewDense(400, 1, nil)
	for i := 0; i < 400; i++ {
		y.Set(i, 0, x.At(i, 1))
	}
	sol, err := b.Solve(ctx, 1e-3, y)
	if err != nil {
		fmt.Println(err)
		return
	}
	r, c := sol.Alpha.Dims()
	fmt.Println("alpha:", r, "×", c)
	// Output:
	// cluster sizes: [100 100 100 100] bytes: 323200
	// alpha: 400 × 1
}
