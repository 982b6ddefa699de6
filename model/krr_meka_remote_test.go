package model

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
)

// TestMEKAKRRBasisSolverMatchesLocal: KRR on MEKA (MEKAKRR) and ridge on
// MEKA features (MEKAFeatures) with BasisSolver set — the cluster problems
// solved in-process by meka.SolveBasis, last first — predict exactly
// as the local fits with the same seed, and the solver was called.
func TestMEKAKRRBasisSolverMatchesLocal(t *testing.T) {
	ctx := context.Background()
	x, y := mekaData(240, rand.New(rand.NewPCG(11, 12)))
	xt, _ := mekaData(40, rand.New(rand.NewPCG(13, 14)))
	calls := 0
	solve := func(ctx context.Context, k kernel.Kernel, probs []meka.BasisProblem) ([]meka.Basis, error) {
		calls++
		out := make([]meka.Basis, len(probs))
		for i := len(probs) - 1; i >= 0; i-- {
			var err error
			if out[i], err = meka.SolveBasis(ctx, k, probs[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for _, name := range []string{"meka-krr", "meka-features"} {
		fit := func(bs meka.BasisSolver) []float64 {
			t.Helper()
			b := MEKAKRR{Options: meka.Options{Rank: 6, Clusters: 3, BasisSolver: bs}}
			var a KRRApprox = &b
			if name == "meka-features" {
				a = FeatureRidge{Features: MEKAFeatures{MEKA: b}}
			}
			m := &KRR{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-3, Seed: 5, Approx: a}
			if err := m.Fit(ctx, x, y); err != nil {
				t.Fatal(err)
			}
			p, err := m.Predict(xt)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		local := fit(nil)
		before := calls
		remote := fit(solve)
		if calls != before+1 {
			t.Fatalf("%s: basis solver called %d times, want 1", name, calls-before)
		}
		if !slices.Equal(local, remote) {
			t.Fatalf("%s: predictions with the basis solver differ from the local fit", name)
		}
	}
}
