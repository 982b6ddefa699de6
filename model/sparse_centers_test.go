package model

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"gonum.org/v1/gonum/mat"
)

// TestFalkonSparseCenters: Falkon on CSR X (density 0.04) keeps its
// centers CSR — the same rows, as a matrix, as the dense fit's centers
// (same seed) — and predicts as the fit on the dense copy to 1e-10
// (CG to 1e-13, see nystromCases for why); the plan counts the centers as
// CSR arrays bounded by the M longest rows of X, never below what they
// take; K_MM formed by the engine from the CSR centers equals the pairwise
// merge (kernel.SparsePairBlock) to 1e-13, and the preconditioner built on
// it has TᵀT = K_MM + Shift·I (eq. 14's T = chol(K_MM)) to 1e-12.
func TestFalkonSparseCenters(t *testing.T) {
	rng := rand.New(rand.NewPCG(111, 112))
	const n, d, nnz, mc = 400, 300, 12, 60
	x, y, err := datasets.SparseRegression(n, d, nnz, rng)
	if err != nil {
		t.Fatal(err)
	}
	xt, _, err := datasets.SparseRegression(80, d, nnz, rng)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 1.0 / 24}
	ctx := context.Background()
	for _, s := range []approx.Sampler{approx.Uniform{}, approx.BLESS{}} {
		mk := func() *Falkon {
			return &Falkon{Kernel: k, Lambda: 1e-4, M: mc, Seed: 3, MaxIter: 200, Tol: 1e-13, Sampler: s}
		}
		sp, de := mk(), mk()
		if err := sp.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		if err := de.Fit(ctx, x.ToDense(), y); err != nil {
			t.Fatal(err)
		}
		c, ok := sp.Solution().Centers.(kernel.Sparse)
		if !ok || !strings.HasPrefix(sp.Info().CenterForm, "sparse (CSR") {
			t.Fatalf("%T: centers %T, form %q", s, sp.Solution().Centers, sp.Info().CenterForm)
		}
		if de.Info().CenterForm != "dense" || !mat.Equal(c, de.Solution().Centers) {
			t.Fatalf("%T: sparse and dense fits chose different centers (form %q)", s, de.Info().CenterForm)
		}
		want, err := de.DecisionFunction(xt.ToDense())
		if err != nil {
			t.Fatal(err)
		}
		got, err := sp.DecisionFunction(xt)
		if err != nil {
			t.Fatal(err)
		}
		if dd := maxAbsDiff(got, want); dd > 1e-10*math.Max(1, mat.Norm(want, math.Inf(1))) {
			t.Fatalf("%T: predictions differ by %g", s, dd)
		}
		m, _ := c.Dims()
		indptr, _, _ := c.CSR()
		have := kernel.CSRBytes(m, int64(indptr[m]))
		if p := sp.Info().Plan.Centers; p < have || p != kernel.CSRBytes(mc, int64(mc*nnz)) {
			t.Fatalf("%T: planned centers %d bytes, hold %d, want the bound %d", s, p, have, kernel.CSRBytes(mc, int64(mc*nnz)))
		}
		if p := de.Info().Plan.Centers; p != int64(8*mc*d) {
			t.Fatalf("dense plan centers %d, want %d", p, 8*mc*d)
		}

		kmm, pair := mat.NewDense(m, m, nil), mat.NewDense(m, m, nil)
		if err := kernel.NewOp(k, c, c, kernel.Options{}).Block(ctx, kmm); err != nil {
			t.Fatal(err)
		}
		if err := kernel.SparsePairBlock(ctx, k, pair, c, c, kernel.Options{}); err != nil {
			t.Fatal(err)
		}
		if dd := maxAbsDiff(kmm, pair); dd > 1e-13 {
			t.Fatalf("K_MM from the engine differs from the pairwise merge by %g", dd)
		}
		f, err := precond.BuildFalkon(mat.DenseCopyOf(kmm), n, 1e-4, precond.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tt := f.T()
		var tdt mat.Dense
		tdt.Mul(tt.T(), tt)
		for i := 0; i < m; i++ {
			pair.Set(i, i, pair.At(i, i)+f.Shift+f.JitterT)
		}
		if dd := maxAbsDiff(&tdt, pair); dd > 1e-12 {
			t.Fatalf("TᵀT − (K_MM + shift·I) = %g", dd)
		}
	}
}

