package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// writePrecomputed writes n training points of two classes as a LIBSVM
// file of features (points.libsvm) and as LIBSVM -t 4 kernel rows of the
// Gaussian kernel γ = 0.5 (pre.libsvm: "y 0:i 1:K(x_i, x_1) …", indices
// from 0), and m query points as both (points.t; pre.t with "0:0").
func writePrecomputed(t *testing.T, dir string, n, m int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(31, 32))
	points := func(k int) (*mat.Dense, []float64) {
		x, y := mat.NewDense(k, 2, nil), make([]float64, k)
		for i := range k {
			y[i] = float64(2*rng.IntN(2) - 1)
			x.Set(i, 0, rng.NormFloat64()+0.9*y[i])
			x.Set(i, 1, rng.NormFloat64())
		}
		return x, y
	}
	x, y := points(n)
	q, yq := points(m)
	write := func(name string, b *strings.Builder) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []struct {
		name string
		x    *mat.Dense
		y    []float64
		kern bool
		own  bool // serial numbers 1…n (training rows), else 0
	}{{"points.libsvm", x, y, false, true}, {"points.t", q, yq, false, false}, {"pre.libsvm", x, y, true, true}, {"pre.t", q, yq, true, false}} {
		var b strings.Builder
		rows, _ := f.x.Dims()
		k := mat.NewDense(rows, n, nil)
		kernel.Gaussian{Gamma: 0.5}.Block(k, f.x, x)
		for i := range rows {
			fmt.Fprintf(&b, "%g", f.y[i])
			if !f.kern {
				fmt.Fprintf(&b, " 1:%.17g 2:%.17g\n", f.x.At(i, 0), f.x.At(i, 1))
				continue
			}
			s := 0
			if f.own {
				s = i + 1
			}
			fmt.Fprintf(&b, " 0:%d", s)
			for j := range n {
				fmt.Fprintf(&b, " %d:%.17g", j+1, k.At(i, j))
			}
			b.WriteByte('\n')
		}
		write(f.name, &b)
	}
}

// TestPrecomputedSpec: a spec with kernel precomputed on LIBSVM -t 4 files
// (zero_based: true, for their 0:i column) gives the cross-validation fold
// scores and the test scores of the same spec on the points with the
// Gaussian kernel: the folds pick rows, whose serial numbers still index
// the full kernel rows. A test_fraction and a subsample pick rows the same
// way, and their test scores agree too. The scores agree to 1e-9 (kernel
// values written with 17 digits; decision values differ in the last bits). Scaling and the
// estimators that need the kernel at points of their own are refused at
// their lines, and so is an approximation run.
func TestPrecomputedSpec(t *testing.T) {
	dir := t.TempDir()
	writePrecomputed(t, dir, 120, 40)
	const spec = `name: pre
dataset: {path: DATA, test_path: TEST, ZB}
task: binary
estimator: {type: svm, kernel: {type: KERNEL}, c: 2, tol: 1.0e-10}
cv: {folds: 4, metric: auc}
seed: 3
`
	run := func(data, test, k, zb string) (*CVResult, *FitResult) {
		t.Helper()
		r := strings.NewReplacer("DATA", data, "TEST", test, "KERNEL", k, "ZB", zb)
		cv, err := CrossValidate(context.Background(), decodeIn(t, r.Replace(spec), dir), Options{})
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		res, err := Fit(context.Background(), decodeIn(t, r.Replace(spec), dir))
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		return cv, res
	}
	wantCV, want := run("points.libsvm", "points.t", "gaussian, gamma: 0.5", "format: libsvm")
	gotCV, got := run("pre.libsvm", "pre.t", "precomputed", "zero_based: true")
	if len(gotCV.Point.FoldScores) != 4 || len(wantCV.Point.FoldScores) != 4 {
		t.Fatalf("fold scores %v / %v", gotCV.Point.FoldScores, wantCV.Point.FoldScores)
	}
	for i, w := range wantCV.Point.FoldScores {
		if math.Abs(float64(gotCV.Point.FoldScores[i]-w)) > 1e-9 {
			t.Errorf("fold %d: precomputed AUC %.12g, gaussian %.12g", i, gotCV.Point.FoldScores[i], w)
		}
	}
	if len(got.Test) == 0 || len(got.Test) != len(want.Test) {
		t.Fatalf("test scores %v / %v", got.Test, want.Test)
	}
	for i, w := range want.Test {
		if g := got.Test[i]; g.Name != w.Name || math.Abs(g.Mean-w.Mean) > 1e-9 {
			t.Errorf("test %s: precomputed %.12g, gaussian %s %.12g", g.Name, g.Mean, w.Name, w.Mean)
		}
	}
	// A test fraction and a subsample of the training file pick rows too:
	// the test scores agree as well.
	for _, held := range []string{"test_fraction: 0.25", "test_fraction: 0.25, subsample: 70"} {
		sp := strings.Replace(spec, ", test_path: TEST", ", "+held, 1)
		fit := func(data, k, zb string) *FitResult {
			t.Helper()
			res, err := Fit(context.Background(), decodeIn(t, strings.NewReplacer("DATA", data, "KERNEL", k, "ZB", zb).Replace(sp), dir))
			if err != nil {
				t.Fatalf("%s %s: %v", held, k, err)
			}
			return res
		}
		a, b := fit("points.libsvm", "gaussian, gamma: 0.5", "format: libsvm"), fit("pre.libsvm", "precomputed", "zero_based: true")
		if len(a.Test) == 0 || len(a.Test) != len(b.Test) || a.NTest != b.NTest {
			t.Fatalf("%s: test scores %v / %v", held, a.Test, b.Test)
		}
		for i, w := range a.Test {
			if g := b.Test[i]; math.Abs(g.Mean-w.Mean) > 1e-9 {
				t.Errorf("%s: test %s precomputed %.12g, gaussian %.12g", held, g.Name, g.Mean, w.Mean)
			}
		}
	}
	for _, c := range []struct{ old, new, want string }{
		{"type: svm", "type: falkon", "estimator falkon does not take a precomputed kernel"},
		{"type: svm", "type: bka-svm", "estimator bka-svm does not take a precomputed kernel"},
		{"ZB}", "ZB, scale: maxabs}", "scale maxabs would change the serial numbers"},
		{"type: KERNEL}", "type: KERNEL, gamma: 1}", "the precomputed kernel has no gamma"},
	} {
		text := strings.NewReplacer("DATA", "pre.libsvm", "TEST", "pre.t", "KERNEL", "precomputed", "ZB", "zero_based: true").Replace(strings.Replace(spec, c.old, c.new, 1))
		if _, err := Decode(strings.NewReader(text), dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.new, err, c.want)
		}
	}
	text := strings.Replace(strings.Replace(approxSpec, "{type: gaussian, gamma: 0.5}", "{type: precomputed}", 1), "standardize: true", "zero_based: true", 1)
	if _, err := Decode(strings.NewReader(text), dir); err == nil || !strings.Contains(err.Error(), "an approximation run does not take a precomputed kernel") {
		t.Errorf("approximation run: err = %v", err)
	}
}
