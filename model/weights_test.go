package model_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// weightData returns 30 training rows in 3-d (two continuous columns and a
// 0/1 flag, which Falkon's FactorOn can factor out) with a smooth target, three
// class labels (0, 1, 2), integer weights 0…3 (each value on several rows,
// 0 on rows of every class), and 12 test rows.
func weightData() (x *mat.Dense, y, cls, w []float64, test *mat.Dense) {
	rng := rand.New(rand.NewPCG(11, 3))
	n := 30
	x = mat.NewDense(n, 3, nil)
	y = make([]float64, n)
	cls = make([]float64, n)
	w = make([]float64, n)
	for i := range n {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		x.Set(i, 2, float64(i%2))
		y[i] = math.Sin(3*a) + b*b + 0.1*rng.NormFloat64()
		cls[i] = float64(i % 3)
		if a+0.3*rng.NormFloat64() > 0.3 {
			cls[i] = 2
		}
		w[i] = float64((i / 3) % 4)
	}
	test = mat.NewDense(12, 3, nil)
	for i := range 12 {
		test.Set(i, 0, 2*rng.Float64()-1)
		test.Set(i, 1, 2*rng.Float64()-1)
		test.Set(i, 2, float64(i%2))
	}
	return
}

// repeated returns x's rows, y and labels with row i repeated w_i times
// (absent for w_i = 0), in order.
func repeated(x *mat.Dense, y, cls, w []float64) (*mat.Dense, []float64, []float64) {
	_, d := x.Dims()
	var data, yy, cc []float64
	for i, wi := range w {
		for range int(wi) {
			data = append(data, x.RawRowView(i)...)
			yy = append(yy, y[i])
			cc = append(cc, cls[i])
		}
	}
	return mat.NewDense(len(yy), d, data), yy, cc
}

