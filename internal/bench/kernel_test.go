package bench

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// benchKernelRow returns the fields of the table row for label in out.
func benchKernelRow(t *testing.T, out, label string) []string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == label {
			return f
		}
	}
	t.Fatalf("no row %q in output:\n%s", label, out)
	return nil
}

// TestBenchKernel runs a tiny "bench kernel" and, when scikit-learn is
// installed, checks that our fused product equals scikit-learn's
// rbf_kernel + numpy products on the same arrays: the relative difference
// column must be at float64 round-off (1e-12; observed 4e-15 at full size).
func TestBenchKernel(t *testing.T) {
	args := []string{"kernel", "--n", "300", "--m", "40", "--d", "3,20", "--repeats", "1", "--float32"}
	py, err := exec.LookPath("/usr/bin/python3")
	if err == nil && exec.Command(py, "-c", "import sklearn, numpy").Run() != nil {
		err = exec.ErrNotFound
	}
	if err != nil {
		args = append(args, "--no-python")
	}
	var out, errOut bytes.Buffer
	if err := Run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	// With Python, the baseline's kernels are reported before the table.
	if py != "" && err == nil && !strings.Contains(out.String(), "\nbaseline Python ") {
		t.Errorf("no baseline report:\n%s", out.String())
	}
	for _, label := range []string{"3", "20", "3/f32", "20/f32"} {
		f := benchKernelRow(t, out.String(), label)
		if len(f) != 12 {
			t.Fatalf("row %q has %d fields, want 12: %v", label, len(f), f)
		}
		if py == "" || err != nil {
			continue
		}
		diff, perr := strconv.ParseFloat(f[6], 64)
		// float64 rows: round-off only; float32 rows: the float32 mode's
		// documented kernel error (≤ 1e-6) bounds the relative difference.
		tol := 1e-12
		if strings.HasSuffix(label, "/f32") {
			tol = 1e-6
		}
		if perr != nil || !(diff <= tol) {
			t.Fatalf("row %q: relative difference to scikit-learn %q, want ≤ %g", label, f[6], tol)
		}
	}
}

func TestBenchKernelUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := Run(context.Background(), []string{"--help"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "kernel") {
		t.Fatalf("bench --help does not list kernel:\n%s", out.String())
	}
	for _, args := range [][]string{nil, {"nope"}, {"kernel", "--d", "0"}, {"kernel", "--n", "0"}, {"kernel", "extra"}} {
		if err := Run(context.Background(), args, &out, &errOut); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("bench %v: err = %v, want a usage error", args, err)
		}
	}
}

// TestBenchKernelNoPython: without the baseline, its columns (scikit-learn's
// time, GFLOP/s, speed-up, difference, numpy's time, GFLOP/s, ratio) are
// dashes, not NaN, and ours are numbers.
func TestBenchKernelNoPython(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"kernel", "--n", "200", "--m", "30", "--d", "5", "--repeats", "1", "--no-python"}
	if err := Run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	if strings.Contains(out.String(), "NaN") {
		t.Errorf("output has NaN:\n%s", out.String())
	}
	f := benchKernelRow(t, out.String(), "5")
	if len(f) != 12 {
		t.Fatalf("row has %d fields, want 12: %v", len(f), f)
	}
	for _, i := range []int{1, 2, 7, 8} { // our fused time and GFLOP/s, our X·Cᵀ time and GFLOP/s
		// Times print with 3 decimals (0.000 at this size); rates are > 0.
		if v, err := strconv.ParseFloat(f[i], 64); err != nil || v < 0 || (i%2 == 0 && v == 0) {
			t.Errorf("field %d = %q, want a number (> 0 for a rate)", i, f[i])
		}
	}
	for _, i := range []int{3, 4, 5, 6, 9, 10, 11} {
		if f[i] != "—" {
			t.Errorf("field %d = %q, want a dash", i, f[i])
		}
	}
}
