package model

import (
	"context"
	"fmt"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Falkon defaults (used when the matching field is zero).
const (
	// DefaultFalkonMaxIter is FALKON's default number of CG iterations.
	DefaultFalkonMaxIter = 20
	// DefaultFalkonTol is the default relative residual (preconditioned
	// norm) at which PCG stops before MaxIter. Test error stops improving
	// long before (cadata, 5,000 points, M = 1,000, λ = 1e-6: at residual
	// 1.4e-3 the RMSE is within 0.03% of the converged one), so with the
	// default MaxIter this only stops well-conditioned problems early.
	DefaultFalkonTol = 1e-8
)

// The preconditioners Falkon accepts by name.
const (
	// PrecondAuto picks PrecondBLESS for centers from approx.BLESS or
	// approx.BLESSR (whose weights are BLESS's A_h), PrecondFalkon otherwise.
	PrecondAuto = ""
	// PrecondFalkon is FALKON's preconditioner (eq. 14 of the BLESS paper).
	PrecondFalkon = "falkon"
	// PrecondBLESS is the weighted preconditioner of FALKON-BLESS (eq. 15);
	// it needs center weights.
	PrecondBLESS = "bless"
	// PrecondJacobi is diag(H)⁻¹, for comparison.
	PrecondJacobi = "jacobi"
	// PrecondNone is plain CG.
	PrecondNone = "none"
)

// Falkon is the FALKON estimator (Rudi, Carratino, Rosasco, NIPS 2017) and its
// FALKON-BLESS variant (Rudi, Calandriello, Carratino, Rosasco, NeurIPS 2018):
// Nyström kernel ridge regression on M centers,
//
//	(K_nMᵀK_nM + λn K_MM) α = K_nMᵀy,   f(x) = Σⱼ αⱼ k(x, c̃ⱼ),
//
// solved by conjugate gradient preconditioned with P = BBᵀ ≈ (K_nMᵀK_nM +
// λnK_MM)⁻¹ (package precond). Each iteration is one pass of the kernel block
// engine over the data computing K_nMᵀ(K_nM v) without storing K_nM, plus
// O(M²) work for K_MM and the preconditioner; memory is O(nd + M²).
//
// Units: λ multiplies n (package documentation); scikit-learn's
// Nystroem(n_components=M) + Ridge(alpha=a) solves the same system with a = λn
// (up to the pseudo-inverse of K_MM), and FALKON's penalty is λ itself.
//
// Classification works as for KRR: ±1 targets for two classes, one-vs-rest ±1
// columns for more, all columns solved together (one data pass per iteration).
//
// Zero values mean defaults except Lambda, which is required. Defaults are
// resolved into a local copy at Fit; the struct is never written to except
// for its fitted state.
type Falkon struct {
	// Kernel is the kernel; nil means Gaussian with γ = 1/d.
	Kernel kernel.Kernel `yaml:"kernel"`
	// Lambda is λ > 0 (required).
	Lambda float64 `yaml:"lambda"`
	// M is the number of centers; 0 means min(n, ⌈5√n⌉) (FALKON's theory
	// asks for M of order √n). M > n is an error. Ignored when Centers or
	// WarmStart give the centers.
	M int `yaml:"m"`
	// Sampler chooses the centers; nil means approx.Uniform.
	Sampler approx.Sampler `yaml:"sampler"`
	// Centers, when set, are the centers (M×d), used as given: a
	// *mat.Dense or CSR rows (kernel.Sparse), kept sparse unless at least a
	// quarter of their entries are non-zero (kernel.PreferDenseCenters).
	Centers mat.Matrix `yaml:"-"`
	// CenterWeights are optional BLESS-style weights (A_h) for Centers.
	CenterWeights []float64 `yaml:"-"`
	// CenterLambda is the λ_h of the BLESS step that gave Centers and
	// CenterWeights; the bless preconditioner (eq. 15) regularizes with it.
	// 0 means Lambda.
	CenterLambda float64 `yaml:"-"`
	// Preconditioner is one of PrecondAuto (default), PrecondFalkon,
	// PrecondBLESS, PrecondJacobi, PrecondNone.
	Preconditioner string `yaml:"preconditioner"`
	// Epsilon is the relative jitter ε of the preconditioner,
	// T = chol(K_MM + εM·s·I); 0 means precond.DefaultEpsilon. The value used
	// is reported in Info.
	Epsilon float64 `yaml:"epsilon"`
	// MaxIter is the number of CG iterations; 0 means DefaultFalkonMaxIter.
	MaxIter int `yaml:"max_iter"`
	// Tol is the relative residual at which CG stops early; 0 means
	// DefaultFalkonTol.
	Tol float64 `yaml:"tol"`
	// Task is regression (default) or classification.
	Task Task `yaml:"task"`
	// Seed seeds the center sampling.
	Seed uint64 `yaml:"seed"`
	// Workers and BlockRows tune the kernel engine (0 means automatic).
	// Results do not depend on Workers.
	Workers   int `yaml:"workers"`
	BlockRows int `yaml:"block_rows"`
	// Float32 forms the distance products of the K_nM blocks (every CG
	// pass and the validation passes) in float32, accumulating in float64
	// (kernel.Options.Float32): 1.4–1.7× faster passes, Gaussian kernel
	// values within about 2e-7 (docs/performance.md, "Kernel engine"). K_MM, the preconditioner,
	// the CG vectors and Predict stay in float64.
	Float32 bool `yaml:"float32"`
	// MemoryLimit, when positive, bounds the planned peak memory in bytes
	// (see FalkonPlan); a fit that cannot stay within it fails with ErrMemory
	// before allocating anything large. 0 means no limit. The plan counts
	// live allocations; the process's resident size also includes what the
	// Go garbage collector has not yet returned (up to GOGC% more by
	// default), so pair the limit with GOMEMLIMIT or debug.SetMemoryLimit
	// when the process itself must stay below it (landmark bench does).
	MemoryLimit int64 `yaml:"memory_limit"`
	// CacheKnm asks to keep K_nM (8nM bytes) in memory instead of
	// recomputing its blocks at every iteration. It is used only if the plan
	// with the cache fits MemoryLimit; Info.CachedKnm says whether it was.
	// FALKON found caching slower on CPUs; see docs/performance.md ("Falkon") for ours.
	CacheKnm bool `yaml:"cache_knm"`
	// Cholesky tunes the extra jitter of the preconditioner's factorizations.
	Cholesky solver.CholOptions `yaml:"cholesky"`
	// Validation, when set, is evaluated after every iteration; the errors
	// are in Info().History.
	Validation *ValidationSet `yaml:"-"`
	// Patience, when positive and Validation is set, stops CG once the
	// validation error has not improved on its best value for Patience
	// consecutive iterations (a validation plateau), and keeps the
	// coefficients of the best iteration (Info().BestIteration); the status
	// is then solver.Stopped. 0 (default) means no plateau rule: CG runs to
	// MaxIter or Tol. It is an error without Validation.
	Patience int `yaml:"patience"`
	// WarmStart, when set, gives both the centers and the starting
	// coefficients (for example the Solution of a fit at a larger λ).
	WarmStart *KernelExpansion `yaml:"-"`
	// Progress, when set, is called after every iteration; returning false
	// stops the solver (status solver.Stopped) and keeps the current α.
	Progress func(FalkonIteration) bool `yaml:"-"`

	fit *falkonFit
}

var _ Estimator = (*Falkon)(nil)

// ValidationSet is held-out data evaluated during an iterative fit.
type ValidationSet struct {
	// X holds the points (n×d) and Y the targets or class labels.
	X *mat.Dense
	Y []float64
}

// FalkonIteration is one iteration of a Falkon fit.
type FalkonIteration struct {
	// Iteration counts from 1.
	Iteration int `json:"iteration"`
	// Residual is the largest relative residual ‖b − Hα‖/‖b‖ over outputs.
	Residual float64 `json:"residual"`
	// ValError is the validation error (RMSE for regression, the fraction
	// misclassified for classification), NaN without validation data.
	ValError float64 `json:"val_error"`
	// Elapsed is the time since Fit started.
	Elapsed time.Duration `json:"elapsed"`
}

// FalkonPlan is the memory plan of a Falkon fit, in bytes, computed before
// anything large is allocated.
type FalkonPlan struct {
	// Data is the training set n·d (owned by the caller but counted, since it
	// must be resident) plus the targets n·t.
	Data int64 `json:"data"`
	// Centers is 8·M·d for dense centers; for sparse ones (CSR, sampled from
	// sparse X or given) their CSR arrays, 12 bytes a non-zero and 8 a row,
	// with the non-zeros of sampled centers bounded by those of the M
	// longest rows of X (plus a copy when the centers are user-given).
	Centers int64 `json:"centers"`
	// Precond is K_MM and the preconditioner's factors, 2M², plus the
	// scratch of their blocked factorizations (see precondScratch).
	Precond int64 `json:"precond"`
	// Engine is the kernel engine's per-call scratch (blocks of K and the
	// fixed-order partial sums).
	Engine int64 `json:"engine"`
	// Solver is the CG state, a few M×t blocks.
	Solver int64 `json:"solver"`
	// Validation is the validation predictions and engine scratch.
	Validation int64 `json:"validation"`
	// Cache is K_nM when cached (8nM), 0 otherwise.
	Cache int64 `json:"cache"`
	// BlockRows is the engine's row-block size.
	BlockRows int `json:"block_rows"`
	// Total is the sum.
	Total int64 `json:"total"`
}

// FalkonInfo describes a Falkon fit.
type FalkonInfo struct {
	N, D, M, Outputs int
	// Lambda is λ and Penalty λn.
	Lambda, Penalty float64
	// Kernel and Sampler describe what was used.
	Kernel, Sampler string
	// CenterForm says how the centers were held: "dense" or
	// "sparse (CSR, N non-zeros)" (CenterForm). It is not saved with the
	// model.
	CenterForm string
	// Preconditioner is the resolved preconditioner name.
	Preconditioner string
	// PrecondLambda is the λ of the bless preconditioner (eq. 15): the
	// centers' λ_h, or Lambda when they have none; 0 for the others. It is
	// not saved with the model.
	PrecondLambda float64
	// Epsilon, Shift, JitterT and JitterA come from the preconditioner (zero
	// for jacobi and none): see precond.Falkon.
	Epsilon, Shift, JitterT, JitterA float64
	// Status, Iterations and Residual report the solver.
	Status     solver.Status
	Iterations int
	Residual   float64
	// History has one entry per iteration.
	History []FalkonIteration
	// BestIteration is the iteration whose coefficients were kept when the
	// Patience rule stopped the fit (0 otherwise).
	BestIteration int
	// Plan is the memory plan; CachedKnm says whether K_nM was cached.
	Plan      FalkonPlan
	CachedKnm bool
	// SampleTime, PrecondTime and SolveTime split the fit's wall time.
	SampleTime, PrecondTime, SolveTime time.Duration
}

type falkonFit struct {
	task   Task
	labels Labels
	d      int
	pred   *KernelExpansion
	info   FalkonInfo
}

// falkonSeedStream is the second PCG word of Falkon's random source.
const falkonSeedStream = 0x66616c6b // "falk"

// Fit trains on x (n×d) and y (targets or class labels). Sparse x
// (kernel.Sparse, such as datasets.CSR) stays sparse: the K_nM products run
// on the kernel engine's sparse path, and the sampled centers are CSR rows
// (dense only when at least a quarter of their entries are non-zero,
// kernel.PreferDenseCenters; Info().CenterForm says which), so K_MM and
// every product run sparse × sparse; the fitted model is the same as on the
// dense copy of x (same centers, predictions equal to rounding).
func (m *Falkon) Fit(ctx context.Context, xIn mat.Matrix, y []float64) error {
	if err := checkContext(ctx, "falkon"); err != nil {
		return err
	}
	m.fit = nil
	if xs, ok := xIn.(kernel.Sparse); ok {
		xv, err := exactInput(xs, y, 0)
		if err != nil {
			return err
		}
		task, labels, t, err := targetsOf(y, m.Task, "falkon")
		if err != nil {
			return err
		}
		return m.fitTargets(ctx, xv, t, task, labels)
	}
	x := kernel.DenseOf(xIn)
	task, labels, t, err := targets(x, y, m.Task, "falkon")
	if err != nil {
		return err
	}
	return m.fitTargets(ctx, x, t, task, labels)
}

// FitMulti trains a multi-output regression on x (n×d) and y (n×t). Predict
// then returns the first output; DecisionFunction returns all of them.
// Validation data is not supported here.
func (m *Falkon) FitMulti(ctx context.Context, x, y *mat.Dense) error {
	if err := checkContext(ctx, "falkon"); err != nil {
		return err
	}
	m.fit = nil
	if err := checkMulti(x, y, m.Task); err != nil {
		return err
	}
	if m.Validation != nil {
		return fmt.Errorf("%w: validation data needs a single output; use Fit", ErrInput)
	}
	return m.fitTargets(ctx, x, mat.DenseCopyOf(y), Regression, Labels{})
}

// falkonConfig is Falkon with defaults resolved.
type falkonConfig struct {
	k       kernel.Kernel
	m       int
	sampler approx.Sampler
	pc      string
	maxIter int
	tol     float64
	engine  kernel.Options
	passes  kernel.Options // engine options of the K_nM passes (Float32)
}

func (m *Falkon) resolve(n, d int) (falkonConfig, error) {
	var c falkonConfig
	if err := check.Positive("lambda", m.Lambda); err != nil {
		return c, err
	}
	if m.CenterLambda < 0 || math.IsNaN(m.CenterLambda) || math.IsInf(m.CenterLambda, 0) {
		return c, fmt.Errorf("%w: center lambda = %g, want finite and ≥ 0", ErrInput, m.CenterLambda)
	}
	c.k = m.Kernel
	if c.k == nil {
		c.k = kernel.Gaussian{Gamma: 1 / float64(d)}
	}
	if err := c.k.Validate(); err != nil {
		return c, fmt.Errorf("%w: %w", ErrInput, err)
	}
	switch {
	case m.M < 0 || m.M > n:
		return c, fmt.Errorf("%w: M = %d centers, want 0 (default) or 1 ≤ M ≤ n = %d", ErrInput, m.M, n)
	case m.M == 0:
		c.m = min(n, int(math.Ceil(5*math.Sqrt(float64(n)))))
	default:
		c.m = m.M
	}
	c.sampler = m.Sampler
	if c.sampler == nil {
		c.sampler = approx.Uniform{}
	}
	switch m.Preconditioner {
	case PrecondAuto, PrecondFalkon, PrecondBLESS, PrecondJacobi, PrecondNone:
		c.pc = m.Preconditioner
	default:
		return c, fmt.Errorf("%w: unknown preconditioner %q (want falkon, bless, jacobi or none)", ErrInput, m.Preconditioner)
	}
	if m.Epsilon < 0 || math.IsNaN(m.Epsilon) || math.IsInf(m.Epsilon, 0) {
		return c, fmt.Errorf("%w: epsilon = %g, want ≥ 0 and finite", ErrInput, m.Epsilon)
	}
	c.maxIter, c.tol = m.MaxIter, m.Tol
	if c.maxIter == 0 {
		c.maxIter = DefaultFalkonMaxIter
	}
	if c.tol == 0 {
		c.tol = DefaultFalkonTol
	}
	if c.maxIter < 0 || !(c.tol > 0) || math.IsInf(c.tol, 0) {
		return c, fmt.Errorf("%w: max_iter = %d, tol = %g; want ≥ 0 and > 0", ErrInput, m.MaxIter, m.Tol)
	}
	if m.Patience < 0 || m.Patience > 0 && m.Validation == nil {
		return c, fmt.Errorf("%w: patience = %d; want ≥ 0, and validation data when positive", ErrInput, m.Patience)
	}
	if m.Workers < 0 || m.BlockRows < 0 || m.MemoryLimit < 0 {
		return c, fmt.Errorf("%w: workers = %d, block_rows = %d, memory_limit = %d; want ≥ 0", ErrInput, m.Workers, m.BlockRows, m.MemoryLimit)
	}
	c.engine = kernel.Options{Workers: m.Workers, BlockRows: m.BlockRows}
	c.passes = c.engine
	c.passes.Float32 = m.Float32
	return c, nil
}

// givenCenters returns user-given or warm-start centers, weights and the
// starting coefficients, or nils.
func (m *Falkon) givenCenters(d, t int) (mat.Matrix, []float64, *mat.Dense, error) {
	if m.WarmStart != nil {
		w := m.WarmStart
		if w.Centers == nil || w.Coef == nil {
			return nil, nil, nil, fmt.Errorf("%w: warm start without centers or coefficients", ErrInput)
		}
		if err := checkCenters(w.Centers, d); err != nil {
			return nil, nil, nil, fmt.Errorf("warm start centers: %w", err)
		}
		mc, _ := w.Centers.Dims()
		if r, c := w.Coef.Dims(); r != mc || c != t {
			return nil, nil, nil, fmt.Errorf("%w: warm start coefficients are %d×%d, want %d×%d", ErrInput, r, c, mc, t)
		}
		if err := check.Matrix("warm start coefficients", w.Coef); err != nil {
			return nil, nil, nil, err
		}
		return w.Centers, m.CenterWeights, w.Coef, nil
	}
	if m.Centers != nil {
		if err := checkCenters(m.Centers, d); err != nil {
			return nil, nil, nil, fmt.Errorf("centers: %w", err)
		}
		return m.Centers, m.CenterWeights, nil, nil
	}
	return nil, nil, nil, nil
}

// precondScratch is the memory the preconditioner's blocked Cholesky and
// lauum (package solver on kernel.Dense) hold beside the M×M matrices: the
// packed operands of their largest product (both operands of a rank-256
// update of the trailing M×M block, 2·M·256 values) and the blocked
// Cholesky's M×256 panel copy (Lauum's panel has the same size, at another
// time), all with M rounded up to the 16-wide tiles. 256 is the block size of
// solver.CholeskyBlocked and of kernel.Dense's k-blocks.
func precondScratch(m int64) int64 {
	const nb = 256
	mp := (m + 15) / 16 * 16
	k := min(nb, m)
	return bytesF64(2*mp*k + mp*k)
}

// plan computes the memory plan for n points in d dimensions, M centers, t
// outputs and nv validation points.
// kmmScratch is the scratch of the engine call that forms K_MM.
func falkonPlan(op *kernel.Op, kmmScratch, xBytes, centerBytes int64, n, mc, t, nv int, copyCenters, cache bool) FalkonPlan {
	n64, m64, t64 := int64(n), int64(mc), int64(t)
	p := FalkonPlan{
		Data:      xBytes + bytesF64(n64*t64),
		Centers:   centerBytes,
		Precond:   bytesF64(2*m64*m64+m64) + max(precondScratch(m64), kmmScratch),
		Engine:    op.ScratchBytes(t),
		Solver:    bytesF64(8 * m64 * t64),
		BlockRows: op.BlockRows(),
	}
	if copyCenters {
		p.Centers *= 2
	}
	if nv > 0 {
		p.Validation = bytesF64(int64(nv)*t64) + op.ScratchBytes(t)
	}
	if cache {
		p.Cache = bytesF64(n64*m64 + n64*t64)
	}
	p.Total = p.Data + p.Centers + p.Precond + p.Engine + p.Solver + p.Validation + p.Cache
	return p
}

// Plan returns the memory plan a fit on x (n×d) with the given number of
// outputs (1 for regression and binary classification, the number of classes
// otherwise) would follow, without allocating anything large, so that it can
// be shown or checked before fitting. When the plan exceeds MemoryLimit it
// returns the plan with ErrMemory, whose message names the bytes needed. When centers are sampled,
// M is the requested number (a sampler may return fewer). Sparse x is
// counted as its CSR arrays (12 bytes a non-zero and 8 a row), not n·d.
func (m *Falkon) Plan(xIn mat.Matrix, outputs int) (FalkonPlan, error) {
	var x mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		xv, err := checkSparse(xs, 0)
		if err != nil {
			return FalkonPlan{}, err
		}
		x = xv
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Matrix("x", xd); err != nil {
			return FalkonPlan{}, err
		}
		x = xd
	}
	if outputs < 1 {
		return FalkonPlan{}, fmt.Errorf("%w: %d outputs, want ≥ 1", ErrInput, outputs)
	}
	n, d := x.Dims()
	cfg, err := m.resolve(n, d)
	if err != nil {
		return FalkonPlan{}, err
	}
	centers, _, _, err := m.givenCenters(d, outputs)
	if err != nil {
		return FalkonPlan{}, err
	}
	plan, _ := m.plan(cfg, x, m.centerShape(cfg, x, centers), outputs, centers != nil)
	mc := cfg.m
	if centers != nil {
		mc, _ = centers.Dims()
	}
	return plan, checkMemory(fmt.Sprintf("falkon (n=%d, M=%d)", n, mc), plan.Total, m.MemoryLimit)
}

