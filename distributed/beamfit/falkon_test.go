package beamfit

import (
	"bytes"
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// cadata returns the first rows of bundled cadata, standardized, with the
// target in units of $100,000.
func cadata(t *testing.T, rows int) (*mat.Dense, []float64) {
	t.Helper()
	train, err := datasets.Load("cadata")
	if err != nil {
		t.Fatal(err)
	}
	n, d := train.X.Dims()
	rows = min(rows, n)
	x := mat.DenseCopyOf(train.X.Slice(0, rows, 0, d))
	var sc datasets.Standardizer
	if err := sc.Fit(x); err != nil {
		t.Fatal(err)
	}
	xs, err := sc.Transform(x)
	if err != nil {
		t.Fatal(err)
	}
	y := make([]float64, rows)
	for i := range y {
		y[i] = train.Y[i] / 1e5
	}
	return xs, y
}

func relDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / mat.Norm(b, 2)
}

// TestFalkonMatchesLocal is the acceptance check: on cadata, the
// Beam fit on Prism with 1, 3 and 8 shards equals model.Falkon with the same
// centers. With one shard the pass is the engine's own sum and the fit must
// be identical bit for bit. With k shards each pass adds the same rows
// grouped otherwise (32 segments per shard, then k shard sums in order,
// where the local engine adds 32 fixed segments of all rows), so a pass
// differs from the local product by round-off, in the worst case about
// (n/32 + k + 32)·u·Σ|terms| per entry (the longest chain of additions
// times u), in practice far less. PCG then
// carries that difference in the norm it controls, the energy norm
// ‖v‖_H = √(vᵀHv) of H = K_nMᵀK_nM + λn K_MM: FALKON's preconditioned
// operator is well conditioned, so after t iterations the difference stays
// within about t·(per-pass difference) in that norm. The test asserts
// ‖α_beam − α_local‖_H ≤ 1e-10·‖α_local‖_H (the 1e-10, in the norm
// CG works in) and the predictions to 1e-10 (‖K_nM δα‖ ≤ ‖δα‖_H).
// Euclidean coefficient differences are not bounded by that: α sits partly
// in eigen-directions of H with tiny eigenvalues (here κ(H) ≈ 9e12), where
// a small H-norm allows a large Euclidean change, up to
// ‖δα‖₂/‖α‖₂ ≤ √κ(H)·‖δα‖_H/‖α‖_H ≈ 3e6·(H-norm difference). Measured
// (3 / 8 shards): H-norm 4.7e-12 / 6.7e-12, predictions 4.5e-12 / 6.5e-12,
// Euclidean 2.2e-10 / 2.6e-10; the test logs all three and asserts the
// first two.
func TestFalkonMatchesLocal(t *testing.T) {
	rows := 20640 // all of bundled cadata
	if testing.Short() {
		rows = 4000
	}
	x, y := cadata(t, rows)
	k := kernel.GaussianSigma(2)
	const lambda, m, iters = 1e-6, 300, 10
	ctx := context.Background()
	var ref *model.Falkon
	var centers *mat.Dense
	var hn *energyNorm
	for _, shards := range []int{1, 3, 8} {
		dir := filepath.Join(t.TempDir(), "data")
		if _, err := shard.WriteDir(dir, x, y, (rows+shards-1)/shards, false); err != nil {
			t.Fatal(err)
		}
		var passes []Pass
		bf := &Falkon{Kernel: k, Lambda: lambda, M: m, Seed: 7, MaxIter: iters, Tol: 1e-14,
			Progress: func(p Pass) { passes = append(passes, p) }}
		res, err := bf.Fit(ctx, filepath.Join(dir, shard.ManifestName))
		if err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		if len(passes) != iters+1 || passes[iters].Iteration != iters {
			t.Fatalf("%d shards: %d progress reports, want %d (one per launch)", shards, len(passes), iters+1)
		}
		sol := res.Model.Solution()
		if centers == nil {
			centers = sol.Centers.(*mat.Dense)
			ref = &model.Falkon{Kernel: k, Lambda: lambda, Centers: centers, MaxIter: iters, Tol: 1e-14}
			if err := ref.Fit(ctx, x, y); err != nil {
				t.Fatal(err)
			}
			if got := ref.Info().Iterations; got != iters {
				t.Fatalf("local fit ran %d iterations, want %d", got, iters)
			}
		} else if !mat.Equal(sol.Centers, centers) {
			t.Fatalf("%d shards: the sampled centers depend on the sharding", shards)
		}
		pb, err := res.Model.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := ref.Predict(x)
		ep := relDiff(mat.NewDense(rows, 1, pb), mat.NewDense(rows, 1, pl))
		ec := relDiff(sol.Coef, ref.Solution().Coef)
		if hn == nil {
			hn = newEnergyNorm(t, k, x, centers, lambda)
		}
		var dc mat.Dense
		dc.Sub(sol.Coef, ref.Solution().Coef)
		eh := hn.norm(&dc) / hn.norm(ref.Solution().Coef)
		t.Logf("%d shards: predictions within %.3g, coefficients within %.3g in the H-norm, %.3g Euclidean (√κ(H) = %.3g)",
			shards, ep, eh, ec, math.Sqrt(hn.kappa))
		if !(ep <= 1e-10) {
			t.Errorf("%d shards: predictions differ from the local fit by %.3g relative", shards, ep)
		}
		if !(eh <= 1e-10) {
			t.Errorf("%d shards: coefficients differ from the local fit by %.3g relative in the H-norm", shards, eh)
		}
		if shards == 1 && ec != 0 {
			t.Errorf("1 shard: coefficients differ by %.3g; one shard is the local engine's sum, bit for bit", ec)
		}
		// The model saves and loads as any model.Falkon.
		var buf bytes.Buffer
		if err := model.Save(&buf, res.Model); err != nil {
			t.Fatal(err)
		}
		back, err := model.Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		p2, _ := back.Predict(x.Slice(0, 5, 0, 8).(*mat.Dense))
		for i := range p2 {
			if p2[i] != pb[i] {
				t.Fatalf("reloaded model predicts %v, want %v", p2[i], pb[i])
			}
		}
	}
	// A sanity check that the fit learned something: training RMSE well
	// below the target's standard deviation (about 1.15 in $100,000).
	pl, _ := ref.Predict(x)
	var s, mean float64
	for _, v := range y {
		mean += v / float64(rows)
	}
	var sd float64
	for i, v := range y {
		s += (pl[i] - v) * (pl[i] - v)
		sd += (v - mean) * (v - mean)
	}
	if rmse, std := math.Sqrt(s/float64(rows)), math.Sqrt(sd/float64(rows)); !(rmse < 0.7*std) {
		t.Errorf("training RMSE %.3g vs target std %.3g", rmse, std)
	}
}

