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
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// oneClassCSV writes n rows of a 2-D Gaussian labelled 1 and k uniform on
// [−5, 5]² labelled −1 to dir/name (columns a, b, y) and returns them.
func oneClassCSV(t *testing.T, dir, name string, n, k int, seed uint64) (*mat.Dense, []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n+k, 2, nil)
	y := make([]float64, n+k)
	var b strings.Builder
	b.WriteString("a,b,y\n")
	for i := range n + k {
		a, c, l := rng.NormFloat64(), rng.NormFloat64(), 1.0
		if i >= n {
			a, c, l = 10*rng.Float64()-5, 10*rng.Float64()-5, -1
		}
		x.Set(i, 0, a)
		x.Set(i, 1, c)
		y[i] = l
		fmt.Fprintf(&b, "%.17g,%.17g,%g\n", a, c, l)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return x, y
}

// TestOneClassSpec: a one-class-svm spec with task auto becomes binary and
// fits model.OneClassSVM's model on the same rows, bit for bit; its test
// scores are the accuracy of ±1 against the labels; a grid over ν
// cross-validates, and ν = 0.6 (which cuts off most of the Gaussian) scores
// below ν = 0.05 when 7% of the rows are outliers; ν outside (0, 1] is
// refused at its line, and so are labels other than ±1.
func TestOneClassSpec(t *testing.T) {
	dir := t.TempDir()
	x, y := oneClassCSV(t, dir, "train.csv", 150, 12, 1)
	xt, yt := oneClassCSV(t, dir, "test.csv", 100, 20, 2)
	s := decodeIn(t, "name: oc\ntask: auto\ndataset: {path: train.csv, test_path: test.csv}\nestimator: {type: one-class-svm, kernel: {type: gaussian, gamma: 0.5}, nu: 0.1}\n", dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Task != TaskBinary {
		t.Errorf("task %q, want binary", res.Task)
	}
	want := &model.OneClassSVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.1}
	if err := want.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	probe := mat.NewDense(3, 2, []float64{0, 0, 1.5, -1, 4, 4})
	got, err := res.Estimator.(*model.OneClassSVM).DecisionFunction(probe)
	if err != nil {
		t.Fatal(err)
	}
	exp, _ := want.DecisionFunction(probe)
	if !mat.Equal(got, exp) {
		t.Errorf("runner's decision values %v, model's %v", mat.Formatted(got.T()), mat.Formatted(exp.T()))
	}
	// The test accuracy is that of the model's ±1 against the file's
	// labels (a label mapping would move it).
	pred, _ := want.Predict(xt)
	right := 0
	for i, v := range pred {
		if v == yt[i] {
			right++
		}
	}
	acc := math.NaN()
	for _, m := range res.Test {
		if m.Name == "accuracy" {
			acc = m.Mean
		}
	}
	if exp := float64(right) / float64(len(yt)); acc != exp {
		t.Errorf("test accuracy %v, want %v (%d of %d)", acc, exp, right, len(yt))
	}

	g := decodeIn(t, "name: oc\ntask: binary\ndataset: {path: train.csv}\nestimator: {type: one-class-svm, kernel: {type: gaussian, gamma: 0.5}}\ngrid: {nu: [0.05, 0.6]}\ncv: {folds: 3, metric: accuracy}\n", dir)
	r, err := Run(context.Background(), g, Options{Out: t.TempDir(), NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Points) != 2 || r.Best != 0 {
		t.Errorf("grid over ν: %d points, best %d; want 2 and ν = 0.05 (index 0): %+v", len(r.Points), r.Best, r.Points)
	}
	if sv := r.Points[1].Info["support_vectors"]; !(sv >= 0.6*float64(len(y))*2/3) {
		t.Errorf("ν = 0.6: %g support vectors a fold, want at least νn = %g", sv, 0.6*float64(len(y))*2/3)
	}

	for _, c := range []struct{ spec, want string }{
		{"task: binary\nestimator: {type: one-class-svm, kernel: {type: gaussian, gamma: 1}, nu: 1.5}", "nu = 1.5, want ≤ 1"},
		{"task: binary\nestimator: {type: one-class-svm, kernel: {type: gaussian, gamma: 1}, nu: 0}", "nu = 0, want > 0"},
		{"task: regression\nestimator: {type: one-class-svm, kernel: {type: gaussian, gamma: 1}}", "one-class-svm"},
	} {
		_, err := Decode(strings.NewReader("name: oc\ndataset: {path: train.csv}\n"+c.spec+"\n"), dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.spec, err, c.want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "zo.csv"), []byte("a,b,y\n0,1,0\n1,0,1\n0.5,0.5,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := decodeIn(t, "name: oc\ntask: auto\ndataset: {path: zo.csv}\nestimator: {type: one-class-svm, kernel: {type: gaussian, gamma: 1}}\n", dir)
	if _, err := Fit(context.Background(), s2); err == nil || !strings.Contains(err.Error(), "training row 1 has label 0") {
		t.Errorf("labels 0/1: err = %v", err)
	}
}

// TestNuSpec: nu in an svm or svr spec fits ν-SVC or ν-SVR (the runner's
// model is model.SVM{Nu} / model.SVR{Nu} on the same rows, bit for bit, and
// with class_weight model.SVM{Nu, ClassWeights}), and the options ν
// replaces are refused at their lines.
func TestNuSpec(t *testing.T) {
	dir := t.TempDir()
	x, y := oneClassCSV(t, dir, "train.csv", 150, 40, 3)
	s := decodeIn(t, "name: nu\ntask: binary\ndataset: {path: train.csv}\nestimator: {type: svm, kernel: {type: gaussian, gamma: 0.5}, nu: 0.3}\n", dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := &model.SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.3}
	if err := want.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	probe := mat.NewDense(2, 2, []float64{0, 0, 3, 3})
	got, _ := res.Estimator.(*model.SVM).DecisionFunction(probe)
	exp, _ := want.DecisionFunction(probe)
	if !mat.Equal(got, exp) {
		t.Errorf("runner's ν-SVC %v, model's %v", mat.Formatted(got.T()), mat.Formatted(exp.T()))
	}
	// class_weight reaches ν-SVC as the weight of each of the class's rows.
	res, err = Fit(context.Background(), decodeIn(t, "name: nu\ntask: binary\ndataset: {path: train.csv}\nestimator: {type: svm, kernel: {type: gaussian, gamma: 0.5}, nu: 0.3, class_weight: '-1:2'}\n", dir))
	if err != nil {
		t.Fatal(err)
	}
	want = &model.SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.3, ClassWeights: map[float64]float64{-1: 2}}
	if err := want.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	got, _ = res.Estimator.(*model.SVM).DecisionFunction(probe)
	if exp, _ := want.DecisionFunction(probe); !mat.Equal(got, exp) {
		t.Errorf("runner's weighted ν-SVC %v, model's %v", mat.Formatted(got.T()), mat.Formatted(exp.T()))
	}
	r, err := Fit(context.Background(), decodeIn(t, "name: nu\ntask: regression\ndataset: {path: train.csv}\nestimator: {type: svr, kernel: {type: gaussian, gamma: 0.5}, nu: 0.4}\n", dir))
	if err != nil {
		t.Fatal(err)
	}
	if e := r.Estimator.(*model.SVR); e.Nu != 0.4 || e.Epsilon != 0 || e.AbsoluteLoss || !(e.Info().Epsilon > 0) {
		t.Errorf("svr with nu: Nu %g, Epsilon %g, AbsoluteLoss %v, ε found %g", e.Nu, e.Epsilon, e.AbsoluteLoss, e.Info().Epsilon)
	}
	for _, c := range []struct{ spec, want string }{
		{"task: binary\nestimator: {type: svm, kernel: {type: gaussian, gamma: 1}, nu: 0.3, c: 2}", "with nu the fit is ν-SVC, which has no c"},
		{"task: binary\nestimator: {type: svm, kernel: {type: gaussian, gamma: 1}, c: 2}\ngrid: {nu: [0.2, 0.3]}", "with nu the fit is ν-SVC, which has no c"},
		{"task: regression\nestimator: {type: svr, kernel: {type: gaussian, gamma: 1}, nu: 0.3, epsilon: 0.2}", "epsilon does not apply"},
		{"task: binary\nestimator: {type: svm, kernel: {type: gaussian, gamma: 1}, nu: 1.2}", "nu = 1.2, want ≤ 1"},
	} {
		_, err := Decode(strings.NewReader("name: nu\ndataset: {path: train.csv}\n"+c.spec+"\n"), dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.spec, err, c.want)
		}
	}
}
