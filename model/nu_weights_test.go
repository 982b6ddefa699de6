package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// nuWeights is one sample weight in {0, 1, 2, 3} a row, drawn from seed.
func nuWeights(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 29))
	w := make([]float64, n)
	for i := range w {
		w[i] = float64(rng.IntN(4))
	}
	return w
}

// repeatRows returns the rows of x and y, row i repeated w[i] times (w
// integer; weight 0 drops the row).
func repeatRows(x *mat.Dense, y, w []float64) (*mat.Dense, []float64) {
	_, d := x.Dims()
	var data, yy []float64
	for i, wi := range w {
		for range int(wi) {
			data = append(data, x.RawRowView(i)...)
			yy = append(yy, y[i])
		}
	}
	return mat.NewDense(len(yy), d, data), yy
}

// TestNuSVCWeightsAreCopies: ν-SVC with an integer sample weight k on a row
// is ν-SVC on k copies of it. The copies' dual variables merge into one
// with bound k (their kernel columns are equal), and ν·n/2 becomes ν·Σw/2,
// which is how scikit-learn's NuSVC reads sample_weight. Both duals are
// solved to 1e-10, so the decision values agree to 1e-6, and so do C = 1/r
// and the objective, relative; for two classes and for three (one-vs-one,
// three sub-problems with weights of their own).
func TestNuSVCWeightsAreCopies(t *testing.T) {
	ctx := context.Background()
	x, y := nuBlobs(150, 0.45, 8)
	m3 := conformanceMulticlass(9)
	for _, c := range []struct {
		name string
		x    *mat.Dense
		y    []float64
		nu   float64
	}{{"binary", x, y, 0.5}, {"three classes", m3.x, m3.y, 0.4}} {
		n, _ := c.x.Dims()
		w := nuWeights(n, 3)
		xr, yr := repeatRows(c.x, c.y, w)
		wt := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: c.nu, Tol: 1e-10}
		if err := wt.FitWeighted(ctx, c.x, c.y, w); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		rep := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: c.nu, Tol: 1e-10}
		if err := rep.Fit(ctx, xr, yr); err != nil {
			t.Fatalf("%s copies: %v", c.name, err)
		}
		for ti, a := range wt.Info().Tasks {
			b := rep.Info().Tasks[ti]
			if math.Abs(1/a.R-1/b.R) > 1e-6/b.R || math.Abs(a.Objective-b.Objective) > 1e-6*math.Abs(b.Objective) {
				t.Errorf("%s task %d: weighted C = 1/r %.9g, objective %.9g; copies %.9g, %.9g", c.name, ti, 1/a.R, a.Objective, 1/b.R, b.Objective)
			}
		}
		da, err := wt.DecisionFunction(c.x)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := rep.DecisionFunction(c.x)
		if d := maxAbsDiff(da, db); d > 1e-6 {
			t.Errorf("%s: decision values differ by %.3g between weights and copies", c.name, d)
		}
	}
}

// TestNuSVCWeightedIsCSVC extends TestNuSVCIsCSVC to weights: weighted
// ν-SVC, scaled by 1/r, is the C-SVC solution with C = 1/r and the same
// sample and class weights (Chang & Lin 2011, Sect. 2.2, with per-row
// bounds: α/r solves the C-SVC dual whose bounds are w_i/r). A class weight
// multiplies the class's rows' bounds in both formulations, so the
// identity checks that ClassWeights reach ν-SVC, and sample weights of 0
// leave their rows out of both. Decision values agree to 1e-5 (both duals
// to 1e-9, as in TestNuSVCIsCSVC).
func TestNuSVCWeightedIsCSVC(t *testing.T) {
	ctx := context.Background()
	x, y := nuBlobs(200, 0.35, 10)
	w := nuWeights(200, 11)
	cw := map[float64]float64{1: 2.5}
	nu := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.5, ClassWeights: cw, Tol: 1e-9}
	if err := nu.FitWeighted(ctx, x, y, w); err != nil {
		t.Fatal(err)
	}
	task := nu.Info().Tasks[0]
	csvc := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 1 / task.R, ClassWeights: cw, Tol: 1e-9}
	if err := csvc.FitWeighted(ctx, x, y, w); err != nil {
		t.Fatal(err)
	}
	dn, _ := nu.DecisionFunction(x)
	dc, _ := csvc.DecisionFunction(x)
	if d := maxAbsDiff(dn, dc); d > 1e-5 {
		t.Errorf("weighted ν-SVC and C-SVC with C = 1/r = %g differ by %.3g", 1/task.R, d)
	}
	// Without the class weight the solution moves: the identity above is
	// not one that any weights satisfy.
	plain := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.5, Tol: 1e-9}
	if err := plain.FitWeighted(ctx, x, y, w); err != nil {
		t.Fatal(err)
	}
	dp, _ := plain.DecisionFunction(x)
	if d := maxAbsDiff(dn, dp); d < 1e-2 {
		t.Errorf("class weight 2.5 moved the decision values by only %.3g", d)
	}
}

