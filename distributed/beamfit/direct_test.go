package beamfit

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// TestDirectMatchesNystrom checks the one-pass form (Falkon.Direct) on
// cadata with 1, 3 and 8 shards on Prism against the local exact Nyström
// solution with the same centers: model.KRR with the NystromKRR backend,
// which forms the same A = K_nMᵀK_nM + λn K_MM by another blocking (gonum
// dgemm over 8 MiB row chunks, where the shards use the engine's SyrkLower)
// and solves it by the same jittered Cholesky.
//
// Both are backward-stable solves of A α = b: each must have a normwise
// backward error ‖Aα − b‖/(‖A‖‖α‖ + ‖b‖) of a few u (u = 1.1e-16; 1e-13
// allows M·u = 3.3e-14 with a factor 3), measured against an A and b the
// test forms itself from the whole K_nM. Here κ(A) ≈ 9e12 (λ = 1e-6), so
// two backward-stable solutions need not agree to 1e-10: with r = Aα − b,
// A(α_beam − α_local) = r_beam − r_local exactly, hence
// ‖α_beam − α_local‖ ≤ ‖r_beam − r_local‖/λ_min(A) and, as K_nMᵀK_nM ≼ A,
// ‖K_nM(α_beam − α_local)‖ ≤ ‖r_beam − r_local‖/√λ_min(A). The test asserts
// both bounds (a factor 2 for the round-off in evaluating them).
func TestDirectMatchesNystrom(t *testing.T) {
	rows := 20640
	if testing.Short() {
		rows = 4000
	}
	x, y := cadata(t, rows)
	k := kernel.GaussianSigma(2)
	const lambda, m = 1e-6, 300
	ctx := context.Background()
	var ref *model.KRR
	var a, b *mat.Dense
	var lmin float64
	for _, shards := range []int{1, 3, 8} {
		dir := filepath.Join(t.TempDir(), "data")
		if _, err := shard.WriteDir(dir, x, y, (rows+shards-1)/shards, false); err != nil {
			t.Fatal(err)
		}
		var passes []Pass
		bf := &Falkon{Kernel: k, Lambda: lambda, M: m, Seed: 7, Direct: true,
			Progress: func(p Pass) { passes = append(passes, p) }}
		res, err := bf.Fit(ctx, filepath.Join(dir, shard.ManifestName))
		if err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		if len(passes) != 1 || len(res.Passes) != 1 {
			t.Fatalf("%d shards: %d launches, want 1", shards, len(res.Passes))
		}
		sol := res.Model.Solution()
		if ref == nil {
			ref = &model.KRR{Kernel: k, Lambda: lambda, Approx: model.NystromKRR{Centers: sol.Centers}}
			if err := ref.Fit(ctx, x, y); err != nil {
				t.Fatal(err)
			}
			var lmax float64
			a, b, lmin, lmax = nystromSystem(t, k, x, y, sol.Centers.(*mat.Dense), lambda)
			t.Logf("λ_min(A) = %.3g, κ(A) = %.3g, local jitter %g", lmin, lmax/lmin, ref.Info().Jitter)
		}
		if res.Jitter != ref.Info().Jitter {
			t.Errorf("%d shards: jitter %g, local %g", shards, res.Jitter, ref.Info().Jitter)
		}
		refCoef := ref.Predictor().(*model.KernelExpansion).Coef
		eb, er := backwardError(a, sol.Coef, b), backwardError(a, refCoef, b)
		var dr mat.Dense // r_beam − r_local = A(α_beam − α_local)
		dr.Sub(sol.Coef, refCoef)
		dc := mat.Norm(&dr, 2)
		dr.Mul(a, &dr)
		rnorm := mat.Norm(&dr, 2)
		pb, err := res.Model.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := ref.Predict(x)
		dp := floats.Distance(pb, pl, 2)
		t.Logf("%d shards: backward error %.3g (local %.3g); coefficients differ by %.3g (bound %.3g), predictions by %.3g (bound %.3g), relative %.3g and %.3g",
			shards, eb, er, dc, rnorm/lmin, dp, rnorm/math.Sqrt(lmin), relDiff(sol.Coef, refCoef), dp/floats.Norm(pl, 2))
		if !(eb <= 1e-13) || !(er <= 1e-13) {
			t.Errorf("%d shards: backward errors %.3g (beam), %.3g (local), want ≤ 1e-13", shards, eb, er)
		}
		if !(dc <= 2*rnorm/lmin) {
			t.Errorf("%d shards: coefficients differ by %.3g, over 2‖Δr‖/λ_min = %.3g", shards, dc, 2*rnorm/lmin)
		}
		if !(dp <= 2*rnorm/math.Sqrt(lmin)) {
			t.Errorf("%d shards: predictions differ by %.3g, over 2‖Δr‖/√λ_min = %.3g", shards, dp, 2*rnorm/math.Sqrt(lmin))
		}
	}
}