// decisions returns the decision values of e on test, as one slice.
func decisions(t *testing.T, e model.Estimator, test *mat.Dense) []float64 {
	t.Helper()
	if c, ok := e.(model.Classifier); ok && c.Classes() != nil {
		dec, err := c.DecisionFunction(test)
		if err != nil {
			t.Fatal(err)
		}
		return dec.RawMatrix().Data
	}
	p, err := e.Predict(test)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func maxAbsDiff(a, b []float64) float64 {
	var m float64
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// TestWeightsRepeatRows is the identity WeightedEstimator documents: integer
// weights (0 to 3) give the model of the data with each row repeated that
// many times, for every estimator that takes weights, on dense and sparse X.
// The SVMs' duals are solved to 1e-9 so that two solutions of the same
// problem agree to about that (the decision function of an SVM is unique
// when K is positive definite); the ridge solutions are direct, and agree
// to rounding (1e-9 allows for the Cholesky of matrices of different
// order, condition number below 1e4 here with λ = 1e-3).
func TestWeightsRepeatRows(t *testing.T) {
	ctx := context.Background()
	x, y, cls, w, test := weightData()
	xr, yr, cr := repeated(x, y, cls, w)
	k := kernel.Gaussian{Gamma: 2}
	centers := mat.DenseCopyOf(x.Slice(0, 8, 0, 3))
	falkon := func(f model.Falkon) func() model.WeightedEstimator {
		return func() model.WeightedEstimator {
			g := f
			g.Kernel, g.Lambda, g.Centers, g.Tol, g.MaxIter = k, 1e-3, centers, 1e-14, 50
			return &g
		}
	}
	cases := []struct {
		name  string
		est   func() model.WeightedEstimator
		class bool
		tol   float64
	}{
		{"svm binary", func() model.WeightedEstimator { return &model.SVM{Kernel: k, C: 2, Tol: 1e-9} }, true, 1e-6},
		{"svm ovo", func() model.WeightedEstimator { return &model.SVM{Kernel: k, C: 2, Tol: 1e-9} }, true, 1e-6},
		{"svm ovr weighted classes", func() model.WeightedEstimator {
			return &model.SVM{Kernel: k, C: 2, Tol: 1e-9, Multiclass: model.OneVsRest, ClassWeights: map[float64]float64{2: 0.5}}
		}, true, 1e-6},
		{"svr", func() model.WeightedEstimator { return &model.SVR{Kernel: k, C: 2, Epsilon: 0.05, Tol: 1e-9} }, false, 1e-6},
		{"krr exact", func() model.WeightedEstimator { return &model.KRR{Kernel: k, Lambda: 1e-3} }, false, 1e-9},
		{"krr exact classification", func() model.WeightedEstimator {
			return &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification}
		}, true, 1e-9},
		{"krr nystrom", func() model.WeightedEstimator {
			return &model.KRR{Kernel: k, Lambda: 1e-3, Approx: model.NystromKRR{Centers: centers}}
		}, false, 1e-9},
		{"krr rff", func() model.WeightedEstimator {
			return &model.KRR{Kernel: k, Lambda: 1e-3, Approx: model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 20}}}}
		}, false, 1e-9},
		// Falkon with the 8 centers given; CG run to 1e-14 (8 unknowns).
		// The two fits sum different rows in different orders: equal to
		// rounding.
		{"falkon", falkon(model.Falkon{}), false, 1e-7},
		{"falkon classification", falkon(model.Falkon{Task: model.Classification}), true, 1e-7},
		{"falkon cached K_nM", falkon(model.Falkon{CacheKnm: true}), false, 1e-7},
		{"falkon jacobi", falkon(model.Falkon{Preconditioner: model.PrecondJacobi}), false, 1e-7},
		{"falkon factored", falkon(model.Falkon{Factor: model.FactorOn}), false, 1e-7},
		// float32 passes: K and its products rounded to float32 (2^-24 ≈
		// 6e-8 relative) in different orders on the two sides.
		{"falkon float32", falkon(model.Falkon{Float32: true}), false, 1e-4},
	}
	for _, c := range cases {
		for _, sparse := range []bool{false, true} {
			labels, labelsR := y, yr
			if c.class {
				labels, labelsR = cls, cr
				if c.name == "svm binary" {
					labels, labelsR = binary(cls), binary(cr)
				}
			}
			var xa, xb mat.Matrix = x, xr
			if sparse {
				sa, err := datasets.CSRFromDense(x)
				if err != nil {
					t.Fatal(err)
				}
				sb, err := datasets.CSRFromDense(xr)
				if err != nil {
					t.Fatal(err)
				}
				xa, xb = sa, sb
			}
			a, b := c.est(), c.est()
			if err := a.FitWeighted(ctx, xa, labels, w); err != nil {
				t.Fatalf("%s sparse=%v: weighted: %v", c.name, sparse, err)
			}
			if err := b.Fit(ctx, xb, labelsR); err != nil {
				t.Fatalf("%s sparse=%v: repeated: %v", c.name, sparse, err)
			}
			if f, ok := a.(*model.Falkon); ok {
				// The pass the case names must be the one that ran.
				info := f.Info()
				if f.CacheKnm && !info.CachedKnm || !f.CacheKnm && info.CachedKnm {
					t.Errorf("%s sparse=%v: CachedKnm = %v", c.name, sparse, info.CachedKnm)
				}
				if factored := info.Plan.Factoring != ""; factored != (f.Factor == model.FactorOn && !sparse) {
					t.Errorf("%s sparse=%v: factoring %q", c.name, sparse, info.Plan.Factoring)
				}
				if info.Preconditioner != f.Preconditioner && f.Preconditioner != "" {
					t.Errorf("%s sparse=%v: preconditioner %q", c.name, sparse, info.Preconditioner)
				}
			}
			da, db := decisions(t, a, test), decisions(t, b, test)
			if d := maxAbsDiff(da, db); d > c.tol {
				t.Errorf("%s sparse=%v: weighted and repeated decisions differ by %.3g (tol %g)", c.name, sparse, d, c.tol)
			}
		}
	}
}

// binary maps the three classes to two (class 2 against the rest).
func binary(c []float64) []float64 {
	b := make([]float64, len(c))
	for i, v := range c {
		if v == 2 {
			b[i] = 1
		}
	}
	return b
}

