package approx_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Fit a rank-10 Nyström map via QR from k-means landmarks and use it on
// new points: φ(x)·φ(y) approximates k(x, y).
func ExampleNystrom() {
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(500, 2, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	k := kernel.Gaussian{Gamma: 0.5}
	ctx := context.Background()
	lm, err := approx.KMeansCenters{}.Sample(ctx, x, k, 30, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	phi, err := approx.Nystrom{Rank: 10, QR: true}.Fit(ctx, x, k, lm)
	if err != nil {
		fmt.Println(err)
		return
	}
	y := mat.NewDense(2, 2, []float64{0, 0, 0.5, -0.5})
	f := mat.NewDense(2, phi.Dim(), nil)
	if err := phi.Transform(ctx, f, y); err != nil {
		fmt.Println(err)
		return
	}
	approxK := mat.Dot(f.RowView(0), f.RowView(1))
	exact := k.Eval(y.RawRowView(0), y.RawRowView(1))
	fmt.Printf("features: %d\n", phi.Dim())
	fmt.Printf("k(x, y) = %.3f, error below 0.01: %v\n", exact, math.Abs(approxK-exact) < 0.01)
	// Output:
	// features: 10
	// k(x, y) = 0.779, error below 0.01: true
}

// Random Fourier features for the Gaussian kernel.
func ExampleRFF() {
	k := kernel.Gaussian{Gamma: 0.5}
	phi, err := approx.RFF{Features: 4000}.Fit(k, 2, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		fmt.Println(err)
		return
	}
	y := mat.NewDense(2, 2, []float64{0, 0, 0.5, -0.5})
	f := mat.NewDense(2, phi.Dim(), nil)
	if err := phi.Transform(context.Background(), f, y); err != nil {
		fmt.Println(err)
		return
	}
	approxK := mat.Dot(f.RowView(0), f.RowView(1))
	// The standard deviation of the estimate is about 1/√4000 ≈ 0.016.
	fmt.Println(math.Abs(approxK-k.Eval(y.RawRowView(0), y.RawRowView(1))) < 0.05)
	// Output: true
}
