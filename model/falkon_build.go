package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// ErrNotBLESSWeights is wrapped by the error of a fit that asks for the bless
// preconditioner (eq. 15) with center weights that are not BLESS's A_h — the
// 1/√p column scaling of the leverage-score samplers, for example. It wraps
// ErrInput.
var ErrNotBLESSWeights = fmt.Errorf("%w: center weights are not BLESS's A_h", ErrInput)

// FalkonBuilder assembles FALKON's system once for every fit that solves it:
// Falkon.Fit, whose passes over the data run on the kernel engine in this
// process, and the Beam fit of module
// github.com/landmark-ml/landmark/distributed (beamfit.Falkon), whose passes
// are pipelines. The steps, in order:
//
//  1. the centers and their weights: Sample (a sampler on the data) or
//     Given, each a FalkonCenters;
//  2. the memory plan of what the fit holds beside the data (Plan);
//  3. K_MM and the preconditioner — eq. 14 of Rudi, Calandriello,
//     Carratino, Rosasco (NeurIPS 2018), or eq. 15 with BLESS's weights w
//     rescaled to a = w·n/M (package precond) at the centers' λ_h — and the
//     operator H v = K_nMᵀ(K_nM v) + λn K_MM v on the caller's data pass
//     (Build, a FalkonSystem);
//  4. preconditioned CG on H α = K_nMᵀy (FalkonSystem.Solve).
//
// Zero values mean defaults as in Falkon, except Kernel and Lambda, which
// are required. Defaults are resolved into local copies; the builder is
// never written to.
type FalkonBuilder struct {
	// Kernel is the kernel (required).
	Kernel kernel.Kernel
	// Lambda is λ > 0; the penalty is λn.
	Lambda float64
	// Preconditioner is one of PrecondAuto (default), PrecondFalkon,
	// PrecondBLESS, PrecondJacobi, PrecondNone.
	Preconditioner string
	// Epsilon, Cholesky and Precision tune the preconditioner
	// (precond.Options; an empty Precision is float64 here, Falkon.Fit
	// resolves its PrecondPrecision first).
	Epsilon   float64
	Cholesky  solver.CholOptions
	Precision precond.Precision
	// MaxIter and Tol stop CG; 0 means DefaultFalkonMaxIter and
	// DefaultFalkonTol.
	MaxIter int
	Tol     float64
	// Engine tunes the kernel engine forming K_MM.
	Engine kernel.Options
	// Name starts the builder's error messages ("beamfit" for the Beam
	// fit); empty means "model: falkon".
	Name string
}

// name is the start of b's error messages.
func (b FalkonBuilder) name() string {
	if b.Name == "" {
		return "model: falkon"
	}
	return b.Name
}

// FalkonCenters are the centers of a FALKON fit and what the preconditioner
// needs to know of how they were drawn.
type FalkonCenters struct {
	// Points are the M centers, one per row: a *mat.Dense or CSR rows.
	Points mat.Matrix
	// Indices are the rows of the data the centers are, when they were
	// sampled from it (nil otherwise).
	Indices []int
	// Weights, when set, hold one positive weight per center, as the
	// sampler returned them or as given.
	Weights []float64
	// BLESS says Weights are BLESS's A_h on the full data's scale (M/n for
	// every center of a uniform draw): the weights of approx.BLESS and
	// approx.BLESSR, or weights given with the centers
	// (Falkon.CenterWeights). Only such weights drive the bless
	// preconditioner; other samplers' weights (leverage scores' 1/√p) are
	// refused by it with ErrNotBLESSWeights.
	BLESS bool
	// Lambda is λ_h of the BLESS step the centers come from, at which eq. 15
	// is regularized; 0 means none (eq. 15 then uses the fit's λ).
	Lambda float64
	// Sampler says where the centers come from (FalkonInfo.Sampler): the
	// sampler's Go type, or "given".
	Sampler string
}

// M is the number of centers.
func (c FalkonCenters) M() int {
	r, _ := c.Points.Dims()
	return r
}

// FalkonData is the training data as FALKON's operator reaches it.
type FalkonData struct {
	// N is the number of rows.
	N int
	// MulTMul sets dst = K_nMᵀ(K_nM v) for v and dst M×t: one pass over
	// the data. Required.
	MulTMul func(ctx context.Context, dst, v *mat.Dense) error
	// ColSquares, when set, returns Σᵢ k(xᵢ, c_j)² for every center c_j
	// (one more pass); the jacobi preconditioner needs it.
	ColSquares func(ctx context.Context) ([]float64, error)
}

