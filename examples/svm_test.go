package examples_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// A hard-margin linear SVM on four points whose maximum-margin separator is
// known: x = ±1 are the support vectors, w = 1, b = 0, so f(x) = x.
func TestSVMLinearMaximumMargin(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{-2, -1, 1, 2})
	y := []float64{-1, -1, 1, 1}
	s := &model.SVM{Kernel: kernel.Linear{}, C: 1e3, Tol: 1e-9}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	probe := mat.NewDense(3, 1, []float64{-3, 0.5, 4})
	f, err := s.DecisionFunction(probe)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{-3, 0.5, 4} {
		// The KKT violation is at most Tol = 1e-9, so f is exact to ~1e-8.
		if got := f.At(i, 0); math.Abs(got-want) > 1e-6 {
			t.Errorf("f(%g) = %.9f, want %g", probe.At(i, 0), got, want)
		}
	}
	info := s.Info()
	if info.SV != 2 || math.Abs(info.Tasks[0].Bias) > 1e-6 {
		t.Errorf("Info: %d support vectors, bias %g; want 2 and 0", info.SV, info.Tasks[0].Bias)
	}
	if got := s.Classes(); len(got) != 2 || got[0] != -1 || got[1] != 1 {
		t.Errorf("Classes() = %v, want [-1 1]", got)
	}
}

// A linear ε-SVR on four points of the line y = 2x + 1 with ε = 0.5 and a
// large C: the flattest f(x) = wx + b within ε of every point has its
// residuals at ±ε at x = ±2, so w = 2 − ε/2 = 1.75 and b = 1; x = ±1 lie
// inside the tube (residuals ∓0.25) and are no support vectors.
func TestSVRLinearFlattestFit(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{-2, -1, 1, 2})
	y := []float64{-3, -1, 3, 5}
	s := &model.SVR{Kernel: kernel.Linear{}, C: 1e3, Epsilon: 0.5, Tol: 1e-9}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	p, err := s.Predict(mat.NewDense(3, 1, []float64{-3, 0.5, 4}))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{-4.25, 1.875, 8} {
		if math.Abs(p[i]-want) > 1e-6 {
			t.Errorf("f = %.9f, want %g", p[i], want)
		}
	}
	info := s.Info()
	if info.SV != 2 || info.BoundedSV != 0 || math.Abs(info.Bias-1) > 1e-6 {
		t.Errorf("Info: %d support vectors (%d at C), bias %g; want 2, 0 and 1", info.SV, info.BoundedSV, info.Bias)
	}
	sv, coef, err := s.SupportVectors()
	if err != nil {
		t.Fatal(err)
	}
	// w = Σ β_i x_i = 1.75 over the support vectors x = −2 and 2.
	var w float64
	for i, b := range coef {
		w += b * sv.At(i, 0)
	}
	if math.Abs(w-1.75) > 1e-6 {
		t.Errorf("w = Σ β_i x_i = %.9f, want 1.75", w)
	}
}

// pendigits returns the first 2,000 rows of the bundled pendigits training
// part and the whole official test part (3,498 rows), scaled to [−1, 1] with
// the training statistics as svm-scale does.
func pendigits(t *testing.T) (xtr *mat.Dense, ytr []float64, xte *mat.Dense, yte []float64) {
	t.Helper()
	tr, te, err := datasets.LoadSplit("pendigits")
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 2000)
	for i := range idx {
		idx[i] = i
	}
	if tr, err = tr.Subset(idx); err != nil {
		t.Fatal(err)
	}
	var s datasets.MinMax
	if err := s.Fit(tr.X); err != nil {
		t.Fatal(err)
	}
	if xtr, err = s.Transform(tr.X); err != nil {
		t.Fatal(err)
	}
	if xte, err = s.Transform(te.X); err != nil {
		t.Fatal(err)
	}
	return xtr, tr.Y, xte, te.Y
}

// Ten-class SVM and BKA-SVM on the bundled pendigits data.
func TestSVMAndBKASVMPendigits(t *testing.T) {
	xtr, ytr, xte, yte := pendigits(t)
	k := kernel.Gaussian{Gamma: 0.5}
	svm := &model.SVM{Kernel: k, C: 10}
	bka := &model.BKASVM{Kernel: k, C: 10, Clusters: 8, Seed: 1}
	// The RBF SVM reaches about 98% on pendigits' official test part when
	// trained on all 7,494 rows (LIBSVM with svm-scale, the figure usually
	// quoted); on 2,000 rows this setting measured 97.7% (SVM) and 97.1%
	// (BKA-SVM, 8 clusters). The bars sit a point or two below: a broken
	// multi-class vote or partition falls far lower (chance is 10%).
	for _, c := range []struct {
		name string
		est  model.Estimator
		bar  float64
	}{{"svm", svm, 0.96}, {"bka-svm", bka, 0.95}} {
		if err := c.est.Fit(context.Background(), xtr, ytr); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p, err := c.est.Predict(xte)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		acc := accuracy(t, yte, p)
		t.Logf("%s: test accuracy %.4f", c.name, acc)
		if acc < c.bar {
			t.Errorf("%s: test accuracy %.4f, want ≥ %.2f", c.name, acc, c.bar)
		}
	}
	if got := svm.Classes(); len(got) != 10 || got[0] != 0 || got[9] != 9 {
		t.Errorf("SVM.Classes() = %v, want 0…9", got)
	}
	info := bka.Info()
	total := 0
	for _, s := range info.ClusterSizes {
		total += s
	}
	// One-vs-one over 10 classes: 45 binary sub-problems sharing one partition.
	if len(info.ClusterSizes) != 8 || total != len(ytr) || len(info.Tasks) != 45 {
		t.Errorf("BKA Info: %d clusters holding %d rows, %d tasks; want 8, %d, 45",
			len(info.ClusterSizes), total, len(info.Tasks), len(ytr))
	}
}

