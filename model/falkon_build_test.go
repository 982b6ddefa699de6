package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"gonum.org/v1/gonum/mat"
)

// The bless preconditioner (eq. 15) takes center weights as BLESS's A_h. A
// leverage-score sampler's weights are 1/√p (Musco & Musco's column scaling),
// not A_h, so asking for bless with such a sampler is refused with
// ErrNotBLESSWeights (and ErrInput), naming the option and the sampler;
// with the default preconditioner the same sampler gets eq. 14 and fits.
func TestFalkonBLESSRefusesOtherWeights(t *testing.T) {
	x, y := krrTestData(31, 200, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	ctx := context.Background()
	for _, s := range []approx.Sampler{approx.RecursiveRLS{}, approx.ExactRLS{}, &approx.RecursiveRLS{}} {
		f := &Falkon{Kernel: k, Lambda: 1e-4, M: 20, Sampler: s, Preconditioner: PrecondBLESS, MaxIter: 3, Seed: 1}
		err := f.Fit(ctx, x, y)
		if !errors.Is(err, ErrNotBLESSWeights) || !errors.Is(err, ErrInput) {
			t.Fatalf("%T with bless: err = %v, want ErrNotBLESSWeights and ErrInput", s, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, `"bless"`) || !strings.Contains(msg, "RecursiveRLS") && !strings.Contains(msg, "ExactRLS") {
			t.Errorf("%T: %q does not name the preconditioner option and the sampler", s, msg)
		}
		if msg != strings.ToLower(msg[:1])+msg[1:] {
			t.Errorf("%q starts with a capital", msg)
		}
		if f.Info().M != 0 {
			t.Errorf("%T: a refused fit left a model", s)
		}
		auto := &Falkon{Kernel: k, Lambda: 1e-4, M: 20, Sampler: s, MaxIter: 3, Seed: 1}
		if err := auto.Fit(ctx, x, y); err != nil {
			t.Fatalf("%T with the default preconditioner: %v", s, err)
		}
		if p := auto.Info().Preconditioner; p != PrecondFalkon {
			t.Errorf("%T: default preconditioner %q, want falkon (its weights are not A_h)", s, p)
		}
	}
	// The refusal comes before the sampler runs (its cost is not paid), and
	// a sampler without weights (uniform) is refused the same way.
	cs := &countingSampler{s: approx.RecursiveRLS{}}
	f := &Falkon{Kernel: k, Lambda: 1e-4, M: 20, Sampler: cs, Preconditioner: PrecondBLESS}
	if err := f.Fit(ctx, x, y); !errors.Is(err, ErrNotBLESSWeights) || cs.calls != 0 {
		t.Errorf("counting sampler with bless: err = %v after %d samples, want ErrNotBLESSWeights before any", err, cs.calls)
	}
	u := &Falkon{Kernel: k, Lambda: 1e-4, M: 20, Preconditioner: PrecondBLESS}
	if err := u.Fit(ctx, x, y); !errors.Is(err, ErrNotBLESSWeights) || !strings.Contains(err.Error(), "approx.Uniform") {
		t.Errorf("uniform with bless: err = %v, want ErrNotBLESSWeights naming approx.Uniform", err)
	}
	// The same weights given as CenterWeights are the caller's statement
	// that they are A_h: accepted.
	lm, err := approx.RecursiveRLS{}.Sample(ctx, x, k, 20, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	g := &Falkon{Kernel: k, Lambda: 1e-4, Centers: lm.Points, CenterWeights: lm.Weights, Preconditioner: PrecondBLESS, MaxIter: 3}
	if err := g.Fit(ctx, x, y); err != nil || g.Info().Preconditioner != PrecondBLESS {
		t.Errorf("given weights with bless: err = %v, preconditioner %q", err, g.Info().Preconditioner)
	}
}

// countingSampler counts the samples drawn through it.
type countingSampler struct {
	s     approx.Sampler
	calls int
}

func (c *countingSampler) Sample(ctx context.Context, x mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*approx.Landmarks, error) {
	c.calls++
	return c.s.Sample(ctx, x, k, m, rng)
}

// The builder's steps run by hand give Falkon.Fit's model bit for bit (the
// fit is those steps), for the falkon, bless, jacobi and none
// preconditioners; and H applied by the system equals
// K_nMᵀ(K_nM v) + λn K_MM v formed from the whole matrices, to the
// rounding of sums of n·M terms of size ≤ 1 (1e-10 relative is ~1e5 units
// of rounding for n = 300, M = 30).
func TestFalkonBuilderIsFit(t *testing.T) {
	x, y := krrTestData(41, 300, 3)
	n, _ := x.Dims()
	k := kernel.Gaussian{Gamma: 0.5}
	ctx := context.Background()
	const lambda = 1e-3
	centers := mat.DenseCopyOf(x.Slice(0, 30, 0, 3))
	w := make([]float64, 30)
	for j := range w {
		w[j] = (0.5 + 0.1*float64(j%5)) * 30 / float64(n) // A_h on the M/n scale
	}
	knm := mat.NewDense(n, 30, nil)
	k.Block(knm, x, centers)
	kmm := mat.NewDense(30, 30, nil)
	k.Block(kmm, centers, centers)
	v := mat.NewDense(30, 2, nil)
	for i := range 30 {
		v.Set(i, 0, math.Sin(float64(i)))
		v.Set(i, 1, 1/float64(i+1))
	}
	var want, kv, lv mat.Dense
	kv.Mul(knm, v)
	want.Mul(knm.T(), &kv)
	lv.Mul(kmm, v)
	lv.Scale(lambda*float64(n), &lv)
	want.Add(&want, &lv)
	yd := mat.NewDense(n, 1, y)

	for _, pc := range []string{PrecondFalkon, PrecondBLESS, PrecondJacobi, PrecondNone} {
		f := &Falkon{Kernel: k, Lambda: lambda, Centers: centers, CenterWeights: w, Preconditioner: pc, MaxIter: 7, Tol: 1e-14}
		if err := f.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		b := FalkonBuilder{Kernel: k, Lambda: lambda, Preconditioner: pc, MaxIter: 7, Tol: 1e-14}
		c, err := b.Given(centers, w, 0)
		if err != nil {
			t.Fatal(err)
		}
		op := kernel.NewOp(k, x, c.Points, kernel.Options{})
		colSq := func(ctx context.Context) ([]float64, error) {
			d := make([]float64, 30)
			for j := range d {
				for i := 0; i < n; i++ {
					d[j] += knm.At(i, j) * knm.At(i, j)
				}
			}
			return d, nil
		}
		sys, err := b.Build(ctx, c, FalkonData{N: n, MulTMul: op.MulTMul, ColSquares: colSq})
		if err != nil {
			t.Fatal(err)
		}
		var info FalkonInfo
		sys.Describe(&info)
		if fi := f.Info(); info.Preconditioner != pc || info.M != 30 || info.Sampler != "given" ||
			info.Shift != fi.Shift || info.PrecondLambda != fi.PrecondLambda {
			t.Errorf("%s: described %+v, fit %+v", pc, info, fi)
		}
		hv := mat.NewDense(30, 2, nil)
		if err := sys.H.Apply(ctx, hv, v); err != nil {
			t.Fatal(err)
		}
		var d mat.Dense
		d.Sub(hv, &want)
		if r := mat.Norm(&d, 2) / mat.Norm(&want, 2); !(r <= 1e-10) {
			t.Errorf("%s: H v differs from K_nMᵀK_nM v + λn K_MM v by %.3g relative", pc, r)
		}
		rhs := mat.NewDense(30, 1, nil)
		if err := op.MulT(ctx, rhs, yd); err != nil {
			t.Fatal(err)
		}
		alpha := mat.NewDense(30, 1, nil)
		res, err := sys.Solve(ctx, rhs, alpha, nil)
		if err != nil {
			t.Fatal(err)
		}
		if pc != PrecondJacobi && !mat.Equal(alpha, f.Solution().Coef) {
			t.Errorf("%s: builder's α differs from Fit's", pc)
		}
		if res.Iterations != f.Info().Iterations {
			t.Errorf("%s: %d iterations, Fit ran %d", pc, res.Iterations, f.Info().Iterations)
		}
	}
}

// Build refuses the bless preconditioner without weights or with weights
// not marked as BLESS's, and Plan counts
// the centers, 2M² + M doubles of K_MM and the factors (plus scratch) and
// 8·M·t doubles of CG state — the part of Falkon.Plan the builder owns.
func TestFalkonBuilderPlanAndRefusals(t *testing.T) {
	x, y := krrTestData(43, 200, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	b := FalkonBuilder{Kernel: k, Lambda: 1e-3, Preconditioner: PrecondBLESS}
	c, err := b.Given(mat.DenseCopyOf(x.Slice(0, 20, 0, 3)), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	op := kernel.NewOp(k, x, c.Points, kernel.Options{})
	if _, err := b.Build(context.Background(), c, FalkonData{N: 200, MulTMul: op.MulTMul}); !errors.Is(err, ErrInput) || errors.Is(err, ErrNotBLESSWeights) {
		t.Errorf("bless without weights: err = %v, want ErrInput (not ErrNotBLESSWeights: there are no weights)", err)
	}
	other := c
	other.Weights, other.Sampler = make([]float64, 20), "approx.ExactRLS"
	if _, err := b.Build(context.Background(), other, FalkonData{N: 200, MulTMul: op.MulTMul}); !errors.Is(err, ErrNotBLESSWeights) {
		t.Errorf("bless with weights not marked BLESS: err = %v, want ErrNotBLESSWeights", err)
	}
	for _, bad := range []FalkonBuilder{{Kernel: k}, {Lambda: 1}, {Kernel: k, Lambda: 1, Preconditioner: "x"}, {Kernel: k, Lambda: 1, MaxIter: -1}} {
		if err := bad.Validate(); !errors.Is(err, ErrInput) {
			t.Errorf("Validate(%+v) = %v, want ErrInput", bad, err)
		}
	}
	if _, err := b.Given(c.Points, []float64{1}, 0); !errors.Is(err, ErrInput) {
		t.Errorf("1 weight for 20 centers: err = %v", err)
	}
	p := b.Plan(c, 2)
	f := &Falkon{Kernel: k, Lambda: 1e-3, Centers: c.Points}
	fp, err := f.Plan(x, 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.Centers != 8*20*3 || p.Solver != 8*8*20*2 || p.Precond != fp.Precond || p.Precond < 8*(2*400+20) ||
		p.Total != p.Centers+p.Precond+p.Solver || fp.Centers != 2*p.Centers {
		t.Errorf("builder plan %+v, Falkon.Plan %+v", p, fp)
	}
	// The preconditioner's scratch is planned at the number of outputs: from
	// 16 outputs a float64 factor's solves are blocked, their scratch and
	// products' buffer growing with t (precond.ScratchBytes(M, t)), so the
	// plan for 300 outputs holds it and exceeds the plan for 2.
	if p300 := b.Plan(c, 300); p300.Precond < 8*(2*400+20)+precond.ScratchBytes(20, 300) || p300.Precond <= p.Precond {
		t.Errorf("plan for 300 outputs: Precond %d, want ≥ %d (K_MM, factors and precond.ScratchBytes(20, 300)) and > %d (2 outputs)",
			p300.Precond, 8*(2*400+20)+precond.ScratchBytes(20, 300), p.Precond)
	}
	_ = y
}
