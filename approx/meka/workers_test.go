package meka

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Fit and FitBKA refuse a negative Workers (ErrInput naming it), as Load
// already did for a saved map; before 2026-11-27 both ran it as 0
// (GOMAXPROCS), so a fit was accepted with options its saved map refused.
func TestFitRefusesNegativeWorkers(t *testing.T) {
	x := mat.NewDense(40, 2, nil)
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range 40 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 1}
	ctx := context.Background()
	_, err := Fit(ctx, x, k, Options{Workers: -1}, rng)
	if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "Workers = -1") {
		t.Errorf("Fit: err = %v, want ErrInput naming Workers = -1", err)
	}
	_, err = FitBKA(ctx, x, k, BKAOptions{Clusters: 2, Workers: -1}, rng)
	if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "Workers = -1") {
		t.Errorf("FitBKA: err = %v, want ErrInput naming Workers = -1", err)
	}
}
