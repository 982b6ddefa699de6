package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// laplaceData is y = sin(x₀) + x₁ + z at n points of [0, 6]×[−1, 1], z
// Laplace-distributed with scale b (the difference of two exponentials of
// mean b).
func laplaceData(n int, b float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 13))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		a, c := 6*rng.Float64(), 2*rng.Float64()-1
		x.Set(i, 0, a)
		x.Set(i, 1, c)
		y[i] = math.Sin(a) + c + b*(rng.ExpFloat64()-rng.ExpFloat64())
	}
	return x, y
}

var reSigma = regexp.MustCompile(`sigma= ?(\S+)`)

// TestSVRLaplaceScale checks Probability's σ on targets whose noise is
// Laplace with scale b = 0.3, the model LIBSVM's svm_svr_probability
// assumes: σ estimates b from cross-validated residuals, which add the
// fit's own error to the noise, so σ must lie in [0.95b, 1.2b] (with
// 1,500 rows the noise's mean absolute value alone has a relative
// standard error of 2.6%); PredictInterval's 90% intervals (f ∓ σ·ln 10)
// must hold 86–94% of 4,000 new targets (the binomial's standard deviation
// is 0.5%, σ's error moves the coverage by about 1.5%); and, when LIBSVM's
// svm-train is installed, its -b 1 σ on the same rows must be within 3%
// of ours (its folds come from its own rand(): 0.2939 against our 0.2936
// with Debian's LIBSVM 3.24 when written).
func TestSVRLaplaceScale(t *testing.T) {
	const b = 0.3
	x, y := laplaceData(1500, b, 1)
	s := &SVR{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 10, Epsilon: 0.05, Probability: true, Seed: 4}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	sigma := s.Info().Sigma
	t.Logf("σ = %.4f for b = %g", sigma, b)
	if sigma < 0.95*b || sigma > 1.2*b {
		t.Errorf("σ = %.4f, want it within [0.95, 1.2]·b = [%.3f, %.3f]", sigma, 0.95*b, 1.2*b)
	}
	xt, yt := laplaceData(4000, b, 2)
	lo, hi, err := s.PredictInterval(xt, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	in := 0
	for i, v := range yt {
		if v >= lo[i] && v <= hi[i] {
			in++
		}
		if d := hi[i] - lo[i]; math.Abs(d-2*sigma*math.Log(10)) > 1e-12 {
			t.Fatalf("interval %d has width %g, want 2σ·ln 10 = %g", i, d, 2*sigma*math.Log(10))
		}
	}
	cover := float64(in) / float64(len(yt))
	t.Logf("90%% intervals hold %.3f of the new targets", cover)
	if cover < 0.86 || cover > 0.94 {
		t.Errorf("90%% intervals hold %.3f of the new targets, want 0.86–0.94", cover)
	}
	if _, err := exec.LookPath("svm-train"); err == nil {
		dir := t.TempDir()
		tr := filepath.Join(dir, "train")
		writeLIBSVM(t, tr, x, y)
		out, err := exec.Command("svm-train", "-s", "3", "-b", "1", "-c", "10", "-g", "0.5", "-p", "0.05", tr, filepath.Join(dir, "model")).CombinedOutput()
		if err != nil {
			t.Fatalf("svm-train: %v\n%s", err, out)
		}
		m := reSigma.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("no sigma in svm-train -b 1's output:\n%s", out)
		}
		ref, _ := strconv.ParseFloat(m[1], 64)
		t.Logf("svm-train -b 1: σ = %g", ref)
		if math.Abs(sigma-ref) > 0.03*ref {
			t.Errorf("σ = %.4f, svm-train -b 1 gives %g: more than 3%% apart", sigma, ref)
		}
	}

	// Without Probability, and for a bad coverage: ErrInput.
	plain := &SVR{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 10}
	if err := plain.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if _, _, err := plain.PredictInterval(xt, 0.9); !errors.Is(err, ErrInput) {
		t.Errorf("PredictInterval without Probability: err = %v, want ErrInput", err)
	}
	for _, c := range []float64{0, 1, -0.5, math.NaN()} {
		if _, _, err := s.PredictInterval(xt, c); !errors.Is(err, ErrInput) {
			t.Errorf("coverage %v: err = %v, want ErrInput", c, err)
		}
	}
	if plain.Info().Sigma != 0 {
		t.Errorf("σ = %g without Probability", plain.Info().Sigma)
	}
	one := &SVR{Probability: true}
	if err := one.FitWeighted(context.Background(), x, y, append([]float64{1}, make([]float64, len(y)-1)...)); !errors.Is(err, ErrInput) {
		t.Errorf("Probability on one row of positive weight: err = %v, want ErrInput", err)
	}
}

// TestSVRProbabilityMemory: Probability's folds are planned within what X
// and the fitted model leave of MemoryLimit. On sparse rows (400 × 4,000,
// 30% non-zero) at the smallest limit the fit itself plans within (found by
// bisection, to 64 KB), a fold's fit on its own (320 rows) plans within it
// too — so each fold passed when it was planned against the whole limit —
// but X, the model's support vectors and a fold's fit do not fit
// together: the fit fails with ErrMemory from the folds. With twice that
// limit it succeeds.
func TestSVRProbabilityMemory(t *testing.T) {
	const n, d = 400, 4000
	rng := rand.New(rand.NewPCG(51, 52))
	dense := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			if rng.Float64() < 0.3 {
				dense.Set(i, j, rng.NormFloat64())
			}
		}
		y[i] = dense.At(i, 0) + 0.1*rng.NormFloat64()
	}
	x, err := datasets.CSRFromDense(dense)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	mk := func(limit int64, prob bool) *SVR {
		return &SVR{Kernel: kernel.Gaussian{Gamma: 1.0 / d}, C: 10, Probability: prob, Resources: Resources{MemoryLimit: limit}}
	}
	fits := func(limit int64, rows int) bool {
		sub := kernel.SubsetRows(x, seq(rows))
		return mk(limit, false).Fit(ctx, sub, y[:rows]) == nil
	}
	lo, hi := int64(1), int64(1<<27) // 134 MB: the fit plans about 40
	if !fits(hi, n) {
		t.Fatalf("the fit does not plan within %d bytes", hi)
	}
	for hi-lo > 64<<10 {
		if mid := (lo + hi) / 2; fits(mid, n) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if !fits(hi, 320) {
		t.Fatalf("a fold's fit (320 rows) does not plan within %d bytes, the whole fit's least limit", hi)
	}
	err = mk(hi, true).Fit(ctx, x, y)
	t.Logf("least limit of the fit %d bytes; with Probability: %v", hi, err)
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "probability") {
		t.Fatalf("Probability at the fit's least limit: err = %v, want ErrMemory from the folds", err)
	}
	if err := mk(2*hi, true).Fit(ctx, x, y); err != nil {
		t.Fatalf("Probability at twice the limit: %v", err)
	}
}
