package bench

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	for _, args := range [][]string{nil, {"nope"}, {"kernel", "--d", "0"}, {"kernel", "--n", "0"}, {"kernel", "--block-rows", "-8"}, {"kernel", "extra"}} {
		if err := Run(context.Background(), args, &out, &errOut); err == nil || !strings.Contains(err.Error(), "usage") {
			t.Errorf("bench %v: err = %v, want a usage error", args, err)
		}
	}
}

// TestBenchKernelNoPython: without the baseline, its columns (scikit-learn's
// time, GFLOP/s, speed-up, difference, numpy's time, GFLOP/s, ratio) are
// dashes, not NaN, and ours are numbers; with -no-gemm our X·Cᵀ columns are
// dashes too; with -float32 the f32 row follows the same rule.
func TestBenchKernelNoPython(t *testing.T) {
	for _, flags := range [][]string{nil, {"--no-gemm"}, {"--float32"}, {"--no-gemm", "--float32"}, {"--block-rows", "24"}} {
		var out, errOut bytes.Buffer
		args := append([]string{"kernel", "--n", "200", "--m", "30", "--d", "5", "--repeats", "1", "--no-python", "--progress", "never"}, flags...)
		if err := Run(context.Background(), args, &out, &errOut); err != nil {
			t.Fatalf("%v: %v\n%s", flags, err, errOut.String())
		}
		if strings.Contains(out.String(), "NaN") || strings.Contains(out.String(), "Inf") {
			t.Errorf("%v: output has NaN or Inf:\n%s", flags, out.String())
		}
		noGemm := slices.Contains(flags, "--no-gemm")
		labels := []string{"5"}
		if slices.Contains(flags, "--float32") {
			labels = append(labels, "5/f32")
		}
		for _, label := range labels {
			f := benchKernelRow(t, out.String(), label)
			if len(f) != 12 {
				t.Fatalf("%v: row %q has %d fields, want 12: %v", flags, label, len(f), f)
			}
			nums, dashes := []int{1, 2, 7, 8}, []int{3, 4, 5, 6, 9, 10, 11}
			if noGemm {
				nums, dashes = []int{1, 2}, []int{3, 4, 5, 6, 7, 8, 9, 10, 11}
			}
			for _, i := range nums { // our fused time and GFLOP/s, our X·Cᵀ time and GFLOP/s
				// Times print with 3 decimals (0.000 at this size), rates with 1:
				// 84 kFLOP (fused) print as 0.0 GFLOP/s once a product takes
				// over 1.7 ms, as it did on a loaded machine, so 0 is allowed
				// for both (no timing assertion).
				if v, err := strconv.ParseFloat(f[i], 64); err != nil || v < 0 {
					t.Errorf("%v: row %q field %d = %q, want a number ≥ 0", flags, label, i, f[i])
				}
			}
			for _, i := range dashes {
				if f[i] != "—" {
					t.Errorf("%v: row %q field %d = %q, want a dash", flags, label, i, f[i])
				}
			}
		}
	}
}

// TestKernelBenchRow formats a row with every subset of the five measured
// values missing (NaN): no field may read NaN, a field is a dash exactly
// when a value it is computed from is missing (a time or difference: itself;
// a rate: its time; a ratio: either of its two times), and a number
// otherwise, with the exact value for the inputs chosen here.
func TestKernelBenchRow(t *testing.T) {
	const fusedFlops, gemmFlops = 4e9, 2e9
	vals := [5]float64{0.5, 2, 1e-13, 0.25, 1} // fused, sk, diff, gemm, blas
	// Each field: which inputs it needs (bit i = vals[i]) and its text when all are there.
	fields := []struct {
		needs int
		want  string
	}{
		{1 << 0, "0.500"},      // fused s
		{1 << 0, "8.0"},        // GFLOP/s = 4e9/0.5/1e9
		{1 << 1, "2.000"},      // sklearn s
		{1 << 1, "2.0"},        // GFLOP/s = 4e9/2/1e9
		{1<<1 | 1<<0, "4.00×"}, // speed-up = 2/0.5
		{1 << 2, "1.0e-13"},    // rel.diff
		{1 << 3, "0.250"},      // X·Cᵀ s
		{1 << 3, "8.0"},        // GFLOP/s = 2e9/0.25/1e9
		{1 << 4, "1.000"},      // numpy s
		{1 << 4, "2.0"},        // GFLOP/s = 2e9/1/1e9
		{1<<4 | 1<<3, "4.00"},  // ours/numpy = 1/0.25
	}
	for missing := range 1 << 5 {
		v := vals
		for i := range v {
			if missing&(1<<i) != 0 {
				v[i] = math.NaN()
			}
		}
		var b bytes.Buffer
		kernelBenchRow(&b, "7", fusedFlops, gemmFlops, v[0], v[1], v[2], v[3], v[4])
		row := b.String()
		if strings.Contains(row, "NaN") {
			t.Errorf("missing %05b: row has NaN: %q", missing, row)
		}
		f := strings.Split(strings.TrimSuffix(row, "\t\n"), "\t")
		if len(f) != 12 || f[0] != "7" {
			t.Fatalf("missing %05b: row %q has %d tab-separated fields, want 12 starting with the label", missing, row, len(f))
		}
		for i, fd := range fields {
			want := fd.want
			if missing&fd.needs != 0 {
				want = "—"
			}
			if f[i+1] != want {
				t.Errorf("missing %05b: field %d = %q, want %q", missing, i+1, f[i+1], want)
			}
		}
	}
}

