package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// oneClassFile writes n rows of a standard 2-D Gaussian labelled +1 and k
// rows uniform on [−6, 6]² labelled −1 (a LIBSVM -s 2 file: +1 normal) to
// path, the values written with %.17g so that they read back exactly.
func oneClassFile(t *testing.T, path string, n, k int, seed uint64, label func(i int) string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	var b strings.Builder
	for i := range n + k {
		l := "1"
		a, c := rng.NormFloat64(), rng.NormFloat64()
		if i >= n {
			l = "-1"
			a, c = 12*rng.Float64()-6, 12*rng.Float64()-6
		}
		if label != nil {
			l = label(i)
		}
		fmt.Fprintf(&b, "%s 1:%.17g 2:%.17g\n", l, a, c)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCLIOneClass: landmark fit --estimator one-class-svm, svm-train -s 2
// -n 0.1 -g 0.8 typed the Landmark way, saves a model whose predictions and
// decision values (landmark predict) are model.OneClassSVM's fitted in
// process on the same rows, exactly; the fit report gives svm-train's nSV,
// nBSV, ρ and obj; the training and test scores are the accuracy of ±1
// against the file's labels, as svm-predict's; text labels and labels
// other than ±1 are refused naming the estimator; a file of normal rows
// alone (novelty detection) fits.
func TestCLIOneClass(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "train.libsvm"), filepath.Join(dir, "test.libsvm")
	oneClassFile(t, tr, 300, 20, 1, nil)
	oneClassFile(t, te, 200, 40, 2, nil)
	m := filepath.Join(dir, "oc.lmk")
	code, so, se := runCLI("fit", "--data", tr, "--test-data", te, "--estimator", "one-class-svm", "--gamma", "0.8",
		"--set", "nu=0.1", "--save", m, "--progress", "never")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se)
	}
	train, err := datasets.ReadFile(tr, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	test, err := datasets.ReadFile(te, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := &model.OneClassSVM{Kernel: kernel.Gaussian{Gamma: 0.8}, Nu: 0.1}
	if err := s.Fit(context.Background(), train.X, nil); err != nil {
		t.Fatal(err)
	}
	in := s.Info()
	line := fmt.Sprintf("support vectors: %d of 320 training rows (%d at the bound; ν = 0.1, ρ = %.6g, dual objective %.6f); %d training rows outside (f(x) ≤ 0)",
		in.SV, in.BoundedSV, in.Rho, in.Objective, in.Outliers)
	if !strings.Contains(so, line) {
		t.Errorf("fit report lacks %q:\n%s", line, so)
	}
	want, _ := s.Predict(test.X)
	correct := 0
	for i, v := range want {
		if v == test.Y[i] {
			correct++
		}
	}
	acc := fmt.Sprintf("accuracy %.6g", float64(correct)/float64(len(want)))
	if !strings.Contains(so, "test (240 rows): "+acc) {
		t.Errorf("fit report lacks the test %s:\n%s", acc, so)
	}
	for _, out := range []string{"labels", "scores"} {
		code, so, se = runCLI("predict", "--model", m, "--data", te, "--output", out, "--progress", "never")
		if code != 0 {
			t.Fatalf("predict --output %s: exit %d: %s", out, code, se)
		}
		ref := want
		if out == "scores" {
			dec, _ := s.DecisionFunction(test.X)
			ref = dec.RawMatrix().Data
		}
		got := strings.Fields(so)
		if len(got) != len(ref) {
			t.Fatalf("--output %s: %d values, want %d", out, len(got), len(ref))
		}
		for i, g := range got {
			if v, err := strconv.ParseFloat(g, 64); err != nil || v != ref[i] {
				t.Fatalf("--output %s row %d: CLI %s, model.OneClassSVM %.17g", out, i, g, ref[i])
			}
		}
	}
	code, _, se = runCLI("predict", "--model", m, "--data", te, "--output", "proba", "--progress", "never")
	if code != 1 || !strings.Contains(se, "a one-class SVM gives no class probabilities, only decision values (--output scores)") || strings.Contains(se, "probability=true") {
		t.Errorf("predict --output proba: exit %d, %q", code, se)
	}

	// Labels the predictions cannot be scored against.
	for name, label := range map[string]func(int) string{
		"zero-one": func(i int) string { return strconv.Itoa(i % 2) },
	} {
		bad := filepath.Join(dir, name+".libsvm")
		oneClassFile(t, bad, 40, 0, 3, label)
		code, _, se = runCLI("fit", "--data", bad, "--estimator", "one-class-svm", "--gamma", "1", "--progress", "never")
		if code != 1 || !strings.Contains(se, "one-class-svm scores its predictions +1 (normal) and −1 (outlier) against labels +1 and −1, but training row 1 has label 0") {
			t.Errorf("%s labels: exit %d, %q", name, code, se)
		}
	}
	csv := filepath.Join(dir, "text.csv")
	if err := os.WriteFile(csv, []byte("a,b,kind\n0,1,normal\n1,0,normal\n0.5,0.5,odd\n0.2,0.1,normal\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, se = runCLI("fit", "--data", csv, "--estimator", "one-class-svm", "--gamma", "1", "--progress", "never")
	if code != 1 || !strings.Contains(se, `the training labels are text {"normal", "odd"}`) {
		t.Errorf("text labels: exit %d, %q", code, se)
	}
	// Normal rows alone: novelty detection.
	normal := filepath.Join(dir, "normal.libsvm")
	oneClassFile(t, normal, 100, 0, 4, nil)
	code, so, se = runCLI("fit", "--data", normal, "--test-data", te, "--estimator", "one-class-svm", "--gamma", "0.8", "--set", "nu=0.05", "--progress", "never")
	if code != 0 || !strings.Contains(so, "test (240 rows): accuracy") {
		t.Errorf("normal rows alone: exit %d, %q\n%s", code, se, so)
	}
}
