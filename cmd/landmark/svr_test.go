package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// TestCLISVR: landmark fit --estimator svr, LIBSVM's svm-train -s 3 -c 10 -g
// 1e-12 -p 2 typed the Landmark way (γ = 1e-12: cpusmall's raw features
// reach 10⁶, so squared distances reach 10¹²), saves a model whose predictions
// (landmark predict) are model.SVR's with the same settings fitted in
// process, exactly: the CLI adds nothing and loses nothing. --set epsilon=0
// fits the absolute loss, and predict --output proba on the model is
// refused without suggesting probability: true.
func TestCLISVR(t *testing.T) {
	d, err := datasets.Load("cpusmall")
	if err != nil {
		t.Fatal(err)
	}
	rows := seq(700)
	train, _ := d.Subset(rows[:500])
	test, _ := d.Subset(rows[500:])
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "train.libsvm"), filepath.Join(dir, "test.libsvm")
	for f, ds := range map[string]*datasets.Dataset{tr: train, te: test} {
		if err := datasets.WriteFile(f, ds, datasets.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Read back as the CLI reads them (the written values round-trip).
	trainBack, err := datasets.ReadFile(tr, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testBack, err := datasets.ReadFile(te, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		eps  string
		svr  model.SVR
	}{
		{"eps 2", "2", model.SVR{C: 10, Epsilon: 2, Kernel: kernel.Gaussian{Gamma: 1e-12}}},
		{"absolute loss", "0", model.SVR{C: 10, AbsoluteLoss: true, Kernel: kernel.Gaussian{Gamma: 1e-12}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := filepath.Join(dir, "svr-"+tc.eps+".lmk")
			code, so, se := runCLI("fit", "--data", tr, "--task", "regression", "--estimator", "svr", "--c", "10", "--gamma", "1e-12",
				"--set", "epsilon="+tc.eps, "--save", m, "--dense", "--progress", "never")
			if code != 0 {
				t.Fatalf("fit: exit %d: %s", code, se)
			}
			if !strings.Contains(so, "svr on 500 rows × 12 features") {
				t.Errorf("fit report lacks the estimator line:\n%s", so)
			}
			fitOut := so
			code, so, se = runCLI("predict", "--model", m, "--data", te, "--progress", "never")
			if code != 0 {
				t.Fatalf("predict: exit %d: %s", code, se)
			}
			s := tc.svr
			if err := s.Fit(context.Background(), trainBack.X, trainBack.Y); err != nil {
				t.Fatal(err)
			}
			want, err := s.Predict(testBack.X)
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Fields(so)
			if len(got) != len(want) {
				t.Fatalf("%d predictions, want %d", len(got), len(want))
			}
			for i, g := range got {
				v, err := strconv.ParseFloat(g, 64)
				if err != nil || v != want[i] {
					t.Fatalf("row %d: CLI %s, model.SVR %.17g", i, g, want[i])
				}
			}
			in := s.Info()
			if tc.eps == "0" && in.Epsilon != 0 || tc.eps == "2" && in.Epsilon != 2 {
				t.Errorf("ε used %g, want %s", in.Epsilon, tc.eps)
			}
			// svm-train's nSV, nBSV and obj, from the fit the CLI made.
			line := fmt.Sprintf("support vectors: %d of 500 training rows (%d at the bound C; ε = %s, dual objective %.6f)", in.SV, in.BoundedSV, tc.eps, in.Objective)
			if !strings.Contains(fitOut, line) {
				t.Errorf("fit report lacks %q:\n%s", line, fitOut)
			}
			code, _, se = runCLI("predict", "--model", m, "--data", te, "--output", "proba", "--progress", "never")
			if code != 1 || !strings.Contains(se, "a regression model predicts values, not classes") || strings.Contains(se, "probability=true") {
				t.Errorf("predict --output proba: exit %d, %q", code, se)
			}
		})
	}
}

// TestCLISVRProbability: fit --estimator svr --set probability=true prints
// svm-train -b 1's Laplace model, σ and the 90% half-width σ·ln 10.
func TestCLISVRProbability(t *testing.T) {
	code, so, se := runCLI("fit", "--dataset", "cpusmall", "--subsample", "400", "--task", "regression", "--estimator", "svr",
		"--c", "10", "--gamma", "1e-12", "--set", "epsilon=1", "--set", "probability=true", "--dense", "--progress", "never")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se)
	}
	m := regexp.MustCompile(`probability model: target = prediction \+ z, z Laplace e\^\(−\|z\|/σ\)/\(2σ\), σ = (\S+) from 5-fold cross-validated residuals \(svm-train -s 3 -b 1\); a 90% interval is ± (\S+)`).FindStringSubmatch(so)
	if m == nil {
		t.Fatalf("fit report lacks the probability model:\n%s", so)
	}
	sigma, _ := strconv.ParseFloat(m[1], 64)
	half, _ := strconv.ParseFloat(m[2], 64)
	if !(sigma > 0) || math.Abs(half-sigma*math.Log(10)) > 1e-5*half {
		t.Errorf("σ = %s, half-width %s: want σ > 0 and σ·ln 10", m[1], m[2])
	}
}