// energyNorm evaluates ‖v‖_H = √(‖K_nM v‖² + λn·vᵀK_MM v), H = K_nMᵀK_nM +
// λn K_MM, from K_nM and K_MM formed whole (not from H, whose rounding
// would swamp the small eigen-directions), and holds κ(H).
type energyNorm struct {
	knm, kmm *mat.Dense
	penalty  float64
	kappa    float64
}

func newEnergyNorm(t *testing.T, k kernel.Kernel, x, c *mat.Dense, lambda float64) *energyNorm {
	t.Helper()
	n, _ := x.Dims()
	_, _, lmin, lmax := nystromSystem(t, k, x, make([]float64, n), c, lambda)
	m, _ := c.Dims()
	e := &energyNorm{knm: mat.NewDense(n, m, nil), kmm: mat.NewDense(m, m, nil), penalty: lambda * float64(n), kappa: lmax / lmin}
	ctx := context.Background()
	if err := kernel.NewOp(k, x, c, kernel.Options{}).Block(ctx, e.knm); err != nil {
		t.Fatal(err)
	}
	if err := kernel.NewOp(k, c, c, kernel.Options{}).Block(ctx, e.kmm); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *energyNorm) norm(v *mat.Dense) float64 {
	var kv, mv mat.Dense
	kv.Mul(e.knm, v)
	mv.Mul(e.kmm, v)
	s := mat.Dot(kv.ColView(0), kv.ColView(0)) + e.penalty*mat.Dot(v.ColView(0), mv.ColView(0))
	return math.Sqrt(s)
}

// A Beam fit splits PrecondTime as model.Falkon.Fit does: KMMTime (K_MM on
// the driver), FactorTime (the preconditioner's factorizations) and
// RHSTime (the K_nMᵀY pass, the first pass launched: at least that pass's
// wall time, which it contains) are positive and disjoint parts of it.
func TestFalkonSetupTimes(t *testing.T) {
	x, y := cadata(t, 2000)
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(dir, x, y, 700, false); err != nil {
		t.Fatal(err)
	}
	var passes []Pass
	bf := &Falkon{Kernel: kernel.GaussianSigma(2), Lambda: 1e-6, M: 100, Seed: 3, MaxIter: 3,
		Progress: func(p Pass) { passes = append(passes, p) }}
	res, err := bf.Fit(context.Background(), filepath.Join(dir, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	i := res.Model.Info()
	if i.KMMTime <= 0 || i.FactorTime <= 0 || i.RHSTime <= 0 || i.KMMTime+i.FactorTime+i.RHSTime > i.PrecondTime {
		t.Errorf("K_MM %v + factors %v + K_nMᵀy %v against PrecondTime %v: want three positive parts of it", i.KMMTime, i.FactorTime, i.RHSTime, i.PrecondTime)
	}
	if len(passes) == 0 || passes[0].Wall <= 0 || i.RHSTime < passes[0].Wall {
		t.Errorf("RHSTime %v, first pass %+v: want the K_nMᵀY pass inside RHSTime", i.RHSTime, passes)
	}
}
