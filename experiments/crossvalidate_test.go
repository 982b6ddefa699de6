package experiments

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestCrossValidateLOO: leave-one-out (folds = n) of exact KRR, whose
// held-out residuals have the closed form e_i = (y_i − (Hy)_i)/(1 − H_ii)
// with H = K(K + μI)⁻¹ on all n rows and μ = λ(n − 1) (each fold's system
// is K + λ·n_train·I): every one-row fold's RMSE and MAE are |e_i|, so
// both CV means are mean |e_i| whatever the order of the folds. Checked
// to 1e-9 relative (the solves differ in rounding only).
func TestCrossValidateLOO(t *testing.T) {
	dir := writeSine(t, 30)
	const lambda, gamma = 1e-3, 0.5
	s := decodeIn(t, `name: loo
dataset: {path: data.libsvm}
task: regression
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.5}, lambda: 1.0e-3}
cv: {folds: 30}
seed: 4
`, dir)
	res, err := CrossValidate(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.ReadFile(filepath.Join(dir, "data.libsvm"), datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(d.Y)
	k := mat.NewDense(n, n, nil)
	g := kernel.Gaussian{Gamma: gamma}
	for i := range n {
		for j := range n {
			k.Set(i, j, g.Eval(d.X.RawRowView(i), d.X.RawRowView(j)))
		}
	}
	a := mat.DenseCopyOf(k)
	for i := range n {
		a.Set(i, i, a.At(i, i)+lambda*float64(n-1))
	}
	var ainv, h mat.Dense
	if err := ainv.Inverse(a); err != nil {
		t.Fatal(err)
	}
	h.Mul(k, &ainv)
	var want float64
	for i := range n {
		fit := mat.Dot(h.RowView(i), mat.NewVecDense(n, d.Y))
		want += math.Abs((d.Y[i] - fit) / (1 - h.At(i, i)))
	}
	want /= float64(n)
	for _, name := range []string{"rmse", "mae"} {
		got, ok := res.Point.Metric(name)
		if !ok || math.Abs(got.Mean-want) > 1e-9*want {
			t.Errorf("LOO %s %v, closed form %v", name, got, want)
		}
	}
	if res.Folds != n || res.Repeats != 1 || res.Point.Fits != n || res.Metric != "rmse" || res.NTrain != n || res.Task != TaskRegression {
		t.Errorf("folds %d, repeats %d, fits %d, metric %s, n %d, task %s", res.Folds, res.Repeats, res.Point.Fits, res.Metric, res.NTrain, res.Task)
	}
}

// TestCrossValidateAsRun: CrossValidate scores one setting as Run scores
// that grid point (the same folds from the seed, the same metrics and
// fold scores), on stratified classification folds with a held-out test
// fraction; a grid of two values and a failing fit are errors.
func TestCrossValidateAsRun(t *testing.T) {
	dir := writeBlobs(t, 90)
	const spec = `name: one
dataset: {path: data.libsvm, test_fraction: 0.2}
task: binary
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.3}, lambda: LAMBDA}
cv: {folds: 4}
seed: 9
`
	s := decodeIn(t, strings.Replace(spec, "LAMBDA", "1.0e-3", 1), dir)
	cv, err := CrossValidate(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	run, err := Run(context.Background(), decodeIn(t, strings.Replace(spec, "LAMBDA", "1.0e-3", 1), dir), Options{Out: t.TempDir(), NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	want := run.Points[0]
	if !reflect.DeepEqual(cv.Point.Metrics, want.Metrics) || !reflect.DeepEqual(cv.Point.FoldScores, want.FoldScores) || cv.Point.Fits != 4 || cv.NTrain != run.NTrain {
		t.Errorf("CrossValidate %v %v (%d fits, n %d); Run %v %v (n %d)", cv.Point.Metrics, cv.Point.FoldScores, cv.Point.Fits, cv.NTrain, want.Metrics, want.FoldScores, run.NTrain)
	}
	if acc, _ := cv.Point.Metric("accuracy"); acc.Mean < 0.8 {
		t.Errorf("accuracy %v: the blobs are 2.5 apart", acc)
	}
	grid := decodeIn(t, strings.Replace(spec, "gamma: 0.3}, lambda: LAMBDA", "}, lambda: 1", 1)+"grid: {gamma: [0.1, 1]}\n", dir)
	if _, err := CrossValidate(context.Background(), grid, Options{}); err == nil || !strings.Contains(err.Error(), "the grid has 2 values of gamma") {
		t.Errorf("a grid of 2 values: %v", err)
	}
	bad := decodeIn(t, strings.Replace(spec, "{type: krr, kernel: {type: gaussian, gamma: 0.3}, lambda: LAMBDA}", "{type: krr, kernel: {type: gaussian, gamma: 0.3}, lambda: 1.0e-3, memory_limit: 12000}", 1), dir)
	if _, err := CrossValidate(context.Background(), bad, Options{}); !errors.Is(err, ErrCVFit) || !strings.Contains(err.Error(), "memory limit exceeded") {
		t.Errorf("a fold fit over its memory limit: %v, want ErrCVFit saying so", err)
	}
}
