package model

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
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
// for its fitted state. A failed Fit keeps the previous model.
//
// Concurrency: after Fit returns, Predict, PredictMulti, DecisionFunction, PredictProba,
// Info, Classes, Solution and Plan may be called from several goroutines
// at once. Fit and FitMulti must not run at the same time as any other method, and the
// fields must not be changed while other methods run.
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
	// CenterWeights are optional BLESS-style weights (A_h) for Centers,
	// each finite and > 0 (checked whatever the preconditioner).
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
	// ClassWeights, with Task Classification, multiplies each row's weight
	// in the loss by its class's weight (label → weight > 0; classes not
	// listed weigh 1): scikit-learn's RidgeClassifier class_weight, with
	// BalancedClassWeights for class_weight='balanced'. They multiply the
	// sample weights of FitWeighted. Refused for regression. Saved since
	// format version 8.
	ClassWeights map[float64]float64 `yaml:"class_weights"`
	// Seed seeds the center sampling.
	Seed uint64 `yaml:"seed"`
	// BlockRows tunes the kernel engine (0 means automatic).
	BlockRows int `yaml:"block_rows"`
	// Float32 forms the distance products of the K_nM blocks (every CG
	// pass and the validation passes) in float32, accumulating in float64
	// (kernel.Options.Float32): 1.4–1.7× faster passes, Gaussian kernel
	// values within about 2e-7 (docs/performance.md, "Kernel engine"). K_MM,
	// the CG vectors and Predict stay in float64; the preconditioner's
	// factors are float32 unless PrecondPrecision says float64. A finite
	// value of dense X (or of Validation.X) beyond float32's range is an
	// error wrapping kernel.ErrFloat32Range.
	Float32 bool `yaml:"float32"`
	// Float32Storage holds dense X in float32 (a kernel.Dense32: half the
	// memory of float64) and implies Float32, whose passes round X to
	// float32 anyway: on the same values they give the same bits. Fit
	// rounds a float64 X into a float32 copy (values beyond float32's range
	// are an error), so to hold X once, pass a *kernel.Dense32
	// (kernel.Dense32Of, or data read as float32): a *kernel.Dense32 is
	// used as it is whether this is set or not. Sampled centers are rows of
	// the rounded X (approx.Uniform reads them from it; other samplers work
	// on a float64 copy of it). Sparse X is not affected. Predict takes
	// float64 or float32 rows.
	Float32Storage bool `yaml:"float32_storage"`
	// Resources bounds the fit: Workers the goroutines of the kernel engine
	// (results do not depend on it), MemoryLimit the planned peak memory
	// (see FalkonPlan).
	Resources `yaml:",inline"`
	// CacheKnm asks to keep K_nM in memory instead of recomputing its
	// blocks at every iteration. Without it (and without NeverCacheKnm) a
	// fit keeps K_nM's blocks on its own when d ≥ 64 and the passes are not
	// factored, in at most half the room MemoryLimit leaves, or without a
	// limit half the room 75% of the process's memory leaves (the machine's,
	// or its container's limit when lower; see autoKeepMinDim for the
	// measurements), as FALKON stores K_nM at d > 1,200 when its free
	// memory allows. Such a fit's coefficients may then differ in the last
	// bits (summation order) between machines with different memory; set
	// MemoryLimit or NeverCacheKnm to make them the same everywhere.
	// On AVX-512 or AVX2 with
	// dense centers the
	// engine keeps its blocks (kernel.Op.Keep64, 8 bytes a value, or
	// Keep32, 4, with Float32 or Float32Storage): as many blocks of rows
	// as MemoryLimit leaves room for (all without a limit), the others
	// formed at every pass. Elsewhere K_nM is cached whole (8nM bytes, and
	// 8nt for its product) if the plan with it fits MemoryLimit. Plan.Cache
	// is what is kept; Info.CachedKnm says whether anything was.
	// Forming a block costs about 2d flops a value, reading a kept one 8
	// bytes, so the cache pays at high d: mnist (60,000 × 780, M = 1,225,
	// 10 outputs) fitted in 7.5–8.3 s kept against 47.7 s recomputed
	// (docs/performance.md, "Falkon's K_nM kept in float64"). At low d
	// FALKON found caching slower on CPUs; on ijcnn1 (d = 22, M = 5,000,
	// 10 iterations, 1.00 GB kept) a Float32 fit took 4.3–4.7 CPU-s kept
	// against 5.0 without, on a loaded machine (docs/performance.md,
	// "Multi-output tiles on AVX2").
	CacheKnm bool `yaml:"cache_knm"`
	// NeverCacheKnm forms K_nM's blocks at every pass, never keeping them,
	// as FALKON's never_store_kernel: the fit's memory then stays that of
	// the recomputing passes whatever d and MemoryLimit. It cannot be set
	// with CacheKnm.
	NeverCacheKnm bool `yaml:"never_cache_knm"`
	// Factor chooses whether the K_nM passes of the fit (K_nMᵀy and every
	// CG pass) are factored over the two-valued columns of X
	// (kernel.Factored): with the Gaussian or Laplacian kernel, k(x, c) =
	// k(x_D, c_D)·k(x_S, c_S) over the dense columns D and the two-valued
	// ones S (one-hot indicators, binary flags: on covtype 10 dense and 44
	// two-valued columns, 75 patterns), so that with the rows grouped by
	// their pattern on S each pass runs the engine at dimension |D|; the
	// fit is the same up to rounding. FactorAuto (default) factors when
	// the cost model predicts passes at least 25% faster and the factored
	// plan fits MemoryLimit (else the passes stay plain), FactorOff never,
	// FactorOn whenever the data allow (dense X, a separable kernel, at
	// most kernel.DefaultMaxPatterns patterns). A cached K_nM (CacheKnm
	// with a planned cache) is not factored; prediction, the validation
	// passes and the distributed (Beam) Falkon are not factored either.
	// Plan().Factoring says what a fit factors, Plan().Factored what it
	// holds for it. Saved since format version 7.
	Factor FactorMode `yaml:"factor"`
	// Cholesky tunes the extra jitter of the preconditioner's factorizations.
	Cholesky solver.CholOptions `yaml:"cholesky"`
	// PrecondPrecision is the type the falkon and bless preconditioners'
	// factors are computed and held in (precond.Precision): empty
	// (automatic) means float32 when the data or the passes are (Float32,
	// Float32Storage, or X a *kernel.Dense32), as FALKON factors in float32
	// for float32 data, and float64 otherwise; "float64" or "float32" overrides. Either converges
	// to the same solution (CG with any fixed preconditioner); float32
	// builds in about half the time (M³ flops at twice the rate) and may need
	// jitter more often (Info's JitterT and JitterA).
	PrecondPrecision precond.Precision `yaml:"precond_precision"`
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
	// Probability calibrates class probabilities for PredictProba (a
	// classification Task only) on 5-fold cross-validated decision values,
	// which makes Fit about five times slower; see PredictProba.
	Probability bool `yaml:"probability"`
	// Progress, when set, receives a StageIteration report after every CG
	// iteration (the iteration, MaxIter, the residual and the validation
	// error); an error from it stops the fit (ErrStopped) and the previous
	// model is kept. To stop early and keep the iterate, use MaxIter, Tol
	// or Patience.
	Progress ProgressFunc `yaml:"-"`

	fit *falkonFit
}

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
	// Cache is what is kept of K_nM (CacheKnm, or kept unasked at d ≥ 64
	// within MemoryLimit, or without one within 75% of memory): its blocks kept by the engine (8 or 4 bytes a
	// value of the rows kept, M rounded up to the panel width), or K_nM
	// and its product whole (8nM + 8nt) where the engine cannot keep
	// blocks; 0 when nothing is.
	Cache int64 `json:"cache"`
	// Factored is what factored passes hold (Falkon.Factor): the dense
	// columns of X with rows grouped by pattern, the permutation, the
	// P×M table T and the centers' columns; 0 when the passes are not
	// factored. Engine then counts the groups' engine scratch. Saved since
	// format version 7.
	Factored int64 `json:"factored,omitempty"`
	// Factoring describes the split the passes are factored over, as
	// "10 dense + 44 two-valued columns, 75 patterns"; empty when they are
	// not. Saved since format version 7.
	Factoring string `json:"factoring,omitempty"`
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
	// PrecondPrecision is the type the falkon or bless preconditioner's
	// factors were computed in (empty for jacobi and none). It is not saved
	// with the model.
	PrecondPrecision precond.Precision
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
	// KMMTime, FactorTime and RHSTime split PrecondTime: forming K_MM, the
	// preconditioner's factorizations (for falkon and bless: the two
	// Cholesky factorizations and the triangular product; jacobi: its
	// pass over the data) and the K_nMᵀy pass (with the K_nM cache when
	// one is kept). SampleTime + KMMTime + FactorTime is the setup before
	// any pass over the data. They are not saved with the model.
	KMMTime, FactorTime, RHSTime time.Duration
}