// laplaceFile writes n rows of y = sin(x₁) + x₂ + z, z Laplace with scale
// 0.3 (x₁ uniform on [0, 6], x₂ on [−1, 1]), in LIBSVM format to path.
func laplaceFile(t *testing.T, path string, n int, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 13))
	var b strings.Builder
	for range n {
		a, c := 6*rng.Float64(), 2*rng.Float64()-1
		y := math.Sin(a) + c + 0.3*(rng.ExpFloat64()-rng.ExpFloat64())
		fmt.Fprintf(&b, "%.17g 1:%.17g 2:%.17g\n", y, a, c)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCLISVRInterval: predict --output interval --coverage 0.8 writes, per
// row, the ends f ∓ σ·ln 5 of the Laplace model fit printed (σ there to 6
// digits, so the widths agree to 1e-5), centred on --output labels'
// predictions (to 1e-12: f − h and f + h rounded); they hold 80% ± 6% of 600 new targets drawn
// with the same Laplace noise (the binomial's standard deviation is 1.6%,
// σ's estimate moves the coverage by about 2%). --coverage without
// --output interval, a coverage outside (0, 1), and a model without the
// Laplace fit are refused.
func TestCLISVRInterval(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "train.libsvm"), filepath.Join(dir, "test.libsvm")
	laplaceFile(t, tr, 800, 1)
	laplaceFile(t, te, 600, 2)
	m := filepath.Join(dir, "svr.lmk")
	code, so, se := runCLI("fit", "--data", tr, "--task", "regression", "--estimator", "svr", "--c", "10", "--gamma", "0.5",
		"--set", "epsilon=0.05", "--set", "probability=true", "--save", m, "--progress", "never")
	if code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se)
	}
	ms := regexp.MustCompile(`σ = (\S+) from 5-fold`).FindStringSubmatch(so)
	if ms == nil {
		t.Fatalf("fit report lacks σ:\n%s", so)
	}
	sigma, _ := strconv.ParseFloat(ms[1], 64)
	code, labels, se := runCLI("predict", "--model", m, "--data", te, "--progress", "never")
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, se)
	}
	code, so, se = runCLI("predict", "--model", m, "--data", te, "--output", "interval", "--coverage", "0.8", "--progress", "never")
	if code != 0 {
		t.Fatalf("predict --output interval: exit %d: %s", code, se)
	}
	test, err := datasets.ReadFile(te, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(labels)
	lines := strings.Fields(so)
	if len(lines) != 600 || len(f) != 600 {
		t.Fatalf("%d intervals and %d predictions for 600 rows", len(lines), len(f))
	}
	in := 0
	for i, l := range lines {
		ends := strings.Split(l, ",")
		if len(ends) != 2 {
			t.Fatalf("row %d: %q, want lo,hi", i, l)
		}
		lo, _ := strconv.ParseFloat(ends[0], 64)
		hi, _ := strconv.ParseFloat(ends[1], 64)
		p, _ := strconv.ParseFloat(f[i], 64)
		if math.Abs((lo+hi)/2-p) > 1e-12*max(1, math.Abs(p)) {
			t.Fatalf("row %d: interval [%g, %g] not centred on the prediction %g", i, lo, hi, p)
		}
		if w := 2 * sigma * math.Log(5); math.Abs(hi-lo-w) > 1e-5*w {
			t.Fatalf("row %d: width %g, want 2σ·ln 5 = %g", i, hi-lo, w)
		}
		if y := test.Y[i]; y >= lo && y <= hi {
			in++
		}
	}
	if c := float64(in) / 600; c < 0.74 || c > 0.86 {
		t.Errorf("80%% intervals hold %.3f of the new targets", c)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--coverage", "0.8"}, 2, "--coverage is the probability of --output interval's intervals"},
		{[]string{"--output", "interval", "--coverage", "1.5"}, 2, "--coverage 1.5: want a probability strictly between 0 and 1"},
	} {
		code, _, se := runCLI(append([]string{"predict", "--model", m, "--data", te, "--progress", "never"}, c.args...)...)
		if code != c.code || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, se, c.code, c.want)
		}
	}
	plain := filepath.Join(dir, "plain.lmk")
	if code, _, se := runCLI("fit", "--data", tr, "--task", "regression", "--estimator", "svr", "--gamma", "0.5", "--save", plain, "--progress", "never"); code != 0 {
		t.Fatalf("fit: %s", se)
	}
	code, _, se = runCLI("predict", "--model", plain, "--data", te, "--output", "interval", "--progress", "never")
	if code != 1 || !strings.Contains(se, "the svr was fitted without probability: true") || !strings.Contains(se, "fit with --estimator svr --set probability=true") {
		t.Errorf("interval of an svr without its Laplace fit: exit %d, %q", code, se)
	}
}
