package examples_test

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Classifiers refuse a continuous target (scikit-learn's
// check_classification_targets rule, model.NewLabels): y = f(x) + ε has a
// distinct non-integer value per row.
func TestClassifierRefusesContinuousTarget(t *testing.T) {
	train, _ := smooth(t, 200, 1, false, 17)
	k := kernel.Gaussian{Gamma: 1}
	for _, c := range []struct {
		name string
		est  model.Estimator
	}{
		{"svm", &model.SVM{Kernel: k}},
		{"bka-svm", &model.BKASVM{Kernel: k, Clusters: 2}},
		{"krr", &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification}},
		{"falkon", &model.Falkon{Kernel: k, Lambda: 1e-3, M: 20, Task: model.Classification}},
	} {
		err := c.est.Fit(context.Background(), train.X, train.Y)
		if !errors.Is(err, model.ErrInput) {
			t.Errorf("%s: continuous y accepted as classes: err = %v", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		checkStyle(t, c.name, err)
	}
	// Rounded to integers with 200/2 = 100 or fewer values, the same y is
	// accepted (here: 3 classes).
	y := make([]float64, len(train.Y))
	for i, v := range train.Y {
		y[i] = math.Round(v)
	}
	s := &model.SVM{Kernel: k}
	if err := s.Fit(context.Background(), train.X, y); err != nil {
		t.Errorf("integer labels refused: %v", err)
	}
}

// Bad shapes and values get ErrInput, never a panic or a silent fix.
func TestBadInputErrors(t *testing.T) {
	train, test := smooth(t, 100, 10, false, 18)
	withNaN := mat.DenseCopyOf(train.X)
	withNaN.Set(17, 1, math.NaN())
	wide := mat.NewDense(3, 5, nil)
	var nilCtx context.Context
	for _, c := range estimators(train.Y) {
		ctx := context.Background()
		if _, err := c.est.Predict(test.X); !errors.Is(err, model.ErrNotFitted) {
			t.Errorf("%s: Predict before Fit: err = %v, want ErrNotFitted", c.name, err)
		}
		yNaN := slices.Clone(c.y)
		yNaN[3] = math.NaN()
		checks := []struct {
			what string
			err  error
		}{
			{"NaN in x", c.est.Fit(ctx, withNaN, c.y)},
			{"NaN in y", c.est.Fit(ctx, train.X, yNaN)},
			{"y shorter than x", c.est.Fit(ctx, train.X, c.y[:50])},
			{"nil context", c.est.Fit(nilCtx, train.X, c.y)},
		}
		for _, ch := range checks {
			if !errors.Is(ch.err, model.ErrInput) {
				t.Errorf("%s: %s: err = %v, want ErrInput", c.name, ch.what, ch.err)
			}
			checkStyle(t, c.name+": "+ch.what, ch.err)
		}
		if err := c.est.Fit(ctx, train.X, c.y); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if _, err := c.est.Predict(wide); !errors.Is(err, model.ErrInput) {
			t.Errorf("%s: Predict on 5 columns after fitting on 2: err = %v, want ErrInput", c.name, err)
		}
	}
	if err := (&model.KRR{}).Fit(context.Background(), train.X, train.Y); !errors.Is(err, model.ErrInput) {
		t.Errorf("KRR without Lambda: err = %v, want ErrInput", err)
	}
}

// A fitted estimator predicts from many goroutines at once with the same
// result as alone (run under -race by .ci/run).
func TestConcurrentPredict(t *testing.T) {
	train, test := smooth(t, 300, 40, false, 19)
	for _, c := range estimators(train.Y) {
		if err := c.est.Fit(context.Background(), train.X, c.y); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := mustPredict(t, c.est, test.X)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for g := range errs {
			wg.Go(func() {
				p, err := c.est.Predict(test.X)
				if err == nil && !slices.Equal(p, want) {
					err = errors.New("different predictions")
				}
				errs[g] = err
			})
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Errorf("%s: concurrent Predict: %v", c.name, err)
		}
	}
}

// checkStyle asserts the error style every Landmark error follows ("package:
// what: why"): it starts with the package name, and names neither an
// internal package nor a command-line flag.
func checkStyle(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "model: ") {
		t.Errorf("%s: error %q does not start with \"model: \"", what, msg)
	}
	for _, bad := range []string{"binfmt", "internal/", " --", "check:"} {
		if strings.Contains(msg, bad) {
			t.Errorf("%s: error %q contains %q", what, msg, bad)
		}
	}
}
