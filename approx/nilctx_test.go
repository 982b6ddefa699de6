package approx

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Every sampler (and BLESS's Path) refuses a nil context with ErrInput, as
// the estimators do, instead of panicking at its first cancellation check:
// before 2026-11-27 all seven Sample methods and both Path methods
// dereferenced the nil context.
func TestSamplersRefuseNilContext(t *testing.T) {
	x := mat.NewDense(30, 2, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 30 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 1}
	var nilCtx context.Context
	calls := map[string]func() error{
		"bless path":  func() error { _, err := BLESS{}.Path(nilCtx, x, k, 1e-3, rng); return err },
		"blessr path": func() error { _, err := BLESSR{}.Path(nilCtx, x, k, 1e-3, rng); return err },
	}
	for _, s := range []Sampler{Uniform{}, BLESS{}, BLESSR{}, RecursiveRLS{}, ExactRLS{}, KMeansCenters{}, RandomizedClustered{}} {
		calls[fmt.Sprintf("%T", s)] = func() error { _, err := s.Sample(nilCtx, x, k, 5, rng); return err }
	}
	for name, call := range calls {
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
