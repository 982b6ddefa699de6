package model

import (
	"context"
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// FittedFalkon must give an estimator that predicts exactly as the fit
// whose solution it wraps, and refuse inconsistent solutions.
func TestFittedFalkon(t *testing.T) {
	x := mat.NewDense(40, 2, nil)
	y := make([]float64, 40)
	for i := range 40 {
		x.Set(i, 0, float64(i)/10)
		x.Set(i, 1, float64(i%7)/3)
		y[i] = float64(i%2*2 - 1)
	}
	cfg := Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3, M: 10, Task: Classification, Seed: 3}
	ref := cfg
	if err := ref.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	got, err := FittedFalkon(cfg, ref.Solution(), []float64{1, -1, 1}, ref.Info())
	if err != nil {
		t.Fatal(err)
	}
	pw, _ := ref.DecisionFunction(x)
	pg, err := got.DecisionFunction(x)
	if err != nil || !mat.Equal(pw, pg) {
		t.Fatalf("wrapped model decides differently (err %v)", err)
	}
	if got.Info().Iterations != ref.Info().Iterations || len(got.Classes()) != 2 {
		t.Fatalf("info or classes lost: %+v %v", got.Info(), got.Classes())
	}
	sol := *ref.Solution()
	sol.Coef = mat.NewDense(9, 1, nil)
	if _, err := FittedFalkon(cfg, &sol, []float64{-1, 1}, FalkonInfo{}); !errors.Is(err, ErrInput) {
		t.Fatalf("9 coefficients for 10 centers: err = %v", err)
	}
	if _, err := FittedFalkon(cfg, ref.Solution(), []float64{1}, FalkonInfo{}); !errors.Is(err, ErrInput) {
		t.Fatalf("one class: err = %v", err)
	}
	reg := cfg
	reg.Task = Regression
	if _, err := FittedFalkon(reg, ref.Solution(), []float64{-1, 1}, FalkonInfo{}); !errors.Is(err, ErrInput) {
		t.Fatalf("classes for regression: err = %v", err)
	}
}