// FalkonSystem is FALKON's system H α = K_nMᵀy assembled by
// FalkonBuilder.Build, ready to solve.
type FalkonSystem struct {
	// Centers are the centers it was built on.
	Centers FalkonCenters
	// H is the operator K_nMᵀK_nM + λn K_MM (M×M).
	H solver.Operator
	// P is the preconditioner; nil for PrecondNone.
	P solver.Preconditioner
	// Preconditioner is the resolved preconditioner name.
	Preconditioner string
	// PrecondLambda is the λ of eq. 15 (the centers' λ_h, or the fit's λ
	// when they have none), 0 for the other preconditioners.
	PrecondLambda float64
	// Epsilon, Shift, JitterT and JitterA come from the falkon and bless
	// preconditioners (precond.Falkon), zero for the others.
	Epsilon, Shift, JitterT, JitterA float64
	// Precision is the type of the falkon and bless preconditioners'
	// factors (precond.Falkon.Precision), empty for the others.
	Precision precond.Precision

	maxIter int
	tol     float64
	// kmmTime and factorTime are Build's two steps (FalkonInfo.KMMTime and
	// FactorTime, copied by Describe).
	kmmTime, factorTime time.Duration
}

// resolved returns b with defaults filled in, or the first invalid field.
func (b FalkonBuilder) resolved() (FalkonBuilder, error) {
	switch {
	case !(b.Lambda > 0) || math.IsInf(b.Lambda, 0):
		return b, fmt.Errorf("%s: %w: Lambda = %g, want finite and > 0", b.name(), ErrInput, b.Lambda)
	case b.Kernel == nil:
		return b, fmt.Errorf("%s: %w: Kernel is nil", b.name(), ErrInput)
	case b.Epsilon < 0 || math.IsNaN(b.Epsilon) || math.IsInf(b.Epsilon, 0):
		return b, fmt.Errorf("%s: %w: Epsilon = %g, want finite and ≥ 0 (0 means the default)", b.name(), ErrInput, b.Epsilon)
	case b.MaxIter < 0:
		return b, fmt.Errorf("%s: %w: MaxIter = %d, want ≥ 0 (0 means the default)", b.name(), ErrInput, b.MaxIter)
	case b.Tol < 0 || math.IsNaN(b.Tol) || math.IsInf(b.Tol, 0):
		return b, fmt.Errorf("%s: %w: Tol = %g, want finite and > 0 (0 means the default)", b.name(), ErrInput, b.Tol)
	}
	if err := b.Kernel.Validate(); err != nil {
		return b, fmt.Errorf("%s: %w: %w", b.name(), ErrInput, err)
	}
	if err := b.Precision.Validate(); err != nil {
		return b, fmt.Errorf("%s: %w", b.name(), err)
	}
	switch b.Preconditioner {
	case PrecondAuto, PrecondFalkon, PrecondBLESS, PrecondJacobi, PrecondNone:
	default:
		return b, fmt.Errorf("%s: %w: Preconditioner = %q, want %q, %q, %q, %q or empty (automatic)", b.name(),
			ErrInput, b.Preconditioner, PrecondFalkon, PrecondBLESS, PrecondJacobi, PrecondNone)
	}
	if b.MaxIter == 0 {
		b.MaxIter = DefaultFalkonMaxIter
	}
	if b.Tol == 0 {
		b.Tol = DefaultFalkonTol
	}
	return b, nil
}

// Validate reports the first invalid field of b (ErrInput), so that a fit
// can refuse its configuration before reading any data.
func (b FalkonBuilder) Validate() error {
	_, err := b.resolved()
	return err
}

