package bench

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
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
	if got, err := falkonBenchSamplers("bless, uniform"); err != nil || !slices.Equal(got, []string{"bless", "uniform"}) {
		t.Errorf("falkonBenchSamplers: %v, %v", got, err)
	}
	for _, args := range [][]string{{"-data", "mnist8m"}, {"-iter", "0"}, {"-sampler", "magic"}, {"-sampler", "bless,magic"}, {"-sampler", "bless,bless"}, {"-sampler", "bless,"},
		{"-m", "x"}, {"-baseline", "torch"}, {"-progress", "sometimes"}} {
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

// TestFalkonBenchSamplersAndProgress runs bench falkon end to end on 300
// training rows of the bundled cadata (its child processes are this test
// binary, see TestMain). With -sampler bless,uniform -curve it prints a row
// per sampler and both test-error curves side by side, the BLESS column
// equal to the curve a -sampler bless run prints in its notes (the same
// fit); in a log (stderr not a terminal, default --progress auto) each
// child reports its CG batch and the parent each finished fit with an ETA.
// Each fit's memory plan names its sampler and is printed even with
// --progress never, which prints no progress lines; the single-sampler
// table keeps its one-row-per-M form.
func TestFalkonBenchSamplersAndProgress(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "datasets", "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testMainEnv, "1")
	t.Setenv("LANDMARK_SHARED_DATA", data)
	base := []string{"-data", "cadata", "-train", "300", "-test", "100", "-m", "40", "-iter", "10", "-sklearn-m", "none", "-curve"}
	var so, se bytes.Buffer
	if err := runBenchFalkon(t.Context(), append(base, "-sampler", "bless,uniform"), &so, &se); err != nil {
		t.Fatalf("%v\n%s", err, se.String())
	}
	out, log := so.String(), se.String()
	for _, want := range []string{"samplers bless, uniform,", "\n| landmark Falkon (bless) | ", "\n| landmark Falkon (uniform) | 40 | ", "\nFalkon test RMSE by iteration:\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "test error by iteration:") {
		t.Errorf("curves in the notes as well as side by side:\n%s", out)
	}
	head := regexp.MustCompile(`(?m)^\| iteration \| bless M = \d+ \| uniform M = 40 \|$`)
	rows := regexp.MustCompile(`(?m)^\| (\d+) \| (\S+) \| (\S+) \|$`).FindAllStringSubmatch(out, -1)
	if !head.MatchString(out) || len(rows) != 10 || rows[0][1] != "1" || rows[9][1] != "10" {
		t.Fatalf("want a curve table of 10 iterations × 2 samplers:\n%s", out)
	}
	iters := regexp.MustCompile(`(?m)^    M = 40 (\w+): CG iteration 10/10, residual \S+, elapsed \S+, solve ETA 0s$`).FindAllStringSubmatch(log, -1)
	fits := regexp.MustCompile(`(?m)^bench falkon: \[(\d)/2\] landmark Falkon \((\w+)\), M = 40: done in \S+ \(elapsed \S+, ETA \S+\)$`).FindAllStringSubmatch(log, -1)
	if len(iters) != 2 || iters[0][1] != "bless" || iters[1][1] != "uniform" || len(fits) != 2 || fits[0][2] != "bless" || fits[1][1] != "2" {
		t.Errorf("want a CG line and a finished line per sampler, bless first; stderr:\n%s", log)
	}
	plans := regexp.MustCompile(`(?m)^bench falkon: M = 40 (\w+): memory plan \S+ GB \(.*\), limit 2\.00 GB$`).FindAllStringSubmatch(log, -1)
	if len(plans) != 2 || plans[0][1] != "bless" || plans[1][1] != "uniform" {
		t.Errorf("want a memory plan line per fit naming its sampler; stderr:\n%s", log)
	}

	so.Reset()
	se.Reset()
	if err := runBenchFalkon(t.Context(), append(base, "-sampler", "bless", "-progress", "never"), &so, &se); err != nil {
		t.Fatalf("%v\n%s", err, se.String())
	}
	if strings.Contains(se.String(), "ETA") || strings.Contains(se.String(), "iteration") {
		t.Errorf("--progress never: progress lines on stderr:\n%s", se.String())
	}
	// The memory plan is information, not progress: printed even so.
	if !regexp.MustCompile(`^bench falkon: M = 40 bless: memory plan .*\n$`).MatchString(se.String()) {
		t.Errorf("--progress never: want only the memory plan on stderr:\n%s", se.String())
	}
	note := regexp.MustCompile(`(?m)^\| landmark Falkon \| \d+ \| .*; test error by iteration: ([^|]*) \|$`).FindStringSubmatch(so.String())
	if note == nil || strings.Contains(so.String(), "by iteration:\n") {
		t.Fatalf("single sampler: want the curve in the row's notes only:\n%s", so.String())
	}
	var bless []string
	for _, r := range rows {
		bless = append(bless, r[2])
	}
	if got := strings.Join(bless, " "); got != note[1] {
		t.Errorf("BLESS column %q differs from the -sampler bless curve %q", got, note[1])
	}
}

// falkonBenchReach names the first iteration at or below the baseline's
// error (ties count as reached), per M, and says when it is never reached.
func TestFalkonBenchReach(t *testing.T) {
	var b strings.Builder
	curves := []falkonBenchCurve{
		{sampler: "uniform", m: 100, asked: 100, errs: []float64{0.30, 0.20, 0.15, 0.16}},
		{sampler: "bless", m: 93, asked: 100, errs: []float64{0.25, 0.18, 0.17, 0.17}}, // BLESS kept 93 of 100
		{sampler: "uniform", m: 200, asked: 200, errs: []float64{0.3}},                 // no baseline at M = 200
	}
	base := []falkonBaseError{{m: 100, err: 0.15}}
	falkonBenchReach(&b, "FALKON (Python, CPU)", 10, curves, base, func(e float64) float64 { return 100 * e })
	got := b.String()
	for _, want := range []string{
		"reach the test error of FALKON (Python, CPU) (its 10 iterations)",
		"- uniform centers, M = 100: baseline 15, Falkon iteration 3 (best 15)",
		"- bless centers, M = 100 (93 kept): baseline 15, Falkon not reached in 4 iterations (best 17)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "M = 200") {
		t.Errorf("M = 200 has no baseline but is reported:\n%s", got)
	}
	b.Reset()
	falkonBenchReach(&b, "x", 10, curves, nil, func(e float64) float64 { return e })
	if b.Len() != 0 {
		t.Errorf("no baseline rows, output %q", b.String())
	}
}

// mnist's arrays: the official split cut to the first rows asked, d = 784,
// pixels divided by 255 (the largest raw value, 255, becomes exactly 1),
// and the ten labels written as they are, listed in meta.Classes for the
// one-vs-all baselines.
func TestFalkonBenchPrepareMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("reads mnist (60,000 rows)")
	}
	if _, ok := datasets.SharedPath("mnist.train.libsvm.gz"); !ok {
		t.Skip("mnist not in the shared datasets")
	}
	dir := t.TempDir()
	meta, err := falkonBenchPrepare(t.Context(), "mnist", 1, 300, 200, dir, model.Classification, false)
	if err != nil {
		t.Fatal(err)
	}
	if meta.NTrain != 300 || meta.NTest != 200 || meta.D != 784 || !slices.Equal(meta.Classes, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("meta = %+v", meta)
	}
	x, err := falkonBenchRead(filepath.Join(dir, "xtr.f64"), 300*784)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := slices.Min(x), slices.Max(x); lo != 0 || hi != 1 {
		t.Errorf("pixels in [%g, %g], want [0, 1]", lo, hi)
	}
	y, err := falkonBenchRead(filepath.Join(dir, "ytr.f64"), 300)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := slices.Min(y), slices.Max(y); lo != 0 || hi != 9 {
		t.Errorf("labels in [%g, %g], want the digits 0–9", lo, hi)
	}
}

// peakRSS reads this process's own high-water mark: at least the bytes
// just touched, and far below what getrusage would report had the process
// been exec'd by a large parent (not testable here; see prepareChild).
func TestPeakRSSCountsTouchedMemory(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	b := make([]byte, 64<<20)
	for i := range b {
		b[i] = byte(i)
	}
	if got := peakRSS(); got < 64<<20 {
		t.Errorf("peakRSS = %d after touching 64 MiB", got)
	}
	runtime.KeepAlive(b)
}