// centerShape is the shape of the centers a fit on x will hold: the given
// ones, or cfg.m sampled rows of x (sampledShape).
func (m *Falkon) centerShape(cfg falkonConfig, x mat.Matrix, given mat.Matrix) centerShape {
	if given != nil {
		return givenShape(cfg.k, given)
	}
	return sampledShape(cfg.k, x, cfg.m)
}

// plan is the memory plan of a fit with resolved cfg, centers of shape cs
// and t outputs, with K_nM cached when asked for and within MemoryLimit.
func (m *Falkon) plan(cfg falkonConfig, x mat.Matrix, cs centerShape, t int, given bool) (FalkonPlan, bool) {
	n, _ := x.Dims()
	mc := cs.m
	c := cs.stub()
	planOp := kernel.NewOp(cfg.k, x, c, cfg.passes)
	kmmScratch := kernel.NewOp(cfg.k, c, c, cfg.engine).ScratchBytes(0)
	nv := 0
	if m.Validation != nil && m.Validation.X != nil {
		nv = m.Validation.X.RawMatrix().Rows
	}
	xBytes := inputBytes(x)
	plan := falkonPlan(planOp, kmmScratch, xBytes, cs.bytes(), n, mc, t, nv, given, false)
	if m.CacheKnm {
		withCache := falkonPlan(planOp, kmmScratch, xBytes, cs.bytes(), n, mc, t, nv, given, true)
		if m.MemoryLimit == 0 || withCache.Total <= m.MemoryLimit {
			return withCache, true
		}
	}
	return plan, false
}

