package experiments

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

func decodeString(t *testing.T, y, dir string) *Spec {
	t.Helper()
	s, err := Decode(strings.NewReader(y), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTaskAuto checks task: auto against datasets.GuessTask on the three
// kinds of labels, the rule reported, and that the spec itself is left
// as it was.
func TestTaskAuto(t *testing.T) {
	cases := []struct {
		data, task, rule string
		metric           string
	}{
		{"heart_scale", TaskBinary, "2 distinct labels {-1, 1}", "auc"},
		{"satimage.test", TaskMulticlass, "6 distinct integral labels {1, 2, 3, 4, 5, 7}, at most 20", "accuracy"},
		{"cpusmall", TaskRegression, "more than the 20 classes", "rmse"},
	}
	for _, c := range cases {
		t.Run(c.data, func(t *testing.T) {
			s := decodeString(t, `name: a
dataset: {name: `+c.data+`, subsample: 200}
task: auto
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.01}, lambda: 0.001}
`, ".")
			res, err := Fit(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Task != c.task || !strings.Contains(res.TaskRule, c.rule) {
				t.Errorf("task %s (%s), want %s (%s)", res.Task, res.TaskRule, c.task, c.rule)
			}
			if s.Task != TaskAuto {
				t.Errorf("the spec's task was changed to %s", s.Task)
			}
			if !slices.ContainsFunc(res.Train, func(m Summary) bool { return m.Name == c.metric }) {
				t.Errorf("train scores %v lack %s", res.Train, c.metric)
			}
		})
	}
	// An estimator that does not do the inferred task is refused, naming
	// the rule.
	s := decodeString(t, `name: a
dataset: {name: cpusmall, subsample: 100}
task: auto
estimator: {type: svm, kernel: {type: gaussian, gamma: 0.01}}
`, ".")
	if _, err := Fit(context.Background(), s); err == nil || !strings.Contains(err.Error(), "does not do regression") || !strings.Contains(err.Error(), "task regression inferred") {
		t.Errorf("svm on a regression target: %v", err)
	}
}

// TestFitWithoutCVLimits checks that fit has no cross-validation limits:
// 4 rows fit (5 folds would need 5), m = n fits, m = n + 1 is refused with
// the training rows named; run keeps the fold limit.
func TestFitWithoutCVLimits(t *testing.T) {
	dir := t.TempDir()
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	small, _ := d.Subset([]int{0, 1, 2, 3})
	if err := datasets.WriteFile(filepath.Join(dir, "four.libsvm"), small, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	spec := func(data, extra string) *Spec {
		return decodeString(t, "name: a\ndataset: {"+data+"}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001"+extra+"}\n", dir)
	}
	res, err := Fit(context.Background(), spec("path: four.libsvm", ""))
	if err != nil || res.NTrain != 4 {
		t.Fatalf("4 rows: %v", err)
	}
	if _, err := Fit(context.Background(), spec("name: heart_scale", ", approx: {type: uniform}, m: 270")); err != nil {
		t.Errorf("m = n: %v", err)
	}
	if _, err := Fit(context.Background(), spec("name: heart_scale", ", approx: {type: uniform}, m: 271")); err == nil || !strings.Contains(err.Error(), "m = 271 exceeds the 270 training rows") {
		t.Errorf("m = n + 1: %v", err)
	}
	if _, err := Run(context.Background(), spec("name: heart_scale", ", approx: {type: uniform}, m: 270"), Options{Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "rows of a cross-validation training fold") {
		t.Errorf("run with m = n: %v, want the fold limit", err)
	}
}

// TestSpecFoldsZeroAndGamma checks two spec messages: folds: 0 written
// out is an error (not the default 5), and a kernel without its width
// names the flags and keys that set it.
func TestSpecFoldsZeroAndGamma(t *testing.T) {
	base := "name: a\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\n"
	_, err := Decode(strings.NewReader(base+"cv: {folds: 0}\n"), ".")
	var se *SpecError
	if !errors.As(err, &se) || se.Line != 5 || !strings.Contains(err.Error(), "folds = 0, want at least 2 (leave folds out for the default 5)") {
		t.Errorf("folds: 0: %v", err)
	}
	if _, err := Decode(strings.NewReader(base+"cv: {metric: auc}\n"), "."); err != nil {
		t.Errorf("cv without folds: %v", err)
	}
	_, err = Decode(strings.NewReader(strings.Replace(base, ", gamma: 0.1", "", 1)), ".")
	if err == nil || !strings.Contains(err.Error(), "the gaussian kernel needs gamma (or sigma, γ = 1/(2σ²)): set it in the kernel block or as a grid axis") {
		t.Errorf("no gamma: %v", err)
	}
	_, err = Decode(strings.NewReader(strings.Replace(base, ", lambda: 0.001", "", 1)), ".")
	if err == nil || !strings.Contains(err.Error(), "estimator krr needs lambda (or alpha): set it in the estimator block or as a grid axis") {
		t.Errorf("no lambda: %v", err)
	}
}

// TestFitOutputs checks what predict builds on: the feature names saved
// and loaded, Scores equal to the estimator's decision values on scaled
// rows (and to the predictions for regression), and Proba only for an SVM
// fitted with probability: true, whose rows sum to one.
func TestFitOutputs(t *testing.T) {
	fit := func(est string) *FitResult {
		s := decodeString(t, "name: a\ndataset: {name: heart_scale, scale: maxabs}\ntask: auto\nestimator: {type: "+est+", kernel: {type: gaussian, gamma: 0.1}}\n", ".")
		res, err := Fit(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := res.Save(&b, s); err != nil {
			t.Fatal(err)
		}
		back, err := LoadFit(&b)
		if err != nil {
			t.Fatal(err)
		}
		// heart_scale names no features: they stay implied (x1…x13,
		// never listed).
		if back.Features != nil || !back.ImpliedFeatures || back.FeatureName(12) != "x13" || back.FeatureName(13) != "" || back.TargetName != "y" || back.TaskRule != res.TaskRule {
			t.Fatalf("saved names %v (implied %v) %q, rule %q", back.Features, back.ImpliedFeatures, back.TargetName, back.TaskRule)
		}
		return back
	}
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	krr := decodeString(t, "name: a\ndataset: {name: heart_scale}\ntask: auto\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\n", ".")
	kr, err := Fit(context.Background(), krr)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := kr.Scores(d.X)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := kr.Estimator.(decisionFunction).DecisionFunction(d.X)
	if !mat.Equal(sc, dec) {
		t.Error("krr scores differ from its decision values")
	}
	if err := kr.HasProba(); !errors.Is(err, ErrNoProba) || !strings.Contains(err.Error(), "the krr was fitted without probability: true") {
		t.Errorf("krr proba: %v", err)
	}
	if err := fit("svm").HasProba(); !errors.Is(err, ErrNoProba) {
		t.Errorf("svm without probability: %v", err)
	}
	svm := decodeString(t, "name: a\ndataset: {name: heart_scale, scale: maxabs}\ntask: auto\nestimator: {type: svm, kernel: {type: gaussian, gamma: 0.1}, probability: true}\n", ".")
	sr, err := Fit(context.Background(), svm)
	if err != nil {
		t.Fatal(err)
	}
	p, err := sr.Proba(d.X)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := p.Dims(); r != 270 || c != 2 || !slices.Equal(sr.Classes(), []float64{-1, 1}) {
		t.Fatalf("proba %d×%d, classes %v", r, c, sr.Classes())
	}
	for i := range 270 {
		// p(−1) is computed as 1 − p(1): one rounding.
		if s := p.At(i, 0) + p.At(i, 1); math.Abs(s-1) > 1e-15 {
			t.Fatalf("row %d sums to %v", i, s)
		}
	}
	// Regression scores are the predictions, in target units.
	reg := decodeString(t, "name: a\ndataset: {name: cpusmall, subsample: 200, standardize_target: true}\ntask: regression\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.01}, lambda: 0.01}\n", ".")
	rr, err := Fit(context.Background(), reg)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := datasets.Load("cpusmall")
	xs := c.X.Slice(0, 50, 0, 12)
	pred, _ := rr.Predict(xs)
	rs, err := rr.Scores(xs)
	if err != nil || !slices.Equal(mat.Col(nil, 0, rs), pred) {
		t.Errorf("regression scores differ from the predictions: %v", err)
	}
}