// TestKRRWeightedMatchesNormalEquations checks exact weighted KRR with
// non-integer weights against its definition: α minimizes
// (1/S)Σ w_i((Kα)_i − y_i)² + λαᵀKα, so KWKα + λS·Kα = KWy, solved here
// directly (gonum's LU on the n×n system) rather than by the backend's
// scaled Cholesky. Weights times 7 must give the same model (weights are
// relative), and weights all 1 the unweighted one.
func TestKRRWeightedMatchesNormalEquations(t *testing.T) {
	ctx := context.Background()
	x, y, _, _, test := weightData()
	n, _ := x.Dims()
	rng := rand.New(rand.NewPCG(4, 4))
	w := make([]float64, n)
	var s float64
	for i := range w {
		w[i] = 0.2 + 2*rng.Float64()
		s += w[i]
	}
	k := kernel.Gaussian{Gamma: 2}
	lambda := 1e-2
	km := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			km.Set(i, j, k.Eval(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	var kw mat.Dense // K W
	kw.Apply(func(_, j int, v float64) float64 { return v * w[j] }, km)
	var a mat.Dense
	a.Mul(&kw, km)
	var kk mat.Dense
	kk.Scale(lambda*s, km)
	a.Add(&a, &kk)
	var rhs mat.VecDense
	rhs.MulVec(&kw, mat.NewVecDense(n, y))
	var alpha mat.VecDense
	if err := alpha.SolveVec(&a, &rhs); err != nil {
		t.Fatal(err)
	}
	m, _ := test.Dims()
	want := make([]float64, m)
	for i := range m {
		for j := range n {
			want[i] += alpha.AtVec(j) * k.Eval(test.RawRowView(i), x.RawRowView(j))
		}
	}
	fit := func(w []float64) []float64 {
		e := &model.KRR{Kernel: k, Lambda: lambda}
		if err := e.FitWeighted(ctx, x, y, w); err != nil {
			t.Fatal(err)
		}
		return decisions(t, e, test)
	}
	// The reference solves a system of condition ~1e8 (K W K) by LU: 1e-7.
	if d := maxAbsDiff(fit(w), want); d > 1e-7 {
		t.Errorf("weighted exact KRR differs from the normal equations by %.3g", d)
	}
	w7 := make([]float64, n)
	for i := range w {
		w7[i] = 7 * w[i]
	}
	if d := maxAbsDiff(fit(w7), fit(w)); d > 1e-10 {
		t.Errorf("weights ×7 move the model by %.3g", d)
	}
	ones := make([]float64, n)
	for i := range ones {
		ones[i] = 1
	}
	if d := maxAbsDiff(fit(ones), fit(nil)); d != 0 {
		t.Errorf("weights all 1 differ from no weights by %.3g", d)
	}
}

// TestWeightsRefused: bad weights, and configurations that cannot take
// weights, are ErrInput with a message naming the problem.
func TestWeightsRefused(t *testing.T) {
	ctx := context.Background()
	x, y, cls, _, _ := weightData()
	n, _ := x.Dims()
	ones := func() []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		return w
	}
	with := func(i int, v float64) []float64 { w := ones(); w[i] = v; return w }
	zeroClass := ones()
	for i, c := range cls {
		if c == 1 {
			zeroClass[i] = 0
		}
	}
	onlyClass0 := ones()
	for i, c := range cls {
		if c != 0 {
			onlyClass0[i] = 0
		}
	}
	k := kernel.Gaussian{Gamma: 1}
	cases := []struct {
		name string
		est  model.WeightedEstimator
		y, w []float64
		want string
	}{
		{"short", &model.KRR{Kernel: k, Lambda: 1e-3}, y, ones()[:n-1], "29 sample weights for 30 rows"},
		{"nan", &model.SVR{Kernel: k, C: 1}, y, with(4, math.NaN()), "sample weight 4 is NaN"},
		{"negative", &model.SVM{Kernel: k, C: 1}, cls, with(2, -1), "sample weight 2 is -1"},
		{"inf", &model.KRR{Kernel: k, Lambda: 1e-3}, y, with(0, math.Inf(1)), "sample weight 0 is +Inf"},
		{"all zero", &model.SVM{Kernel: k, C: 1}, cls, make([]float64, n), "every sample weight is 0"},
		{"class without weight", &model.SVM{Kernel: k, C: 1}, cls, zeroClass, "every row of class 1 has sample weight 0"},
		{"one-vs-rest without the rest", &model.SVM{Kernel: k, C: 1, Multiclass: model.OneVsRest}, cls, onlyClass0, "every row of the classes other than 0 has sample weight 0"},
		{"meka", &model.KRR{Kernel: k, Lambda: 1e-3, Approx: model.MEKAKRR{}}, y, ones(), "does not take sample or class weights"},
		{"falkon probability", &model.Falkon{Kernel: k, Lambda: 1e-3, M: 5, Task: model.Classification, Probability: true}, cls, ones(), "Probability with sample weights"},
		{"falkon nan", &model.Falkon{Kernel: k, Lambda: 1e-3, M: 5}, y, with(1, math.NaN()), "sample weight 1 is NaN"},
		{"probability", &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification, Probability: true}, cls, ones(), "Probability with sample weights"},
	}
	for _, c := range cases {
		err := c.est.FitWeighted(ctx, x, c.y, c.w)
		if !errors.Is(err, model.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want ErrInput containing %q", c.name, err, c.want)
		}
	}
}

