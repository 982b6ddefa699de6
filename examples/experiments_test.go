package examples_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// writeLIBSVM writes d to dir/name in LIBSVM format and returns the path.
func writeLIBSVM(t *testing.T, dir, name string, d *datasets.Dataset) string {
	t.Helper()
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteLIBSVM(f, d); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// A YAML experiment run from Go: a λ grid of exact KRR cross-validated on the
// user's own files, the best point refitted and scored on the test file. The
// selection and the test score are then checked by hand: the best point has
// the smallest mean CV RMSE, and a direct model.KRR fit at that λ scores the
// same test RMSE.
func TestExperimentsRunYAML(t *testing.T) {
	train, test := smooth(t, 300, 100, false, 11)
	dir := t.TempDir()
	writeLIBSVM(t, dir, "train.libsvm", train)
	writeLIBSVM(t, dir, "test.libsvm", test)
	spec := `name: smooth-krr
dataset: {path: train.libsvm, test_path: test.libsvm}
task: regression
estimator:
  type: krr
  kernel: {type: gaussian, gamma: 1}
grid:
  lambda: [1.0e-1, 1.0e-3, 1.0e-5]
cv: {folds: 3, metric: rmse}
seed: 1
`
	s, err := experiments.Decode(strings.NewReader(spec), dir)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	events := map[string]int{}
	// Options.Progress does not say whether its calls are serialized; this
	// test runs under -race in .ci/run, so a concurrent call would show.
	progress := func(e experiments.Event) { events[e.Kind.String()]++ }
	res, err := experiments.Run(context.Background(), s, experiments.Options{Out: out, NoPlots: true, Progress: progress})
	if err != nil {
		t.Fatal(err)
	}
	// 3 points × 3 folds, then one refit of the best point.
	if events["fold"] != 9 || events["fold-done"] != 9 || events["point"] != 3 || events["refit"] != 1 {
		t.Errorf("progress events %v, want 9 fold, 9 fold-done, 3 point, 1 refit", events)
	}
	if len(res.Points) != 3 || res.NTrain != 300 || res.NTest != 100 || res.Computed != 3 {
		t.Fatalf("run: %d points, %d/%d rows, %d computed; want 3, 300/100, 3",
			len(res.Points), res.NTrain, res.NTest, res.Computed)
	}
	best, bestRMSE := -1, math.Inf(1)
	for i, p := range res.Points {
		m, ok := p.Metric("rmse")
		if !ok || p.Fits != 3 {
			t.Fatalf("point %s: rmse present %v, %d fits", p.Key, ok, p.Fits)
		}
		if m.Mean < bestRMSE {
			best, bestRMSE = i, m.Mean
		}
		// The summary is the mean of the per-fold scores.
		var sum float64
		for _, v := range p.FoldScores {
			sum += float64(v)
		}
		if len(p.FoldScores) != 3 || math.Abs(sum/3-m.Mean) > 1e-12 {
			t.Errorf("point %s: fold scores %v, mean %v", p.Key, p.FoldScores, m.Mean)
		}
	}
	if res.Best != best {
		t.Errorf("Run chose point %d, the smallest mean CV RMSE is point %d", res.Best, best)
	}
	// λ = 0.1 (λn = 30) oversmooths a function of spread ~0.8 with noise
	// 0.1; it must not be the best point.
	if res.Points[res.Best].Key == "lambda=0.1" {
		t.Errorf("best point %s", res.Points[res.Best].Key)
	}

	lambda, ok := res.Points[res.Best].Params.Value("lambda")
	if !ok {
		t.Fatalf("best point %s has no lambda", res.Points[res.Best].Key)
	}
	direct := &model.KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: lambda}
	if err := direct.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	want := rmse(t, mustPredict(t, direct, test.X), test.Y)
	got := math.NaN()
	for _, m := range res.Test.Metrics {
		if m.Name == "rmse" {
			got = m.Mean
		}
	}
	// Same data (LIBSVM text holds every float64 exactly), same exact KRR:
	// only the order of a sum may differ.
	if math.Abs(got-want) > 1e-12*want {
		t.Errorf("run's test RMSE %.15g, direct fit's %.15g", got, want)
	}
	for _, f := range []string{"results.log", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("run output: %v", err)
		}
	}

	// A rerun of the same spec resumes every point from the log.
	again, err := experiments.Run(context.Background(), s, experiments.Options{Out: out, NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if again.Resumed != 3 || again.Computed != 0 || again.Best != res.Best {
		t.Errorf("rerun: %d resumed, %d computed, best %d; want 3, 0, %d", again.Resumed, again.Computed, again.Best, res.Best)
	}
}

// experiments.Fit fits one setting with the spec's scaling; FitResult.Predict
// takes raw rows and applies that scaling itself. The same pipeline written
// by hand (datasets.Standardizer, then model.KRR) must predict the same.
func TestExperimentsFitPredict(t *testing.T) {
	train, test := smooth(t, 300, 100, false, 12)
	// Put the features on very different scales so that standardizing
	// matters: column 0 in thousands, column 1 as generated.
	for _, d := range []*datasets.Dataset{train, test} {
		for i := range d.Len() {
			d.X.Set(i, 0, 1000*d.X.At(i, 0)+5000)
		}
	}
	dir := t.TempDir()
	writeLIBSVM(t, dir, "train.libsvm", train)
	writeLIBSVM(t, dir, "test.libsvm", test)
	spec := `name: smooth-fit
dataset: {path: train.libsvm, test_path: test.libsvm, standardize: true}
task: regression
estimator:
  type: krr
  kernel: {type: gaussian, gamma: 0.5}
  lambda: 1.0e-4
seed: 1
`
	s, err := experiments.Decode(strings.NewReader(spec), dir)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := experiments.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if fit.NTrain != 300 || fit.NTest != 100 || fit.Dim != 2 || fit.Task != "regression" {
		t.Errorf("fit: %d/%d rows, d = %d, task %q", fit.NTrain, fit.NTest, fit.Dim, fit.Task)
	}
	got, err := fit.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}

	var st datasets.Standardizer
	if err := st.Fit(train.X); err != nil {
		t.Fatal(err)
	}
	xtr, err := st.Transform(train.X)
	if err != nil {
		t.Fatal(err)
	}
	xte, err := st.Transform(test.X)
	if err != nil {
		t.Fatal(err)
	}
	direct := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4}
	if err := direct.Fit(context.Background(), xtr, train.Y); err != nil {
		t.Fatal(err)
	}
	want := mustPredict(t, direct, xte)
	// cond(K + λnI) ≤ 1/λ = 1e4: the two pipelines differ only in
	// summation order, far below 1e-9.
	if d := maxRelDiff(got, want); d > 1e-9 {
		t.Errorf("FitResult.Predict differs from the hand-written pipeline by %.3g", d)
	}
	testRMSE := rmse(t, got, test.Y)
	for _, m := range fit.Test {
		if m.Name == "rmse" && math.Abs(m.Mean-testRMSE) > 1e-12 {
			t.Errorf("FitResult.Test rmse %.15g, from FitResult.Predict %.15g", m.Mean, testRMSE)
		}
	}
	// Noise σ = 0.1 is the floor.
	if testRMSE > 0.13 {
		t.Errorf("test RMSE %.4f, want ≤ 0.13", testRMSE)
	}
	// A ridge model gives no calibrated probabilities.
	if _, err := fit.Proba(test.X); err == nil {
		t.Error("Proba of a regression fit: no error")
	}
}