// nystromSystem forms A = K_nMᵀK_nM + λn K_MM and b = K_nMᵀy from the whole
// K_nM, and returns them with A's extreme eigenvalues.
func nystromSystem(t *testing.T, k kernel.Kernel, x *mat.Dense, y []float64, c *mat.Dense, lambda float64) (a, b *mat.Dense, lmin, lmax float64) {
	t.Helper()
	ctx := context.Background()
	n, _ := x.Dims()
	m, _ := c.Dims()
	knm := mat.NewDense(n, m, nil)
	if err := kernel.NewOp(k, x, c, kernel.Options{}).Block(ctx, knm); err != nil {
		t.Fatal(err)
	}
	kmm := mat.NewDense(m, m, nil)
	if err := kernel.NewOp(k, c, c, kernel.Options{}).Block(ctx, kmm); err != nil {
		t.Fatal(err)
	}
	a = mat.NewDense(m, m, nil)
	a.Mul(knm.T(), knm)
	kmm.Scale(lambda*float64(n), kmm)
	a.Add(a, kmm)
	b = mat.NewDense(m, 1, nil)
	b.Mul(knm.T(), mat.NewDense(n, 1, y))
	sym := mat.NewSymDense(m, nil)
	for i := range m {
		for j := i; j < m; j++ {
			sym.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, false) {
		t.Fatal("eigendecomposition of A failed")
	}
	ev := eig.Values(nil)
	return a, b, floats.Min(ev), floats.Max(ev)
}

// backwardError is ‖Aα − b‖₂/(‖A‖₂‖α‖₂ + ‖b‖₂) (α and b are vectors here).
func backwardError(a, alpha, b *mat.Dense) float64 {
	var r mat.Dense
	r.Mul(a, alpha)
	r.Sub(&r, b)
	return mat.Norm(&r, 2) / (mat.Norm(a, 2)*mat.Norm(alpha, 2) + mat.Norm(b, 2))
}

// TestDirectMulticlass runs the one-pass form on a 10-class problem
// (pendigits, 2,000 rows, t = 10 one-vs-rest outputs, 3 shards) at a λ
// where A is well conditioned, against model.KRR with the NystromKRR
// backend and the same centers: the decision values must agree to 1e-9
// relative — κ(A) (logged) times the 1e-13 backward-error
// bound of TestDirectMatchesNystrom — and the predicted labels exactly.
// Measured: κ(A) = 2.2e3, decision values within 1.4e-14.
func TestDirectMulticlass(t *testing.T) {
	ds, err := datasets.Load("pendigits")
	if err != nil {
		t.Fatal(err)
	}
	const rows, m, lambda = 2000, 100, 1e-3
	_, d := ds.X.Dims()
	x := mat.DenseCopyOf(ds.X.Slice(0, rows, 0, d))
	y := ds.Y[:rows]
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(dir, x, y, (rows+2)/3, true); err != nil {
		t.Fatal(err)
	}
	k := kernel.GaussianSigma(40) // pendigits' features run 0–100
	ctx := context.Background()
	bf := &Falkon{Kernel: k, Lambda: lambda, M: m, Seed: 3, Direct: true}
	res, err := bf.Fit(ctx, filepath.Join(dir, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	c := res.Model.Solution().Centers.(*mat.Dense)
	ref := &model.KRR{Kernel: k, Lambda: lambda, Task: model.Classification, Approx: model.NystromKRR{Centers: c}}
	if err := ref.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	_, _, lmin, lmax := nystromSystem(t, k, x, y, c, lambda)
	db, err := res.Model.DecisionFunction(x)
	if err != nil {
		t.Fatal(err)
	}
	dl, err := ref.DecisionFunction(x)
	if err != nil {
		t.Fatal(err)
	}
	if r, cols := db.Dims(); r != rows || cols != 10 {
		t.Fatalf("decision values %d×%d, want %d×10", r, cols, rows)
	}
	e := relDiff(db, dl)
	t.Logf("κ(A) = %.3g; decision values within %.3g", lmax/lmin, e)
	if !(e <= 1e-9) {
		t.Errorf("decision values differ by %.3g relative", e)
	}
	pb, _ := res.Model.Predict(x)
	pl, _ := ref.Predict(x)
	for i := range pb {
		if pb[i] != pl[i] {
			t.Fatalf("row %d: label %v, local %v", i, pb[i], pl[i])
		}
	}
}
