package cluster

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
)

// KMeans.Fit refuses a nil context with ErrInput; before 2026-11-27 it
// panicked with a nil dereference at its first cancellation check.
func TestKMeansRefusesNilContext(t *testing.T) {
	x := checktest.Normal(20, 2, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	var nilCtx context.Context
	checktest.Refused(t, "KMeans.Fit", func() error { _, err := KMeans{K: 2}.Fit(nilCtx, x, rng); return err }, "nil context")
}
