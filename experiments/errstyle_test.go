package experiments_test

import (
	"context"
	"math"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// packagePrefix finds the package prefixes of an error's text.
var packagePrefix = regexp.MustCompile(`\b(model|approx|datasets|shard|kernel|solver|precond|experiments|golearn|beamfit): `)

// repeatedPrefix reports a package prefix said twice ("golearn: load: golearn:").
func repeatedPrefix(msg string) bool {
	seen := map[string]bool{}
	for _, m := range packagePrefix.FindAllStringSubmatch(msg, -1) {
		if seen[m[1]] {
			return true
		}
		seen[m[1]] = true
	}
	return false
}

// TestErrorStyle scans the text of errors for bad input across the public
// packages (issue 23 item 5): every error starts with its package's name
// ("package: what: why"), names the bad field or argument, says no package
// prefix twice, names no internal package (binfmt, check) and no
// command-line flag (--fresh, --memory), and is errors.Is model.ErrInput.
func TestErrorStyle(t *testing.T) {
	ctx := context.Background()
	x := mat.NewDense(20, 2, nil)
	y := make([]float64, 20)
	for i := range 20 {
		x.Set(i, 0, float64(i))
		x.Set(i, 1, float64(i%3))
		y[i] = float64(i % 2)
	}
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.NaN())
	g := kernel.Gaussian{Gamma: 1}
	continuous := make([]float64, 20)
	for i := range continuous {
		continuous[i] = float64(i) + 0.5
	}
	fitted := &model.KRR{Kernel: g, Lambda: 1}
	if err := fitted.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	call := func(f func() error) error { return f() }
	cases := []struct {
		name   string
		err    error
		prefix string // the error starts with it
		field  string // and names the bad field or argument
	}{
		{"Falkon Lambda", (&model.Falkon{Kernel: g, M: 5}).Fit(ctx, x, y), "model: falkon: ", "Lambda = 0"},
		{"Falkon NaN X", (&model.Falkon{Kernel: g, M: 5, Lambda: 1}).Fit(ctx, nan, y), "model: falkon: ", "X[3,1] is NaN"},
		{"Falkon short y", (&model.Falkon{Kernel: g, M: 5, Lambda: 1}).Fit(ctx, x, y[:3]), "model: falkon: ", "y has 3 elements"},
		{"Falkon M", (&model.Falkon{Kernel: g, M: 50, Lambda: 1}).Fit(ctx, x, y), "model: falkon: ", "M = 50"},
		{"Falkon Workers", (&model.Falkon{Kernel: g, M: 5, Lambda: 1, Resources: model.Resources{Workers: -1}}).Fit(ctx, x, y), "model: falkon: ", "Workers = -1"},
		{"Falkon MemoryLimit", (&model.Falkon{Kernel: g, M: 5, Lambda: 1, Resources: model.Resources{MemoryLimit: -5}}).Fit(ctx, x, y), "model: falkon: ", "MemoryLimit = -5"},
		{"KRR Lambda", (&model.KRR{Kernel: g}).Fit(ctx, x, y), "model: krr: ", "Lambda = 0"},
		{"KRR NaN X", (&model.KRR{Kernel: g, Lambda: 1}).Fit(ctx, nan, y), "model: krr: ", "X[3,1] is NaN"},
		{"KRR kernel gamma", (&model.KRR{Kernel: kernel.Gaussian{Gamma: -1}, Lambda: 1}).Fit(ctx, x, y), "model: krr: kernel: ", "gamma -1"},
		{"KRR Nyström M", (&model.KRR{Kernel: g, Lambda: 1, Approx: model.NystromKRR{M: 50}}).Fit(ctx, x, y), "model: ", "M = 50"},
		{"KRR predict columns", call(func() error { _, err := fitted.Predict(mat.NewDense(2, 3, nil)); return err }), "model: krr: ", "X has 3 columns"},
		{"SVM C", (&model.SVM{Kernel: g, C: -1}).Fit(ctx, x, y), "model: svm: ", "C = -1"},
		{"SVM NaN X", (&model.SVM{Kernel: g, C: 1}).Fit(ctx, nan, y), "model: svm: ", "X[3,1] is NaN"},
		{"SVM continuous y", (&model.SVM{Kernel: g, C: 1}).Fit(ctx, x, continuous), "model: svm: ", "non-integer values"},
		{"BKASVM Clusters", (&model.BKASVM{Kernel: g, C: 1, Clusters: -1}).Fit(ctx, x, y), "model: bka-svm: ", "Clusters = -1"},
		{"approx Uniform m", call(func() error { _, err := approx.Uniform{}.Sample(ctx, x, g, 50, rng); return err }), "approx: ", "m = 50"},
		{"approx Uniform rng", call(func() error { _, err := approx.Uniform{}.Sample(ctx, x, g, 5, nil); return err }), "approx: ", "random source"},
		{"approx Nystrom landmarks", call(func() error { _, err := approx.Nystrom{}.Fit(ctx, x, g, nil); return err }), "approx: nyström: ", "landmarks are nil"},
		{"approx RFF Features", call(func() error { _, err := approx.RFF{}.Fit(g, 0, rng); return err }), "approx: rff: ", "Features = 0"},
		{"approx ExactLeverage ridge", call(func() error { _, _, err := approx.ExactLeverage(ctx, x, g, -1); return err }), "approx: ", "ridge = -1"},
		{"cluster KMeans K", call(func() error { _, err := cluster.KMeans{K: 50}.Fit(ctx, x, rng); return err }), "cluster: k-means: ", "K = 50"},
		{"cluster KMeans NaN X", call(func() error { _, err := cluster.KMeans{K: 3}.Fit(ctx, nan, rng); return err }), "cluster: k-means: ", "X[3,1] is NaN"},
		{"meka Rank", call(func() error { _, err := meka.Fit(ctx, x, g, meka.Options{Rank: -1}, rng); return err }), "approx: meka: ", "Rank = -1"},
		{"meka NaN X", call(func() error { _, err := meka.Fit(ctx, nan, g, meka.Options{}, rng); return err }), "approx: meka: ", "X[3,1] is NaN"},
		{"datasets Standardizer NaN X", new(datasets.Standardizer).Fit(nan), "datasets: ", "X[3,1] is NaN"},
		{"datasets CSV target range", call(func() error {
			_, err := datasets.ReadCSV(strings.NewReader("1,2,3\n4,5,6\n"), datasets.ReadOptions{Target: "7"})
			return err
		}), "datasets: ", "target column"},
		{"datasets NewCSR", call(func() error { _, err := datasets.NewCSR(0, 2, nil, nil, nil); return err }), "datasets: ", "0×2"},
		{"datasets LIBSVM index", call(func() error { _, err := datasets.ReadLIBSVM(strings.NewReader("1 1:2\n1 x:3\n"), 0); return err }), "datasets: ", `line 2: bad feature index "x"`},
		{"datasets CSRFromDense", call(func() error { _, err := datasets.CSRFromDense(nil); return err }), "datasets: ", "empty"},
		{"shard Write y", shard.Write(&strings.Builder{}, x, y[:2]), "shard: ", "2 targets for 20 rows"},
		{"precond lambda", call(func() error {
			_, err := precond.BuildFalkon(mat.NewDense(2, 2, []float64{1, 0, 0, 1}), 10, -1, precond.Options{})
			return err
		}), "precond: ", "lambda = -1"},
		{"kernel gamma", kernel.Gaussian{Gamma: math.NaN()}.Validate(), "kernel: ", "gamma NaN"},
		{"solver Cholesky nil", call(func() error { _, err := solver.Cholesky(nil, solver.CholOptions{}); return err }), "solver: ", "nil matrix"},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		msg := c.err.Error()
		switch {
		case !strings.HasPrefix(msg, c.prefix):
			t.Errorf("%s: %q does not start with %q", c.name, msg, c.prefix)
		case !strings.Contains(msg, c.field):
			t.Errorf("%s: %q does not name the field (%q)", c.name, msg, c.field)
		case repeatedPrefix(msg):
			t.Errorf("%s: %q says a package prefix twice", c.name, msg)
		case strings.Contains(msg, "binfmt") || strings.Contains(msg, "check:") || strings.Contains(msg, " --"):
			t.Errorf("%s: %q names an internal package or a flag", c.name, msg)
		case !isInputErr(c.err):
			t.Errorf("%s: %q is not errors.Is model.ErrInput", c.name, msg)
		}
	}
}
