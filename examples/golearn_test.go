package examples_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/model/golearn"
	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/evaluation"
	"gonum.org/v1/gonum/mat"
)

// A golearn user's regression: a CSV file parsed by golearn itself
// (base.ParseCSVToInstances), a FALKON model behind golearn.Regressor, and
// golearn's model file. The adapter must give exactly what a direct Landmark
// fit on the same numbers gives.
func TestGolearnRegressorFromCSV(t *testing.T) {
	train, test := smooth(t, 300, 60, false, 10)
	dir := t.TempDir()
	write := func(name string, d *datasets.Dataset) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		d.Features, d.Target = []string{"a", "b"}, "y"
		if err := datasets.WriteCSV(f, d, ','); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	trInst, err := base.ParseCSVToInstances(write("train.csv", train), true)
	if err != nil {
		t.Fatal(err)
	}
	teInst, err := base.ParseCSVToInstances(write("test.csv", test), true)
	if err != nil {
		t.Fatal(err)
	}
	mk := func() *model.Falkon {
		return &model.Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-6, M: 40, Seed: 2}
	}
	r := &golearn.Regressor{Estimator: mk()}
	if err := r.Fit(trInst); err != nil {
		t.Fatal(err)
	}
	pred, err := r.Predict(teInst)
	if err != nil {
		t.Fatal(err)
	}
	direct := mk()
	if err := direct.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	want := mustPredict(t, direct, test.X)
	got := classColumn(t, pred)
	// The CSV holds Go's shortest round-trip form of every float64, so
	// golearn parses back the same bits and both fits see the same data.
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("row %d: golearn adapter %v, direct Falkon %v", i, got[i], want[i])
		}
	}
	// The noise has σ = 0.1; FALKON with 40 centers gets near it.
	if e := rmse(t, got, test.Y); e > 0.12 {
		t.Errorf("test RMSE %.4f, want ≤ 0.12", e)
	}

	path := filepath.Join(dir, "falkon.cls")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	var back golearn.Regressor
	if err := back.Load(path); err != nil {
		t.Fatal(err)
	}
	pred2, err := back.Predict(teInst)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range classColumn(t, pred2) {
		if math.Float64bits(v) != math.Float64bits(want[i]) {
			t.Fatalf("reloaded golearn regressor differs at row %d", i)
		}
	}
}

// A golearn classification pipeline on the bundled heart_scale data: golearn
// instances, BKA-SVM behind golearn.Classifier, golearn's confusion matrix,
// whose accuracy must equal the one computed from a direct fit.
func TestGolearnClassifier(t *testing.T) {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	trIdx, teIdx, err := datasets.StratifiedSplit(d.Y, 0.3, rand.New(rand.NewPCG(2, 1)))
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := d.Subset(trIdx)
	te, _ := d.Subset(teIdx)
	trInst, err := golearn.Instances(tr, model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	teInst, err := golearn.Instances(te, model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	mk := func() *model.BKASVM {
		return &model.BKASVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}, C: 1, Clusters: 3, Seed: 1, Probability: true}
	}
	c := &golearn.Classifier{Estimator: mk()}
	if err := c.Fit(trInst); err != nil {
		t.Fatal(err)
	}
	pred, err := c.Predict(teInst)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := evaluation.GetConfusionMatrix(teInst, pred)
	if err != nil {
		t.Fatal(err)
	}
	acc := evaluation.GetAccuracy(cm)

	direct := mk()
	if err := direct.Fit(context.Background(), tr.X, tr.Y); err != nil {
		t.Fatal(err)
	}
	want := accuracy(t, te.Y, mustPredict(t, direct, te.X))
	if math.Abs(acc-want) > 1e-12 {
		t.Errorf("golearn accuracy %.4f, direct fit %.4f", acc, want)
	}
	// Majority class 55.6%; RBF SVMs reach 81–85% on heart_scale.
	if acc < 0.75 {
		t.Errorf("heart_scale accuracy through golearn %.3f, want ≥ 0.75", acc)
	}

	// Probabilities through the adapter are the estimator's own, with the
	// class attribute's values naming the columns.
	p, names, err := c.PredictProba(teInst)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"-1", "1"}) {
		t.Errorf("PredictProba column names %q, want [-1 1]", names)
	}
	want2, err := direct.PredictProba(te.X)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(p, want2) {
		t.Errorf("golearn PredictProba differs from the estimator's (max %.3g)", maxRelDiff(p.RawMatrix().Data, want2.RawMatrix().Data))
	}
}

// classColumn reads the float class attribute of a golearn prediction grid.
func classColumn(t *testing.T, g base.FixedDataGrid) []float64 {
	t.Helper()
	attrs := g.AllClassAttributes()
	if len(attrs) != 1 {
		t.Fatalf("%d class attributes, want 1", len(attrs))
	}
	spec, err := g.GetAttribute(attrs[0])
	if err != nil {
		t.Fatal(err)
	}
	_, n := g.Size()
	out := make([]float64, n)
	for i := range out {
		out[i] = base.UnpackBytesToFloat(g.Get(spec, i))
	}
	return out
}
