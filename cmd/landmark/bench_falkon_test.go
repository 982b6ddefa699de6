package main

import (
	"errors"
	"io"
	"math"
	"path/filepath"
	"slices"
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
	for _, args := range [][]string{{"-data", "mnist"}, {"-iter", "0"}, {"-sampler", "magic"}, {"-m", "x"}} {
		if err := runBenchFalkon(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("bench falkon %v: err = %v, want errUsage", args, err)
		}
	}
}
