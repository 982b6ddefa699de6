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

// Map.Transform refuses a nil context and a nil dst with ErrInput instead
// of panicking (before 2026-11-27 both were dereferenced).
func TestTransformRefusesNilArgs(t *testing.T) {
	x := mat.NewDense(40, 2, nil)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range 40 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	m, err := Fit(context.Background(), x, kernel.Gaussian{Gamma: 1}, Options{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	var nilCtx context.Context
	for name, call := range map[string]func() error{
		"nil context": func() error { return m.Transform(nilCtx, mat.NewDense(40, m.Dim(), nil), x) },
		"nil dst":     func() error { return m.Transform(context.Background(), nil, x) },
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = errors.New("panic")
				}
			}()
			return call()
		}()
		if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want ErrInput naming it", name, err)
		}
	}
}

// Fit and FitBKA refuse a nil context with ErrInput; before 2026-11-27 both
// panicked with a nil dereference.
func TestFitRefusesNilContext(t *testing.T) {
	x := mat.NewDense(40, 2, nil)
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 40 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 1}
	var nilCtx context.Context
	for name, call := range map[string]func() error{
		"Fit":    func() error { _, err := Fit(nilCtx, x, k, Options{}, rng); return err },
		"FitBKA": func() error { _, err := FitBKA(nilCtx, x, k, BKAOptions{Clusters: 2}, rng); return err },
	} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = errors.New("panic")
				}
			}()
			return call()
		}()
		if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "nil context") {
			t.Errorf("%s: err = %v, want ErrInput naming the nil context", name, err)
		}
	}
}
