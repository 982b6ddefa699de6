package experiments

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestResolveGamma: scale is 1/(d·Var(X)) with Var the population variance
// of all n·d entries (numpy's X.var()), auto 1/d. On [[1,0,3],[0,2,0]] the
// mean is 1 and Σ(x−1)² = 0+1+4+1+1+1 = 8, so Var = 8/6 and γ = 1/(3·8/6)
// = 1/4; a direct two-pass computation over every entry agrees with it on
// a random 40×7 matrix with a third of its entries zero (to 1e-14
// relative: the summation orders differ), and dense, float32-held and CSR
// X give the same bits (the same sums in the same order).
func TestResolveGamma(t *testing.T) {
	x := mat.NewDense(2, 3, []float64{1, 0, 3, 0, 2, 0})
	g, v, d, err := ResolveGamma(GammaScale, x)
	if err != nil || d != 3 || v != 8.0/6 || math.Abs(g-0.25) > 1e-16 {
		t.Fatalf("scale on the 2×3 matrix: γ %v, Var %v, d %d, err %v; want 0.25, 4/3, 3", g, v, d, err)
	}
	if g, _, _, err := ResolveGamma(GammaAuto, x); err != nil || g != 1.0/3 {
		t.Fatalf("auto: γ %v, err %v; want 1/3", g, err)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	n, c := 40, 7
	big := mat.NewDense(n, c, nil)
	for i := range n {
		for j := range c {
			if rng.IntN(3) > 0 {
				big.Set(i, j, float64(float32(rng.NormFloat64()*3+1)))
			}
		}
	}
	var mu float64
	for i := range n {
		for j := range c {
			mu += big.At(i, j)
		}
	}
	mu /= float64(n * c)
	var ss float64
	for i := range n {
		for j := range c {
			ss += (big.At(i, j) - mu) * (big.At(i, j) - mu)
		}
	}
	want := 1 / (float64(c) * ss / float64(n*c))
	gd, _, _, err := ResolveGamma(GammaScale, big)
	if err != nil || math.Abs(gd-want) > 1e-14*want {
		t.Fatalf("scale, dense: γ %v, want %v (err %v)", gd, want, err)
	}
	sp, err := datasets.CSRFromDense(big)
	if err != nil {
		t.Fatal(err)
	}
	x32, err := kernel.Dense32Of(big)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]mat.Matrix{"csr": sp, "float32": x32, "any mat.Matrix": plainMatrix{big}} {
		g, _, _, err := ResolveGamma(GammaScale, m)
		if err != nil || g != gd {
			t.Errorf("scale, %s: γ %v, dense %v (err %v)", name, g, gd, err)
		}
	}

	// No spread, no scale.
	if _, _, _, err := ResolveGamma(GammaScale, mat.NewDense(2, 2, []float64{5, 5, 5, 5})); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "variance") {
		t.Errorf("constant X: err %v, want ErrSpec naming the variance", err)
	}
	if _, _, _, err := ResolveGamma("medium", x); !errors.Is(err, ErrSpec) {
		t.Errorf("unknown rule: err %v, want ErrSpec", err)
	}
}

// plainMatrix hides a matrix's type: ResolveGamma reads it by At.
type plainMatrix struct{ mat.Matrix }

// gammaSpec is a krr spec on heart_scale with the kernel's gamma as given.
func gammaSpec(gamma, extra string) string {
	return "name: g\ndataset: {name: heart_scale, standardize: true, test_fraction: 0.25" + extra + "}\ntask: binary\n" +
		"estimator:\n  type: falkon\n  kernel: {type: gaussian, gamma: " + gamma + "}\n  lambda: 0.001\n  m: 40\nseed: 3\n"
}

