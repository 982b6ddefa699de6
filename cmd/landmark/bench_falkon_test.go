package main

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The arrays handed to the Python side round-trip exactly, across the 1 MiB
// chunk boundary (131,072 values) of the writer and reader.
func TestFalkonBenchArraysRoundTrip(t *testing.T) {
	v := make([]float64, 131072+5)
	for i := range v {
		v[i] = math.Sin(float64(i)) * 1e3
	}
	v[7] = math.Inf(-1)
	p := filepath.Join(t.TempDir(), "a.f64")
	if err := falkonBenchWrite(p, v); err != nil {
		t.Fatal(err)
	}
	got, err := falkonBenchRead(p, len(v))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, v) {
		t.Error("round trip changed the values")
	}
	if _, err := falkonBenchRead(p, len(v)+1); err == nil {
		t.Error("reading past the end succeeded")
	}
}

func TestFalkonBenchFlags(t *testing.T) {
	if got, err := falkonBenchInts("2000, 10000"); err != nil || !slices.Equal(got, []int{2000, 10000}) {
		t.Errorf("falkonBenchInts: %v, %v", got, err)
	}
	for _, bad := range []string{"", "0", "2000,x", "-5"} {
		if _, err := falkonBenchInts(bad); !errors.Is(err, errUsage) {
			t.Errorf("falkonBenchInts(%q): err = %v, want errUsage", bad, err)
		}
	}
	for _, args := range [][]string{{"-data", "mnist"}, {"-iter", "0"}, {"-sampler", "magic"}, {"-m", "x"}, {"-baseline", "torch"}} {
		if err := runBenchFalkon(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("bench falkon %v: err = %v, want errUsage", args, err)
		}
	}
}

// -baseline falkon refuses at once, naming the problem, when the Python cannot
// import falkon (an empty directory on PYTHONPATH cannot provide it, unless
// the environment already does, in which case the test is skipped).
func TestFalkonBenchBaselineNotImportable(t *testing.T) {
	const py = "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no " + py)
	}
	script := filepath.Join(t.TempDir(), "same_arrays.py")
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := falkonBaselineCheck(t.Context(), py, t.TempDir(), script); err == nil {
		t.Skip("falkon is importable from the inherited PYTHONPATH")
	}
	err := runBenchFalkon(t.Context(), []string{"-baseline", "falkon", "-python", py, "-falkon-path", t.TempDir(), "-falkon-script", script, "-data", "cadata"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cannot import falkon") {
		t.Errorf("err = %v, want a refusal naming falkon", err)
	}
	if _, err := falkonBaselineCheck(t.Context(), py, t.TempDir(), filepath.Join(t.TempDir(), "missing.py")); !errors.Is(err, errUsage) {
		t.Errorf("missing script: err = %v, want errUsage", err)
	}
}
