package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestKRRConformance(t *testing.T) {
	checkConformance(t, func() Estimator {
		return &KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3}
	}, conformanceRegression(1))
	checkConformance(t, func() Estimator {
		return &KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, Task: Classification}
	}, conformanceBinary(2), conformanceMulticlass(3))
}

// krrTestData draws n points with d standard normal features and a smooth target.
func krrTestData(seed uint64, n, d int) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = rng.NormFloat64()
		}
		y[i] = math.Cos(r[0]) + 0.5*r[d-1] + 0.1*rng.NormFloat64()
	}
	return x, y
}

// naiveKernel forms K(A, B) with the kernel's scalar Eval, independently of the engine.
func naiveKernel(k kernel.Kernel, a, b *mat.Dense) *mat.Dense {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	out := mat.NewDense(na, nb, nil)
	for i := 0; i < na; i++ {
		for j := 0; j < nb; j++ {
			out.Set(i, j, k.Eval(a.RawRowView(i), b.RawRowView(j)))
		}
	}
	return out
}

func maxRelDiff(got, want []float64) float64 {
	var num, den float64
	for i := range got {
		num = math.Max(num, math.Abs(got[i]-want[i]))
		den = math.Max(den, math.Abs(want[i]))
	}
	return num / math.Max(den, 1e-300)
}

// Exact KRR must equal the textbook computation: α = (K + λnI)⁻¹y by LU
// (gonum's mat.Dense.Solve), predictions K(X*, X)α. The tolerance 1e-8 is the
// issue's; the systems here have condition numbers below 1e5, so double
// precision leaves about 1e-11.
func TestExactKRRMatchesDirectSolve(t *testing.T) {
	x, y := krrTestData(11, 80, 4)
	xt, _ := krrTestData(12, 30, 4)
	const lambda = 1e-4
	for _, k := range []kernel.Kernel{
		kernel.Gaussian{Gamma: 0.3},
		kernel.Laplacian{Gamma: 0.5},
		kernel.Polynomial{Degree: 2, Gamma: 0.5, Coef0: 1},
	} {
		t.Run(k.String(), func(t *testing.T) {
			m := &KRR{Kernel: k, Lambda: lambda}
			if err := m.Fit(context.Background(), x, y); err != nil {
				t.Fatal(err)
			}
			got, err := m.Predict(xt)
			if err != nil {
				t.Fatal(err)
			}
			a := naiveKernel(k, x, x)
			for i := 0; i < 80; i++ {
				a.Set(i, i, a.At(i, i)+lambda*80)
			}
			var alpha mat.VecDense
			if err := alpha.SolveVec(a, mat.NewVecDense(80, y)); err != nil {
				t.Fatal(err)
			}
			var want mat.VecDense
			want.MulVec(naiveKernel(k, xt, x), &alpha)
			if d := maxRelDiff(got, want.RawVector().Data); d > 1e-8 {
				t.Errorf("max relative difference from the direct solve = %g, want ≤ 1e-8", d)
			}
			info := m.Info()
			if info.Backend != "exact" || info.N != 80 || info.D != 4 || info.Rank != 80 || info.Penalty != lambda*80 || info.Jitter != 0 {
				t.Errorf("Info = %+v", info)
			}
		})
	}
}

// Multi-class KRR is one-vs-rest: each decision column is the exact KRR
// regression on that class's ±1 targets; binary uses one column, +1 for the
// larger label.
func TestKRRClassificationIsOneVsRest(t *testing.T) {
	c := conformanceMulticlass(5)
	k := kernel.Gaussian{Gamma: 2}
	m := &KRR{Kernel: k, Lambda: 1e-3, Task: Classification}
	if err := m.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	dec, err := m.DecisionFunction(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	if _, cols := dec.Dims(); cols != 3 {
		t.Fatalf("decision has %d columns, want 3", cols)
	}
	for class := 0; class < 3; class++ {
		target := make([]float64, len(c.y))
		for i, v := range c.y {
			target[i] = -1
			if v == float64(class) {
				target[i] = 1
			}
		}
		r := &KRR{Kernel: k, Lambda: 1e-3}
		if err := r.Fit(context.Background(), c.x, target); err != nil {
			t.Fatal(err)
		}
		want, _ := r.Predict(c.xTest)
		// Same factorization, same right-hand side column: equal up to rounding.
		if d := maxRelDiff(mat.Col(nil, class, dec), want); d > 1e-12 {
			t.Errorf("class %d column differs from the one-vs-rest regression by %g", class, d)
		}
	}
	// The classes are angular sectors; with 90 training points a Gaussian KRR
	// classifies most of the 30 test points right (chance is 1/3). 0.8 leaves
	// room for points near the sector borders.
	pred, _ := m.Predict(c.xTest)
	if acc := accuracyOf(pred, conformanceMulticlassLabels(c.xTest)); acc < 0.8 {
		t.Errorf("multi-class test accuracy %.2f, want ≥ 0.8", acc)
	}
	if got := m.Classes(); len(got) != 3 || got[0] != 0 || got[2] != 2 {
		t.Errorf("Classes() = %v", got)
	}
}

func conformanceMulticlassLabels(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	out := make([]float64, n)
	for i := range out {
		a := math.Atan2(x.At(i, 1), x.At(i, 0)) + math.Pi
		out[i] = math.Min(2, math.Floor(a/(2*math.Pi/3)))
	}
	return out
}

func accuracyOf(pred, want []float64) float64 {
	ok := 0
	for i := range pred {
		if pred[i] == want[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(pred))
}

// FitMulti solves all outputs with one factorization; each column must equal
// the single-output fit.
func TestKRRFitMulti(t *testing.T) {
	x, y := krrTestData(21, 50, 3)
	y2 := make([]float64, len(y))
	for i := range y {
		y2[i] = x.At(i, 1) * x.At(i, 2)
	}
	ym := mat.NewDense(50, 2, nil)
	ym.SetCol(0, y)
	ym.SetCol(1, y2)
	m := &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3}
	if err := m.FitMulti(context.Background(), x, ym); err != nil {
		t.Fatal(err)
	}
	dec, err := m.DecisionFunction(x)
	if err != nil {
		t.Fatal(err)
	}
	for j, target := range [][]float64{y, y2} {
		s := &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3}
		if err := s.Fit(context.Background(), x, target); err != nil {
			t.Fatal(err)
		}
		want, _ := s.Predict(x)
		if d := maxRelDiff(mat.Col(nil, j, dec), want); d > 1e-12 {
			t.Errorf("output %d differs from the single-output fit by %g", j, d)
		}
	}
	if err := m.FitMulti(context.Background(), x, mat.NewDense(49, 2, nil)); !errors.Is(err, ErrInput) {
		t.Errorf("FitMulti with 49 target rows: err = %v, want ErrInput", err)
	}
}

