package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// TestCLIKernelParams: --degree and --coef0 (and --set degree=…, --set
// coef0=…) set the kernel's parameters, as LIBSVM's -d and -r, which are
// named when typed; fit prints the kernel they describe ("kernel: …",
// the key kernel with --json) and the saved model holds it; a
// parameter the kernel does not have (--gamma too) is refused at its flag;
// and beside a
// SPEC.yaml they override the spec's kernel.
func TestCLIKernelParams(t *testing.T) {
	dir := t.TempDir()
	base := []string{"fit", "--dataset", "heart_scale", "--estimator", "svm", "--gamma", "0.1", "--progress", "never"}
	kernelOf := func(path string) kernel.Kernel {
		t.Helper()
		fit, err := experiments.LoadFitFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return fit.Estimator.(*model.SVM).Kernel
	}
	for _, c := range []struct {
		args []string
		want kernel.Kernel
	}{
		{[]string{"--kernel", "polynomial", "--degree", "2", "--coef0", "1"}, kernel.Polynomial{Degree: 2, Gamma: 0.1, Coef0: 1}},
		{[]string{"--kernel", "polynomial", "--set", "degree=4"}, kernel.Polynomial{Degree: 4, Gamma: 0.1}},
		{[]string{"--kernel", "sigmoid", "--coef0", "-1"}, kernel.Sigmoid{Gamma: 0.1, Coef0: -1}},
		{[]string{"--kernel", "sigmoid", "--set", "coef0=-0.5"}, kernel.Sigmoid{Gamma: 0.1, Coef0: -0.5}},
	} {
		m := filepath.Join(dir, "m.lmk")
		code, so, se := runCLI(append(append(append([]string{}, base...), c.args...), "--save", m)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", c.args, code, so, se)
		}
		if line := "kernel: " + c.want.String() + "\n"; !strings.Contains(so, line) {
			t.Errorf("%v: fit printed\n%s\nwant the line %q", c.args, so, line)
		}
		if got := kernelOf(m); got != c.want {
			t.Errorf("%v: saved kernel %v, want %v", c.args, got, c.want)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--degree", "2"}, 1, "--degree: the gaussian kernel has no degree (degree: polynomial)"},
		{[]string{"--kernel", "laplacian", "--coef0", "1"}, 1, "--coef0: the laplacian kernel has no coef0 (coef0: polynomial and sigmoid)"},
		{[]string{"--kernel", "linear"}, 1, "--gamma: the linear kernel has no gamma (gamma: gaussian, laplacian, polynomial and sigmoid)"},
		{[]string{"--kernel", "polynomial", "--coef0", "-1"}, 1, "polynomial coef0 -1, want finite and ≥ 0"},
		{[]string{"-d", "3"}, 2, "LIBSVM's svm-train -d is --degree here"},
		{[]string{"-r", "1"}, 2, "LIBSVM's svm-train -r is --coef0 here"},
		// -m is --m (centers) here: svm has none, and the error says what -m was.
		{[]string{"-m", "500"}, 1, `--m: unknown key "m" for estimator svm`},
		{[]string{"-m", "500"}, 1, "LIBSVM's svm-train -m (the kernel cache in MB) is --set cache_bytes=100M here for -m 100"},
		{[]string{"-h", "0"}, 2, "LIBSVM's svm-train -h is --set here (--set no_shrinking=true for -h 0"},
		{[]string{"-t", "3"}, 2, "sigmoid for -t 3"},
	} {
		code, _, se := runCLI(append(append([]string{}, base...), c.args...)...)
		if code != c.code || !strings.Contains(se, c.want) {
			t.Errorf("%v: exit %d (want %d), stderr %q, want %q", c.args, code, c.code, se, c.want)
		}
	}
	var out struct{ Kernel string }
	if code, so, se := runCLI(append(append([]string{}, base...), "--kernel", "sigmoid", "--json")...); code != 0 || json.Unmarshal([]byte(so), &out) != nil || out.Kernel != "sigmoid(gamma=0.1, coef0=0)" {
		t.Errorf("--json: exit %d, kernel %q\n%s\n%s", code, out.Kernel, so, se)
	}
	spec := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(spec, []byte("name: s\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: svm, kernel: {type: polynomial, gamma: 0.1, degree: 3}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := filepath.Join(dir, "o.lmk")
	code, so, se := runCLI("fit", spec, "--degree", "2", "--coef0", "0.5", "--save", m, "--progress", "never")
	if code != 0 || !strings.Contains(so, "override: degree 2 (spec: 3)") || !strings.Contains(so, "override: coef0 0.5 (spec: not set)") {
		t.Fatalf("override: exit %d\n%s\n%s", code, so, se)
	}
	if got, want := kernelOf(m), (kernel.Polynomial{Degree: 2, Gamma: 0.1, Coef0: 0.5}); got != want {
		t.Errorf("overridden kernel %v, want %v", got, want)
	}
}
