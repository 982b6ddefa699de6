package approx

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Every sampler (and BLESS's Path), Nystrom.Fit and the Transform of the
// Nyström and random-Fourier maps refuse a nil context with ErrInput, as the
// estimators do, instead of panicking at the first cancellation check:
// before 2026-11-27 all of them dereferenced the nil context.
func TestSamplersRefuseNilContext(t *testing.T) {
	x := checktest.Normal(30, 2, 1)
	rng := rand.New(rand.NewPCG(1, 1))
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
		checktest.Refused(t, name, call, "nil context")
	}
}

// A nil dst is refused by the maps' Transform (ErrInput), not dereferenced.
func TestTransformRefusesNilDst(t *testing.T) {
	x := checktest.Normal(10, 2, 1)
	rng := rand.New(rand.NewPCG(1, 1))
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
		checktest.Refused(t, name, func() error { return m.Transform(ctx, nil, x) }, "nil dst")
	}
}

// A negative Workers is refused (ErrInput naming it) by the samplers that
// have the field, as model.Resources.Workers and meka's saved options are;
// before 2026-11-27 BLESS, BLESSR and RecursiveRLS silently ran it as 0
// (GOMAXPROCS).
func TestSamplersRefuseNegativeWorkers(t *testing.T) {
	x := checktest.Normal(30, 2, 2)
	rng := rand.New(rand.NewPCG(2, 2))
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
		checktest.Refused(t, name, call, "Workers = -1")
	}
}
