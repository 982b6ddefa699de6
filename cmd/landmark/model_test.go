package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// TestModelInfo: landmark model info describes a saved model with the
// values the model holds: the estimator's parameters after defaults, the
// kernel, the classes by name, the features by name, the scaling, the
// support vectors or centers and CG iterations the loaded estimator
// reports, and the outputs predict gives (proba only when fitted with
// probability, interval only for svr with it). data info, fit and predict
// name a model file given as data, and point to model info.
func TestModelInfo(t *testing.T) {
	dir := t.TempDir()
	svm := filepath.Join(dir, "svm.lmk")
	if code, so, se := runCLI("fit", "--dataset", "heart_scale", "--estimator", "svm", "--kernel", "sigmoid", "--gamma", "0.1", "--coef0", "-1", "--c", "2",
		"--set", "probability=true", "--save", svm, "--progress", "never"); code != 0 {
		t.Fatalf("fit: exit %d\n%s\n%s", code, so, se)
	}
	fit, err := experiments.LoadFitFile(svm)
	if err != nil {
		t.Fatal(err)
	}
	sv := fit.Estimator.(*model.SVM).Info().SV
	code, so, se := runCLI("model", "info", svm)
	if code != 0 {
		t.Fatalf("model info: exit %d\n%s", code, se)
	}
	for _, want := range []string{
		"estimator:  svm (C-SVC): c = 2, probability = true\n",
		"kernel:     sigmoid(gamma=0.1, coef0=-1)\n",
		"task:       binary (inferred from the labels: 2 distinct labels {-1, 1})\n",
		"classes:    2: -1, 1\n",
		"features:   13 (LIBSVM indices 1…13)\n",
		"scaling:    none\n",
		"fitted:     support vectors " + strconv.Itoa(sv) + "\n",
		"predict:    --output labels, scores, proba\n",
	} {
		if !strings.Contains(so, want) {
			t.Errorf("model info lacks %q:\n%s", want, so)
		}
	}

	// A CSV with named features and text labels, standardized, fitted by
	// falkon with RLS centers and no probabilities.
	csv := filepath.Join(dir, "flowers.csv")
	var b strings.Builder
	b.WriteString("petal,sepal,kind\n")
	for i := range 60 {
		kind := []string{"iris", "rose", "tulip"}[i%3]
		b.WriteString(strconv.Itoa(i%3*10+i%7) + "," + strconv.Itoa(i%5) + "," + kind + "\n")
	}
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	fal := filepath.Join(dir, "falkon.lmk")
	if code, so, se := runCLI("fit", "--data", csv, "--estimator", "falkon", "--approx", "rls", "--m", "20", "--gamma", "0.5", "--lambda", "1e-3",
		"--scale", "standardize", "--save", fal, "--progress", "never"); code != 0 {
		t.Fatalf("fit falkon: exit %d\n%s\n%s", code, so, se)
	}
	ffit, err := experiments.LoadFitFile(fal)
	if err != nil {
		t.Fatal(err)
	}
	in := ffit.Estimator.(*model.Falkon).Info()
	code, so, se = runCLI("model", "info", fal, "--json")
	if code != 0 {
		t.Fatalf("model info --json: exit %d\n%s", code, se)
	}
	var d modelDescription
	if err := json.Unmarshal([]byte(so), &d); err != nil {
		t.Fatalf("%v\n%s", err, so)
	}
	if d.Estimator != "falkon" || d.Params["centers"] != "rls" || d.Params["m"] != 20.0 || d.Params["lambda"] != 1e-3 ||
		d.Kernel != "gaussian(gamma=0.5)" || d.Task != "multiclass" || strings.Join(d.Classes, " ") != "iris rose tulip" ||
		d.Features != 2 || strings.Join(d.FeatureNames, " ") != "petal sepal" || d.Target != "kind" || d.Scaling != "standardize" ||
		d.Fitted["centers"] != float64(in.M) || d.Fitted["iterations"] != float64(in.Iterations) ||
		strings.Join(d.Outputs, " ") != "labels scores" || !strings.Contains(d.NoOutputs["proba"], "without probability: true") {
		t.Errorf("model info --json:\n%s", so)
	}

	// A model file given as data.
	for _, args := range [][]string{
		{"data", "info", svm},
		{"fit", "--data", svm, "--gamma", "1", "--lambda", "1"},
		{"predict", "--model", svm, "--data", svm},
	} {
		if code, _, se := runCLI(args...); code == 0 || !strings.Contains(se, "is a model saved by Landmark, not data: landmark model info "+svm+" describes it") {
			t.Errorf("%v: exit %d, stderr %q", args[:2], code, se)
		}
	}
	// Usage, and a file that is not a model.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"model"}, 2, "missing model subcommand"},
		{[]string{"model", "show", svm}, 2, `unknown model subcommand "show"`},
		{[]string{"model", "info"}, 2, "model info takes one MODEL file, got 0"},
		{[]string{"model", "info", csv}, 1, "not a saved landmark fit"},
	} {
		if code, _, se := runCLI(c.args...); code != c.code || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q, want %q", c.args, code, c.code, se, c.want)
		}
	}
}

// TestBareModelFile: a model saved from Go with model.SaveFile (no fit
// header) is described by model info as such and predicted by predict with
// the estimator's own labels; it was refused ("not a saved landmark fit:
// bad magic").
func TestBareModelFile(t *testing.T) {
	dir := t.TempDir()
	ds, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	est := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-4, M: 30, Task: model.Classification}
	if err := est.Fit(context.Background(), ds.X, ds.Y); err != nil {
		t.Fatal(err)
	}
	want, err := est.Predict(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "falkon.lmk")
	if err := model.SaveFile(path, est); err != nil {
		t.Fatal(err)
	}
	code, so, se := runCLI("model", "info", path)
	if code != 0 {
		t.Fatalf("model info: exit %d\n%s", code, se)
	}
	for _, w := range []string{"saved:      by model.Save (Go)", "task:       binary\n", "features:   13 (LIBSVM indices 1…13)\n", "scaling:    none\n"} {
		if !strings.Contains(so, w) {
			t.Errorf("model info lacks %q:\n%s", w, so)
		}
	}
	data := filepath.Join(dir, "heart.libsvm")
	if err := datasets.WriteFile(data, ds, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	code, so, se = runCLI("predict", "--model", path, "--data", data, "--progress", "never")
	if code != 0 {
		t.Fatalf("predict: exit %d\n%s", code, se)
	}
	lines := strings.Fields(so)
	if len(lines) != len(want) {
		t.Fatalf("predict printed %d labels for %d rows:\n%s", len(lines), len(want), so)
	}
	for i, l := range lines {
		if v, err := strconv.ParseFloat(l, 64); err != nil || v != want[i] {
			t.Fatalf("row %d: predict printed %q, the estimator %v", i, l, want[i])
		}
	}
}