// TestRidgeClassWeights: KRR's and Falkon's ClassWeights are row weights by
// class: a fit with ClassWeights{2: 3, 0: 0.5} and sample weights w gives
// the model of FitWeighted with w_i·cw[y_i] (the same arithmetic, so the
// same bits); balanced weights (n/(k·n_c)) on a 311:89 problem whose
// classes overlap raise the minority class's recall on the training rows
// over the unweighted fit (the ridge fit to ±1 targets sides with the
// majority where they overlap: 0.54 against 0.80 when written); and bad
// class weights are ErrInput.
func TestRidgeClassWeights(t *testing.T) {
	ctx := context.Background()
	x, _, cls, w, test := weightData()
	k := kernel.Gaussian{Gamma: 2}
	cw := map[float64]float64{2: 3, 0: 0.5}
	expanded := make([]float64, len(w))
	for i, c := range cls {
		expanded[i] = w[i]
		if v, ok := cw[c]; ok {
			expanded[i] *= v
		}
	}
	centers := mat.DenseCopyOf(x.Slice(0, 10, 0, 3))
	for _, mk := range []func() model.WeightedEstimator{
		func() model.WeightedEstimator { return &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification} },
		func() model.WeightedEstimator {
			return &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification, Approx: model.NystromKRR{Centers: centers}}
		},
		func() model.WeightedEstimator {
			return &model.Falkon{Kernel: k, Lambda: 1e-3, Task: model.Classification, Centers: centers}
		},
	} {
		a, b := mk(), mk()
		switch e := a.(type) {
		case *model.KRR:
			e.ClassWeights = cw
		case *model.Falkon:
			e.ClassWeights = cw
		}
		if err := a.FitWeighted(ctx, x, cls, w); err != nil {
			t.Fatal(err)
		}
		if err := b.FitWeighted(ctx, x, cls, expanded); err != nil {
			t.Fatal(err)
		}
		if da, db := decisions(t, a, test), decisions(t, b, test); maxAbsDiff(da, db) != 0 {
			t.Errorf("%T: class weights differ from the expanded sample weights by %.3g", a, maxAbsDiff(da, db))
		}
	}

	// Class 1 is the rows with x₀ + 0.5·noise > 1.65: 89 of 400.
	rng := rand.New(rand.NewPCG(17, 1))
	n := 400
	xi := mat.NewDense(n, 2, nil)
	yi := make([]float64, n)
	for i := range n {
		a, b := 2*rng.Float64(), rng.Float64()
		xi.Set(i, 0, a)
		xi.Set(i, 1, b)
		if a+0.5*rng.NormFloat64() > 1.65 {
			yi[i] = 1
		}
	}
	recall := func(cw map[float64]float64) float64 {
		f := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-4, M: 40, Seed: 2, Task: model.Classification, ClassWeights: cw}
		if err := f.Fit(ctx, xi, yi); err != nil {
			t.Fatal(err)
		}
		p, err := f.Predict(xi)
		if err != nil {
			t.Fatal(err)
		}
		hit, pos := 0, 0
		for i, v := range yi {
			if v == 1 {
				pos++
				if p[i] == 1 {
					hit++
				}
			}
		}
		return float64(hit) / float64(pos)
	}
	bal, err := model.BalancedClassWeights(yi)
	if err != nil {
		t.Fatal(err)
	}
	r0, r1 := recall(nil), recall(bal)
	t.Logf("minority recall %.3f unweighted, %.3f balanced (class weights %v)", r0, r1, bal)
	if !(r1 > r0) {
		t.Errorf("minority recall %.3f unweighted, %.3f with balanced class weights %v: want it higher", r0, r1, bal)
	}

	for _, c := range []struct {
		est  model.Estimator
		y    []float64
		want string
	}{
		{&model.KRR{Kernel: k, Lambda: 1e-3, ClassWeights: cw}, cls, "class weights need task classification"},
		{&model.Falkon{Kernel: k, Lambda: 1e-3, M: 5, Task: model.Classification, ClassWeights: map[float64]float64{7: 1}}, cls, "class weight for label 7, which is not in y"},
		{&model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification, ClassWeights: map[float64]float64{1: -2}}, cls, "class weight of 1"},
		{&model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification, ClassWeights: cw, Approx: model.MEKAKRR{}}, cls, "does not take sample or class weights"},
	} {
		err := c.est.Fit(ctx, x, c.y)
		if !errors.Is(err, model.ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%T: err = %v, want ErrInput containing %q", c.est, err, c.want)
		}
	}
}
