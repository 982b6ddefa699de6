package cluster

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// KMeans.Fit refuses a nil context with ErrInput; before 2026-11-27 it
// panicked with a nil dereference at its first cancellation check.
func TestKMeansRefusesNilContext(t *testing.T) {
	x := mat.NewDense(20, 2, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 20 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	var nilCtx context.Context
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = errors.New("panic")
			}
		}()
		_, err = KMeans{K: 2}.Fit(nilCtx, x, rng)
		return err
	}()
	if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("err = %v, want ErrInput naming the nil context", err)
	}
}