type falkonFit struct {
	task   Task
	labels Labels
	d      int
	pred   *KernelExpansion
	info   FalkonInfo
	calib  *temperature // PredictProba's calibration (nil without Probability)
}

// falkonSeedStream is the second PCG word of Falkon's random source.
const falkonSeedStream = 0x66616c6b // "falk"

// Fit trains on x (n×d) and y (targets or class labels). A failed Fit
// keeps the previous model. Sparse x
// (kernel.Sparse, such as datasets.CSR) stays sparse: the K_nM products run
// on the kernel engine's sparse path, and the sampled centers are CSR rows
// (dense only when at least a quarter of their entries are non-zero,
// kernel.PreferDenseCenters; Info().CenterForm says which), so K_MM and
// every product run sparse × sparse; the fitted model is the same as on the
// dense copy of x (same centers, predictions equal to rounding).
func (m *Falkon) Fit(ctx context.Context, xIn mat.Matrix, y []float64) error {
	return m.FitWeighted(ctx, xIn, y, nil)
}

// FitWeighted is Fit with sample weights w (nil: all 1): it minimizes
// (1/S)·Σ w_i‖f(x_i) − y_i‖² + λ‖f‖² over the span of the centers, with
// S = Σ w_i, by solving (K_nMᵀWK_nM + λn·K_MM)α = K_nMᵀWy with the
// weights rescaled to sum to n (S = n) (they are relative: a constant factor
// gives the same model), so the penalty stays λn and the preconditioner is
// FALKON's. An integer weight k gives the model of k copies of the row
// with the same centers; the centers are sampled as without weights.
//
// A weighted iteration is the unweighted one's single fused pass with each
// row of K_nM·v scaled by its weight in between (kernel.Op.MulTMulWeighted);
// the plan adds the n weights. Probability refuses weights (its held-out
// fits do not take them). See WeightedEstimator.
func (m *Falkon) FitWeighted(ctx context.Context, xIn mat.Matrix, y, w []float64) (err error) {
	defer named(&err, "falkon")
	defer indefinite(&err, m.Kernel)
	if err := checkContext(ctx, "falkon"); err != nil {
		return err
	}
	var x mat.Matrix
	var task Task
	var labels Labels
	var t *mat.Dense
	if xs, ok := xIn.(kernel.Sparse); ok {
		if x, err = exactInput(xs, y, 0); err != nil {
			return err
		}
		task, labels, t, err = targetsOf(y, m.Task, "falkon")
	} else if _, is32 := xIn.(*kernel.Dense32); is32 || m.Float32Storage {
		if x, err = float32Input(xIn, y); err == nil {
			task, labels, t, err = targetsOf(y, m.Task, "falkon")
		}
	} else {
		xd := kernel.DenseOf(xIn)
		x = xd
		task, labels, t, err = targets(xd, y, m.Task, "falkon")
	}
	if err != nil {
		return err
	}
	if err := check.Weights(w, len(y)); err != nil {
		return err
	}
	if w != nil && m.Probability {
		return fmt.Errorf("%w: Probability with sample weights: the calibration's held-out fits do not take them", ErrInput)
	}
	if w, err = classRowWeights(m.ClassWeights, task, labels, y, w); err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, m.Progress)
	f, err := m.fitTargets(ctx, pr, x, copiedInput(xIn, x), t, task, labels, relativeWeights(w))
	if err == nil && m.Probability {
		if f.calib, err = m.calibrate(ctx, x, y, f); err != nil {
			err = fmt.Errorf("model: falkon probability: %w", err)
		}
	}
	if err = pr.finish(err, "falkon"); err != nil {
		return err
	}
	m.fit = f
	return nil
}

