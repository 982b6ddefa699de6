package bench

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBenchSVR runs bench svr on 400 cpusmall rows: model.SVR with the
// float64 and the float32 cache reach the same optimum (dual objectives
// within 1e-6 relative: the float32 cache perturbs each kernel value by at
// most 2⁻²⁴ relative, and both stop at a KKT violation of 1e-3, measured
// here 1.2e-8 apart on 2,000 rows) and the same test RMSE to 1e-3; with
// svm-train installed its row and the closing comparison appear, the
// objectives within 2e-5 (model's TestSVRMatchesLIBSVM measured 4.4e-7).
func TestBenchSVR(t *testing.T) {
	methods := "svr,svr32"
	_, err := exec.LookPath("svm-train")
	lib := err == nil
	if lib {
		methods += ",libsvm"
	}
	var out, errb bytes.Buffer
	if err := runBenchSVR(context.Background(), []string{"-train", "400", "-test", "200", "-methods", methods, "-progress", "never"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	if !strings.Contains(s, "cpusmall, 400 train / 200 test, d = 12, C = 100, γ = 1, ε = 1") {
		t.Errorf("header lacks the setting:\n%s", s)
	}
	row := regexp.MustCompile(`\| (model\.SVR svr(?:32)?|svm-train -s 3 / svm-predict) \|[^|]*\|[^|]*\|[^|]*\| (\S+) \| (\d+) \((\d+)\) \| obj (\S+),`)
	got := map[string][2]float64{} // method → RMSE, objective
	for _, m := range row.FindAllStringSubmatch(s, -1) {
		rmse, _ := strconv.ParseFloat(m[2], 64)
		obj, _ := strconv.ParseFloat(m[5], 64)
		got[m[1]] = [2]float64{rmse, obj}
	}
	a, b := got["model.SVR svr"], got["model.SVR svr32"]
	if a[1] == 0 || b[1] == 0 {
		t.Fatalf("rows not found (%v):\n%s", got, s)
	}
	if math.Abs(a[1]-b[1]) > 1e-6*math.Abs(a[1]) || math.Abs(a[0]-b[0]) > 1e-3*a[0] {
		t.Errorf("float64 and float32 caches: objectives %g and %g, RMSE %g and %g", a[1], b[1], a[0], b[0])
	}
	if lib {
		l, ok := got["svm-train -s 3 / svm-predict"]
		if !ok || math.Abs(l[1]-a[1]) > 2e-5*math.Abs(l[1]) || !strings.Contains(s, "model.SVR svr vs svm-train: dual objective") {
			t.Errorf("svm-train row %v against ours %v:\n%s", l, a, s)
		}
	}
}

func TestBenchSVRUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-data", "heart_scale"},
		{"-c", "-1"},
		{"-epsilon", "-0.5"},
		{"-methods", "svr,nusvr"},
		{"-train-file", "a.libsvm"},
		{"-nosuchflag"},
	} {
		var out, errb bytes.Buffer
		if err := runBenchSVR(context.Background(), args, &out, &errb); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want errUsage", args, err)
		}
	}
}