// TestBenchCPUProfile: bench kernel's and bench linalg's -cpuprofile write a
// CPU profile (gzip-compressed protocol buffer: it starts with the gzip magic
// bytes) of this process's side; a file that cannot be created is an error
// naming the flag, before anything is measured.
func TestBenchCPUProfile(t *testing.T) {
	for _, args := range [][]string{
		{"kernel", "--n", "200", "--m", "30", "--d", "5", "--repeats", "1", "--no-python", "--progress", "never"},
		{"linalg", "-m", "300", "-rhs", "20", "-gonum=false", "-no-python", "--progress", "never"},
	} {
		t.Run(args[0], func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cpu.out")
			var out, errOut bytes.Buffer
			if err := Run(context.Background(), append(args, "--cpuprofile", path), &out, &errOut); err != nil {
				t.Fatalf("%v\n%s", err, errOut.String())
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
				t.Errorf("profile of %d bytes does not start with the gzip magic", len(b))
			}
			bad := filepath.Join(t.TempDir(), "missing", "cpu.out")
			if err := Run(context.Background(), append(args, "--cpuprofile", bad), &out, &errOut); err == nil || !strings.Contains(err.Error(), "cpuprofile") {
				t.Errorf("unwritable profile: err = %v, want an error naming cpuprofile", err)
			}
		})
	}
}

// TestRoundRatios: each round's ratio num/den in round order, rounds with a
// side missing (NaN) or a zero time skipped, and the median of an odd count
// (the middle value) and of an even count (the mean of the middle two).
func TestRoundRatios(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		num, den []float64
		want     string
	}{
		{[]float64{3, 4, 9}, []float64{2, 1, 3}, "  784 speed-up: 1.50 4.00 3.00; median 3.00, min 1.50, max 4.00"},
		{[]float64{3, nan, 9, 1}, []float64{2, 1, 3, 0}, "  784 speed-up: 1.50 3.00; median 2.25, min 1.50, max 3.00"},
		{[]float64{nan, 2}, []float64{1, nan}, ""},
	} {
		if got := roundRatios("784", "speed-up", c.num, c.den); got != c.want {
			t.Errorf("roundRatios(%v, %v) = %q, want %q", c.num, c.den, got, c.want)
		}
	}
	if got := minOf([]float64{nan, 3, 2, nan}); got != 2 {
		t.Errorf("minOf = %v, want 2", got)
	}
	if got := minOf([]float64{nan}); !math.IsNaN(got) {
		t.Errorf("minOf(NaN) = %v, want NaN", got)
	}
}

// TestBenchKernelRounds: with -rounds 3 the baseline script runs once per
// round on one copy of the arrays (a shell script stands in for Python and
// reports 5, 2 and 4 s for scikit-learn in its three runs), the table shows
// each side's best over the rounds (2.000 s), and three per-round ratios
// follow the table for each row.
func TestBenchKernelRounds(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python")
	// Its first call reports the baseline's kernels (python -c …): "{}".
	body := "#!/bin/sh\nif [ \"$1\" = -c ]; then echo '{}'; exit 0; fi\necho \"$2\" >> " + dir + "/runs\nk=$(wc -l < " + dir + "/runs)\n" +
		"case $k in 1) s=5;; 2) s=2;; *) s=4;; esac\n" +
		"echo \"{\\\"what\\\":\\\"fused\\\",\\\"seconds\\\":$s}\"\necho '{\"what\":\"dgemm\",\"seconds\":7}'\n"
	if err := os.WriteFile(fake, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	args := []string{"kernel", "--n", "200", "--m", "30", "--d", "5", "--repeats", "1", "--rounds", "3", "--python", fake, "--progress", "never"}
	if err := Run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	runs, err := os.ReadFile(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	paths := strings.Fields(string(runs))
	if len(paths) != 3 || paths[0] != paths[1] || paths[1] != paths[2] {
		t.Fatalf("baseline runs with data %q, want three runs on one file", paths)
	}
	f := benchKernelRow(t, out.String(), "5")
	if f[3] != "2.000" || f[9] != "7.000" {
		t.Errorf("scikit-learn %q and numpy %q seconds, want the best of the rounds, 2.000 and 7.000:\n%s", f[3], f[9], out.String())
	}
	if !strings.Contains(out.String(), "best of 1 repeats × 3 rounds") {
		t.Errorf("header does not say how times were taken:\n%s", out.String())
	}
	for _, what := range []string{"speed-up", "ours/numpy"} {
		var line string
		for _, l := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(l, "  5 "+what+":") {
				line = l
			}
		}
		head, _, ok := strings.Cut(strings.TrimPrefix(line, "  5 "+what+":"), ";")
		if !ok || len(strings.Fields(head)) != 3 {
			t.Errorf("%s by round: %q, want three ratios and their median:\n%s", what, line, out.String())
		}
	}
}
