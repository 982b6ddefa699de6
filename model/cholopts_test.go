package model_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/solver"
)

// Invalid Cholesky options (KRR.Cholesky, Falkon.Cholesky) are bad input:
// the error wraps ErrInput, as the package documentation promises for every
// refused configuration. Before 2026-11-27 solver's check returned a plain
// error ("solver: cholesky: want 0 < jitter (-1) ≤ max jitter (0.01),
// finite") that errors.Is(err, model.ErrInput) did not match.
func TestCholeskyOptionsAreInputErrors(t *testing.T) {
	x, _, _, y, _ := badData()
	k := kernel.Gaussian{Gamma: 1}
	for _, o := range []solver.CholOptions{
		{Jitter: -1}, {Jitter: math.NaN()}, {MaxJitter: -1},
		{Jitter: 1e-3, MaxJitter: 1e-6}, {MaxJitter: math.Inf(1)},
	} {
		for name, e := range map[string]model.Estimator{
			"krr exact":   &model.KRR{Kernel: k, Lambda: 1e-3, Cholesky: o},
			"krr nystrom": &model.KRR{Kernel: k, Lambda: 1e-3, Cholesky: o, Approx: model.NystromKRR{M: 5}},
			"falkon":      &model.Falkon{Kernel: k, Lambda: 1e-3, M: 5, Cholesky: o},
		} {
			err := e.Fit(context.Background(), x, y)
			if !errors.Is(err, model.ErrInput) {
				t.Errorf("%s, %+v: err = %v, want ErrInput", name, o, err)
			}
		}
	}
}