// TestGammaScaleFit: a fit with gamma: scale resolves γ on its training
// rows after the standardization (each column centred and scaled to unit
// variance, so Var(X) is 1 but for rounding and γ ≈ 1/d), and equals, bit
// for bit, the fit given that number; the same for auto (exactly 1/13).
// A run records the folds' mean γ (Info) and the refit's.
func TestGammaScaleFit(t *testing.T) {
	ctx := context.Background()
	for _, rule := range GammaRules {
		s, err := Decode(strings.NewReader(gammaSpec(rule, "")), ".")
		if err != nil {
			t.Fatal(err)
		}
		if s.Estimator.GammaRule != rule || s.Estimator.Kernel.Gamma != 0 {
			t.Fatalf("%s: decoded rule %q, gamma %v", rule, s.Estimator.GammaRule, s.Estimator.Kernel.Gamma)
		}
		a, err := Fit(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if rule == GammaAuto && a.Gamma != 1.0/13 || rule == GammaScale && math.Abs(a.Gamma*13-1) > 1e-12 {
			t.Fatalf("%s: γ %v on 13 standardized features", rule, a.Gamma)
		}
		s2, err := Decode(strings.NewReader(gammaSpec(strconv.FormatFloat(a.Gamma, 'g', -1, 64), "")), ".")
		if err != nil {
			t.Fatal(err)
		}
		b, err := Fit(ctx, s2)
		if err != nil {
			t.Fatal(err)
		}
		d, _ := datasets.Load("heart_scale")
		pa, err := a.Predict(d.X)
		if err != nil {
			t.Fatal(err)
		}
		pb, _ := b.Predict(d.X)
		for i := range pa {
			if pa[i] != pb[i] {
				t.Fatalf("%s: prediction %d: %v with the rule, %v with γ = %v", rule, i, pa[i], pb[i], a.Gamma)
			}
		}
		if b.Gamma != 0 {
			t.Errorf("%s: a fit given a number reports γ %v from a rule", rule, b.Gamma)
		}
		// Saved and loaded, the model predicts the same without the rule.
		var buf bytes.Buffer
		if err := a.Save(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := LoadFit(&buf)
		if err != nil || back.Gamma != a.Gamma {
			t.Fatalf("%s: loaded fit: γ %v, fitted %v (err %v)", rule, back.Gamma, a.Gamma, err)
		}
		pc, _ := back.Predict(d.X)
		for i := range pa {
			if pa[i] != pc[i] {
				t.Fatalf("%s: loaded fit predicts %v at %d, fitted %v", rule, pc[i], i, pa[i])
			}
		}
	}

	s, err := Decode(strings.NewReader(gammaSpec("scale", "")+"cv: {folds: 2}\n"), ".")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(ctx, s, Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if g := res.Points[0].Info["gamma"]; math.Abs(g*13-1) > 1e-12 {
		t.Errorf("the folds' mean γ %v, want ≈ 1/13 (standardized folds)", g)
	}
	if res.Test == nil || math.Abs(res.Test.Gamma*13-1) > 1e-12 {
		t.Errorf("refit γ: %+v", res.Test)
	}
}

// TestGammaRuleSpec: where a gamma rule is taken and where it is refused
// (at its line), and that Encode writes it back as the kernel's gamma.
func TestGammaRuleSpec(t *testing.T) {
	s, err := Decode(strings.NewReader(gammaSpec("'scale'", "")), ".")
	if err != nil || s.Estimator.GammaRule != GammaScale {
		t.Fatalf("quoted scale: rule %q, err %v", s.Estimator.GammaRule, err)
	}
	var buf bytes.Buffer
	if err := s.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf, ".")
	if err != nil || back.Estimator.GammaRule != GammaScale || back.Hash() != s.Hash() {
		t.Fatalf("Encode/Decode: rule %q, err %v\n%s", back.Estimator.GammaRule, err, buf.String())
	}
	if h, _ := Decode(strings.NewReader(gammaSpec("0.5", "")), "."); h.Hash() == s.Hash() {
		t.Error("a spec with gamma scale hashes as one with a number")
	}
	grid := "name: g\ndataset: {name: heart_scale}\ntask: binary\nestimator:\n  type: krr\n  kernel: {type: gaussian}\n  lambda: 0.001\ngrid:\n  gamma: [0.1, scale]\nseed: 1\n"
	for _, c := range []struct {
		yaml, msg string
		line      int
	}{
		{grid, "grid values are numbers; give gamma: scale in the estimator's kernel block", 9},
		{gammaSpec("scal", ""), `gamma "scal": want a number > 0, scale`, 6},
		{strings.Replace(gammaSpec("scale", ""), "gaussian,", "gaussian, sigma: 2,", 1), "set gamma (scale) or sigma, not both", 6},
		{strings.Replace(gammaSpec("auto", ""), "gaussian", "linear", 1), "the linear kernel has no gamma", 6},
		{strings.Replace(grid, "gamma: [0.1, scale]", "lambda: [1, 2]", 1), "gamma: scale takes scikit-learn SVC's default", 6},
		{"name: a\ndataset: {name: heart_scale}\napproximation:\n  kernel: {type: gaussian, gamma: auto}\n  methods: [uniform]\ngrid: {m: [10]}\n", "an approximation run takes a number", 4},
	} {
		_, err := Decode(strings.NewReader(c.yaml), ".")
		var se *SpecError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.msg) || se.Line != c.line {
			t.Errorf("err %v, want a SpecError at line %d saying %q", err, c.line, c.msg)
		}
	}

	// Overrides: a rule replaces the grid axis, the number or sigma.
	s, _ = Decode(strings.NewReader(gammaSpec("0.5", "")), ".")
	lines, err := ApplyOverrides(s, []Override{{Name: "gamma", Value: "auto"}})
	if err != nil || s.Estimator.GammaRule != GammaAuto || s.Estimator.Kernel.Gamma != 0 || lines[0] != "override: gamma auto (spec: 0.5)" {
		t.Fatalf("override gamma auto: %q, err %v, rule %q", lines, err, s.Estimator.GammaRule)
	}
	lines, err = ApplyOverrides(s, []Override{{Name: "sigma", Value: 2.0}})
	if err != nil || s.Estimator.GammaRule != "" || lines[0] != "override: sigma 2 (spec: gamma auto)" {
		t.Fatalf("override sigma after auto: %q, err %v, rule %q", lines, err, s.Estimator.GammaRule)
	}
}
