package experiments

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestFitResultInterval: an svr fitted with probability: true and
// standardize_target gives intervals in the target's units: the model's
// PredictInterval on the standardized target mapped back by y·Std + Mean
// (the same bits), so of width 2σ·Std·ln(1/(1 − coverage)); models
// without the Laplace fit are refused with ErrNoInterval.
func TestFitResultInterval(t *testing.T) {
	dir, _, _, _ := weightFiles(t)
	s := decodeIn(t, "name: i\ntask: regression\ndataset: {path: train.csv, standardize_target: true}\nestimator: {type: svr, kernel: {type: gaussian, gamma: 2}, c: 10, epsilon: 0.05, probability: true}\n", dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Target == nil || res.Target.Std == 1 {
		t.Fatalf("target scaling %+v: the test needs a standardized target", res.Target)
	}
	probe := mat.NewDense(3, 2, []float64{0.1, 0.2, -0.5, 0.7, 0.9, -0.9})
	got, err := res.Interval(probe, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	svr := res.Estimator.(*model.SVR)
	lo, hi, err := svr.PredictInterval(probe, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	sd, mean := res.Target.Std, res.Target.Mean
	w := 2 * svr.Info().Sigma * sd * math.Log(5)
	for i := range 3 {
		if got.At(i, 0) != lo[i]*sd+mean || got.At(i, 1) != hi[i]*sd+mean {
			t.Errorf("row %d: [%g, %g], want [%g, %g]", i, got.At(i, 0), got.At(i, 1), lo[i]*sd+mean, hi[i]*sd+mean)
		}
		if d := got.At(i, 1) - got.At(i, 0); math.Abs(d-w) > 1e-12*w {
			t.Errorf("row %d: width %g, want 2σ·Std·ln 5 = %g", i, d, w)
		}
	}
	if _, err := res.Interval(probe, 1); !errors.Is(err, model.ErrInput) {
		t.Errorf("coverage 1: err = %v, want ErrInput", err)
	}
	for _, est := range []string{
		"{type: svr, kernel: {type: gaussian, gamma: 2}}",
		"{type: krr, kernel: {type: gaussian, gamma: 2}, lambda: 0.01}",
	} {
		r, err := Fit(context.Background(), decodeIn(t, "name: i\ntask: regression\ndataset: {path: train.csv}\nestimator: "+est+"\n", dir))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Interval(probe, 0.9); !errors.Is(err, ErrNoInterval) {
			t.Errorf("%s: err = %v, want ErrNoInterval", est, err)
		}
	}
}