// Sample draws at most m centers from the rows of x with sampler s (nil
// means approx.Uniform) and rng; with the bless preconditioner, a sampler
// other than approx.BLESS or approx.BLESSR is refused before it runs
// (ErrNotBLESSWeights). The centers are held as the kernel engine
// runs them (CSR rows of sparse x stay CSR unless dense is faster,
// kernel.PreferDenseCenters); their weights are marked BLESS's A_h when s
// is approx.BLESS or approx.BLESSR (value or pointer).
func (b FalkonBuilder) Sample(ctx context.Context, s approx.Sampler, x mat.Matrix, m int, rng *rand.Rand) (FalkonCenters, error) {
	if s == nil {
		s = approx.Uniform{}
	}
	if b.Preconditioner == PrecondBLESS && !isBLESS(s) {
		// Refused before sampling: only BLESS's weights are A_h.
		return FalkonCenters{}, fmt.Errorf("%s: preconditioner %q: %w: sampler %T does not give them (use approx.BLESS or approx.BLESSR, or preconditioner %q)",
			b.name(), PrecondBLESS, ErrNotBLESSWeights, s, PrecondFalkon)
	}
	_, d := x.Dims()
	lm, err := s.Sample(ctx, x, b.Kernel, m, rng)
	if err != nil {
		return FalkonCenters{}, fmt.Errorf("%s: sampling centers: %w", b.name(), err)
	}
	if lm == nil || lm.Points == nil {
		return FalkonCenters{}, fmt.Errorf("%s: sampler %T returned no landmarks", b.name(), s)
	}
	r, c := lm.Points.Dims()
	if c != d || r < 1 || r > m {
		return FalkonCenters{}, fmt.Errorf("%s: sampler %T returned %d×%d landmarks, want at most %d×%d", b.name(), s, r, c, m, d)
	}
	if lm.Weights != nil && len(lm.Weights) != r {
		return FalkonCenters{}, fmt.Errorf("%s: sampler %T returned %d weights for %d landmarks", b.name(), s, len(lm.Weights), r)
	}
	return FalkonCenters{Points: ownCenters(b.Kernel, lm.Points, false), Indices: lm.Indices, Weights: lm.Weights,
		BLESS: lm.Weights != nil && isBLESS(s), Lambda: lm.Lambda, Sampler: fmt.Sprintf("%T", s)}, nil
}

// Given returns user-given centers (copied, held as the kernel engine runs
// them) with optional weights, taken as BLESS's A_h on the full data's
// scale, and the λ_h of the BLESS step they come from (0 for none). Weights
// that are not finite and positive are an error (ErrInput), whatever the
// preconditioner.
func (b FalkonBuilder) Given(points mat.Matrix, weights []float64, lambdaH float64) (FalkonCenters, error) {
	mc, _ := points.Dims()
	if weights != nil && len(weights) != mc {
		return FalkonCenters{}, fmt.Errorf("%s: %w: %d center weights for %d centers", b.name(), ErrInput, len(weights), mc)
	}
	// Checked here, whatever the preconditioner (only bless reads them), so
	// that the error names the weight as given, not as rescaled for eq. 15.
	for j, w := range weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return FalkonCenters{}, fmt.Errorf("%s: %w: center weight %d is %g, want finite and > 0", b.name(), ErrInput, j, w)
		}
	}
	if lambdaH < 0 || math.IsNaN(lambdaH) || math.IsInf(lambdaH, 0) {
		return FalkonCenters{}, fmt.Errorf("%s: %w: center λ_h = %g, want finite and ≥ 0", b.name(), ErrInput, lambdaH)
	}
	return FalkonCenters{Points: ownCenters(b.Kernel, points, true), Weights: weights, BLESS: weights != nil,
		Lambda: lambdaH, Sampler: "given"}, nil
}

// Plan is the memory the system holds beside the data for centers c and t
// outputs: the centers, K_MM with the preconditioner's factors and scratch
// (Precond) and the CG state (Solver), with their Total. A fit adds what its
// passes hold (Falkon.Plan adds the data, the engine's scratch, validation
// and the cached K_nM).
func (b FalkonBuilder) Plan(c FalkonCenters, t int) FalkonPlan {
	return b.plan(givenShape(b.Kernel, c.Points), c.Points, t)
}

// plan is Plan for centers of shape cs, before they exist; stub is a matrix
// of their shape (centerShape.stub) for the engine's scratch.
func (b FalkonBuilder) plan(cs centerShape, stub mat.Matrix, t int) FalkonPlan {
	m64, t64 := int64(cs.m), int64(t)
	kmmScratch := kernel.NewOp(b.Kernel, stub, stub, b.Engine).ScratchBytes(0)
	// K_MM and the preconditioner's second M×M matrix, and the diagonal;
	// in float32 both factors live in K_MM's lower triangle.
	mats := 2*m64*m64 + m64
	if b.Precision == precond.PrecisionFloat32 {
		mats = m64*m64 + m64
	}
	p := FalkonPlan{
		Centers: cs.bytes(),
		Precond: bytesF64(mats) + max(precondScratch(cs.m, t), kmmScratch),
		Solver:  bytesF64(8 * m64 * t64),
	}
	p.Total = p.Centers + p.Precond + p.Solver
	return p
}

