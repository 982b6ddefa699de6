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
// than the two is a usage error; without a width the error suggests
// --gamma scale.
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
	if code, _, se := runCLI(append(base, "--gamma", "medium")...); code != 2 || !strings.Contains(se, "want a number, scale or auto") {
		t.Fatalf("fit --gamma medium: exit %d: %s", code, se)
	}
	if code, _, se := runCLI(base...); code != 1 || !strings.Contains(se, "--gamma scale takes 1/(d·Var(X))") {
		t.Fatalf("fit without gamma: exit %d: %s", code, se)
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

// TestApproxGammaRule: approx measures an approximation of one kernel, so
// its --gamma is a number; scikit-learn's rule names get an error that
// says so and where the rules are taken (it said "parse error").
func TestApproxGammaRule(t *testing.T) {
	for _, rule := range []string{"scale", "auto"} {
		code, _, se := runCLI("approx", "--data", "heart_scale", "--gamma", rule, "--m", "10")
		if code != 2 || !strings.Contains(se, "approx takes a number") || !strings.Contains(se, "landmark fit --gamma "+rule) {
			t.Fatalf("approx --gamma %s: exit %d, stderr %q", rule, code, se)
		}
	}
	if code, _, se := runCLI("approx", "--data", "heart_scale", "--gamma", "0.5x", "--m", "10"); code != 2 || !strings.Contains(se, "want a number") {
		t.Fatalf("approx --gamma 0.5x: exit %d, stderr %q", code, se)
	}
}
