package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

func TestRunList(t *testing.T) {
	var out, errb bytes.Buffer
	if code := dispatch(context.Background(), []string{"run", "--list"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"krr", "falkon", "svm", "bka-svm", "bless", "gaussian", "rmse", "auc", "Approximation methods"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--list lacks %q", want)
		}
	}
}

// TestRunSmokeAndResume runs an example on bundled data at smoke size, then
// again: the second run resumes every point.
func TestRunSmokeAndResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	spec := filepath.Join("..", "..", "experiments", "examples", "krr-cadata.yaml")
	args := []string{"run", spec, "--smoke", "--out", out, "--quiet"}
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "2 computed, 0 resumed") || !strings.Contains(so.String(), "test (") {
		t.Errorf("unexpected output:\n%s", so.String())
	}
	so.Reset()
	if code := dispatch(context.Background(), args, &so, &se); code != 0 || !strings.Contains(so.String(), "0 computed, 2 resumed") {
		t.Errorf("rerun did not resume (exit %d):\n%s%s", code, so.String(), se.String())
	}
	for _, f := range []string{"results.csv", "results.json", "summary.md", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\ndataset: {name: cadata}\ntask: regression\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lamda: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), []string{"run", bad}, &so, &se); code != 1 || !strings.Contains(se.String(), "line 4") || !strings.Contains(se.String(), "lamda") {
		t.Errorf("bad spec: exit %d, %s", code, se.String())
	}
	se.Reset()
	if code := dispatch(context.Background(), []string{"run"}, &so, &se); code != 2 {
		t.Errorf("no spec: exit %d, want 2", code)
	}
	se.Reset()
	if code := dispatch(context.Background(), []string{"predict", "--model", filepath.Join(dir, "none"), "--data", bad}, &so, &se); code != 1 {
		t.Errorf("predict with a missing model: exit %d", code)
	}
}

// TestFitSavePredict: fit --save then predict on the bundled heart data
// reproduces fit's training accuracy from the saved file.
func TestFitSavePredict(t *testing.T) {
	dir := t.TempDir()
	mp := filepath.Join(dir, "heart.lmk")
	var so, se bytes.Buffer
	args := []string{"fit", "--dataset", "heart_scale", "--task", "binary", "--estimator", "krr", "--gamma", "0.1", "--lambda", "0.01", "--standardize", "--save", mp}
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se.String())
	}
	m := regexp.MustCompile(`train: accuracy ([0-9.]+)`).FindStringSubmatch(so.String())
	if m == nil {
		t.Fatalf("no training accuracy in:\n%s", so.String())
	}
	data, ok := datasets.SharedPath("heart_scale.libsvm")
	if !ok {
		t.Skip("shared heart_scale.libsvm absent")
	}
	so.Reset()
	se.Reset()
	out := filepath.Join(dir, "pred.txt")
	if code := dispatch(context.Background(), []string{"predict", "--model", mp, "--data", data, "--out", out}, &so, &se); code != 0 {
		t.Fatalf("predict: exit %d: %s", code, se.String())
	}
	if !strings.Contains(se.String(), "accuracy "+m[1]) {
		t.Errorf("predict reports %q, fit had training accuracy %s", se.String(), m[1])
	}
	b, _ := os.ReadFile(out)
	if n := strings.Count(string(b), "\n"); n != 270 {
		t.Errorf("%d predictions, want 270", n)
	}
}

func TestFitFlags(t *testing.T) {
	var so, se bytes.Buffer
	args := []string{"fit", "--dataset", "heart_scale", "--task", "binary", "--estimator", "svm", "--gamma", "0.1", "--c", "1", "--test-fraction", "0.3"}
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(so.String(), "test (81 rows)") || !strings.Contains(so.String(), "accuracy") {
		t.Errorf("unexpected output:\n%s", so.String())
	}
}