// Duplicated points make K singular; with λn far below the rounding of K's
// entries (1e-20·n against 1), the plain factorization fails and the jitter
// must be added, reported, and still give a sensible fit.
func TestKRRJitter(t *testing.T) {
	x0, y0 := krrTestData(31, 30, 2)
	x := mat.NewDense(60, 2, nil)
	y := make([]float64, 60)
	for i := 0; i < 60; i++ {
		x.SetRow(i, x0.RawRowView(i%30))
		y[i] = y0[i%30]
	}
	m := &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-20}
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	info := m.Info()
	if !(info.Jitter > 0) || info.CholAttempts < 2 {
		t.Fatalf("Info = %+v, want a positive jitter after ≥ 2 attempts", info)
	}
	// Default first relative jitter is 1e-10 of the mean diagonal (1 here),
	// growing ×10 per attempt up to 1e-2.
	if info.Jitter < 1e-10 || info.Jitter > 1e-2 {
		t.Errorf("jitter %g outside the documented [1e-10, 1e-2]", info.Jitter)
	}
	pred, _ := m.Predict(x0)
	// With a tiny ridge the fit nearly interpolates the 30 distinct points;
	// the targets have spread ≈ 1, so a residual of 0.05 would already mean
	// the jittered solve went wrong.
	if d := maxRelDiff(pred, y0); d > 0.05 {
		t.Errorf("training residual %g relative, want ≤ 0.05", d)
	}
}

func TestKRRBadConfig(t *testing.T) {
	x, y := krrTestData(41, 20, 2)
	ctx := context.Background()
	for _, m := range []*KRR{
		{Lambda: 0},
		{Lambda: -1},
		{Lambda: math.NaN()},
		{Lambda: math.Inf(1)},
		{Lambda: 1e-3, Kernel: kernel.Gaussian{Gamma: -1}},
		{Lambda: 1e-3, Task: "ranking"},
		{Lambda: 1e-3, Resources: Resources{Workers: -2}},
		{Lambda: 1e-3, Resources: Resources{MemoryLimit: -1}},
	} {
		if err := m.Fit(ctx, x, y); !errors.Is(err, ErrInput) {
			t.Errorf("Fit with %+v: err = %v, want ErrInput", *m, err)
		}
	}
	// 20² floats alone are 3,200 bytes: a 1 KiB limit cannot hold the kernel matrix.
	m := &KRR{Lambda: 1e-3, Resources: Resources{MemoryLimit: 1024}}
	if err := m.Fit(ctx, x, y); !errors.Is(err, ErrMemory) {
		t.Errorf("Fit within 1 KiB: err = %v, want ErrMemory", err)
	}
	m.MemoryLimit = 1 << 20
	if err := m.Fit(ctx, x, y); err != nil {
		t.Errorf("Fit within 1 MiB: %v", err)
	} else if m.Info().MemoryBytes > 1<<20 || m.Info().MemoryBytes < 8*20*20 {
		t.Errorf("planned memory %d bytes, want within [3200, 1 MiB]", m.Info().MemoryBytes)
	}
}

// A nil Kernel means Gaussian with γ = 1/d, resolved at Fit without touching the field.
func TestKRRDefaultKernel(t *testing.T) {
	x, y := krrTestData(51, 20, 4)
	m := &KRR{Lambda: 1e-3}
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if m.Kernel != nil {
		t.Errorf("Fit wrote the default kernel back: %v", m.Kernel)
	}
	if got, want := m.Info().Kernel, (kernel.Gaussian{Gamma: 0.25}).String(); got != want {
		t.Errorf("kernel used %q, want %q", got, want)
	}
}