// TestNuSVCWeightsMatchScikitLearn fits the rows of TestNuSVCWeightsAreCopies
// with scikit-learn's NuSVC(sample_weight) (Debian's python3-sklearn, when
// installed: its LIBSVM fork gives row i the bound w_i and the sums ν·Σw/2)
// at tol 1e-8 on both sides: the decision values on the training rows agree
// to 1e-5 and the intercept (−ρ) to 1e-5.
func TestNuSVCWeightsMatchScikitLearn(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn.svm").Run(); err != nil {
		t.Skip("scikit-learn is not installed for /usr/bin/python3 (Debian: python3-sklearn)")
	}
	x, y := nuBlobs(150, 0.45, 8)
	w := nuWeights(150, 3)
	var buf bytes.Buffer
	for i := range y {
		fmt.Fprintf(&buf, "%.17g,%.17g,%g,%g\n", x.At(i, 0), x.At(i, 1), y[i], w[i])
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(data, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `import sys, numpy as np
from sklearn.svm import NuSVC
a = np.loadtxt(sys.argv[1], delimiter=",")
X = np.ascontiguousarray(a[:, :2])
m = NuSVC(nu=0.5, gamma=0.5, tol=1e-8).fit(X, a[:, 2], sample_weight=a[:, 3].copy())
print(repr(float(m.intercept_[0])))
for v in m.decision_function(X): print(repr(float(v)))
`
	cmd := exec.Command(py, "-c", script, data)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scikit-learn: %v\n%s", err, out)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 151 {
		t.Fatalf("scikit-learn printed %d numbers, want 151:\n%s", len(lines), out)
	}
	s := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.5, Tol: 1e-8}
	if err := s.FitWeighted(context.Background(), x, y, w); err != nil {
		t.Fatal(err)
	}
	dec, _ := s.DecisionFunction(x)
	want, _ := strconv.ParseFloat(lines[0], 64)
	// scikit-learn's classes_ are sorted, so its positive class is the
	// larger label, as here.
	if got := s.Info().Tasks[0].Bias; math.Abs(got-want) > 1e-5 {
		t.Errorf("intercept %.9g, scikit-learn %.9g", got, want)
	}
	var worst float64
	for i := range y {
		v, _ := strconv.ParseFloat(lines[i+1], 64)
		worst = math.Max(worst, math.Abs(dec.At(i, 0)-v))
	}
	t.Logf("scikit-learn NuSVC(sample_weight): intercept %.9g, ours %.9g; decision values within %.3g", want, s.Info().Tasks[0].Bias, worst)
	if worst > 1e-5 {
		t.Errorf("decision values differ from scikit-learn's by %.3g", worst)
	}
}

// TestNuProbabilityFolds: with Probability, ν-SVC's Platt folds are
// stratified by class. With 11 positive and 89 negative rows, ν = 0.22 is
// the largest feasible ν (2·11/100). Dealt in turn, the positives give
// fold 1 three test rows and folds 2-5 two; the negatives, dealt from where
// the positives stopped (fold 11 mod 5 + 1 = 2), give fold 1 seventeen and
// the others eighteen. So fold 1 trains on 8 positive and 72 negative rows,
// where ν = 0.22 needs 0.22·80/2 = 8.8 > 8: the fit is refused with an
// error that names fold 1. The other folds train on 9 and 71 and take ν up
// to 18/80 = 0.225; at ν = 0.15, below both bounds, the fit succeeds, with
// probabilities that sum to 1.
func TestNuProbabilityFolds(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(12, 31))
	x := mat.NewDense(100, 2, nil)
	y := make([]float64, 100)
	for i := range y { // rows 0, 9, …, 90 positive: 11 of 100
		y[i] = -1
		if i%9 == 0 && i < 99 {
			y[i] = 1
		}
		x.Set(i, 0, rng.NormFloat64()+0.8*y[i])
		x.Set(i, 1, rng.NormFloat64())
	}
	s := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.22, Probability: true, Seed: 4}
	if err := s.Fit(ctx, x, y); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "cross-validation fold 1 of 5") || !strings.Contains(err.Error(), "lower ν") {
		t.Fatalf("ν = 0.22 with 11 of 100 positive: err = %v, want ErrInput naming fold 1", err)
	}
	s.Nu = 0.15
	if err := s.Fit(ctx, x, y); err != nil {
		t.Fatalf("ν = 0.15: %v", err)
	}
	p, err := s.PredictProba(x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		if a, b := p.At(i, 0), p.At(i, 1); a < 0 || b < 0 || math.Abs(a+b-1) > 1e-12 {
			t.Fatalf("row %d: probabilities %g, %g", i, a, b)
		}
	}
}
