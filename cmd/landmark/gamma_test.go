package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCLIGammaScale: fit --gamma scale prints the γ it resolved and saves
// it, so that predict needs nothing and gives, byte for byte, what a fit
// given that printed number predicts; --gamma auto is 1/d; a word other
// than the two is a usage error; without a width the fit takes scale and
// says so, while a spec without one is an error that suggests it.
func TestCLIGammaScale(t *testing.T) {
	dir := t.TempDir()
	ms, mn := filepath.Join(dir, "scale.lmk"), filepath.Join(dir, "num.lmk")
	base := []string{"fit", "--dataset", "heart_scale", "--scale", "maxabs", "--lambda", "1e-3", "--progress", "never"}
	code, so, se := runCLI(append(base, "--gamma", "scale", "--save", ms)...)
	if code != 0 {
		t.Fatalf("fit --gamma scale: exit %d: %s", code, se)
	}
	m := regexp.MustCompile(`gamma: scale = 1/\(d·Var\(X\)\) = (\S+) on the training rows`).FindStringSubmatch(so)
	if m == nil {
		t.Fatalf("fit --gamma scale printed no γ:\n%s", so)
	}
	if code, _, se := runCLI(append(base, "--gamma", m[1], "--save", mn)...); code != 0 {
		t.Fatalf("fit --gamma %s: exit %d: %s", m[1], code, se)
	}
	data := filepath.Join(dir, "heart.libsvm")
	if code, _, se := runCLI("data", "convert", "heart_scale", data, "--progress", "never"); code != 0 {
		t.Fatalf("data convert: %s", se)
	}
	_, ps, _ := runCLI("predict", "--model", ms, "--data", data, "--output", "scores")
	_, pn, _ := runCLI("predict", "--model", mn, "--data", data, "--output", "scores")
	if len(strings.Fields(ps)) != 270 || ps != pn {
		t.Fatalf("predictions of the scale fit differ from the fit given γ = %s", m[1])
	}
	if code, so, _ := runCLI(append(base, "--gamma", "auto")...); code != 0 || !strings.Contains(so, "gamma: auto = 1/d = 0.07692307692307693 (d = 13") {
		t.Fatalf("fit --gamma auto: exit %d:\n%s", code, so)
	}
	// A width of 0 is refused, not read as none given (and so scale).
	for _, w := range [][]string{{"--gamma", "medium"}, {"--gamma", "0"}, {"--gamma", "-1"}, {"--sigma", "0"}} {
		if code, _, se := runCLI(append(base, w...)...); code != 2 || !strings.Contains(se, "want a number") {
			t.Fatalf("fit %v: exit %d: %s", w, code, se)
		}
	}
	// Without a width the fit takes gamma scale and says so; a spec that
	// names none is still an error that suggests it.
	if code, so, se := runCLI(base...); code != 0 || !strings.Contains(so, "default: gamma scale") || !strings.Contains(so, "gamma: scale = 1/(d·Var(X)) = "+m[1]+" ") {
		t.Fatalf("fit without gamma: exit %d: %s%s", code, so, se)
	}
	nog := filepath.Join(dir, "nog.yaml")
	if err := os.WriteFile(nog, []byte("name: nog\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian}, lambda: 0.01}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, se := runCLI("fit", nog, "--progress", "never"); code != 1 || !strings.Contains(se, "gamma: scale takes scikit-learn SVC's default") {
		t.Fatalf("fit of a spec without gamma: exit %d: %s", code, se)
	}
	// --json gives the resolved γ only when a rule resolved it.
	if _, so, _ := runCLI(append(base, "--gamma", "auto", "--json")...); !strings.Contains(so, `"gamma": 0.07692307692307693`) {
		t.Fatalf("fit --gamma auto --json lacks gamma:\n%s", so)
	}
	if _, so, _ := runCLI(append(base, "--gamma", "0.5", "--json")...); strings.Contains(so, `"gamma"`) {
		t.Fatalf("fit --gamma 0.5 --json reports a resolved gamma:\n%s", so)
	}
	// run prints the folds' mean and the refit's γ.
	spec := filepath.Join(dir, "g.yaml")
	y := "name: g\ndataset: {name: heart_scale, test_fraction: 0.25}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian, gamma: auto}, lambda: 0.01}\ncv: {folds: 2}\nseed: 1\n"
	if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	code, so, se = runCLI("run", spec, "--out", filepath.Join(dir, "r"), "--progress", "never")
	if code != 0 || !strings.Contains(so, "gamma: auto = 1/d on each fit's training rows (the best point's folds: mean 0.07692307692307693; the refit: 0.07692307692307693)") {
		t.Fatalf("run with gamma auto: exit %d:\n%s\n%s", code, so, se)
	}
}

// TestApproxGammaRule: approx resolves --gamma scale and auto on the rows
// it measures, after --scale, to the number fit resolves on the same rows
// (1/d for auto: 1/13 on heart_scale); without a width it takes scale and
// says so; a linear kernel gets no γ; a word other than the rules is a
// usage error.
func TestApproxGammaRule(t *testing.T) {
	fitGamma := func(scale string) string {
		t.Helper()
		args := []string{"fit", "--dataset", "heart_scale", "--gamma", "scale", "--lambda", "1e-3", "--progress", "never"}
		if scale != "" {
			args = append(args, "--scale", scale)
		}
		code, so, se := runCLI(args...)
		m := regexp.MustCompile(`gamma: scale = 1/\(d·Var\(X\)\) = (\S+) on`).FindStringSubmatch(so)
		if code != 0 || m == nil {
			t.Fatalf("fit --scale %s --gamma scale: exit %d: %s%s", scale, code, so, se)
		}
		return m[1]
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--gamma", "scale", "--scale", "minmax"}, []string{"gaussian(gamma=" + fitGamma("minmax") + ")", "scale = 1/(d·Var(X)) = " + fitGamma("minmax") + " on the rows measured\n"}},
		{[]string{"--scale", "maxabs"}, []string{"gaussian(gamma=" + fitGamma("maxabs") + ")", "on the rows measured (the default, scikit-learn SVC's; --gamma or --sigma to choose)"}},
		{[]string{"--gamma", "auto"}, []string{"gaussian(gamma=0.07692307692307693)", "auto = 1/d = 0.07692307692307693\n"}},
		{[]string{"--kernel", "laplacian"}, []string{"laplacian(gamma=" + fitGamma("") + ")"}},
	} {
		args := append([]string{"approx", "--data", "heart_scale", "--m", "10", "--spectral-n", "0", "--progress", "never"}, c.args...)
		code, so, se := runCLI(args...)
		if code != 0 {
			t.Fatalf("approx %v: exit %d: %s", c.args, code, se)
		}
		for _, w := range c.want {
			if !strings.Contains(so, w) {
				t.Errorf("approx %v: no %q in\n%s", c.args, w, so)
			}
		}
	}
	for _, args := range [][]string{{"--kernel", "linear"}, {"--gamma", "0.5"}, {"--sigma", "2"}} {
		_, so, _ := runCLI(append([]string{"approx", "--data", "heart_scale", "--m", "10", "--spectral-n", "0", "--progress", "never"}, args...)...)
		if strings.Contains(so, "\ngamma ") || !strings.Contains(so, "relative Frobenius error") {
			t.Errorf("approx %v printed a rule's γ, or no report:\n%s", args, so)
		}
	}
	if code, _, se := runCLI("approx", "--data", "heart_scale", "--gamma", "0.5x", "--m", "10"); code != 2 || !strings.Contains(se, "want a number > 0, scale or auto") {
		t.Fatalf("approx --gamma 0.5x: exit %d, stderr %q", code, se)
	}
	// Constant X has no scale: a usage error naming the rule.
	flat := filepath.Join(t.TempDir(), "flat.csv")
	if err := os.WriteFile(flat, []byte("a,b,y\n1,1,1\n1,1,2\n1,1,1\n1,1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, se := runCLI("approx", "--data", flat, "--m", "2"); code != 2 || !strings.Contains(se, "usage: --gamma scale: the variance of X's 4×2 entries is 0") {
		t.Fatalf("approx on constant X: exit %d, stderr %q", code, se)
	}
}
