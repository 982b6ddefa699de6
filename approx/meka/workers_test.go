package meka

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Fit and FitBKA refuse a negative Workers (ErrInput naming it), as Load
// already did for a saved map; before 2026-11-27 both ran it as 0
// (GOMAXPROCS), so a fit was accepted with options its saved map refused.
// They refuse a nil context too (before, a nil dereference).
func TestFitRefusesBadArgs(t *testing.T) {
	x := checktest.Normal(40, 2, 3)
	rng := rand.New(rand.NewPCG(3, 3))
	k := kernel.Gaussian{Gamma: 1}
	ctx := context.Background()
	var nilCtx context.Context
	for _, c := range []struct {
		name, want string
		call       func() error
	}{
		{"Fit, Workers -1", "Workers = -1", func() error { _, err := Fit(ctx, x, k, Options{Workers: -1}, rng); return err }},
		{"FitBKA, Workers -1", "Workers = -1", func() error {
			_, err := FitBKA(ctx, x, k, BKAOptions{Clusters: 2, Workers: -1}, rng)
			return err
		}},
		{"Fit, nil context", "nil context", func() error { _, err := Fit(nilCtx, x, k, Options{}, rng); return err }},
		{"FitBKA, nil context", "nil context", func() error { _, err := FitBKA(nilCtx, x, k, BKAOptions{Clusters: 2}, rng); return err }},
	} {
		checktest.Refused(t, c.name, c.call, c.want)
	}
}

// Map.Transform refuses a nil context and a nil dst with ErrInput instead
// of panicking (before 2026-11-27 both were dereferenced).
func TestTransformRefusesNilArgs(t *testing.T) {
	x := checktest.Normal(40, 2, 4)
	rng := rand.New(rand.NewPCG(4, 4))
	m, err := Fit(context.Background(), x, kernel.Gaussian{Gamma: 1}, Options{}, rng)
	if err != nil {
		t.Fatal(err)
	}
	var nilCtx context.Context
	checktest.Refused(t, "nil context", func() error { return m.Transform(nilCtx, mat.NewDense(40, m.Dim(), nil), x) }, "nil context")
	checktest.Refused(t, "nil dst", func() error { return m.Transform(context.Background(), nil, x) }, "nil dst")
}
