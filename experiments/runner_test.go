package experiments

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

// writeSine writes n rows of y = sin(x₁) + 0.5·x₂ + noise (σ = 0.1), x
// uniform in [−3, 3]², as LIBSVM text, and returns the folder.
func writeSine(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(11, 12))
	var b strings.Builder
	for i := 0; i < n; i++ {
		x1, x2 := rng.Float64()*6-3, rng.Float64()*6-3
		y := math.Sin(x1) + 0.5*x2 + 0.1*rng.NormFloat64()
		fmt.Fprintf(&b, "%.17g 1:%.17g 2:%.17g\n", y, x1, x2)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.libsvm"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeBlobs writes a binary problem: two Gaussian blobs (labels ±1, 40%
// positive) in 3 dimensions, centres 2.5 apart.
func writeBlobs(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 22))
	var b strings.Builder
	for i := 0; i < n; i++ {
		y, c := -1.0, -1.25
		if rng.Float64() < 0.4 {
			y, c = 1, 1.25
		}
		fmt.Fprintf(&b, "%g 1:%.17g 2:%.17g 3:%.17g\n", y, c+rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64())
	}
	if err := os.WriteFile(filepath.Join(dir, "data.libsvm"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

const sineSpec = `name: sine
dataset: {path: data.libsvm, standardize: true, standardize_target: true, test_fraction: 0.25}
task: regression
estimator:
  type: krr
  kernel: {type: gaussian}
grid:
  gamma: [0.001, 0.3, 1, 3, 1000]
  lambda: [10, 1.0e-3, 1.0e-6]
cv: {folds: 3}
seed: 3
`

func decodeIn(t *testing.T, text, dir string) *Spec {
	t.Helper()
	s, err := Decode(strings.NewReader(text), dir)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// stripTiming drops the timing and memory columns of results.csv.
func stripTiming(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var keep []int
	for i, h := range recs[0] {
		if !slices.Contains(TimingColumns, h) {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(recs[0]) {
		t.Fatal("no timing columns found")
	}
	var out strings.Builder
	for _, r := range recs {
		for _, i := range keep {
			out.WriteString(r[i])
			out.WriteByte(',')
		}
		out.WriteByte('\n')
	}
	return out.String()
}

// TestBestPointInOptimumRegion: on y = sin(x₁) + x₂/2 + noise with
// standardized features, γ = 0.001 is nearly linear (misses the sine),
// γ = 1000 interpolates noise-free points only near themselves, and λ = 10
// shrinks the fit to almost zero; the best point must have γ ∈ {0.3, 1, 3}
// and λ ≤ 1e-3, and its CV RMSE must be near the noise level σ = 0.1.
func TestBestPointInOptimumRegion(t *testing.T) {
	dir := writeSine(t, 240)
	s := decodeIn(t, sineSpec, dir)
	res, err := Run(context.Background(), s, Options{Out: filepath.Join(t.TempDir(), "out"), NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 15 {
		t.Fatalf("%d points, want 15", len(res.Points))
	}
	best := res.Points[res.Best]
	g, _ := best.Params.Value("gamma")
	l, _ := best.Params.Value("lambda")
	if !slices.Contains([]float64{0.3, 1, 3}, g) || l > 1e-3 {
		t.Errorf("best point %s lies outside the optimum region", best.Key)
	}
	cv, _ := best.Metric("rmse")
	// The noise σ = 0.1 bounds the RMSE from below; 0.25 leaves room for the
	// estimation error of 160 training rows per fold.
	if cv.Mean < 0.05 || cv.Mean > 0.25 {
		t.Errorf("best CV RMSE %v, want about the noise level 0.1", cv.Mean)
	}
	if res.Test == nil || res.Test.NTest != 60 || res.Test.NTrain != 180 {
		t.Fatalf("test result %+v, want 180 training and 60 test rows", res.Test)
	}
	// Every other point is no better than the best.
	for _, p := range res.Points {
		m, _ := p.Metric("rmse")
		if m.Mean < cv.Mean {
			t.Errorf("point %s has CV RMSE %v below the best %v", p.Key, m.Mean, cv.Mean)
		}
	}
	for _, f := range []string{"results.csv", "results.json", "summary.md", "manifest.json", logName} {
		if _, err := os.Stat(filepath.Join(res.Out, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
}

// TestDeterministicCSV: the same spec and seed give byte-identical
// results.csv apart from the timing columns, whatever GOMAXPROCS is.
func TestDeterministicCSV(t *testing.T) {
	dir := writeBlobs(t, 150)
	spec := `name: blobs
dataset: {path: data.libsvm, test_fraction: 0.2}
task: binary
estimator: {type: krr, kernel: {type: gaussian}}
grid: {gamma: [0.1, 1], lambda: [1.0e-4, 1.0e-1]}
cv: {folds: 3, metric: auc}
repeats: 2
seed: 5
`
	var outs []string
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for i := 0; i < 2; i++ {
		runtime.GOMAXPROCS(1 + i) // 1 then 2 threads: results must not change
		s := decodeIn(t, spec, dir)
		res, err := Run(context.Background(), s, Options{Out: filepath.Join(t.TempDir(), "out"), NoPlots: i == 0})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, stripTiming(t, filepath.Join(res.Out, "results.csv")))
		if res.Points[0].Fits != 6 {
			t.Errorf("%d fits per point, want 3 folds × 2 repeats", res.Points[0].Fits)
		}
		for _, p := range res.Points {
			var sum float64
			for _, v := range p.FoldScores {
				sum += float64(v)
			}
			m, _ := p.Metric("auc")
			if len(p.FoldScores) != p.Fits || math.Abs(sum/float64(p.Fits)-m.Mean) > 1e-12 {
				t.Errorf("%s: fold scores %v do not average to the auc mean %v", p.Key, p.FoldScores, m.Mean)
			}
		}
		a, _ := res.Points[res.Best].Metric("accuracy")
		// Blobs 2.5σ apart: Bayes accuracy ≈ Φ(1.25) ≈ 0.89; 0.8 leaves room
		// for estimation error on 120 rows.
		if a.Mean < 0.8 {
			t.Errorf("best CV accuracy %v, want ≥ 0.8", a.Mean)
		}
	}
	if outs[0] != outs[1] {
		t.Fatalf("results differ between runs:\n%s\n%s", outs[0], outs[1])
	}
}

// TestCancelAndResume: a run cancelled after two grid points and rerun ends
// with the same results as an uninterrupted run, without recomputing the two.
func TestCancelAndResume(t *testing.T) {
	dir := writeSine(t, 120)
	full := filepath.Join(t.TempDir(), "full")
	s := decodeIn(t, sineSpec, dir)
	if _, err := Run(context.Background(), s, Options{Out: full, NoPlots: true}); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "resumed")
	ctx, cancel := context.WithCancel(context.Background())
	var first []int
	_, err := Run(ctx, s, Options{Out: out, NoPlots: true, OnPoint: func(i, n int, _ PointResult) {
		first = append(first, i)
		if len(first) == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run returned %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(out, "results.csv")); err == nil {
		t.Error("a cancelled run wrote results.csv")
	}
	var second []int
	res, err := Run(context.Background(), s, Options{Out: out, NoPlots: true, OnPoint: func(i, n int, _ PointResult) {
		second = append(second, i)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 || res.Computed != 13 || slices.Contains(second, 0) || slices.Contains(second, 1) {
		t.Errorf("resumed %d, computed %d (points %v), want 2 and 13 without points 0 and 1", res.Resumed, res.Computed, second)
	}
	if a, b := stripTiming(t, filepath.Join(full, "results.csv")), stripTiming(t, filepath.Join(out, "results.csv")); a != b {
		t.Errorf("resumed results differ from the uninterrupted run:\n%s\n%s", a, b)
	}
	// A third run recomputes nothing.
	res, err = Run(context.Background(), s, Options{Out: out, NoPlots: true})
	if err != nil || res.Computed != 0 {
		t.Errorf("rerun computed %d points (err %v), want 0", res.Computed, err)
	}
}

// TestChangedSpecRefused: a different spec in the same folder is refused
// unless Fresh; a torn last log line is dropped.
func TestChangedSpecRefused(t *testing.T) {
	dir := writeSine(t, 60)
	out := filepath.Join(t.TempDir(), "out")
	small := strings.Replace(sineSpec, "[0.001, 0.3, 1, 3, 1000]", "[1]", 1)
	s := decodeIn(t, small, dir)
	if _, err := Run(context.Background(), s, Options{Out: out, NoPlots: true}); err != nil {
		t.Fatal(err)
	}
	s2 := decodeIn(t, strings.Replace(small, "seed: 3", "seed: 4", 1), dir)
	if _, err := Run(context.Background(), s2, Options{Out: out, NoPlots: true}); !errors.Is(err, ErrSpecChanged) {
		t.Fatalf("changed spec: got %v, want ErrSpecChanged", err)
	}
	if res, err := Run(context.Background(), s2, Options{Out: out, NoPlots: true, Fresh: true}); err != nil || res.Computed != 3 {
		t.Fatalf("fresh run: %v", err)
	}
	// Tear the last line as a crash mid-write would: it is recomputed.
	log := filepath.Join(out, logName)
	b, _ := os.ReadFile(log)
	if err := os.WriteFile(log, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), s2, Options{Out: out, NoPlots: true})
	if err != nil || res.Computed != 1 || res.Resumed != 2 {
		t.Fatalf("after a torn line: computed %d resumed %d err %v, want 1 and 2", res.Computed, res.Resumed, err)
	}
}

// TestDataChecks: impossible values found only with the data name the line.
func TestDataChecks(t *testing.T) {
	dir := writeSine(t, 30)
	s := decodeIn(t, strings.Replace(sineSpec, "folds: 3", "folds: 40", 1), dir)
	_, err := Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true})
	if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "line 10") {
		t.Errorf("folds > n: %v", err)
	}
	s = decodeIn(t, strings.NewReplacer("task: regression", "task: binary", "standardize_target: true, ", "").Replace(sineSpec), dir)
	_, err = Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true})
	if err == nil || !strings.Contains(err.Error(), "distinct labels") {
		// (the decode accepts it: the metric defaults to accuracy)
		t.Errorf("regression data as binary: %v", err)
	}
	s = decodeIn(t, strings.Replace(sineSpec, "data.libsvm", "missing.libsvm", 1), dir)
	_, err = Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true})
	if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("missing file: %v", err)
	}
}

// TestAlphaConversion: scikit-learn's alpha becomes λ = alpha/n for a fit on n rows.
func TestAlphaConversion(t *testing.T) {
	s := decodeIn(t, strings.Replace(sineSpec, "lambda: [10, 1.0e-3, 1.0e-6]", "alpha: [2]", 1), ".")
	r := &runner{s: s}
	c := r.config(Point{{Name: "alpha", Value: 2}, {Name: "gamma", Value: 0.5}}, 80, 1)
	if c.Options["lambda"] != 2.0/80 || c.Kernel.Gamma != 0.5 || hasKey(c.Options, "alpha") {
		t.Errorf("config %+v: want lambda = 2/80, gamma 0.5, no alpha", c)
	}
}

func TestPlotsWritten(t *testing.T) {
	dir := writeSine(t, 60)
	s := decodeIn(t, strings.Replace(sineSpec, "[0.001, 0.3, 1, 3, 1000]", "[0.3, 1]", 1), dir)
	res, err := Run(context.Background(), s, Options{Out: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"cv_rmse_vs_lambda.png", "cv_rmse_vs_lambda.svg", "cv_rmse_vs_gamma.png", "cv_rmse_vs_gamma.svg"} {
		st, err := os.Stat(filepath.Join(res.Out, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("plot %s missing or empty", f)
		}
	}
	md, _ := os.ReadFile(filepath.Join(res.Out, "summary.md"))
	if !strings.Contains(string(md), "Best configuration") || !strings.Contains(string(md), res.Points[res.Best].Key) {
		t.Errorf("summary.md lacks the best configuration:\n%s", md)
	}
}

// TestSharedPathFromSpecDir: a spec in the repository finds shared data even
// when run from an unrelated working directory.
func TestSharedPathFromSpecDir(t *testing.T) {
	if _, ok := datasets.SharedPath("heart_scale.libsvm"); !ok {
		t.Skip("shared data absent")
	}
	abs, _ := filepath.Abs("examples")
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if _, err := resolvePath(abs, "heart_scale.libsvm"); err != nil {
		t.Error(err)
	}
}
