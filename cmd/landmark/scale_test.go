package main

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

// TestFitRunSparseScaling: --scale maxabs and std keep a sparse LIBSVM file
// (density 0.05) sparse, say which scaling was used, and save fits whose
// predictions (read sparse by predict) equal those of the dense fit with
// the same scaling to 1e-10 (issue 12's tolerance; exact KRR with
// λn = 0.012). run reports standardize on sparse storage as std. An
// unknown scaling is a clear error.
func TestFitRunSparseScaling(t *testing.T) {
	x, y, err := datasets.SparseRegression(120, 100, 5, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "d.svm")
	var b bytes.Buffer
	if err := datasets.WriteLIBSVMSparse(&b, x, y); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := []string{"--data", path, "--estimator", "krr", "--approx", "exact", "--lambda", "1e-4", "--gamma", "0.05"}
	predict := func(model string) []float64 {
		t.Helper()
		var out, errb bytes.Buffer
		if err := runPredict(ctx, []string{"--model", model, "--data", path}, &out, &errb); err != nil {
			t.Fatalf("predict: %v\n%s", err, errb.String())
		}
		var p []float64
		for _, l := range strings.Fields(out.String()) {
			v, err := strconv.ParseFloat(l, 64)
			if err != nil {
				t.Fatal(err)
			}
			p = append(p, v)
		}
		return p
	}
	for _, tc := range []struct{ scale, used string }{
		{"maxabs", "scaling: maxabs (each feature divided by its largest training |x|, not centred)"},
		{"std", "scaling: std (each feature divided by its training standard deviation, not centred)"},
	} {
		var preds [2][]float64
		for i, extra := range [][]string{nil, {"--dense"}} {
			model := filepath.Join(dir, tc.scale+strconv.Itoa(i)+".lmk")
			args := append(append(append([]string(nil), base...), "--scale", tc.scale, "--save", model), extra...)
			var out, errb bytes.Buffer
			if err := runFit(ctx, args, &out, &errb); err != nil {
				t.Fatalf("%v: %v\n%s", args, err, errb.String())
			}
			storage := "data: sparse X (CSR), density 0.05 (auto: density 0.05 < 0.1)"
			if extra != nil {
				storage = "data: dense X, density 0.05\n"
			}
			if !strings.Contains(out.String(), storage) || !strings.Contains(out.String(), tc.used) {
				t.Fatalf("%v: output lacks %q or %q:\n%s", args, storage, tc.used, out.String())
			}
			preds[i] = predict(model)
		}
		if len(preds[0]) != 120 || len(preds[1]) != 120 {
			t.Fatalf("%d and %d predictions", len(preds[0]), len(preds[1]))
		}
		var worst float64
		for i := range preds[0] {
			worst = math.Max(worst, math.Abs(preds[0][i]-preds[1][i]))
		}
		if worst > 1e-10 {
			t.Fatalf("%s: sparse and dense fits predict differently, by up to %g", tc.scale, worst)
		}
		t.Logf("%s: max |sparse − dense| prediction %.3g", tc.scale, worst)
	}
	var out, errb bytes.Buffer
	if err := runFit(ctx, append(append([]string(nil), base...), "--scale", "maxab"), &out, &errb); err == nil || !strings.Contains(err.Error(), `unknown scale "maxab" (did you mean "maxabs"?)`) {
		t.Fatalf("--scale maxab: %v", err)
	}
	// --scale none, approx's default name, is no scaling: the same report
	// as without the flag.
	var plain, none bytes.Buffer
	if err := runFit(ctx, append(append([]string(nil), base...), "--json"), &plain, &errb); err != nil {
		t.Fatal(err)
	}
	if err := runFit(ctx, append(append([]string(nil), base...), "--json", "--scale", "none"), &none, &errb); err != nil {
		t.Fatalf("--scale none: %v", err)
	}
	strip := regexp.MustCompile(`"(fit|predict)_seconds": [^,]*,|"peak[a-z_]*": [^,]*,`)
	if a, b := strip.ReplaceAllString(plain.String(), ""), strip.ReplaceAllString(none.String(), ""); a != b || !strings.Contains(b, `"scaling": "",`) {
		t.Errorf("--scale none differs from no --scale:\n%s\n%s", a, b)
	}
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: s\ndataset: {path: d.svm, standardize: true, storage: sparse}\ntask: regression\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.05}, approx: {type: exact}}\ngrid: {lambda: [1.0e-4]}\ncv: {folds: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runRun(ctx, []string{spec, "--out", filepath.Join(dir, "o"), "--quiet"}, &out, &errb); err != nil {
		t.Fatalf("run: %v\n%s", err, errb.String())
	}
	if want := "scaling: std (standardize on sparse X: each feature divided by its training standard deviation, not centred"; !strings.Contains(out.String(), want) {
		t.Fatalf("run output lacks %q:\n%s", want, out.String())
	}
}