// A classification fit from Go with calibrated probabilities: an SVM with
// probability: true on the bundled heart_scale data, split and written to
// files by the caller so that FitResult's scores can be recomputed from
// FitResult.Predict and FitResult.Proba.
func TestExperimentsFitProba(t *testing.T) {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	trIdx, teIdx, err := datasets.StratifiedSplit(d.Y, 0.3, rand.New(rand.NewPCG(3, 1)))
	if err != nil {
		t.Fatal(err)
	}
	train, _ := d.Subset(trIdx)
	test, _ := d.Subset(teIdx)
	dir := t.TempDir()
	writeLIBSVM(t, dir, "train.libsvm", train)
	writeLIBSVM(t, dir, "test.libsvm", test)
	spec := `name: heart-svm
dataset: {path: train.libsvm, test_path: test.libsvm}
task: binary
estimator:
  type: svm
  kernel: {type: gaussian, gamma: 0.077}
  c: 1
  probability: true
seed: 1
`
	s, err := experiments.Decode(strings.NewReader(spec), dir)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := experiments.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if got := fit.Classes(); len(got) != 2 || got[0] != -1 || got[1] != 1 {
		t.Fatalf("Classes() = %v, want [-1 1]", got)
	}
	pred, err := fit.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}
	acc := accuracy(t, test.Y, pred)
	found := false
	for _, m := range fit.Test {
		if m.Name == "accuracy" {
			found = true
			if m.Mean != acc {
				t.Errorf("FitResult.Test accuracy %v, from FitResult.Predict %v", m.Mean, acc)
			}
		}
	}
	if !found {
		t.Errorf("no accuracy among the test scores %v", fit.Test)
	}
	// Majority class 55.6%; RBF SVMs reach 81–85% on heart_scale.
	if acc < 0.75 {
		t.Errorf("test accuracy %.3f, want ≥ 0.75", acc)
	}
	if err := fit.HasProba(); err != nil {
		t.Fatalf("HasProba: %v", err)
	}
	p, err := fit.Proba(test.X)
	if err != nil {
		t.Fatal(err)
	}
	agree := 0
	for i := range test.Len() {
		if math.Abs(p.At(i, 0)+p.At(i, 1)-1) > 1e-12 {
			t.Fatalf("row %d: probabilities %v do not sum to 1", i, p.RawRowView(i))
		}
		if (p.At(i, 1) > 0.5) == (pred[i] == 1) {
			agree++
		}
	}
	// Platt's sigmoid may put its 0.5 point slightly off the decision
	// boundary (LIBSVM's -b 1 documents the same); a swapped column would
	// disagree on most rows.
	if frac := float64(agree) / float64(test.Len()); frac < 0.9 {
		t.Errorf("probabilities agree with Predict on %.2f of rows, want ≥ 0.9", frac)
	}
}
