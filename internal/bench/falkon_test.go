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
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/cmdline"
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
		{"-m", "x"}, {"-baseline", "torch"}, {"-progress", "sometimes"}, {"-factor", "sometimes"}} {
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

// TestFalkonBenchPrecisions runs bench falkon on 300 cadata rows with
// -precisions float64,float32 and a stand-in FALKON (a shell script, no
// Python: it answers the import check and then, per FALKON_DTYPE, fixed
// results: float32 2 s and 1 GB, float64 8 s and 2 GB, so that a row
// printed from the wrong run shows). It prints a Landmark row per
// precision, a FALKON row per dtype, and a speed-up table with one column
// per FALKON dtype whose cells are FALKON's fit time over the Landmark
// row's and the RSS ratio, recomputed here from the rows' own numbers
// (the Landmark fit time to the printed 0.1 s is too coarse, so the
// ratios are checked against the stand-in's exact ones through
// falkonBenchRatios below). The notes split the setup into its parts.
func TestFalkonBenchPrecisions(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "datasets", "data"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testMainEnv, "1")
	t.Setenv("LANDMARK_SHARED_DATA", data)
	t.Setenv("FALKON_DTYPE", "float64") // inherited: must not decide the float32 row
	dir := t.TempDir()
	fake, script := filepath.Join(dir, "python"), filepath.Join(dir, "same_arrays.py")
	body := `#!/bin/sh
if [ "$1" = "-c" ] && [ "$3" = "numpy" ]; then
  echo '{"python":"3.0","numpy":"9.9"}'
elif [ "$1" = "-c" ]; then
  echo 0.8.4
elif [ "$FALKON_DTYPE" = "float64" ]; then
  echo '{"fit_s":8,"predict_s":0.5,"error":60000,"rss_bytes":2000000000,"data_rss_bytes":5}'
else
  echo '{"fit_s":2,"predict_s":0.5,"error":50000,"rss_bytes":1000000000,"data_rss_bytes":5}'
fi
`
	if err := os.WriteFile(fake, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-data", "cadata", "-train", "300", "-test", "100", "-m", "40", "-iter", "3", "-progress", "never",
		"-precisions", "float64,float32", "-baseline", "falkon", "-falkon-dtypes", "float32,float64", "-python", fake, "-falkon-script", script}
	var so, se bytes.Buffer
	if err := runBenchFalkon(t.Context(), args, &so, &se); err != nil {
		t.Fatalf("%v\n%s", err, se.String())
	}
	out := so.String()
	for _, want := range []string{
		"Landmark in float64, float32; FALKON in float32, float64\n",
		"\n| FALKON (Python, CPU) float32 | 40 | 2.0 | 0.5 | 50000 | 1.00 |  |\n",
		"\n| FALKON (Python, CPU) float64 | 40 | 8.0 | 0.5 | 60000 | 2.00 |  |\n",
		"\n| Landmark | M | vs FALKON (Python, CPU) float32 | vs FALKON (Python, CPU) float64 |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	rowRE := regexp.MustCompile(`(?m)^\| landmark Falkon \((float64|float32)\) \| 40 \| [^|]+\| [^|]+\| [^|]+\| [^|]+\| 3 it\., [^|]*; setup (\S+) s \(centers (\S+) \+ K_MM (\S+) \+ preconditioner (\S+)\), K_nMᵀy pass \S+ s; fit CPU \S+ s; not factored \|$`)
	rows := rowRE.FindAllStringSubmatch(out, -1)
	if len(rows) != 2 || rows[0][1] != "float64" || rows[1][1] != "float32" {
		t.Fatalf("want a Landmark row per precision, float64 first, with the setup split:\n%s", out)
	}
	for _, r := range rows {
		var parts [4]float64
		for i := range parts {
			parts[i] = parseF(t, r[2+i])
		}
		// The setup is the sum of its parts, each printed to 0.01 s.
		if math.Abs(parts[0]-(parts[1]+parts[2]+parts[3])) > 4*0.005 {
			t.Errorf("%s: setup %v is not centers + K_MM + preconditioner %v", r[1], parts[0], parts[1:])
		}
	}
	ratio := regexp.MustCompile(`(?m)^\| landmark Falkon \((float64|float32)\) \| 40 \| (\S+)× \(RSS (\S+)×\) \| (\S+)× \(RSS (\S+)×\) \|$`).FindAllStringSubmatch(out, -1)
	if len(ratio) != 2 {
		t.Fatalf("want a speed-up row per Landmark precision:\n%s", out)
	}
	for _, r := range ratio {
		// FALKON float64 took 4× float32's time and 2× its RSS, so the
		// float32 column's speed-up is a quarter of the float64 column's
		// and its RSS ratio twice (to the printed 2 digits).
		s32, m32, s64, m64 := parseF(t, r[2]), parseF(t, r[3]), parseF(t, r[4]), parseF(t, r[5])
		if math.Abs(4*s32-s64) > 4*0.005+0.005 || math.Abs(m32-2*m64) > 0.005+2*0.005 {
			t.Errorf("%s: speed-ups %v / %v, RSS %v / %v: not FALKON's 4× time and 2× RSS between dtypes", r[1], s32, s64, m32, m64)
		}
	}
	if n := strings.Count(out, "Iterations for Falkon to reach"); n != 0 {
		t.Errorf("no -curve, yet %d reach sections", n)
	}

	// The ratios themselves, on exact numbers: a fit missing a baseline at
	// its M gets an empty cell.
	var b strings.Builder
	falkonBenchRatios(&b, []falkonBenchFit{{name: "L", m: 10, r: falkonBenchResult{FitS: 4, RSSBytes: 3e9}}, {name: "L", m: 20, r: falkonBenchResult{FitS: 1, RSSBytes: 1e9}}},
		[]falkonBenchFit{{name: "F32", m: 10, r: falkonBenchResult{FitS: 10, RSSBytes: 2e9}}, {name: "F64", m: 10, r: falkonBenchResult{FitS: 30, RSSBytes: 4e9}}})
	for _, want := range []string{"| L | 10 | 2.50× (RSS 1.50×) | 7.50× (RSS 0.75×) |\n", "| L | 20 | | |\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("ratios lack %q:\n%s", want, b.String())
		}
	}
}