// BKA-SVM with one cluster keeps the whole kernel matrix as its one block, so
// it solves the no-bias SVM dual exactly as SVM{NoBias: true} does (both by
// dual coordinate descent): their decision values must agree.
func TestBKASVMOneClusterIsNoBiasSVM(t *testing.T) {
	d, err := datasets.Moons{N: 400, Noise: 0.15}.Generate(rand.New(rand.NewPCG(6, 1)))
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 2}
	const tol = 1e-10
	bka := &model.BKASVM{Kernel: k, C: 5, Clusters: 1, Tol: tol, Prediction: model.GlobalPrediction, Probability: true, Seed: 3}
	svm := &model.SVM{Kernel: k, C: 5, NoBias: true, Tol: tol, Probability: true, Seed: 3}
	if err := bka.Fit(context.Background(), d.X, d.Y); err != nil {
		t.Fatal(err)
	}
	if err := svm.Fit(context.Background(), d.X, d.Y); err != nil {
		t.Fatal(err)
	}
	probe, err := datasets.Moons{N: 200, Noise: 0.15}.Generate(rand.New(rand.NewPCG(7, 1)))
	if err != nil {
		t.Fatal(err)
	}
	fb, err := bka.DecisionFunction(probe.X)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := svm.DecisionFunction(probe.X)
	if err != nil {
		t.Fatal(err)
	}
	d1, d2 := mat.Col(nil, 0, fb), mat.Col(nil, 0, fs)
	diff := maxRelDiff(d1, d2)
	t.Logf("one-cluster BKA vs no-bias SVM: %.3g", diff)
	// Both stop at a KKT violation ≤ 1e-10 of a strictly convex dual (the
	// Gaussian kernel matrix of distinct points is positive definite), so
	// their α and decision values agree to about that over the condition of
	// Q; 1e-5 is loose enough for the order of updates to differ.
	if diff > 1e-5 {
		t.Errorf("one-cluster BKA-SVM and no-bias SVM decision values differ by %.3g (relative)", diff)
	}
	// Platt's sigmoids are fitted on the same cross-validation folds (the
	// same seed), so the probabilities agree as well, to the solvers'
	// tolerance propagated through the sigmoid fit (documented 1e-6 at
	// Tol 1e-10).
	pb, err := bka.PredictProba(probe.X)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := svm.PredictProba(probe.X)
	if err != nil {
		t.Fatal(err)
	}
	pdiff := maxRelDiff(pb.RawMatrix().Data, ps.RawMatrix().Data)
	t.Logf("one-cluster BKA vs no-bias SVM probabilities: %.3g", pdiff)
	if pdiff > 1e-5 {
		t.Errorf("one-cluster BKA-SVM and no-bias SVM probabilities differ by %.3g", pdiff)
	}
	acc := accuracy(t, probe.Y, mustPredict(t, bka, probe.X))
	// Two moons with noise 0.15 overlap on a few percent of points; the
	// RBF SVM separates the rest (measured 0.97 here).
	if acc < 0.93 {
		t.Errorf("moons accuracy %.3f, want ≥ 0.93", acc)
	}
}

func mustPredict(t *testing.T, e model.Estimator, x mat.Matrix) []float64 {
	t.Helper()
	p, err := e.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Platt-scaled probabilities (LIBSVM's -b 1) on the bundled heart_scale data:
// rows are distributions over Classes, and they mostly agree with Predict.
func TestSVMPredictProba(t *testing.T) {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	trIdx, teIdx, err := datasets.StratifiedSplit(d.Y, 0.3, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := d.Subset(trIdx)
	te, _ := d.Subset(teIdx)
	s := &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}, C: 1, Probability: true, Seed: 1}
	if err := s.Fit(context.Background(), tr.X, tr.Y); err != nil {
		t.Fatal(err)
	}
	pred := mustPredict(t, s, te.X)
	acc := accuracy(t, te.Y, pred)
	// 150 of 270 rows are class −1, so the majority rule scores 55.6%; RBF
	// SVMs reach 81–85% here (0.815 on this split, model/golearn's example).
	if acc < 0.75 {
		t.Errorf("heart_scale test accuracy %.3f, want ≥ 0.75", acc)
	}
	p, err := s.PredictProba(te.X)
	if err != nil {
		t.Fatal(err)
	}
	r, c := p.Dims()
	if r != te.Len() || c != 2 {
		t.Fatalf("PredictProba is %d×%d, want %d×2", r, c, te.Len())
	}
	classes := s.Classes()
	agree := 0
	for i := range r {
		sum := p.At(i, 0) + p.At(i, 1)
		if math.Abs(sum-1) > 1e-12 || p.At(i, 0) < 0 || p.At(i, 1) < 0 {
			t.Fatalf("row %d: probabilities %v do not form a distribution", i, p.RawRowView(i))
		}
		best := classes[0]
		if p.At(i, 1) > p.At(i, 0) {
			best = classes[1]
		}
		if best == pred[i] {
			agree++
		}
	}
	// Platt's sigmoid is fitted on cross-validated decision values, so its
	// 0.5 point can sit slightly off the decision boundary and a few rows
	// near it flip (LIBSVM documents the same for -b 1); a wrong column
	// order would flip most rows.
	if frac := float64(agree) / float64(r); frac < 0.9 {
		t.Errorf("probabilities pick Predict's class on %.2f of rows, want ≥ 0.9", frac)
	}
}
