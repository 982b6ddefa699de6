package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestFileBeyondTrainingDimension: a LIBSVM test file with non-zeros at
// columns the training file never reached is predicted (as LIBSVM does: those
// columns are zero in every training row), and fit --test-data and predict
// say how many rows and columns lie beyond the training dimension, whether
// the training rows are held sparse or dense (--dense). Training uses
// columns 1–4; test rows 2 and 3 use columns 7 and 9, and 9.
func TestTestFileBeyondTrainingDimension(t *testing.T) {
	dir := t.TempDir()
	train, test, model := filepath.Join(dir, "tr.libsvm"), filepath.Join(dir, "te.libsvm"), filepath.Join(dir, "m.model")
	os.WriteFile(train, []byte("1 1:1 2:0.5\n-1 3:1 4:0.5\n1 1:0.8 2:0.7\n-1 3:0.9 4:0.4\n1 1:1 4:0.1\n-1 2:0.1 3:1\n"), 0o644)
	os.WriteFile(test, []byte("1 1:1 2:0.4\n-1 3:1 4:0.5 7:0.3\n1 1:0.9 9:1\n"), 0o644)
	var out, errb bytes.Buffer
	ctx := context.Background()
	want := "2 rows have non-zeros in 2 columns beyond the training dimension 4"
	// With --dense the training rows are held dense; the test rows beyond
	// them stay sparse, as predict reads them (fit refused the file until
	// 2026-11-27 while predict took it).
	for _, storage := range [][]string{nil, {"--dense"}} {
		args := append([]string{"--data", train, "--test-data", test, "--task", "binary", "--estimator", "svm", "--c", "10", "--gamma", "0.5", "--save", model}, storage...)
		out.Reset()
		errb.Reset()
		if err := runFit(ctx, args, &out, &errb); err != nil {
			t.Fatalf("%v: %v", storage, err)
		}
		if !strings.Contains(out.String(), "test data: "+want) || !strings.Contains(out.String(), "test (3 rows): accuracy 1") {
			t.Errorf("%v: fit output:\n%s", storage, out.String())
		}
		out.Reset()
		errb.Reset()
		if err := runPredict(ctx, []string{"--model", model, "--data", test}, &out, &errb); err != nil {
			t.Fatal(err)
		}
		if out.String() != "1\n-1\n1\n" || !strings.Contains(errb.String(), want) {
			t.Errorf("%v: predict: %q, stderr:\n%s", storage, out.String(), errb.String())
		}
	}
	// run with a test file says it too.
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("name: s\ndataset: {path: tr.libsvm, test_path: te.libsvm}\ntask: binary\nestimator: {type: svm, kernel: {type: gaussian, gamma: 0.5}}\ngrid: {c: [10]}\ncv: {folds: 2}\n"), 0o644)
	out.Reset()
	if err := runRun(ctx, []string{spec, "--out", filepath.Join(dir, "o"), "--quiet"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "test data: "+want) {
		t.Errorf("run output:\n%s", out.String())
	}
}