// The precision flags: -precisions lists distinct known values and is not
// combined with -float32 / -float32-storage (which select one precision);
// -falkon-dtypes needs -baseline falkon.
func TestFalkonBenchPrecisionFlags(t *testing.T) {
	for _, c := range []struct {
		args        []string
		precs, base []string
	}{
		{nil, []string{"float64"}, []string{""}},
		{[]string{"-float32"}, []string{"float32"}, []string{""}},
		{[]string{"-float32", "-float32-storage"}, []string{"float32-storage"}, []string{""}},
		{[]string{"-precisions", "float32-storage, float64", "-baseline", "falkon", "-falkon-dtypes", "float64"}, []string{"float32-storage", "float64"}, []string{"float64"}},
	} {
		b := falkonBench{baseline: "sklearn", dtypes: "float32"}
		fs := cmdline.NewFlags("bench falkon", "", io.Discard)
		b.register(fs)
		if err := cmdline.Parse(fs, c.args); err != nil {
			t.Fatal(err)
		}
		if err := b.resolve(); err != nil || !slices.Equal(b.precs, c.precs) || !slices.Equal(b.baseDT, c.base) {
			t.Errorf("%v: precisions %q, baseline dtypes %q, err %v; want %q, %q", c.args, b.precs, b.baseDT, err, c.precs, c.base)
		}
	}
	for _, args := range [][]string{{"-precisions", "float16"}, {"-precisions", "float32,float32"}, {"-precisions", "float32", "-float32"},
		{"-falkon-dtypes", "float64"}, {"-baseline", "falkon", "-falkon-dtypes", "float32,bf16"}} {
		if err := runBenchFalkon(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("bench falkon %v: err = %v, want errUsage", args, err)
		}
	}
}

func parseF(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return v
}
