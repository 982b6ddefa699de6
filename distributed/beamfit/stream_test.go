package beamfit

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestBeamMatchesFitShards: the Beam fit and model.Falkon.FitShardSet —
// the same shard passes (model.ShardPass) and center draw
// (model.FalkonBuilder.SampleShards), one launched as pipelines, the other
// streamed through this process — give the same centers, BLESS weights
// and coefficients bit for bit on the same shards: 4,000 cadata rows
// (unstandardized, standardized on read by both) in 3 shards, uniform and
// BLESS centers, M = 100, 6 iterations. Both read each shard in the
// default blocks (model.ShardBlockRows), here one block a shard.
func TestBeamMatchesFitShards(t *testing.T) {
	x, y := cadata(t, 4000)
	// cadata comes standardized: scaled by 3, the manifest's statistics
	// have something to undo.
	xs := mat.DenseCopyOf(x)
	xs.Scale(3, xs)
	dir := filepath.Join(t.TempDir(), "data")
	man, err := shard.WriteDir(dir, xs, y, 1334, false)
	if err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, shard.ManifestName)
	k := kernel.GaussianSigma(2)
	ctx := context.Background()
	for _, sampler := range []approx.Sampler{nil, approx.BLESS{}} {
		bf := &Falkon{Kernel: k, Lambda: 1e-6, M: 100, Seed: 3, Sampler: sampler, MaxIter: 6, Tol: 1e-14, Standardize: true}
		res, err := bf.Fit(ctx, manifest)
		if err != nil {
			t.Fatal(err)
		}
		set, err := model.OpenShards(manifest)
		if err != nil {
			t.Fatal(err)
		}
		set.Mean, set.Std = man.Mean, man.Std
		fm := &model.Falkon{Kernel: k, Lambda: 1e-6, M: 100, Seed: 3, Sampler: sampler, MaxIter: 6, Tol: 1e-14}
		if err := fm.FitShardSet(ctx, set); err != nil {
			t.Fatal(err)
		}
		bs, ss := res.Model.Solution(), fm.Solution()
		bi, si := res.Model.Info(), fm.Info()
		if !mat.Equal(bs.Centers, ss.Centers) || bi.Preconditioner != si.Preconditioner || bi.PrecondLambda != si.PrecondLambda {
			t.Fatalf("%T: centers or preconditioner differ (%s at %g, %s at %g)", sampler, bi.Preconditioner, bi.PrecondLambda, si.Preconditioner, si.PrecondLambda)
		}
		if !mat.Equal(bs.Coef, ss.Coef) || bi.Iterations != 6 || si.Iterations != 6 {
			var d mat.Dense
			d.Sub(bs.Coef, ss.Coef)
			t.Errorf("%T: coefficients differ by %.3g (max abs), %d / %d iterations", sampler, mat.Norm(&d, math.Inf(1)), bi.Iterations, si.Iterations)
		}
		if sampler != nil && (res.CenterWeights == nil || !slices.Equal(res.CenterRows, rowsOf(t, xs, ss.Centers.(*mat.Dense), man))) {
			t.Errorf("BLESS: the Beam fit's center rows are not the streamed fit's centers")
		}
	}
}

// rowsOf finds the row of x each standardized center came from.
func rowsOf(t *testing.T, x, c *mat.Dense, man *shard.Manifest) []int {
	t.Helper()
	n, _ := x.Dims()
	m, _ := c.Dims()
	set := &model.ShardSet{Mean: man.Mean, Std: man.Std}
	xs := mat.DenseCopyOf(x)
	set.Standardize(xs.RawMatrix().Data)
	out := make([]int, m)
	for j := range m {
		out[j] = -1
		for i := range n {
			if slices.Equal(xs.RawRowView(i), c.RawRowView(j)) {
				out[j] = i
				break
			}
		}
	}
	return out
}