// cadataSplit reads cadata and returns a seeded random split of nTrain/nTest
// points with features standardized by training statistics; the targets stay
// in dollars.
func cadataSplit(t testing.TB, nTrain, nTest int, seed uint64) (xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64) {
	t.Helper()
	path, ok := datasets.SharedPath("cadata.libsvm.gz")
	if !ok {
		t.Skip("cadata not available")
	}
	ds, err := datasets.ReadLIBSVMFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, d := ds.X.Dims()
	perm := rand.New(rand.NewPCG(seed, 99)).Perm(n)
	take := func(idx []int) (*mat.Dense, []float64) {
		x := mat.NewDense(len(idx), d, nil)
		y := make([]float64, len(idx))
		for i, r := range idx {
			x.SetRow(i, ds.X.RawRowView(r))
			y[i] = ds.Y[r]
		}
		return x, y
	}
	xtr, ytr = take(perm[:nTrain])
	xte, yte = take(perm[nTrain : nTrain+nTest])
	for j := 0; j < d; j++ {
		col := mat.Col(nil, j, xtr)
		var mean, sd float64
		for _, v := range col {
			mean += v
		}
		mean /= float64(len(col))
		for _, v := range col {
			sd += (v - mean) * (v - mean)
		}
		sd = math.Sqrt(sd / float64(len(col)))
		if sd == 0 {
			sd = 1
		}
		for _, x := range []*mat.Dense{xtr, xte} {
			r, _ := x.Dims()
			for i := 0; i < r; i++ {
				x.Set(i, j, (x.At(i, j)-mean)/sd)
			}
		}
	}
	return xtr, ytr, xte, yte
}

func rmse(pred, y []float64) float64 {
	var s float64
	for i := range y {
		s += (pred[i] - y[i]) * (pred[i] - y[i])
	}
	return math.Sqrt(s / float64(len(y)))
}

// Exact KRR on a 2,000-point subsample of cadata with DESIGN.md's setting
// (σ = 2, i.e. γ = 0.125; λ = 1e-6; targets centred and scaled by training
// statistics) must beat the constant (training-mean) predictor by a wide
// margin. Measured (seed 1): constant 115,862 $, KRR 69,238 $ (ratio 0.60;
// full-size exact KRR reaches 53,856 $ in DESIGN.md); the bound 0.7× leaves
// room for other subsamples.
func TestExactKRRCadata(t *testing.T) {
	xtr, ytr, xte, yte := cadataSplit(t, 2000, 1000, 1)
	var mean, sd float64
	for _, v := range ytr {
		mean += v
	}
	mean /= float64(len(ytr))
	for _, v := range ytr {
		sd += (v - mean) * (v - mean)
	}
	sd = math.Sqrt(sd / float64(len(ytr)))
	ys := make([]float64, len(ytr))
	for i, v := range ytr {
		ys[i] = (v - mean) / sd
	}
	m := &KRR{Kernel: kernel.Gaussian{Gamma: 0.125}, Lambda: 1e-6}
	if err := m.Fit(context.Background(), xtr, ys); err != nil {
		t.Fatal(err)
	}
	pred, err := m.Predict(xte)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pred {
		pred[i] = pred[i]*sd + mean
	}
	constant := make([]float64, len(yte))
	for i := range constant {
		constant[i] = mean
	}
	got, base := rmse(pred, yte), rmse(constant, yte)
	t.Logf("cadata 2000/1000: exact KRR RMSE %.0f, constant predictor %.0f, jitter %g", got, base, m.Info().Jitter)
	if got > 0.7*base {
		t.Errorf("exact KRR RMSE %.0f is not well below the constant predictor's %.0f", got, base)
	}
}

// KRR's progress reports count the backend's steps in order, Done from 1 to
// Total, and an error at the first report stops the fit before the next
// step, for each backend that reports its steps.
func TestKRRProgressSteps(t *testing.T) {
	x, y := krrTestData(61, 300, 3)
	for name, b := range map[string]KRRApprox{
		"exact": nil, "nystrom": NystromKRR{M: 40},
		"features": FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 30}}},
	} {
		var seen []Progress
		m := &KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, Approx: b, Seed: 1,
			Progress: func(p Progress) error { seen = append(seen, p); return nil }}
		if err := m.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		for i, p := range seen {
			if p.Stage != StageSolve || p.Done != i+1 || p.Total != len(seen) {
				t.Errorf("%s: report %d = %+v of %d", name, i, p, len(seen))
			}
		}
		if len(seen) < 2 {
			t.Errorf("%s: %d reports, want the backend's steps", name, len(seen))
		}
		calls := 0
		m.Progress = func(Progress) error { calls++; return errors.New("stop") }
		if err := m.Fit(context.Background(), x, y); !errors.Is(err, ErrStopped) || calls != 1 {
			t.Errorf("%s: stopped fit: err = %v after %d reports", name, err, calls)
		}
	}
}