func (m *Falkon) fitTargets(ctx context.Context, x mat.Matrix, targets *mat.Dense, task Task, labels Labels) error {
	start := time.Now()
	n, d := x.Dims()
	_, t := targets.Dims()
	cfg, err := m.resolve(n, d)
	if err != nil {
		return err
	}
	var val *ValidationSet
	if m.Validation != nil {
		val = m.Validation
		if err := check.Cols(val.X, d); err != nil {
			return fmt.Errorf("validation: %w", err)
		}
		if err := check.Vector("validation y", val.Y, val.X.RawMatrix().Rows); err != nil {
			return err
		}
	}
	centers, weights, alpha0, err := m.givenCenters(d, t)
	if err != nil {
		return err
	}
	mc := cfg.m
	if centers != nil {
		mc, _ = centers.Dims()
		if weights != nil && len(weights) != mc {
			return fmt.Errorf("%w: %d center weights for %d centers", ErrInput, len(weights), mc)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Plan memory before allocating: the operator itself holds no K_nM.
	plan, cache := m.plan(cfg, x, m.centerShape(cfg, x, centers), t, centers != nil)
	if centers == nil {
		if err := checkSampler(cfg.sampler, x, mc, m.MemoryLimit); err != nil {
			return fmt.Errorf("model: falkon: %w", err)
		}
	}
	if err := checkMemory(fmt.Sprintf("falkon (n=%d, M=%d)", n, mc), plan.Total, m.MemoryLimit); err != nil {
		return err
	}
	nv := 0
	if val != nil {
		nv = val.X.RawMatrix().Rows
	}
	info := FalkonInfo{N: n, D: d, Outputs: t, Lambda: m.Lambda, Penalty: m.Lambda * float64(n),
		Kernel: cfg.k.String(), Plan: plan, CachedKnm: cache}

	// Centers.
	var sampled bool
	centerLambda := m.CenterLambda
	if centers == nil {
		rng := rand.New(rand.NewPCG(m.Seed, falkonSeedStream))
		lm, err := cfg.sampler.Sample(ctx, x, cfg.k, mc, rng)
		if err != nil {
			return fmt.Errorf("model: falkon: sampling centers: %w", err)
		}
		if lm == nil || lm.Points == nil {
			return fmt.Errorf("model: falkon: sampler %T returned no landmarks", cfg.sampler)
		}
		if r, c := lm.Points.Dims(); c != d || r < 1 || r > mc {
			return fmt.Errorf("model: falkon: sampler %T returned %d×%d landmarks, want at most %d×%d", cfg.sampler, r, c, mc, d)
		}
		centers, weights, sampled = ownCenters(cfg.k, lm.Points, false), lm.Weights, true
		centerLambda = lm.Lambda
		mc, _ = centers.Dims()
		info.Sampler = fmt.Sprintf("%T", cfg.sampler)
	} else {
		centers = ownCenters(cfg.k, centers, true)
		info.Sampler = "given"
	}
	info.M = mc
	info.CenterForm = CenterForm(centers)
	pcName := cfg.pc
	if pcName == PrecondAuto {
		pcName = PrecondFalkon
		if sampled && weights != nil && isBLESS(cfg.sampler) || !sampled && weights != nil {
			pcName = PrecondBLESS
		}
	}
	if pcName == PrecondBLESS && weights == nil {
		return fmt.Errorf("%w: the bless preconditioner needs center weights; %s gave none", ErrInput, info.Sampler)
	}
	info.Preconditioner = pcName
	info.SampleTime = time.Since(start)

	// Preconditioner and K_MM.
	t0 := time.Now()
	op := kernel.NewOp(cfg.k, x, centers, cfg.passes)
	kmm := mat.NewDense(mc, mc, hugemem.Float64s(mc*mc))
	if err := kernel.NewOp(cfg.k, centers, centers, cfg.engine).Block(ctx, kmm); err != nil {
		return err
	}
	penalty := info.Penalty
	var pc solver.Preconditioner
	var mulKMM func(dst, v *mat.Dense) error
	switch pcName {
	case PrecondFalkon, PrecondBLESS:
		popt := precond.Options{Epsilon: m.Epsilon, Cholesky: m.Cholesky}
		var f *precond.Falkon
		if pcName == PrecondBLESS {
			a := make([]float64, mc)
			for j, w := range weights { // BLESS's A_h is on the M/n scale; eq. 15 as written wants 1 for uniform
				a[j] = w * float64(n) / float64(mc)
			}
			// Eq. 15 regularizes with λ_h, the λ at which the weighted
			// sample approximates K_nMᵀK_nM (package precond).
			info.PrecondLambda = m.Lambda
			if centerLambda > 0 {
				info.PrecondLambda = centerLambda
			}
			f, err = precond.BuildWeighted(kmm, n, info.PrecondLambda, a, popt)
		} else {
			f, err = precond.BuildFalkon(kmm, n, m.Lambda, popt)
		}
		if err != nil {
			return fmt.Errorf("model: falkon: %w", err)
		}
		pc, mulKMM = f, f.MulKMM
		info.Epsilon, info.Shift, info.JitterT, info.JitterA = f.Epsilon, f.Shift, f.JitterT, f.JitterA
	default:
		mulKMM = func(dst, v *mat.Dense) error {
			dst.Mul(kmm, v)
			return nil
		}
		if pcName == PrecondJacobi {
			diag, err := falkonHDiag(ctx, cfg, x, centers, kmm, penalty)
			if err != nil {
				return err
			}
			j := precond.Jacobi{Diag: diag}
			if err := j.Validate(); err != nil {
				return fmt.Errorf("model: falkon: %w", err)
			}
			pc = j
		}
	}

	// The O(M³) factorizations cannot be interrupted; check before moving on.
	if err := ctx.Err(); err != nil {
		return err
	}
	var knm *mat.Dense
	if cache {
		knm = mat.NewDense(n, mc, nil)
		if err := op.Block(ctx, knm); err != nil {
			return err
		}
	}
	// Right-hand side K_nMᵀY.
	b := mat.NewDense(mc, t, nil)
	if knm != nil {
		b.Mul(knm.T(), targets)
	} else if err := op.MulT(ctx, b, targets); err != nil {
		return err
	}
	info.PrecondTime = time.Since(t0)

	// H v = K_nMᵀ(K_nM v) + λn K_MM v.
	tmp := mat.NewDense(mc, t, nil)
	var knmV *mat.Dense
	if knm != nil {
		knmV = mat.NewDense(n, t, nil)
	}
	h := solver.OperatorFunc{N: mc, F: func(ctx context.Context, dst, v *mat.Dense) error {
		if knm != nil {
			knmV.Mul(knm, v)
			dst.Mul(knm.T(), knmV)
		} else if err := op.MulTMul(ctx, dst, v); err != nil {
			return err
		}
		if err := mulKMM(tmp, v); err != nil {
			return err
		}
		blas64.Axpy(penalty, blas64.Vector{N: mc * t, Inc: 1, Data: tmp.RawMatrix().Data},
			blas64.Vector{N: mc * t, Inc: 1, Data: dst.RawMatrix().Data})
		return nil
	}}

	alpha := mat.NewDense(mc, t, nil)
	if alpha0 != nil {
		alpha.Copy(alpha0)
	}
	var valOp *kernel.Op
	var valDec *mat.Dense
	if val != nil {
		valOp = kernel.NewOp(cfg.k, val.X, centers, cfg.passes)
		valDec = mat.NewDense(nv, t, nil)
	}
	var cbErr error
	// Validation plateau (Patience): the best iterate so far, restored when
	// the rule stops the fit.
	var best *mat.Dense
	bestErr, bestIt, plateau := math.Inf(1), 0, false
	if m.Patience > 0 {
		best = mat.NewDense(mc, t, nil)
		best.Copy(alpha)
	}
	t1 := time.Now()
	opt := solver.Options{Tol: cfg.tol, MaxIter: cfg.maxIter, PrecondNorm: true, Callback: func(p solver.Progress) bool {
		it := FalkonIteration{Iteration: p.Iteration, Residual: p.Residual, ValError: math.NaN()}
		if valOp != nil {
			if err := valOp.Mul(ctx, valDec, p.X); err != nil {
				cbErr = err
				return false
			}
			it.ValError = falkonError(valDec, val.Y, task, labels)
		}
		it.Elapsed = time.Since(start)
		info.History = append(info.History, it)
		if best != nil {
			if it.ValError < bestErr {
				bestErr, bestIt = it.ValError, it.Iteration
				best.Copy(p.X)
			} else if it.Iteration-bestIt >= m.Patience {
				plateau = true
			}
		}
		if m.Progress != nil && !m.Progress(it) {
			return false
		}
		return !plateau
	}}
	res, err := solver.PCG(ctx, h, pc, b, alpha, opt)
	if err != nil {
		return err
	}
	if cbErr != nil {
		return cbErr
	}
	info.SolveTime = time.Since(t1)
	info.Status, info.Iterations, info.Residual = res.Status, res.Iterations, res.Residual
	if plateau {
		alpha.Copy(best)
		info.BestIteration = bestIt
	}
	m.fit = &falkonFit{task: task, labels: labels, d: d, info: info,
		pred: &KernelExpansion{Kernel: cfg.k, Centers: centers, Coef: alpha, Workers: m.Workers}}
	return nil
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

// falkonHDiag computes diag(H) = Σᵢ K(xᵢ, c_j)² + λn K_jj in chunks of rows,
// for the Jacobi preconditioner: one extra pass over the data.
func falkonHDiag(ctx context.Context, cfg falkonConfig, x, centers mat.Matrix, kmm *mat.Dense, penalty float64) ([]float64, error) {
	n, _ := x.Dims()
	mc, _ := centers.Dims()
	diag := make([]float64, mc)
	chunk := max(1, min(n, (8<<20)/(8*mc))) // 8 MiB of K at a time
	buf := make([]float64, chunk*mc)
	for r0 := 0; r0 < n; r0 += chunk {
		r1 := min(n, r0+chunk)
		kb := mat.NewDense(r1-r0, mc, buf[:(r1-r0)*mc])
		if err := kernel.NewOp(cfg.k, rowRange(x, r0, r1), centers, cfg.engine).Block(ctx, kb); err != nil {
			return nil, err
		}
		for i := 0; i < r1-r0; i++ {
			for j, v := range kb.RawRowView(i) {
				diag[j] += v * v
			}
		}
	}
	for j := range diag {
		diag[j] += penalty * kmm.At(j, j)
	}
	return diag, nil
}

// falkonError is the RMSE (regression, first output) or the misclassified
// fraction (classification) of decision values against y.
func falkonError(dec *mat.Dense, y []float64, task Task, labels Labels) float64 {
	if task == Classification {
		pred := labels.decode(dec)
		wrong := 0
		for i, v := range pred {
			if v != y[i] {
				wrong++
			}
		}
		return float64(wrong) / float64(len(y))
	}
	var s float64
	for i, v := range y {
		e := dec.At(i, 0) - v
		s += e * e
	}
	return math.Sqrt(s / float64(len(y)))
}

// DecisionFunction returns the raw outputs for the rows of x (n×1 for
// regression and binary classification, n×classes for multi-class).
// Sparse x stays sparse; a non-zero at a column at or beyond the training
// dimension d is a coordinate in which every training row is zero, as in
// LIBSVM (beyondInput), and a sparse x that merely declares another number
// of columns is read as d-dimensional (test files often do).
func (m *Falkon) DecisionFunction(xIn mat.Matrix) (*mat.Dense, error) {
	if m.fit == nil {
		return nil, ErrNotFitted
	}
	if _, ok := xIn.(kernel.Sparse); ok {
		return decideAny(m.fit.pred, m.fit.d, xIn)
	}
	return decide(m.fit.pred, m.fit.d, kernel.DenseOf(xIn))
}

// Predict returns predicted targets (first output) or class labels.
func (m *Falkon) Predict(xIn mat.Matrix) ([]float64, error) {
	f, err := m.DecisionFunction(xIn)
	if err != nil {
		return nil, err
	}
	return outputs(m.fit.task, m.fit.labels, f), nil
}

// Info describes the last successful fit (zero before one).
func (m *Falkon) Info() FalkonInfo {
	if m.fit == nil {
		return FalkonInfo{}
	}
	return m.fit.info
}

// Solution returns the fitted centers and coefficients (nil before Fit). It
// can be given as WarmStart to a fit with another λ; it must not be modified.
func (m *Falkon) Solution() *KernelExpansion {
	if m.fit == nil {
		return nil
	}
	return m.fit.pred
}

// Classes returns the class labels seen in training (nil for regression).
func (m *Falkon) Classes() []float64 {
	if m.fit == nil {
		return nil
	}
	return slices.Clone(m.fit.labels.Classes)
}
