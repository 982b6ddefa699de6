package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/libsvmtest"
)

// runCLI runs the command line in-process and returns its exit code,
// stdout and stderr.
func runCLI(args ...string) (int, string, string) {
	var so, se bytes.Buffer
	code := dispatch(context.Background(), args, &so, &se)
	return code, so.String(), se.String()
}

// TestCLIZeroBased: heart_scale written 1-based and 0-based (the same file
// up to the index base) fits the same model with --zero-based on the
// 0-based file, bit for bit: the predictions of each model on each file
// (read with its own base) are the same bytes. A model fitted 0-based asks
// for the base of a LIBSVM file to predict rather than assuming it, and
// without --zero-based index 0 is refused with a hint naming the flag.
func TestCLIZeroBased(t *testing.T) {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	one, zero, zeroX := filepath.Join(dir, "one.libsvm"), filepath.Join(dir, "zero.libsvm"), filepath.Join(dir, "zerox.libsvm")
	if err := datasets.WriteFile(one, d, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	libsvmtest.Write(t, zero, d.X, d.Y, 0)
	libsvmtest.Write(t, zeroX, d.X, nil, 0)
	m1, m0 := filepath.Join(dir, "one.lmk"), filepath.Join(dir, "zero.lmk")
	fit := []string{"--gamma", "0.1", "--estimator", "falkon", "--m", "50", "--lambda", "1e-4", "--progress", "never"}
	if code, _, se := runCLI(append([]string{"fit", "--data", one, "--save", m1}, fit...)...); code != 0 {
		t.Fatalf("fit 1-based: exit %d: %s", code, se)
	}
	if code, _, se := runCLI(append([]string{"fit", "--data", zero, "--save", m0}, fit...)...); code != 1 || !strings.Contains(se, "read it with --zero-based") {
		t.Fatalf("fit 0-based without --zero-based: exit %d, stderr %q; want 1 and the hint", code, se)
	}
	if code, _, se := runCLI(append([]string{"fit", "--data", zero, "--zero-based", "--save", m0}, fit...)...); code != 0 {
		t.Fatalf("fit 0-based: exit %d: %s", code, se)
	}
	want := ""
	for _, c := range []struct {
		name string
		args []string
	}{
		{"1-based model, 1-based file", []string{"--model", m1, "--data", one}},
		{"1-based model, 0-based file", []string{"--model", m1, "--data", zero, "--zero-based"}},
		{"0-based model, 0-based file", []string{"--model", m0, "--data", zero, "--zero-based"}},
		{"0-based model, unlabelled 0-based file", []string{"--model", m0, "--data", zeroX, "--zero-based"}},
		{"0-based model, 1-based file", []string{"--model", m0, "--data", one, "--zero-based=false"}},
		{"0-based model, scores", []string{"--model", m0, "--data", zero, "--zero-based", "--output", "scores"}},
		{"1-based model, scores", []string{"--model", m1, "--data", one, "--output", "scores"}},
	} {
		code, so, se := runCLI(append([]string{"predict"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", c.name, code, se)
		}
		if strings.HasSuffix(c.name, "scores") {
			continue
		}
		if want == "" {
			want = so
		}
		if so != want {
			t.Fatalf("%s: predictions differ from the 1-based fit's on the 1-based file", c.name)
		}
	}
	_, s0, _ := runCLI("predict", "--model", m0, "--data", zero, "--zero-based", "--output", "scores")
	_, s1, _ := runCLI("predict", "--model", m1, "--data", one, "--output", "scores")
	if s0 != s1 || len(strings.Fields(s0)) != 270 {
		t.Fatalf("decision values of the 0-based fit differ from the 1-based fit's (%d and %d lines)", len(strings.Fields(s0)), len(strings.Fields(s1)))
	}

	// A 0-based model refuses a LIBSVM file whose base is not given.
	code, _, se := runCLI("predict", "--model", m0, "--data", zeroX)
	if code != 2 || !strings.Contains(se, "0-based indices") || !strings.Contains(se, "--zero-based=false") {
		t.Fatalf("0-based model, base not given: exit %d, stderr %q; want 2 naming --zero-based", code, se)
	}
	// --zero-based is for LIBSVM files.
	csv := filepath.Join(dir, "x.csv")
	if err := datasets.WriteFile(csv, d, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if code, _, se := runCLI("predict", "--model", m1, "--data", csv, "--zero-based"); code != 1 || !strings.Contains(se, "zero-based indices describe LIBSVM files, not csv") {
		t.Fatalf("predict csv --zero-based: exit %d, stderr %q", code, se)
	}
	if code, _, se := runCLI("data", "info", "heart_scale", "--zero-based"); code != 2 || !strings.Contains(se, "bundled set") {
		t.Fatalf("data info bundled --zero-based: exit %d, stderr %q", code, se)
	}
	// data convert re-bases: the 0-based file read with --zero-based is
	// written as the 1-based file, byte for byte.
	conv := filepath.Join(dir, "conv.libsvm")
	if code, _, se := runCLI("data", "convert", zero, conv, "--zero-based", "--progress", "never"); code != 0 {
		t.Fatalf("data convert --zero-based: exit %d: %s", code, se)
	}
	a, _ := os.ReadFile(one)
	b, _ := os.ReadFile(conv)
	if !bytes.Equal(a, b) {
		t.Fatalf("data convert --zero-based: the written file differs from the 1-based file")
	}
	// A CSV written from the 0-based file names its columns x1…x13 by
	// position (x1 is index 0), as the 0-based model's implied names: the
	// model predicts it as it predicts the LIBSVM file.
	convCSV := filepath.Join(dir, "conv.csv")
	if code, _, se := runCLI("data", "convert", zero, convCSV, "--zero-based", "--progress", "never"); code != 0 {
		t.Fatalf("data convert --zero-based to CSV: exit %d: %s", code, se)
	}
	if code, so, se := runCLI("predict", "--model", m0, "--data", convCSV); code != 0 || so != want {
		t.Fatalf("0-based model on the converted CSV: exit %d (%s), predictions equal: %v", code, se, so == want)
	}
	// run takes --zero-based as an override of the spec's dataset block;
	// fit SPEC.yaml refuses it, as the other data flags (set in the spec).
	spec := filepath.Join(dir, "z.yaml")
	y := "name: z\ndataset: {path: zero.libsvm}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001}\ncv: {folds: 2}\nseed: 1\n"
	if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, se := runCLI("run", spec, "--out", filepath.Join(dir, "r0"), "--progress", "never"); code != 1 || !strings.Contains(se, "--zero-based") {
		t.Fatalf("run on a 0-based file without --zero-based: exit %d, stderr %q", code, se)
	}
	if code, so, se := runCLI("run", spec, "--zero-based", "--out", filepath.Join(dir, "r1"), "--progress", "never"); code != 0 || !strings.Contains(se, "--zero-based=true overrides the spec's dataset zero_based: false") {
		t.Fatalf("run --zero-based: exit %d, stdout %q, stderr %q", code, so, se)
	}
	if code, _, se := runCLI("fit", spec, "--zero-based", "--progress", "never"); code != 2 || !strings.Contains(se, "--zero-based cannot be combined with a SPEC.yaml") {
		t.Fatalf("fit SPEC.yaml --zero-based: exit %d, stderr %q", code, se)
	}

	code, so, se := runCLI("data", "info", zero, "--zero-based")
	if code != 0 || !strings.Contains(so, "features:") || !strings.Contains(so, "13 (") {
		t.Fatalf("data info --zero-based: exit %d, stdout %q, stderr %q", code, so, se)
	}
}

// TestCLIZeroBasedShards: a 0-based file whose index 0 never occurs (its
// first column is zero in every row) reads without error as a 1-based
// file one column off, so a model fitted from `data shard --zero-based`
// shards must ask predict for the base, as a model fitted from the file
// does. Before, the manifest forgot the base: predict took the 0-based
// file as 1-based without a word. With --zero-based its predictions are
// the in-memory 0-based fit's, byte for byte (same rows, same seed).
func TestCLIZeroBasedShards(t *testing.T) {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	n, _ := d.X.Dims()
	for i := range n {
		d.X.Set(i, 0, 0) // no index 0 in the 0-based file
	}
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero.libsvm")
	libsvmtest.Write(t, zero, d.X, d.Y, 0)
	sh := filepath.Join(dir, "sh")
	if code, _, se := runCLI("data", "shard", zero, sh, "--rows", "100", "--zero-based", "--progress", "never"); code != 0 {
		t.Fatalf("data shard --zero-based: exit %d: %s", code, se)
	}
	if code, so, se := runCLI("data", "info", filepath.Join(sh, "manifest.json")); code != 0 || !strings.Contains(so, "source:    a LIBSVM file with 0-based indices") {
		t.Fatalf("data info of the 0-based shards: exit %d (%s), stdout %q", code, se, so)
	}
	fit := []string{"--gamma", "0.1", "--estimator", "falkon", "--m", "50", "--lambda", "1e-4", "--progress", "never"}
	mf, ms := filepath.Join(dir, "file.lmk"), filepath.Join(dir, "shards.lmk")
	if code, _, se := runCLI(append([]string{"fit", "--data", zero, "--zero-based", "--save", mf}, fit...)...); code != 0 {
		t.Fatalf("fit the 0-based file: exit %d: %s", code, se)
	}
	if code, _, se := runCLI(append([]string{"fit", "--data", filepath.Join(sh, "manifest.json"), "--save", ms}, fit...)...); code != 0 {
		t.Fatalf("fit the shards: exit %d: %s", code, se)
	}
	code, _, se := runCLI("predict", "--model", ms, "--data", zero)
	if code != 2 || !strings.Contains(se, "0-based indices") || !strings.Contains(se, "give --zero-based if "+zero+" is 0-based") {
		t.Fatalf("shard-fitted model on a 0-based file, base not given: exit %d, stderr %q; want 2 asking for --zero-based", code, se)
	}
	// From standard input the message names it (it said "a 0-based -").
	f, err := os.Open(zero)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stdin := os.Stdin
	os.Stdin = f
	code, _, se = runCLI("predict", "--model", ms, "--data", "-")
	os.Stdin = stdin
	if code != 2 || !strings.Contains(se, "give --zero-based if standard input is 0-based, --zero-based=false if it is 1-based") {
		t.Fatalf("from standard input, base not given: exit %d, stderr %q", code, se)
	}
	_, want, _ := runCLI("predict", "--model", mf, "--data", zero, "--zero-based", "--output", "scores")
	code, got, se := runCLI("predict", "--model", ms, "--data", zero, "--zero-based", "--output", "scores")
	if code != 0 || got != want || len(strings.Fields(got)) != n {
		t.Fatalf("shard-fitted model with --zero-based: exit %d (%s), %d lines, equal to the file fit's: %v", code, se, len(strings.Fields(got)), got == want)
	}
}
