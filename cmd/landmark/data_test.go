package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

func runDataArgs(args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	err := runData(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestDataList(t *testing.T) {
	out, _, err := runDataArgs("list")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range datasets.Bundled() {
		if !strings.Contains(out, b.Name) {
			t.Errorf("list lacks %s:\n%s", b.Name, out)
		}
	}
	if _, _, err := runDataArgs("list", "extra"); !errors.Is(err, errUsage) {
		t.Errorf("list extra: err = %v, want errUsage", err)
	}
}

func TestDataInfo(t *testing.T) {
	out, _, err := runDataArgs("info", "heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	// heart_scale: 150 × −1 and 120 × +1 (LIBSVM's example file).
	for _, want := range []string{"rows:", "270", "features:", "13", "binary", "-1: 150 (55.6%)", "1: 120 (44.4%)", "sparsity:"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
	// A CSV file with the target chosen by name, flags after the file.
	p := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(p, []byte("a,b,q\n1,10,3\n2,20,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runDataArgs("info", p, "--target", "b")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "target b:") || !strings.Contains(out, "min 10  max 20") {
		t.Errorf("CSV info:\n%s", out)
	}
	// A malformed file: the error names the file and the line.
	bad := filepath.Join(t.TempDir(), "bad.libsvm")
	if err := os.WriteFile(bad, []byte("1 1:1\n-1 2:1 2:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runDataArgs("info", bad)
	if err == nil || !strings.Contains(err.Error(), bad+": line 2: feature index 2 repeated") {
		t.Errorf("malformed file: err = %v", err)
	}
	for _, args := range [][]string{{"info"}, {"info", "a", "b"}, {"info", "x", "--header", "maybe"}, {"info", "x", "--delim", ";;"}, {"frobnicate"}, {}} {
		if _, _, err := runDataArgs(args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", args, err)
		}
	}
	if _, _, err := runDataArgs("info", "--help"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: err = %v", err)
	}
}

func TestDataConvert(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "heart.csv.gz")
	if _, _, err := runDataArgs("convert", "heart_scale", csvPath); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "heart.svm")
	out, _, err := runDataArgs("convert", csvPath, back)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "270 rows × 13 features") {
		t.Errorf("convert output %q", out)
	}
	orig, _ := datasets.Load("heart_scale")
	got, err := datasets.ReadFile(back, datasets.ReadOptions{Dim: 13})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(orig.X, got.X) {
		t.Error("libsvm → csv → libsvm changed X")
	}
	for i := range orig.Y {
		if orig.Y[i] != got.Y[i] {
			t.Fatalf("label %d changed: %v → %v", i, orig.Y[i], got.Y[i])
		}
	}
	// A semicolon CSV with --to and delimiters.
	semi := filepath.Join(dir, "out.dat")
	if _, _, err := runDataArgs("convert", "--to", "csv", "--out-delim", ";", "heart_scale", semi); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(semi)
	if !strings.HasPrefix(string(raw), "x1;x2;") {
		t.Errorf("semicolon CSV starts %q", raw[:20])
	}
	for _, args := range [][]string{{"convert", "heart_scale"}, {"convert", "heart_scale", filepath.Join(dir, "noext")}, {"convert", "--to", "arff", "heart_scale", semi}} {
		if _, _, err := runDataArgs(args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", args, err)
		}
	}
}