// precondScratch is the memory the preconditioner's blocked Cholesky and
// lauum (package solver on kernel.Dense or kernel.DenseF32) hold beside the
// M×M matrices, or its use in CG with t outputs if more (the solves' scratch
// grows with t from 16 outputs), for M = m (precond.ScratchBytes: the larger
// of the two precisions).
// The matrices (plan) are float64 K_MM and a second float64 matrix, or, in
// float32, K_MM alone (T and A in the bytes of its lower triangle).
func precondScratch(m, t int) int64 {
	return precond.ScratchBytes(m, t)
}

// KMM forms K_MM (M×M) on the centers.
//
// Its 8M² bytes are fresh memory, faulted in while the kernel engine
// writes them (over the workers). Which page size makes that cheaper
// depends on the host, so they come from hugemem.FreshFloat64s, which
// asks for transparent huge pages only where 4 KiB faults are slow: on
// machine D huge pages made those faults cost 1.1–1.9 CPU-seconds at
// M = 10,000 instead of 0.39–0.47 (the K_MM step of three alternated
// covtype fits each, 2026-11-27); on machine E 4 KiB pages cost about
// 3.2 CPU-seconds per 800 MB and huge ones 0.7–1.9 (alternated, load 4).
// The factorizations that then run in this memory took the same CPU time
// either way on D.
func (b FalkonBuilder) KMM(ctx context.Context, c FalkonCenters) (*mat.Dense, error) {
	mc := c.M()
	kmm := mat.NewDense(mc, mc, hugemem.FreshFloat64s(mc*mc))
	if err := kernel.NewOp(b.Kernel, c.Points, c.Points, b.Engine).Block(ctx, kmm); err != nil {
		return nil, err
	}
	return kmm, nil
}

// Build forms K_MM on the centers c, the preconditioner and the operator H
// on the data pass of data.
//
// The preconditioner PrecondAuto is bless for centers with BLESS weights
// and falkon otherwise. Bless needs such weights: centers without weights
// are refused with ErrInput, centers whose weights are not BLESS's A_h
// with ErrNotBLESSWeights, both before anything is computed.
func (b FalkonBuilder) Build(ctx context.Context, c FalkonCenters, data FalkonData) (*FalkonSystem, error) {
	b, err := b.resolved()
	if err != nil {
		return nil, err
	}
	if data.N < 1 || data.MulTMul == nil {
		return nil, fmt.Errorf("%s: %w: FalkonData with N = %d rows and no MulTMul", b.name(), ErrInput, data.N)
	}
	s := &FalkonSystem{Centers: c, maxIter: b.MaxIter, tol: b.Tol}
	if s.Preconditioner, err = b.precondName(c); err != nil {
		return nil, err
	}
	t0 := time.Now()
	kmm, err := b.KMM(ctx, c)
	if err != nil {
		return nil, err
	}
	t1 := time.Now()
	s.kmmTime = t1.Sub(t0)
	penalty := b.Lambda * float64(data.N)
	mulKMM, err := b.precondition(ctx, s, kmm, data)
	if err != nil {
		return nil, err
	}
	s.factorTime = time.Since(t1)
	mc, pass := c.M(), data.MulTMul
	var tmp *mat.Dense
	s.H = solver.OperatorFunc{N: mc, F: func(ctx context.Context, dst, v *mat.Dense) error {
		if err := pass(ctx, dst, v); err != nil {
			return err
		}
		if _, t := v.Dims(); tmp == nil || tmp.RawMatrix().Cols != t {
			tmp = mat.NewDense(mc, t, nil)
		}
		if err := mulKMM(tmp, v); err != nil {
			return err
		}
		nt := len(tmp.RawMatrix().Data)
		blas64.Axpy(penalty, blas64.Vector{N: nt, Inc: 1, Data: tmp.RawMatrix().Data},
			blas64.Vector{N: nt, Inc: 1, Data: dst.RawMatrix().Data})
		return nil
	}}
	// The O(M³) factorizations cannot be interrupted; check before moving on.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s, nil
}

// precondName resolves PrecondAuto and checks that the bless preconditioner
// gets BLESS's weights.
func (b FalkonBuilder) precondName(c FalkonCenters) (string, error) {
	name := b.Preconditioner
	if name == PrecondAuto {
		name = PrecondFalkon
		if c.Weights != nil && c.BLESS {
			name = PrecondBLESS
		}
	}
	switch {
	case name != PrecondBLESS:
	case c.Weights == nil:
		return "", fmt.Errorf("%s: %w: preconditioner %q needs center weights; %s gave none", b.name(), ErrInput, PrecondBLESS, c.Sampler)
	case !c.BLESS:
		return "", fmt.Errorf("%s: preconditioner %q: %w: sampler %s weighs its centers otherwise (use approx.BLESS or approx.BLESSR, or preconditioner %q)", b.name(),
			PrecondBLESS, ErrNotBLESSWeights, c.Sampler, PrecondFalkon)
	}
	return name, nil
}