// TestSparseCenterModelsRoundTrip: Falkon and Nyström KRR fitted on CSR X
// save their centers as CSR (the file is smaller than the M·d·8 bytes the
// dense centers alone would take) and, loaded, keep them CSR and predict
// the same bits on CSR and dense rows.
func TestSparseCenterModelsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(113, 114))
	const d = 20000
	x, y, err := datasets.SparseRegression(500, d, 20, rng)
	if err != nil {
		t.Fatal(err)
	}
	xt, _, err := datasets.SparseRegression(50, d, 20, rng)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 1.0 / 40}
	ctx := context.Background()
	for _, est := range []fitDecider{
		&Falkon{Kernel: k, Lambda: 1e-4, M: 100, Seed: 5},
		&KRR{Kernel: k, Lambda: 1e-4, Seed: 5, Approx: NystromKRR{M: 100}},
	} {
		if err := est.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		b, err := Marshal(est.(Estimator))
		if err != nil {
			t.Fatal(err)
		}
		if len(b) >= 8*100*d {
			t.Fatalf("%T: model file %d bytes, dense centers alone %d", est, len(b), 8*100*d)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		var centers mat.Matrix
		var form string
		switch m := back.(type) {
		case *Falkon:
			centers, form = m.Solution().Centers, m.Info().CenterForm
		case *KRR:
			centers, form = m.fit.pred.(*KernelExpansion).Centers, m.Info().CenterForm
		}
		if _, ok := centers.(kernel.Sparse); !ok || !strings.HasPrefix(form, "sparse") {
			t.Fatalf("%T: loaded centers %T (form %q), want CSR", est, centers, form)
		}
		for _, xx := range []mat.Matrix{xt, xt.ToDense()} {
			want, err := est.DecisionFunction(xx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := back.(fitDecider).DecisionFunction(xx)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(got, want) {
				t.Fatalf("%T on %T: loaded model predicts differently (%g)", est, xx, maxAbsDiff(got, want))
			}
		}
		t.Logf("%T: %d-byte model file (dense centers would be %d bytes)", est, len(b), 8*100*d)
	}
}

// TestFalkonWideSparseHeap: Falkon on a news20-wide CSR set (d = 1,355,191,
// n = 2,000 rows of 50 non-zeros, M = 200 uniform centers) grows the heap
// by no more than its plan (the data, already resident, is part of the
// plan) plus 16 MiB of slack for the runtime's own (goroutines, the
// sampler's maps and small per-call slices; measured growth is reported).
// With dense centers the plan's centers alone would be 2.2 GB.
func TestFalkonWideSparseHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1.35M-feature set")
	}
	const d = 1_355_191
	x, y, err := datasets.SparseRegression(2000, d, 50, rand.New(rand.NewPCG(115, 116)))
	if err != nil {
		t.Fatal(err)
	}
	m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.01}, Lambda: 1e-5, M: 200, Seed: 7, MaxIter: 10}
	plan, err := m.Plan(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Centers > 1<<20 {
		t.Fatalf("planned centers %d bytes, want CSR (< 1 MiB)", plan.Centers)
	}
	growth, err := heapPeak(func() error { return m.Fit(context.Background(), x, y) })
	if err != nil {
		t.Fatal(err)
	}
	const slack = 16 << 20
	t.Logf("heap growth %.1f MiB, plan %.1f MiB (centers %.2f MiB, data %.1f MiB, engine %.1f MiB), form %s",
		float64(growth)/(1<<20), float64(plan.Total)/(1<<20), float64(plan.Centers)/(1<<20), float64(plan.Data)/(1<<20),
		float64(plan.Engine)/(1<<20), m.Info().CenterForm)
	if growth > plan.Total+slack {
		t.Fatalf("heap grew %d bytes, plan %d + slack %d", growth, plan.Total, slack)
	}
}

// TestNystromFeaturesWidePlan: ridge on Nyström features of a 1.35M-wide
// CSR set plans its landmarks as CSR rows, so a 64 MiB cap that the dense
// plan (8·M·d = 542 MB for M = 50) would refuse lets the fit through, and
// Nyström KRR likewise.
func TestNystromFeaturesWidePlan(t *testing.T) {
	const d = 1_355_191
	x, y, err := datasets.SparseRegression(500, d, 20, rand.New(rand.NewPCG(117, 118)))
	if err != nil {
		t.Fatal(err)
	}
	const limit = 64 << 20
	nf := NystromFeatures{M: 50}
	if dense, _ := nf.PlanBytes(500, d); dense <= limit {
		t.Fatalf("dense plan %d bytes: the test no longer shows anything", dense)
	}
	for _, a := range []KRRApprox{FeatureRidge{Features: nf}, NystromKRR{M: 50}} {
		m := &KRR{Kernel: kernel.Gaussian{Gamma: 0.025}, Lambda: 1e-3, Seed: 1, Approx: a, Resources: Resources{MemoryLimit: limit}}
		if err := m.Fit(context.Background(), x, y); err != nil {
			t.Fatalf("%T under a 64 MiB cap: %v", a, err)
		}
	}
}
