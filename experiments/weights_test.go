package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// weightFiles writes train.csv (40 rows: a, b, y with y a smooth function
// plus noise, and class labels in column c), its integer weights 0…3 in
// w.txt, repeated.csv (each row repeated its weight's times, the same
// columns) and test.csv (15 rows) into a new folder, and returns it with
// the training rows and weights.
func weightFiles(t *testing.T) (dir string, x *mat.Dense, y, w []float64) {
	t.Helper()
	dir = t.TempDir()
	rng := rand.New(rand.NewPCG(21, 7))
	n := 40
	x = mat.NewDense(n, 2, nil)
	y = make([]float64, n)
	w = make([]float64, n)
	var train, rep, test, wt strings.Builder
	train.WriteString("a,b,y\n")
	rep.WriteString("a,b,y\n")
	test.WriteString("a,b,y\n")
	for i := range n {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		x.Set(i, 0, a)
		x.Set(i, 1, b)
		y[i] = math.Sin(3*a) + b + 0.1*rng.NormFloat64()
		w[i] = float64(rng.IntN(4))
		line := fmt.Sprintf("%.17g,%.17g,%.17g\n", a, b, y[i])
		train.WriteString(line)
		for range int(w[i]) {
			rep.WriteString(line)
		}
		fmt.Fprintf(&wt, "%g\n", w[i])
	}
	for range 15 {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		fmt.Fprintf(&test, "%.17g,%.17g,%.17g\n", a, b, math.Sin(3*a)+b)
	}
	for name, s := range map[string]string{"train.csv": train.String(), "repeated.csv": rep.String(), "test.csv": test.String(), "w.txt": wt.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, x, y, w
}

// TestFitSampleWeightsRepeatRows: a fit with sample_weights (integers 0…3)
// scores on the test file as the fit on the file with each row repeated
// that many times, for krr with alpha (so alpha must be λ·Σw, as
// scikit-learn's KernelRidge(alpha) with sample_weight, not λn: n = 40
// rows against Σw = the repeated file's rows), and svr. (Sampled centers
// differ between the two files; model's TestWeightsRepeatRows covers
// Nyström and Falkon with the centers given.) Tolerances: the direct solve
// 1e-9; svr's dual solved to 1e-9, 1e-6.
func TestFitSampleWeightsRepeatRows(t *testing.T) {
	dir, _, _, w := weightFiles(t)
	sum := weightSum(w, len(w))
	if sum == float64(len(w)) {
		t.Fatal("the weights sum to n: alpha's rule would go untested")
	}
	for _, c := range []struct {
		est string
		tol float64
	}{
		{"{type: krr, kernel: {type: gaussian, gamma: 2}, alpha: 0.5}", 1e-9},
		{"{type: svr, kernel: {type: gaussian, gamma: 2}, c: 3, epsilon: 0.05, tol: 1e-9}", 1e-6},
	} {
		fit := func(data, weights string) []Summary {
			t.Helper()
			ds := fmt.Sprintf("{path: %s, test_path: test.csv}", data)
			if weights != "" {
				ds = fmt.Sprintf("{path: %s, test_path: test.csv, sample_weights: %s}", data, weights)
			}
			s := decodeIn(t, fmt.Sprintf("name: w\ntask: regression\ndataset: %s\nestimator: %s\nseed: 3\n", ds, c.est), dir)
			res, err := Fit(context.Background(), s)
			if err != nil {
				t.Fatalf("%s: %v", c.est, err)
			}
			return res.Test
		}
		a, b := fit("train.csv", "w.txt"), fit("repeated.csv", "")
		for i := range a {
			if d := math.Abs(a[i].Mean - b[i].Mean); !(d <= c.tol*max(1, math.Abs(b[i].Mean))) {
				t.Errorf("%s: test %s %.12g weighted, %.12g repeated", c.est, a[i].Name, a[i].Mean, b[i].Mean)
			}
		}
	}
}

// TestSampleWeightsFollowRows: with test_fraction and subsample, each fit
// gets the weights of its own training rows. The expected model is fitted
// here through the model API on the rows SplitRows and subsample pick
// (the runner's documented order: the split, then the subsample), with
// those rows' weights; the runner's model must predict the same.
func TestSampleWeightsFollowRows(t *testing.T) {
	dir, x, y, w := weightFiles(t)
	const seed = 5
	s := decodeIn(t, fmt.Sprintf("name: w\ntask: regression\ndataset: {path: train.csv, test_fraction: 0.25, subsample: 24, sample_weights: w.txt}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 2}, lambda: 0.01}\nseed: %d\n", seed), dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	tr, _, err := SplitRows(y, false, 0.25, seed)
	if err != nil {
		t.Fatal(err)
	}
	sub := subsample(len(tr), 24, rand.New(rand.NewPCG(seed, streamSubsample)))
	idx := make([]int, len(sub))
	for i, j := range sub {
		idx[i] = tr[j]
	}
	xs, ys := rows(x, y, idx)
	want := &model.KRR{Kernel: kernel.Gaussian{Gamma: 2}, Lambda: 0.01}
	if err := want.FitWeighted(context.Background(), xs, ys, pick(w, idx)); err != nil {
		t.Fatal(err)
	}
	probe := mat.NewDense(3, 2, []float64{0.1, 0.2, -0.5, 0.7, 0.9, -0.9})
	got, err := res.Estimator.Predict(probe)
	if err != nil {
		t.Fatal(err)
	}
	exp, err := want.Predict(probe)
	if err != nil {
		t.Fatal(err)
	}
	for i := range got {
		if math.Abs(got[i]-exp[i]) > 1e-12 {
			t.Errorf("prediction %d: runner %.15g, model on the picked rows and weights %.15g", i, got[i], exp[i])
		}
	}
}

// TestSampleWeightsRefused: the spec errors name sample_weights' line, the
// file's errors its line.
func TestSampleWeightsRefused(t *testing.T) {
	dir, _, _, _ := weightFiles(t)
	if err := os.WriteFile(filepath.Join(dir, "short.txt"), []byte("1\n2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.txt"), []byte("1\n2\n-3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	krr := "{type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.01}"
	for _, c := range []struct{ ds, est, want string }{
		{"{path: train.csv, sample_weights: short.txt}", krr, "short.txt has 2 weights, the training data has 40 rows"},
		{"{path: train.csv, sample_weights: bad.txt}", krr, "bad.txt: line 3: weight -3: want finite and ≥ 0"},
		{"{path: train.csv, sample_weights: missing.txt}", krr, "missing.txt"},
		{"{path: train.csv, sample_weights: w.txt}", "{type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.01, approx: {type: meka}}", "krr with approx meka does not take sample weights"},
		{"{path: shards/manifest.json, sample_weights: w.txt}", krr, "not a shard manifest"},
	} {
		s, err := Decode(strings.NewReader(fmt.Sprintf("name: w\ntask: regression\ndataset: %s\nestimator: %s\n", c.ds, c.est)), dir)
		if err == nil {
			_, err = Fit(context.Background(), s)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.ds, err, c.want)
		}
	}
	// An estimator without weights, at the line of sample_weights.
	_, err := Decode(strings.NewReader("name: w\ntask: binary\ndataset:\n  path: train.csv\n  sample_weights: w.txt\nestimator: {type: bka-svm, kernel: {type: gaussian, gamma: 1}, c: 1}\n"), dir)
	var se *SpecError
	if !errors.As(err, &se) || se.Line != 5 || !strings.Contains(err.Error(), "estimator bka-svm does not take sample weights (falkon, krr, one-class-svm, svm, svr do)") {
		t.Errorf("bka-svm: err = %v, want a SpecError at line 5", err)
	}
	if _, err := datasets.ReadWeights(context.Background(), filepath.Join(dir, "w.txt")); err != nil {
		t.Errorf("the good file: %v", err)
	}
}

// TestRidgeClassWeightSpec: krr's and falkon's class_weight reaches the
// model (balanced: scikit-learn's n/(k·n_c) on the fit's labels), is
// refused for regression and with meka at its line.
func TestRidgeClassWeightSpec(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range 50 {
		l := 0
		if i%5 == 0 {
			l = 1
		}
		fmt.Fprintf(&b, "%g,%g,%d\n", float64(i)/50, float64(i%7)/7, l)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, est := range []string{"krr", "falkon"} {
		s := decodeIn(t, fmt.Sprintf("name: c\ntask: binary\ndataset: {path: c.csv}\nestimator: {type: %s, kernel: {type: gaussian, gamma: 1}, lambda: 0.001, class_weight: balanced}\n", est), dir)
		res, err := Fit(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", est, err)
		}
		var cw map[float64]float64
		switch e := res.Estimator.(type) {
		case *model.KRR:
			cw = e.ClassWeights
		case *model.Falkon:
			cw = e.ClassWeights
		}
		// 40 rows of class 0 and 10 of class 1: 50/(2·40) and 50/(2·10).
		if cw[0] != 0.625 || cw[1] != 2.5 || len(cw) != 2 {
			t.Errorf("%s: class weights %v, want map[0:0.625 1:2.5]", est, cw)
		}
	}
	for _, c := range []struct{ spec, want string }{
		{"task: regression\ndataset: {path: c.csv}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.001, class_weight: balanced}\n", "class_weight weighs classes: it needs task binary or multiclass"},
		{"task: binary\ndataset: {path: c.csv}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.001, approx: {type: meka}, class_weight: balanced}\n", "krr with approx meka does not take class weights"},
	} {
		_, err := Decode(strings.NewReader("name: c\n"+c.spec), dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want %q", err, c.want)
		}
	}
}