// precondition builds s's preconditioner from kmm (taken over by the falkon
// and bless ones) and returns the product by K_MM that H uses.
func (b FalkonBuilder) precondition(ctx context.Context, s *FalkonSystem, kmm *mat.Dense, data FalkonData) (func(dst, v *mat.Dense) error, error) {
	n, mc := data.N, s.Centers.M()
	switch s.Preconditioner {
	case PrecondFalkon, PrecondBLESS:
		popt := precond.Options{Epsilon: b.Epsilon, Cholesky: b.Cholesky, Precision: b.Precision}
		var f *precond.Falkon
		var err error
		if s.Preconditioner == PrecondBLESS {
			// BLESS's A_h is on the M/n scale; eq. 15 as written wants 1
			// for uniform centers (package precond).
			a := make([]float64, mc)
			for j, w := range s.Centers.Weights {
				a[j] = w * float64(n) / float64(mc)
			}
			// Eq. 15 regularizes with λ_h, the λ at which the weighted
			// sample approximates K_nMᵀK_nM.
			s.PrecondLambda = b.Lambda
			if s.Centers.Lambda > 0 {
				s.PrecondLambda = s.Centers.Lambda
			}
			f, err = precond.BuildWeighted(kmm, n, s.PrecondLambda, a, popt)
		} else {
			f, err = precond.BuildFalkon(kmm, n, b.Lambda, popt)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", b.name(), err)
		}
		s.P = f
		s.Epsilon, s.Shift, s.JitterT, s.JitterA, s.Precision = f.Epsilon, f.Shift, f.JitterT, f.JitterA, f.Precision
		return f.MulKMM, nil
	case PrecondJacobi:
		if data.ColSquares == nil {
			return nil, fmt.Errorf("%s: %w: preconditioner %q needs FalkonData.ColSquares", b.name(), ErrInput, PrecondJacobi)
		}
		diag, err := data.ColSquares(ctx)
		if err != nil {
			return nil, err
		}
		// diag(H) = Σᵢ k(xᵢ, c_j)² + λn K_jj.
		for j := range diag {
			diag[j] += b.Lambda * float64(n) * kmm.At(j, j)
		}
		j := precond.Jacobi{Diag: diag}
		if err := j.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", b.name(), err)
		}
		s.P = j
	}
	return func(dst, v *mat.Dense) error {
		dst.Mul(kmm, v)
		return nil
	}, nil
}

// Describe copies what the system knows of the fit into info: M, the
// centers' form and source, the preconditioner's fields and the times of
// K_MM and of the preconditioner's build.
func (s *FalkonSystem) Describe(info *FalkonInfo) {
	info.M = s.Centers.M()
	info.CenterForm = CenterForm(s.Centers.Points)
	info.Sampler = s.Centers.Sampler
	info.Preconditioner, info.PrecondLambda = s.Preconditioner, s.PrecondLambda
	info.Epsilon, info.Shift, info.JitterT, info.JitterA = s.Epsilon, s.Shift, s.JitterT, s.JitterA
	info.PrecondPrecision = s.Precision
	info.KMMTime, info.FactorTime = s.kmmTime, s.factorTime
}

// Solve runs preconditioned CG on H α = rhs (rhs = K_nMᵀY, M×t) from α's
// value on entry (zero for a cold start, or a warm start), with the
// builder's MaxIter and Tol, residuals in the preconditioner's norm (as
// FALKON monitors them), and callback, when set, after every iteration
// (returning false stops the solve).
func (s *FalkonSystem) Solve(ctx context.Context, rhs, alpha *mat.Dense, callback func(solver.Progress) bool) (solver.Result, error) {
	opt := solver.Options{Tol: s.tol, MaxIter: s.maxIter, PrecondNorm: true, Callback: callback}
	return solver.PCG(ctx, s.H, s.P, rhs, alpha, opt)
}

// isBLESS reports whether s is approx.BLESS or approx.BLESSR (by value or
// pointer), whose landmark weights are BLESS's A_h. It matches by type name so
// that this package does not depend on those samplers being compiled in.
func isBLESS(s approx.Sampler) bool {
	t := reflect.TypeOf(s)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t != nil && t.PkgPath() == reflect.TypeOf(approx.Uniform{}).PkgPath() && (t.Name() == "BLESS" || t.Name() == "BLESSR")
}
