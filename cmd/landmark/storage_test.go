package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
)

// TestFitRunStorage: fit and run keep a sparse LIBSVM file (density 0.05)
// sparse and say so; --dense holds it dense.
func TestFitRunStorage(t *testing.T) {
	x, y, err := datasets.SparseRegression(120, 100, 5, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = 1
		if i%2 == 0 {
			y[i] = -1
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "d.svm")
	if err := datasets.WriteLIBSVMSparseFile(path, x, y); err != nil {
		t.Fatal(err)
	}
	kept := "; K_nM kept in memory (32.0 KiB)"
	if kernel.Accel() == "portable" {
		kept = ""
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", path, "--task", "binary", "--estimator", "svm", "--c", "1", "--gamma", "0.1"}, "data: sparse X (CSR), density 0.05 (auto: density 0.05 < 0.1)"},
		{[]string{"--data", path, "--task", "binary", "--estimator", "svm", "--c", "1", "--gamma", "0.1", "--dense"}, "data: dense X, density 0.05\n"},
		// Falkon and Nyström KRR say how they held their centers: rows of
		// the CSR file stay CSR (density 0.05 < kernel.PreferDenseCenters'
		// 0.25), rows of dense X are dense.
		{[]string{"--data", path, "--task", "binary", "--estimator", "falkon", "--m", "20", "--lambda", "1e-3", "--gamma", "0.1"}, "(auto: density 0.05 < 0.1); centers sparse (CSR, "},
		// d = 100 ≥ 64: within the default memory cap the engine keeps
		// K_nM's blocks on the SIMD paths, 8 bytes × (120 rows + 8 of
		// padding) × 32 (M = 20 rounded up to the panel width).
		{[]string{"--data", path, "--task", "binary", "--estimator", "falkon", "--m", "20", "--lambda", "1e-3", "--gamma", "0.1", "--dense"}, "data: dense X, density 0.05; centers dense" + kept + "\n"},
		{[]string{"--data", path, "--task", "binary", "--estimator", "krr", "--approx", "uniform", "--m", "20", "--lambda", "1e-3", "--gamma", "0.1"}, "; centers sparse (CSR, "},
	} {
		var out, errb bytes.Buffer
		if err := runFit(context.Background(), tc.args, &out, &errb); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errb.String())
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
	// Save a sparse fit and predict the same file: read sparse, the labels
	// of the training file scored.
	model := filepath.Join(dir, "m.lmk")
	var out, errb bytes.Buffer
	if err := runFit(context.Background(), []string{"--data", path, "--task", "binary", "--estimator", "svm", "--c", "1", "--gamma", "0.1", "--save", model}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if err := runPredict(context.Background(), []string{"--model", model, "--data", path}, &out, &errb); err != nil {
		t.Fatalf("predict: %v\n%s", err, errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 120 || !strings.Contains(errb.String(), "120 rows; against the file's targets: accuracy") {
		t.Fatalf("predict: %d lines, stderr %q", n, errb.String())
	}
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("name: s\ndataset: {path: d.svm}\ntask: binary\nestimator: {type: svm, kernel: {type: linear}}\ngrid: {c: [1]}\ncv: {folds: 2}\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{spec, "--out", filepath.Join(dir, "o1"), "--quiet"}, "data: sparse X (CSR), density 0.05 (auto"},
		{[]string{spec, "--out", filepath.Join(dir, "o2"), "--quiet", "--dense"}, "data: dense X, density 0.05\n"},
	} {
		var out, errb bytes.Buffer
		if err := runRun(context.Background(), tc.args, &out, &errb); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, errb.String())
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
}
