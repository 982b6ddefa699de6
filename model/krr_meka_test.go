package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// mekaData returns n points in 3-D around three centers, and a smooth target.
func mekaData(n int, rng *rand.Rand) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 3, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		c := float64(i%3) * 4
		for j := 0; j < 3; j++ {
			x.Set(i, j, c+rng.NormFloat64())
		}
		y[i] = math.Sin(x.At(i, 0)) + 0.5*x.At(i, 1)
	}
	return x, y
}

func TestMEKAKRRMatchesDenseSolve(t *testing.T) {
	ctx := context.Background()
	x, y := mekaData(300, rand.New(rand.NewPCG(1, 2)))
	xt, _ := mekaData(50, rand.New(rand.NewPCG(3, 4)))
	k := kernel.Gaussian{Gamma: 0.3}
	const lambda = 1e-3
	m := &KRR{Kernel: k, Lambda: lambda, Seed: 7, Approx: &MEKAKRR{Rank: 8, Clusters: 3}}
	if err := m.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	got, err := m.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	if info := m.Info(); info.Backend != "meka-woodbury" || info.Rank != 24 || info.MemoryBytes <= 0 {
		t.Errorf("info %+v: want backend meka-woodbury, rank 3·8 = 24, memory reported", info)
	}

	// The same MEKA (same seed stream), solved densely.
	me, err := meka.Fit(ctx, x, k, meka.Options{Rank: 8, Clusters: 3, PSD: true}, rand.New(rand.NewPCG(7, krrSeedStream)))
	if err != nil {
		t.Fatal(err)
	}
	n := 300
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	a := mat.NewDense(n, n, nil)
	if err := me.Rows(ctx, a, idx); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+lambda*float64(n))
	}
	var alpha mat.Dense
	if err := alpha.Solve(a, mat.NewDense(n, 1, y)); err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(50, 1, nil)
	if err := me.CrossMul(ctx, want, xt, &alpha); err != nil {
		t.Fatal(err)
	}
	// Woodbury vs dense LU on a system with condition ≲ 1e3: 1e-9.
	for i, v := range got {
		if math.Abs(v-want.At(i, 0)) > 1e-9*(1+math.Abs(v)) {
			t.Fatalf("prediction %d: %g, dense solve gives %g", i, v, want.At(i, 0))
		}
	}

	// The CG backend agrees to its tolerance (1e-10 residual, condition ≲ 1e3).
	cg := &KRR{Kernel: k, Lambda: lambda, Seed: 7, Approx: &MEKAKRR{Rank: 8, Clusters: 3, Solver: "cg", CG: meka.CG{Tol: 1e-10}}}
	if err := cg.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	gcg, err := cg.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range gcg {
		if math.Abs(v-got[i]) > 1e-6*(1+math.Abs(v)) {
			t.Fatalf("CG prediction %d: %g, Woodbury %g", i, v, got[i])
		}
	}
}

func TestMEKAKRRClassificationAndErrors(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	x, _ := mekaData(300, rng)
	labels := make([]float64, 300)
	for i := range labels {
		labels[i] = float64(i % 3) // the three blobs are the three classes
	}
	m := &KRR{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, Task: Classification, Approx: &MEKAKRR{Rank: 6, Clusters: 3}}
	if err := m.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i, p := range pred {
		if p != labels[i] {
			wrong++
		}
	}
	// Blobs 4 apart with unit spread overlap for about 2% of points (a
	// 2-standard-deviation margin per coordinate); allow 5%.
	if wrong > 15 {
		t.Errorf("%d of 300 training points misclassified", wrong)
	}
	bad := &KRR{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, Approx: &MEKAKRR{Solver: "lu"}}
	if err := bad.Fit(ctx, x, labels); !errors.Is(err, ErrInput) {
		t.Errorf("unknown solver: %v, want ErrInput", err)
	}
	big := &KRR{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, Resources: Resources{MemoryLimit: 1000}, Approx: &MEKAKRR{Rank: 6, Clusters: 3}}
	if err := big.Fit(ctx, x, labels); !errors.Is(err, ErrInput) {
		t.Errorf("memory limit: %v, want ErrInput", err)
	}
}

// TestMEKAFeaturesRidgeMatchesMEKAKRR: ridge on MEKA's features solves KRR
// with K̃ = ΦΦᵀ = W L₊ Wᵀ, the same system MEKAKRR solves by Woodbury, so
// the predictions agree (same seed, same MEKA) up to round-off and the
// eigenvalues of L₊ dropped below 1e-14·r·λ_max.
func TestMEKAFeaturesRidgeMatchesMEKAKRR(t *testing.T) {
	ctx := context.Background()
	x, y := mekaData(300, rand.New(rand.NewPCG(11, 12)))
	xt, _ := mekaData(40, rand.New(rand.NewPCG(13, 14)))
	k := kernel.Gaussian{Gamma: 0.3}
	cfg := MEKAKRR{Rank: 8, Clusters: 3}
	a := &KRR{Kernel: k, Lambda: 1e-3, Seed: 3, Approx: &cfg}
	b := &KRR{Kernel: k, Lambda: 1e-3, Seed: 3, Approx: FeatureRidge{Features: MEKAFeatures{MEKA: cfg}}}
	for _, m := range []*KRR{a, b} {
		if err := m.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
	}
	pa, err := a.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := b.Predict(xt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pa {
		// Two solves (Woodbury in n-space vs normal equations in feature
		// space) of a system with condition ≲ 1e3: agreement to 1e-7.
		if math.Abs(pa[i]-pb[i]) > 1e-7*(1+math.Abs(pa[i])) {
			t.Fatalf("prediction %d: MEKAKRR %g, feature ridge %g", i, pa[i], pb[i])
		}
	}
}