// FitMulti trains a multi-output regression on x (n×d, dense or sparse)
// and y (n×t). Predict then returns the first output; PredictMulti returns
// all of them. Validation data is not supported here. A failed FitMulti
// keeps the previous model.
func (m *Falkon) FitMulti(ctx context.Context, xIn mat.Matrix, y *mat.Dense) (err error) {
	defer named(&err, "falkon")
	defer indefinite(&err, m.Kernel)
	if err := checkContext(ctx, "falkon"); err != nil {
		return err
	}
	x, err := multiInput(xIn, y, m.Task, true, true)
	if err != nil {
		return err
	}
	if _, is32 := x.(*kernel.Dense32); !is32 && m.Float32Storage && !isSparse(x) {
		if x, err = float32Input(x, nil); err != nil {
			return err
		}
	}
	if m.Validation != nil {
		return fmt.Errorf("%w: validation data needs a single output; use Fit", ErrInput)
	}
	if m.ClassWeights != nil {
		return fmt.Errorf("%w: ClassWeights with FitMulti, a multi-output regression: class weights need task classification", ErrInput)
	}
	ctx, pr := startProgress(ctx, m.Progress)
	f, err := m.fitTargets(ctx, pr, x, copiedInput(xIn, x), mat.DenseCopyOf(y), Regression, Labels{}, nil)
	if err = pr.finish(err, "falkon"); err != nil {
		return err
	}
	m.fit = f
	return nil
}

