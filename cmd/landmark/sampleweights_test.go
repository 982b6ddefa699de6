package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// TestCLISampleWeights: fit --sample-weights FILE gives the model
// model.SVM.FitWeighted gives on the same rows and weights (predictions
// equal to the bit), says what it read, and --json reports it; svm-train's
// -W names the flag.
func TestCLISampleWeights(t *testing.T) {
	d, err := datasets.Load("cpusmall")
	if err != nil {
		t.Fatal(err)
	}
	// cpusmall's target above its median is class 1: 300 training rows.
	rows := seq(400)
	train, _ := d.Subset(rows[:300])
	test, _ := d.Subset(rows[300:])
	for _, ds := range []*datasets.Dataset{train, test} {
		for i, v := range ds.Y {
			ds.Y[i] = 0
			if v > 90 {
				ds.Y[i] = 1
			}
		}
	}
	dir := t.TempDir()
	tr, te, wf := filepath.Join(dir, "train.libsvm"), filepath.Join(dir, "test.libsvm"), filepath.Join(dir, "w.txt")
	for f, ds := range map[string]*datasets.Dataset{tr: train, te: test} {
		if err := datasets.WriteFile(f, ds, datasets.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w := make([]float64, 300)
	var b strings.Builder
	zero := 0
	for i := range w {
		w[i] = float64(i%5) / 2 // 0, 0.5, 1, 1.5, 2
		if w[i] == 0 {
			zero++
		}
		fmt.Fprintf(&b, "%g\n", w[i])
	}
	if err := os.WriteFile(wf, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "svm.lmk")
	code, so, se := runCLI("fit", "--data", tr, "--task", "binary", "--estimator", "svm", "--c", "4", "--gamma", "1e-10",
		"--sample-weights", wf, "--save", m, "--dense", "--progress", "never")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se)
	}
	if line := fmt.Sprintf("sample weights: %s, Σw = 300 over 300 rows (%d of weight 0); scores below are unweighted", wf, zero); !strings.Contains(so, line) {
		t.Errorf("fit report lacks %q:\n%s", line, so)
	}
	code, so, se = runCLI("predict", "--model", m, "--data", te, "--output", "scores", "--progress", "never")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, se)
	}
	trainBack, err := datasets.ReadFile(tr, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testBack, err := datasets.ReadFile(te, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &model.SVM{C: 4, Kernel: kernel.Gaussian{Gamma: 1e-10}}
	if err := s.FitWeighted(context.Background(), trainBack.X, trainBack.Y, w); err != nil {
		t.Fatal(err)
	}
	want, err := s.DecisionFunction(testBack.X)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(so)
	if len(got) != 100 {
		t.Fatalf("%d scores, want 100:\n%s", len(got), so)
	}
	unweighted := &model.SVM{C: 4, Kernel: kernel.Gaussian{Gamma: 1e-10}}
	if err := unweighted.Fit(context.Background(), trainBack.X, trainBack.Y); err != nil {
		t.Fatal(err)
	}
	plain, _ := unweighted.DecisionFunction(testBack.X)
	differs := false
	for i, g := range got {
		v, err := strconv.ParseFloat(g, 64)
		if err != nil || v != want.At(i, 0) {
			t.Fatalf("row %d: CLI %s, model.SVM.FitWeighted %.17g", i, g, want.At(i, 0))
		}
		differs = differs || v != plain.At(i, 0)
	}
	if !differs {
		t.Error("the weighted fit scores as the unweighted one: the weights did not reach the fit")
	}
	code, so, se = runCLI("fit", "--data", tr, "--task", "binary", "--estimator", "svm", "--c", "4", "--gamma", "1e-10",
		"--sample-weights", wf, "--dense", "--progress", "never", "--json")
	if code != 0 || !strings.Contains(so, `"sample_weights": {`) || !strings.Contains(so, fmt.Sprintf(`"zero": %d`, zero)) {
		t.Errorf("fit --json: exit %d, %s\n%s", code, se, so)
	}
	// krr's class weights, reported as weights of the squared loss.
	code, so, se = runCLI("fit", "--data", tr, "--task", "binary", "--estimator", "krr", "--lambda", "1e-3", "--gamma", "1e-10",
		"--set", "class_weight=1:3", "--sample-weights", wf, "--dense", "--progress", "never")
	if code != 0 || !strings.Contains(so, "class weights (squared loss per class): 1 × 3") {
		t.Errorf("krr class_weight: exit %d, %s\n%s", code, se, so)
	}
	code, _, se = runCLI("fit", "--data", tr, "-W", wf)
	if code == 0 || !strings.Contains(se, "LIBSVM's svm-train -W is --sample-weights here") {
		t.Errorf("-W: exit %d, %q", code, se)
	}
	code, _, se = runCLI("fit", "--data", tr, "--estimator", "bka-svm", "--c", "1", "--gamma", "1", "--sample-weights", wf, "--progress", "never")
	if code == 0 || !strings.Contains(se, "estimator bka-svm does not take sample weights") {
		t.Errorf("bka-svm: exit %d, %q", code, se)
	}
}
