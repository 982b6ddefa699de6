package beamfit

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestMEKAMatchesLocal: MEKA with its per-cluster bases computed as Beam
// elements on Prism (MEKASolver) equals the local meka.Fit with the
// same seed exactly — link matrix, every basis W⁽ˢ⁾ with its rows, ranks,
// Transform features and the product W L Wᵀ V, bit for bit — on bundled
// heart_scale (270 × 13), dense with the "same" rank strategy and as CSR
// rows with the "eigen" strategy (ranks chosen on the driver); the work
// dir is left empty. KRR on MEKA (model.MEKAKRR with BasisSolver) then
// predicts exactly as the local KRR.
func TestMEKAMatchesLocal(t *testing.T) {
	ctx := context.Background()
	ds, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	sparse, err := datasets.CSRFromDense(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 0.05}
	for _, c := range []struct {
		name     string
		x        mat.Matrix
		strategy meka.RankStrategy
	}{{"dense", ds.X, meka.RankSame}, {"sparse", sparse, meka.RankEigen}} {
		opt := meka.Options{Rank: 8, Clusters: 4, Strategy: c.strategy}
		local, err := meka.Fit(ctx, c.x, k, opt, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		work := t.TempDir()
		opt.BasisSolver = MEKASolver(nil, work)
		dist, err := meka.Fit(ctx, c.x, k, opt, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(local.Link().RawSymmetric().Data, dist.Link().RawSymmetric().Data) {
			t.Fatalf("%s: link matrices differ", c.name)
		}
		if !slices.Equal(local.Stats().Ranks, dist.Stats().Ranks) {
			t.Fatalf("%s: ranks %v vs %v", c.name, local.Stats().Ranks, dist.Stats().Ranks)
		}
		for s := 0; s < local.Clusters(); s++ {
			wl, rl := local.Basis(s)
			wd, rd := dist.Basis(s)
			if !mat.Equal(wl, wd) || !slices.Equal(rl, rd) {
				t.Fatalf("%s: basis of cluster %d differs", c.name, s)
			}
		}
		n, _ := c.x.Dims()
		fl := mat.NewDense(n, local.Dim(), nil)
		fd := mat.NewDense(n, dist.Dim(), nil)
		if err := local.Transform(ctx, fl, c.x); err != nil {
			t.Fatal(err)
		}
		if err := dist.Transform(ctx, fd, c.x); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(fl, fd) {
			t.Fatalf("%s: Transform differs", c.name)
		}
		v := mat.NewDense(n, 1, ds.Y)
		ml := mat.NewDense(n, 1, nil)
		md := mat.NewDense(n, 1, nil)
		if err := local.Mul(ctx, ml, v); err != nil {
			t.Fatal(err)
		}
		if err := dist.Mul(ctx, md, v); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(ml, md) {
			t.Fatalf("%s: W L Wᵀ v differs", c.name)
		}
		if left, _ := os.ReadDir(work); len(left) != 0 {
			t.Errorf("%s: %d files left in the work dir", c.name, len(left))
		}
	}

	// KRR on MEKA through the model backend, work dir empty (a temporary folder).
	fit := func(bs meka.BasisSolver) []float64 {
		t.Helper()
		m := &model.KRR{Kernel: k, Lambda: 1e-3, Seed: 9, Approx: &model.MEKAKRR{Options: meka.Options{Rank: 8, Clusters: 4, BasisSolver: bs}}}
		if err := m.Fit(ctx, ds.X, ds.Y); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(ds.X)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if !slices.Equal(fit(nil), fit(MEKASolver(nil, ""))) {
		t.Fatal("KRR on MEKA through Beam predicts differently from the local fit")
	}
}