// Plan returns the memory plan a fit on x (n×d) with the given number of
// outputs (1 for regression and binary classification, the number of classes
// otherwise) would follow, without allocating anything large, so that it can
// be shown or checked before fitting. When the plan exceeds MemoryLimit it
// returns the plan with ErrMemory, whose message names the bytes needed. When centers are sampled,
// M is the requested number (a sampler may return fewer). Sparse x is
// counted as its CSR arrays (12 bytes a non-zero and 8 a row), not n·d.
func (m *Falkon) Plan(xIn mat.Matrix, outputs int) (_ FalkonPlan, err error) {
	defer named(&err, "falkon")
	var x mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		xv, err := checkSparse(xs, 0)
		if err != nil {
			return FalkonPlan{}, err
		}
		x = xv
	} else if x32, ok := xIn.(*kernel.Dense32); ok {
		x = x32
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
	given, err := m.givenCenters(d, outputs)
	if err != nil {
		return FalkonPlan{}, err
	}
	centers := given.centers
	if m.Float32Storage && !isSparse(x) {
		// Fit would hold X in float32 beside the caller's float64 X.
		if _, is32 := x.(*kernel.Dense32); !is32 {
			cfg.inputCopy = 4 * int64(n) * int64(d)
		}
	}
	plan, _, _ := m.plan(cfg, x, m.centerShape(cfg, x, centers), outputs, centers != nil)
	mc := cfg.m
	if centers != nil {
		mc, _ = centers.Dims()
	}
	return plan, checkMemory(fmt.Sprintf("falkon (n=%d, M=%d)", n, mc), plan.Total, m.MemoryLimit)
}

// DecisionFunction returns the raw outputs for the rows of x (n×1 for
// regression and binary classification, n×classes for multi-class).
// Sparse x stays sparse; a non-zero at a column at or beyond the training
// dimension d is a coordinate in which every training row is zero, as in
// LIBSVM (beyondInput), and a sparse x that merely declares another number
// of columns is read as d-dimensional (test files often do).
func (m *Falkon) DecisionFunction(xIn mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "falkon")
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
	p, _, err := m.PredictDecision(xIn)
	return p, err
}

// PredictDecision returns Predict's values and DecisionFunction's for the
// rows of x from one pass over the kernel between x and the centers, where
// calling both would form it twice: scoring a binary classifier (labels for
// its accuracy, decision values for its AUC) at the cost of one prediction.
// The two are the ones Predict and DecisionFunction return, bit for bit.
func (m *Falkon) PredictDecision(x mat.Matrix) (_ []float64, _ *mat.Dense, err error) {
	defer named(&err, "falkon")
	f, err := m.DecisionFunction(x)
	if err != nil {
		return nil, nil, err
	}
	return outputs(m.fit.task, m.fit.labels, f), f, nil
}

// Dim returns the number of features of the rows the Falkon was fitted on
// (scikit-learn's n_features_in_): the columns Predict takes. It is 0
// before Fit (or Load).
func (m *Falkon) Dim() int {
	if m.fit == nil {
		return 0
	}
	return m.fit.d
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
