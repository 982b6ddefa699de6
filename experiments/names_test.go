package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

// sixRows are 6 LIBSVM rows (labels ±1, 12 non-zeros) whose largest index
// is WIDE.
const sixRows = "1 1:1 5:0.5\n-1 2:1 WIDE:0.3\n1 1:0.9 3:0.2\n-1 2:0.8 3:1\n1 1:0.4 4:1\n-1 2:0.5 6:0.7\n"

// TestUnnamedFitSizeByNonZeros: a fit on a LIBSVM file keeps its feature
// names implied, so the saved file's size is set by the non-zeros, not by
// d. For exact KRR (which keeps the training rows), the SVM (its support
// vectors) and Falkon with M = 2 (its centers) on 6 rows with 12 non-zeros,
// the file at d = 10⁶ is at most 1024 + 32·nnz + 16·n bytes — a CSR copy
// of the rows is 12 bytes a non-zero (int32 index, float64 value) and 8 a
// row pointer, counted twice over for slack, 8 bytes a coefficient, and
// 1 KiB for the JSON header line (spec, scaling, task: ≈ 330 bytes) and the
// model's type and kernel fields — where x1…x10⁶ alone took 9.9 MB; and it
// is the size of the same fit at d = 2·10⁶ within 16 bytes (the numbers
// 1000000 and 2000000 have as many digits; an index is a fixed-width
// integer).
func TestUnnamedFitSizeByNonZeros(t *testing.T) {
	dir := t.TempDir()
	for _, w := range []string{"1000000", "2000000"} {
		if err := os.WriteFile(filepath.Join(dir, "w"+w+".svm"), []byte(strings.Replace(sixRows, "WIDE", w, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const n, nnz = 6, 12
	for _, est := range []string{
		"{type: krr, kernel: {type: gaussian, gamma: 1}, approx: {type: exact}, lambda: 0.001}",
		"{type: svm, kernel: {type: gaussian, gamma: 1}, c: 1}",
		"{type: falkon, kernel: {type: gaussian, gamma: 1}, m: 2, lambda: 0.001}",
	} {
		var sizes []int64
		for _, w := range []string{"1000000", "2000000"} {
			s := decodeIn(t, "name: wide\ndataset: {path: w"+w+".svm}\ntask: binary\nestimator: "+est+"\n", dir)
			res, err := Fit(context.Background(), s)
			if err != nil {
				t.Fatalf("%s: %v", est, err)
			}
			if res.Features != nil || !res.ImpliedFeatures || res.FeatureName(res.Dim-1) != "x"+w {
				t.Fatalf("%s: %d names, implied %v", est, len(res.Features), res.ImpliedFeatures)
			}
			p := filepath.Join(dir, "m.lmk")
			if err := res.SaveFile(p, s); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, st.Size())
			back, err := LoadFitFile(p)
			if err != nil || back.Features != nil || !back.ImpliedFeatures || back.Dim != res.Dim {
				t.Fatalf("%s: load: %v", est, err)
			}
		}
		if bound := int64(1024 + 32*nnz + 16*n); sizes[0] > bound || sizes[1]-sizes[0] > 16 || sizes[0]-sizes[1] > 16 {
			t.Errorf("%s: model files of %d bytes (d = 10⁶) and %d (d = 2·10⁶), want ≤ %d and within 16 bytes", est, sizes[0], sizes[1], bound)
		}
	}
}

// TestOldFitHeadersLoad: the three ways files have kept names load and
// predict alike — a list x1…xd (saved before names were implied), nothing
// (saved before names were kept: columns by position) and a target name
// without features (saved with names kept, unnamed, d > 100,000: implied) —
// and the file saved now stores no list.
func TestOldFitHeadersLoad(t *testing.T) {
	s := decodeString(t, "name: a\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\n", ".")
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.Save(&b, s); err != nil {
		t.Fatal(err)
	}
	parts := bytes.SplitN(b.Bytes(), []byte("\n"), 3)
	if bytes.Contains(parts[1], []byte(`"features"`)) || !bytes.Contains(parts[1], []byte(`"implied_features":true`)) {
		t.Fatalf("header %s", parts[1])
	}
	// rewrite returns the saved fit with its header edited.
	rewrite := func(edit func(h map[string]any)) []byte {
		var h map[string]any
		if err := json.Unmarshal(parts[1], &h); err != nil {
			t.Fatal(err)
		}
		edit(h)
		hb, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.Join([][]byte{parts[0], hb, parts[2]}, []byte("\n"))
	}
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	want, err := res.Predict(d.X)
	if err != nil {
		t.Fatal(err)
	}
	list := DefaultFeatureNames(13)
	for _, c := range []struct {
		name     string
		edit     func(h map[string]any)
		features []string
		implied  bool
	}{
		{"list", func(h map[string]any) { delete(h, "implied_features"); h["features"] = list }, list, false},
		{"no names", func(h map[string]any) { delete(h, "implied_features"); delete(h, "target_name") }, nil, false},
		{"target name only", func(h map[string]any) { delete(h, "implied_features") }, nil, true},
		{"now", func(map[string]any) {}, nil, true},
	} {
		back, err := LoadFit(bytes.NewReader(rewrite(c.edit)))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(back.Features, c.features) || back.ImpliedFeatures != c.implied {
			t.Errorf("%s: features %v implied %v, want %v %v", c.name, back.Features, back.ImpliedFeatures, c.features, c.implied)
		}
		if wantName := map[bool]string{true: "x13", false: ""}[c.features != nil || c.implied]; back.FeatureName(12) != wantName {
			t.Errorf("%s: FeatureName(12) = %q, want %q", c.name, back.FeatureName(12), wantName)
		}
		got, err := back.Predict(d.X)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: predictions differ (%v)", c.name, err)
		}
	}
	// A list of the wrong length is refused, as before.
	_, err = LoadFit(bytes.NewReader(rewrite(func(h map[string]any) { h["features"] = list[:12] })))
	if err == nil || !strings.Contains(err.Error(), "12 feature names for 13 features") {
		t.Errorf("short list: %v", err)
	}
}

// TestCSVTestFileByName: a CSV test file beside a LIBSVM training file is
// matched to the implied names x1…x13 by its header (it was read as LIBSVM
// on the sparse path, "label … is not a number", and by position on the
// dense one: columns reversed scored accuracy 0.7 instead of 0.896 on
// heart_scale). The columns reversed, the target first, score exactly what
// the same rows in LIBSVM score, for storage auto, sparse and dense.
func TestCSVTestFileByName(t *testing.T) {
	dir := t.TempDir()
	hs, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteFile(filepath.Join(dir, "hs.libsvm"), hs, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := datasets.WriteCSV(&csv, hs, 0); err != nil {
		t.Fatal(err)
	}
	var rev strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(csv.String(), "\n"), "\n") {
		f := strings.Split(l, ",")
		slices.Reverse(f)
		rev.WriteString(strings.Join(f, ",") + "\n")
	}
	if !strings.HasPrefix(rev.String(), "y,x13,x12,") {
		t.Fatalf("reversed header %.40q", rev.String())
	}
	if err := os.WriteFile(filepath.Join(dir, "rev.csv"), []byte(rev.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, storage := range []string{"auto", "sparse", "dense"} {
		var tests [][]Summary
		for _, test := range []string{"hs.libsvm", "rev.csv"} {
			s := decodeIn(t, "name: a\ndataset: {path: hs.libsvm, test_path: "+test+", storage: "+storage+"}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\n", dir)
			res, err := Fit(context.Background(), s)
			if err != nil {
				t.Fatalf("storage %s, test %s: %v", storage, test, err)
			}
			if res.NTest != 270 {
				t.Fatalf("storage %s, test %s: %d test rows", storage, test, res.NTest)
			}
			tests = append(tests, res.Test)
		}
		if !slices.Equal(tests[0], tests[1]) {
			t.Errorf("storage %s: test scores %v (LIBSVM) and %v (reversed CSV)", storage, tests[0], tests[1])
		}
	}
}
