package approx

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

// A negative Workers is refused (ErrInput naming it) by the samplers that
// have the field, as model.Resources.Workers and meka's saved options are;
// before 2026-11-27 BLESS, BLESSR and RecursiveRLS silently ran it as 0
// (GOMAXPROCS).
func TestSamplersRefuseNegativeWorkers(t *testing.T) {
	x := mat.NewDense(30, 2, nil)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range 30 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 1}
	ctx := context.Background()
	calls := map[string]func() error{
		"bless":           func() error { _, err := BLESS{Workers: -1}.Sample(ctx, x, k, 5, rng); return err },
		"blessr":          func() error { _, err := BLESSR{Workers: -1}.Sample(ctx, x, k, 5, rng); return err },
		"bless path":      func() error { _, err := BLESS{Workers: -1}.Path(ctx, x, k, 1e-3, rng); return err },
		"recursive rls":   func() error { _, err := RecursiveRLS{Workers: -1}.Sample(ctx, x, k, 5, rng); return err },
		"recursive rls λ": func() error { _, err := RecursiveRLS{Workers: -1}.SampleRidge(ctx, x, k, 1e-3, rng); return err },
	}
	for name, call := range calls {
		err := call()
		if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "Workers = -1") {
			t.Errorf("%s: err = %v, want ErrInput naming Workers = -1", name, err)
		}
	}
}
