package model

import (
	"context"
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestKRRBackendsConformance(t *testing.T) {
	backends := map[string]func() KRRApprox{
		"nystrom":          func() KRRApprox { return NystromKRR{M: 30} },
		"rff":              func() KRRApprox { return FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 60}}} },
		"nystrom-features": func() KRRApprox { return FeatureRidge{Features: NystromFeatures{M: 30}} },
		"meka":             func() KRRApprox { return &MEKAKRR{Options: meka.Options{Rank: 5, Clusters: 3}} },
		"meka-cg":          func() KRRApprox { return &MEKAKRR{Options: meka.Options{Rank: 5, Clusters: 3}, Solver: "cg"} },
	}
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			checkConformance(t, func() Estimator {
				return &KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, Approx: b(), Seed: 4}
			}, conformanceRegression(1))
			checkConformance(t, func() Estimator {
				return &KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, Approx: b(), Seed: 4, Task: Classification}
			}, conformanceBinary(2), conformanceMulticlass(3))
		})
	}
}

// Ridge on a feature map equals the textbook solve (ΦᵀΦ + λnI)w = Φᵀy with Φ
// formed whole and solved by LU. The Gram matrix has condition below 1e5
// here, so 1e-9 relative is well above rounding.
func TestFeatureRidgeMatchesDenseRidge(t *testing.T) {
	x, y := krrTestData(141, 300, 3)
	xt, _ := krrTestData(142, 40, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	const lambda = 1e-4
	m := &KRR{Kernel: k, Lambda: lambda, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 80}}}, Seed: 5}
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	got, _ := m.Predict(xt)
	phi := m.Predictor().(*LinearFeatures).Map
	f := mat.NewDense(300, 80, nil)
	if err := phi.Transform(context.Background(), f, x); err != nil {
		t.Fatal(err)
	}
	var g mat.Dense
	g.Mul(f.T(), f)
	for i := 0; i < 80; i++ {
		g.Set(i, i, g.At(i, i)+lambda*300)
	}
	var rhs mat.VecDense
	rhs.MulVec(f.T(), mat.NewVecDense(300, y))
	var w mat.VecDense
	if err := w.SolveVec(&g, &rhs); err != nil {
		t.Fatal(err)
	}
	ft := mat.NewDense(40, 80, nil)
	if err := phi.Transform(context.Background(), ft, xt); err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(ft, &w)
	if d := maxRelDiff(got, want.RawVector().Data); d > 1e-9 {
		t.Errorf("feature ridge differs from the dense solve by %g", d)
	}
	if info := m.Info(); info.Backend != "features" || info.Rank != 80 {
		t.Errorf("info %+v", info)
	}
}

// Ridge on full-rank Nyström features φ(x) = K(x, L)K_LL^{-1/2} is the
// Nyström (subset-of-regressors) KRR on the same landmarks: both minimize
// ‖K_nL α − y‖² + λn αᵀK_LL α. Twenty well-separated landmarks keep K_LL's
// condition near 1e3, so no eigenvalue is floored and 1e-8 relative holds.
func TestNystromFeaturesEqualNystromKRR(t *testing.T) {
	x, y := krrTestData(151, 500, 2)
	xt, _ := krrTestData(152, 30, 2)
	k := kernel.Gaussian{Gamma: 0.5}
	const lambda = 1e-3
	centers := mat.DenseCopyOf(x.Slice(0, 20, 0, 2))
	direct := &KRR{Kernel: k, Lambda: lambda, Approx: NystromKRR{Centers: centers}}
	if err := direct.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	nm, err := approx.Nystrom{}.Fit(context.Background(), x, k, &approx.Landmarks{Points: centers})
	if err != nil {
		t.Fatal(err)
	}
	if nm.Dropped != 0 {
		t.Fatalf("%d landmark eigenvalues floored; the test needs a full-rank map", nm.Dropped)
	}
	feat := &KRR{Kernel: k, Lambda: lambda, Approx: FeatureRidge{Features: FixedFeatures{Map: nm}}}
	if err := feat.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	a, _ := direct.Predict(xt)
	b, _ := feat.Predict(xt)
	if d := maxRelDiff(b, a); d > 1e-8 {
		t.Errorf("ridge on Nyström features differs from Nyström KRR by %g", d)
	}
}

func TestKRRBackendErrors(t *testing.T) {
	x, y := krrTestData(161, 50, 2)
	ctx := context.Background()
	for name, m := range map[string]*KRR{
		"nystrom M > n":      {Lambda: 1e-3, Approx: NystromKRR{M: 51}},
		"nystrom bad center": {Lambda: 1e-3, Approx: NystromKRR{Centers: mat.NewDense(3, 5, nil)}},
		"rff -1 features":    {Lambda: 1e-3, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: -1}}}},
		"rff polynomial":     {Lambda: 1e-3, Kernel: kernel.Polynomial{Degree: 2, Gamma: 1}, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 5}}}},
		"nystrom features M": {Lambda: 1e-3, Approx: FeatureRidge{Features: NystromFeatures{M: 60}}},
		"fixed without map":  {Lambda: 1e-3, Approx: FeatureRidge{Features: FixedFeatures{}}},
	} {
		if err := m.Fit(ctx, x, y); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
	for name, m := range map[string]*KRR{
		"nystrom":  {Lambda: 1e-3, Approx: NystromKRR{M: 40}, Resources: Resources{MemoryLimit: 4096}},
		"features": {Lambda: 1e-3, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 40}}}, Resources: Resources{MemoryLimit: 4096}},
	} {
		if err := m.Fit(ctx, x, y); !errors.Is(err, ErrMemory) {
			t.Errorf("%s within 4 KiB: err = %v, want ErrMemory", name, err)
		}
	}
}
