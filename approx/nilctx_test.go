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

// Every sampler (and BLESS's Path), Nystrom.Fit and the Transform of the
// Nyström and random-Fourier maps refuse a nil context with ErrInput, as the
// estimators do, instead of panicking at the first cancellation check:
// before 2026-11-27 all of them dereferenced the nil context.
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
	lm, err := Uniform{}.Sample(context.Background(), x, k, 5, rng)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := Nystrom{}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := RFF{Features: 8}.Fit(k, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	calls["nystrom fit"] = func() error { _, err := Nystrom{}.Fit(nilCtx, x, k, lm); return err }
	calls["nystrom transform"] = func() error { return nm.Transform(nilCtx, mat.NewDense(30, nm.Dim(), nil), x) }
	calls["rff transform"] = func() error { return rm.Transform(nilCtx, mat.NewDense(30, 8, nil), x) }
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

// A nil dst is refused by the maps' Transform (ErrInput), not dereferenced.
func TestTransformRefusesNilDst(t *testing.T) {
	x := mat.NewDense(10, 2, nil)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 10 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 1}
	ctx := context.Background()
	lm, err := Uniform{}.Sample(ctx, x, k, 3, rng)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := Nystrom{}.Fit(ctx, x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	rm, err := RFF{Features: 4}.Fit(k, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]FeatureMap{"nystrom": nm, "rff": rm} {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = errors.New("panic")
				}
			}()
			return m.Transform(ctx, nil, x)
		}()
		if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "nil dst") {
			t.Errorf("%s: err = %v, want ErrInput naming the nil dst", name, err)
		}
	}
}
