package experiments

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/libsvmtest"
)

// TestZeroBasedSpec: dataset zero_based: true reads path and test_path
// 0-based, dense and sparse, and fits the model the 1-based files fit, to
// the bit (same predictions, same test scores); the fit records the base,
// and a saved fit keeps it. zero_based with a CSV format or a bundled set
// is refused at its line, and the key is spelt exactly (strict decoding).
func TestZeroBasedSpec(t *testing.T) {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, base := range []int{0, 1} {
		libsvmtest.Write(t, filepath.Join(dir, "train"+strconv.Itoa(base)+".libsvm"), d.X, d.Y, base)
	}
	for _, storage := range []string{"dense", "sparse"} {
		var preds [2][]float64
		var fits [2]*FitResult
		for _, base := range []int{0, 1} {
			b := strconv.Itoa(base)
			y := "name: z\ndataset: {path: train" + b + ".libsvm, test_path: train" + b + ".libsvm, storage: " + storage
			if base == 0 {
				y += ", zero_based: true"
			}
			y += "}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\nseed: 1\n"
			s, err := Decode(strings.NewReader(y), dir)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Fit(context.Background(), s)
			if err != nil {
				t.Fatalf("%s, base %d: %v", storage, base, err)
			}
			if res.ZeroBased != (base == 0) || res.Dim != 13 {
				t.Fatalf("%s, base %d: ZeroBased %v, Dim %d", storage, base, res.ZeroBased, res.Dim)
			}
			if preds[base], err = res.Predict(d.X); err != nil {
				t.Fatal(err)
			}
			fits[base] = res
			if base == 0 {
				p := filepath.Join(dir, "z.lmk")
				if err := res.SaveFile(p, s); err != nil {
					t.Fatal(err)
				}
				back, err := LoadFitFile(p)
				if err != nil || !back.ZeroBased {
					t.Fatalf("saved 0-based fit: ZeroBased lost (err %v)", err)
				}
			}
		}
		for i := range preds[0] {
			if preds[0][i] != preds[1][i] {
				t.Fatalf("%s: prediction %d: %v 0-based, %v 1-based", storage, i, preds[0][i], preds[1][i])
			}
		}
		a, _ := fits[0].TestMetric("accuracy")
		b, _ := fits[1].TestMetric("accuracy")
		if a != b {
			t.Fatalf("%s: test accuracy %v 0-based, %v 1-based", storage, a, b)
		}
	}

	for _, c := range []struct{ yaml, msg string }{
		{"dataset: {path: x.csv, format: csv, zero_based: true}", "zero_based describes LIBSVM files' feature indices, not CSV"},
		{"dataset: {name: heart_scale, zero_based: true}", "a bundled set (name) is read as it is"},
		{"dataset: {path: x.libsvm, zerobased: true}", "zerobased"},
	} {
		y := "name: z\n" + c.yaml + "\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\nseed: 1\n"
		_, err := Decode(strings.NewReader(y), dir)
		var se *SpecError
		if !errors.As(err, &se) || se.Line != 2 || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: err %v, want a SpecError at line 2 saying %q", c.yaml, err, c.msg)
		}
	}
}
