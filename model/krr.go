package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// KRR is kernel ridge regression (and regularized least-squares
// classification) with a pluggable solver backend.
//
// With Approx nil it is exact KRR: α = (K + λnI)⁻¹y, solved by a Cholesky
// factorization of the n×n matrix K + λnI, with jitter added (and reported in
// Info) only if the factorization fails. Predictions are f(x) = Σᵢ αᵢ k(x, xᵢ).
//
// Units: λ multiplies n (see the package documentation). scikit-learn's
// KernelRidge(alpha=a) is KRR with Lambda = a/n; FALKON's penalty is Lambda.
//
// Classification: Fit takes class labels; two classes are coded ±1 (the larger
// label +1) and predicted by the sign, more classes are coded one-vs-rest ±1
// columns and predicted by the arg-max (see Labels).
//
// The zero value of every field except Lambda means its default; defaults are
// resolved into a local copy at Fit and never written back. A failed Fit keeps
// the previous model.
//
// Concurrency: after Fit returns, Predict, PredictMulti, DecisionFunction, PredictProba,
// Info, Classes and Predictor may be called from several goroutines
// at once. Fit and FitMulti must not run at the same time as any other method, and the
// fields must not be changed while other methods run.
type KRR struct {
	// Kernel is the kernel. nil means Gaussian with γ = 1/d (scikit-learn's
	// gamma="auto"), d the number of features. YAML configurations describe
	// kernels with kernel.Spec and build them with kernel.New.
	Kernel kernel.Kernel `yaml:"kernel"`
	// Lambda is the regularization λ > 0 (required); the system solved is
	// (K + λnI)α = y.
	Lambda float64 `yaml:"lambda"`
	// Task is regression (default) or classification.
	Task Task `yaml:"task"`
	// ClassWeights, with Task Classification, multiplies each row's weight
	// in the loss by its class's weight (label → weight > 0; classes not
	// listed weigh 1): scikit-learn's RidgeClassifier class_weight, with
	// BalancedClassWeights for class_weight='balanced'. They multiply the
	// sample weights of FitWeighted. Refused for regression. Saved since
	// format version 8.
	ClassWeights map[float64]float64 `yaml:"class_weights"`
	// Approx is the solver backend; nil means exact KRR (ExactKRR).
	Approx KRRApprox `yaml:"approx"`
	// Seed seeds the random choices of approximate backends (landmark
	// sampling, random features). Exact KRR is deterministic.
	Seed uint64 `yaml:"seed"`
	// Resources bounds the fit: Workers the goroutines of the kernel engine,
	// MemoryLimit the planned peak of the backend (each backend documents
	// what it counts).
	Resources `yaml:",inline"`
	// Cholesky tunes the jitter added when a factorization fails.
	Cholesky solver.CholOptions `yaml:"cholesky"`
	// Probability calibrates class probabilities for PredictProba (a
	// classification Task only) on 5-fold cross-validated decision values,
	// which makes Fit about five times slower; see PredictProba.
	Probability bool `yaml:"probability"`
	// Progress, when non-nil, receives StageSolve reports from the backend
	// (exact: the kernel matrix, then the factorization; Nyström: each chunk
	// of K_nM rows, then the solve; feature ridge: the map, each chunk of
	// features, the solve; MEKA: once when done); an error from it stops
	// the fit (ErrStopped).
	Progress ProgressFunc `yaml:"-"`

	fit *krrFit
}

// krrFit is the whole fitted state of a KRR, kept in one place so that a
// persistence file in this package can encode and restore it.
type krrFit struct {
	task   Task
	labels Labels // classification only
	d      int
	pred   KRRPredictor
	info   KRRInfo
	// calib is the calibration of PredictProba (nil without Probability).
	calib *temperature
}

// KRRInfo describes a fit.
type KRRInfo struct {
	// Backend names the solver backend, e.g. "exact".
	Backend string `json:"backend"`
	// N and D are the training set's size and dimension; Outputs is the number
	// of target columns (1 for regression and binary classification).
	N       int `json:"n"`
	D       int `json:"d"`
	Outputs int `json:"outputs"`
	// Rank is the size of the linear system solved: n for exact KRR, the
	// number of centers or features for approximations.
	Rank int `json:"rank"`
	// Lambda is λ and Penalty is λn, the value added to the diagonal.
	Lambda  float64 `json:"lambda"`
	Penalty float64 `json:"penalty"`
	// Jitter is the absolute amount added to the diagonal on top of the
	// penalty because a Cholesky factorization failed (0 when none was needed);
	// CholAttempts counts the factorizations tried.
	Jitter       float64 `json:"jitter"`
	CholAttempts int     `json:"chol_attempts"`
	// MemoryBytes is the planned peak memory of the fit.
	MemoryBytes int64 `json:"memory_bytes"`
	// Kernel is the kernel used, after defaults.
	Kernel string `json:"kernel"`
	// CenterForm says how a Nyström backend held its centers: "dense" or
	// "sparse (CSR, N non-zeros)" (CenterForm); empty for other backends.
	// It is not saved: a loaded model recomputes it from its centers.
	CenterForm string `json:"center_form,omitempty"`
}

// KRRProblem is the ridge problem handed to a KRRApprox backend.
type KRRProblem struct {
	// Kernel is the resolved, validated kernel.
	Kernel kernel.Kernel
	// X (n×d) and Y (n×t) are the validated training data. Backends must not
	// modify them and must copy what they keep.
	X, Y *mat.Dense
	// Lambda is λ > 0; backends solve with penalty λn (see the package
	// documentation).
	Lambda float64
	// Weights, when non-nil, are the sample weights (n of them, finite,
	// ≥ 0, scaled to sum to n as relativeWeights does): the backend then
	// minimizes (1/n)·Σ w_i‖f(x_i) − y_i‖² + λ‖f‖², the unweighted
	// problem's average loss with row i counted w_i times, with the same
	// penalty λn. KRR hands weights only to the backends of this package
	// that honour them (exact, Nyström, feature ridge) and refuses them for
	// any other.
	Weights []float64
	// Rng is the only source of randomness a backend may use.
	Rng *rand.Rand
	// Resources and Cholesky are the estimator's settings.
	Resources
	Cholesky solver.CholOptions
	// Progress, when non-nil, reports the backend's steps (StageSolve);
	// backends that loop call it between steps and stop when it returns an
	// error (returning that error). It may be nil.
	Progress ProgressFunc
}

// KRRApprox is a KRR solver backend: exact, Nyström, ridge on a feature map,
// MEKA. Implementations live in this package or anywhere else; a backend only
// needs this exported method, so other files and packages can add new ones.
type KRRApprox interface {
	// FitKRR solves the ridge problem and returns the fitted predictor and
	// information about the fit (the caller fills N, D, Outputs, Lambda and
	// Kernel if the backend leaves them zero).
	FitKRR(ctx context.Context, p KRRProblem) (KRRPredictor, KRRInfo, error)
}

// KRRPredictor is a fitted KRR function.
type KRRPredictor interface {
	// Decision writes the decision values for the rows of x (m×d, validated
	// by the caller) into dst (m×Outputs()).
	Decision(ctx context.Context, dst, x *mat.Dense) error
	// Outputs is the number of output columns t.
	Outputs() int
}

// KernelExpansion is the predictor f(x) = Σⱼ Coef[j,:] k(x, Centers[j,:]):
// exact KRR (centers = training points) and Nyström/FALKON solutions.
type KernelExpansion struct {
	// Kernel is the kernel.
	Kernel kernel.Kernel
	// Centers holds the M expansion points, one per row (M×d): a *mat.Dense
	// or CSR rows (kernel.Sparse, as Falkon and Nyström KRR keep centers
	// sampled from sparse X), which the kernel engine uses as they are.
	Centers mat.Matrix
	// Coef holds the coefficients (M×t).
	Coef *mat.Dense
	// Workers bounds the engine's goroutines; 0 means GOMAXPROCS.
	Workers int
}

var _ KRRPredictor = (*KernelExpansion)(nil)

// Outputs returns the number of columns of Coef.
func (e *KernelExpansion) Outputs() int {
	_, t := e.Coef.Dims()
	return t
}

// Decision sets dst = K(x, Centers)·Coef through the kernel block engine.
func (e *KernelExpansion) Decision(ctx context.Context, dst, x *mat.Dense) error {
	if e.Kernel == nil || e.Centers == nil || e.Coef == nil {
		return fmt.Errorf("%w: kernel expansion without kernel, centers or coefficients", ErrInput)
	}
	_, d := e.Centers.Dims()
	if err := check.Cols(x, d); err != nil {
		return err
	}
	op := kernel.NewOp(e.Kernel, x, e.Centers, kernel.Options{Workers: e.Workers})
	return op.Mul(ctx, dst, e.Coef)
}

// ExactKRR is the exact KRR backend: Cholesky on K + λnI. Its memory is
// dominated by the n×n kernel matrix, which is factored in place (8n² bytes).
//
// Its plan (Info().MemoryBytes, checked against MemoryLimit before anything
// large is allocated) counts, in bytes: K (8n²); the training data as
// handed to the backend, X and the targets (8n·(d + t)); the kernel
// engine's scratch forming K (kernel.Op.ScratchBytes(0) on (X, X): X
// packed as the engine's centers, as large as X, its norms, each worker's
// block of K and packed block of X); the blocked Cholesky's and the
// solve's workspace; and the predictor's own arrays, allocated by the fit:
// α, the targets' copy solved in place (8n·t), and a copy of X kept as the
// predictor's centers (8n·d). The predictor keeps a copy, not the caller's
// X (scikit-learn's KernelRidge keeps the caller's array as X_fit_), so
// that changing X after Fit cannot change the model; it is planned. Beside
// the caller's X a fit so allocates X's size twice: the engine's packed
// copy (garbage once K is formed) and the predictor's.
type ExactKRR struct{}

var _ KRRApprox = ExactKRR{}

// FitKRR implements KRRApprox.
func (ExactKRR) FitKRR(ctx context.Context, p KRRProblem) (KRRPredictor, KRRInfo, error) {
	if err := checkContext(ctx, "exact krr"); err != nil {
		return nil, KRRInfo{}, err
	}
	n, d := p.X.Dims()
	_, t := p.Y.Dims()
	op := kernel.NewOp(p.Kernel, p.X, p.X, kernel.Options{Workers: p.Workers})
	// K + λnI, the data and targets, the engine's scratch, the blocked
	// Cholesky's workspace (its panels and the packed operands of its
	// largest product), the solve's (exactSolveBytes), and the predictor's
	// own arrays: α, the copy of Y solved in place (n·t), and its copy of
	// X as the centers (n·d), both allocated by the fit.
	need := bytesF64(int64(n)*int64(n)+2*int64(n)*int64(d+t)) + op.ScratchBytes(0) +
		solver.BlockedScratchBytes(n) + kernel.Dense{}.SyrkPackBytes(n, min(n, solver.BlockedWidth)) +
		exactSolveBytes(n, t)
	info := KRRInfo{Backend: "exact", Rank: n, Penalty: p.Lambda * float64(n), MemoryBytes: need}
	if err := checkMemory(fmt.Sprintf("exact KRR (n=%d)", n), need, p.MemoryLimit); err != nil {
		return nil, info, err
	}
	k := mat.NewDense(n, n, nil)
	if err := op.Block(ctx, k); err != nil {
		return nil, info, err
	}
	if err := p.report(1, 2); err != nil {
		return nil, info, err
	}
	sw := p.rootWeights()
	raw := k.RawMatrix()
	for i := 0; i < n; i++ {
		row := raw.Data[i*raw.Stride:]
		for j := 0; j < i; j++ { // symmetrize: the engine's rounding may differ across the diagonal
			row[j] = raw.Data[j*raw.Stride+i]
		}
		if sw != nil {
			scaleTo(row[:i+1], sw[i], sw[:i+1])
		}
		row[i] += info.Penalty
	}
	// Blocked Cholesky with its products on the kernel engine's micro-kernels:
	// the n³/3 flops run at matrix-product speed instead of gonum's potrf's.
	chol, err := solver.CholeskyBlocked(ctx, k, p.Cholesky, kernel.Dense{Workers: p.Workers})
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: exact: %w", err)
	}
	info.Jitter, info.CholAttempts = chol.Jitter, chol.Attempts
	if err := ctx.Err(); err != nil {
		return nil, info, err
	}
	alpha, err := weightedSolve(chol, p.Y, sw)
	if err != nil {
		return nil, info, err
	}
	if err := p.report(2, 2); err != nil {
		return nil, info, err
	}
	return &KernelExpansion{Kernel: p.Kernel, Centers: mat.DenseCopyOf(p.X), Coef: alpha, Workers: p.Workers}, info, nil
}

// rootWeights returns √w_i for the problem's Weights (nil without).
func (p KRRProblem) rootWeights() []float64 {
	if p.Weights == nil {
		return nil
	}
	s := make([]float64, len(p.Weights))
	for i, w := range p.Weights {
		s[i] = math.Sqrt(w)
	}
	return s
}

// scaleTo sets row[j] = a·s[j]·row[j]: one row of S_KS_ (S_ = diag(√w)).
func scaleTo(row []float64, a float64, s []float64) {
	for j := range row {
		row[j] *= a * s[j]
	}
}

// weightedSolve returns exact KRR's α for targets y from the factor of
// K + λnI, or with sw = √w (weights summing to n) of S_KS_ + λn·I
// (S_ = diag(sw)): then α = S_(S_KS_ + λn·I)⁻¹S_y, which sets the gradient
// of (1/n)Σ w_i(Kα − y)_i² + λαᵀKα to zero (K W K α − K W y + λn·Kα = 0
// with W = S_²), and is 0 at the rows of weight 0.
func weightedSolve(chol *solver.Chol, y *mat.Dense, sw []float64) (*mat.Dense, error) {
	alpha := mat.DenseCopyOf(y)
	scaleRows(alpha, sw)
	if err := chol.Solve(alpha); err != nil {
		return nil, err
	}
	scaleRows(alpha, sw)
	return alpha, nil
}

// exactSolveBytes is what Chol.Solve of an n×n factor from
// solver.CholeskyBlocked on kernel.Dense allocates for t right-hand sides
// (exact KRR's α = (K + λnI)⁻¹Y): solver.SolveScratchBytes (with fewer
// than 16 columns, from n = 1,024, x copied into rows of 16 values and a
// block's dots: 174 KB at n = 1,100, 1.4 MB at n = 10,000, which the plan
// left out before), and from 16 columns the products' buffer the blocked
// solves reserve (the factorization's, released before, may already have
// been collected).
func exactSolveBytes(n, t int) int64 {
	b := solver.SolveScratchBytes(n, t)
	if t >= 16 {
		b += kernel.Dense{}.PackBytes(n, t, min(n, solver.BlockedWidth))
	}
	return b
}

// report sends a StageSolve report, done steps of total, to p.Progress.
func (p KRRProblem) report(done, total int) error {
	if p.Progress == nil {
		return nil
	}
	return p.Progress(Progress{Stage: StageSolve, Done: done, Total: total, Residual: noValue, ValError: noValue})
}

// krrSeedStream is the second PCG word for KRR's random source, so that the
// same Seed drives different estimators through different streams.
const krrSeedStream = 0x6b7272 // "krr"

// Fit trains the model on x (n×d) and y (n targets or class labels). It
// validates the configuration and the data first. A failed Fit keeps the
// previous model.
//
// Sparse x (kernel.Sparse) stays sparse with the exact backend (the kernel
// matrix is formed from the sparse rows and the predictor keeps them), MEKA,
// Nyström KRR and feature ridge (the sampler, the K_nM products and the
// feature maps read sparse rows); other backends take a dense copy.
func (m *KRR) Fit(ctx context.Context, xIn mat.Matrix, y []float64) error {
	return m.FitWeighted(ctx, xIn, y, nil)
}

// FitWeighted is Fit with sample weights w (nil: all 1): it minimizes
// (1/S)·Σ w_i‖f(x_i) − y_i‖² + λ‖f‖² with S = Σ w_i (KRRProblem.Weights),
// so an integer weight k gives the model of k copies of the row, and
// weights multiplied by a constant give the same model. The exact, Nyström
// and feature-ridge backends take weights (Nyström's centers are sampled
// as without them); MEKA and other backends, and Probability, refuse them
// with ErrInput. See WeightedEstimator.
func (m *KRR) FitWeighted(ctx context.Context, xIn mat.Matrix, y, w []float64) (err error) {
	defer named(&err, "krr")
	defer indefinite(&err, m.Kernel)
	if err := checkContext(ctx, "krr"); err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, m.Progress)
	f, err := m.train(ctx, pr, xIn, y, w)
	if err = pr.finish(err, "krr"); err != nil {
		return err
	}
	m.fit = f
	return nil
}

// train is Fit without the context check and the final assignment.
func (m *KRR) train(ctx context.Context, pr *progressRun, xIn mat.Matrix, y, w []float64) (*krrFit, error) {
	var x mat.Matrix
	var task Task
	var labels Labels
	var t *mat.Dense
	var err error
	if xs, ok := xIn.(kernel.Sparse); ok && m.sparseBackend() {
		if x, err = exactInput(xs, y, 0); err != nil {
			return nil, err
		}
		task, labels, t, err = targetsOf(y, m.Task, "krr")
	} else {
		xd := kernel.DenseOf(xIn)
		x = xd
		task, labels, t, err = targets(xd, y, m.Task, "krr")
	}
	if err != nil {
		return nil, err
	}
	if w != nil {
		if err := m.weighted(w, len(y)); err != nil {
			return nil, err
		}
	}
	if w, err = classRowWeights(m.ClassWeights, task, labels, y, w); err != nil {
		return nil, err
	}
	if w != nil {
		if err := m.weightedBackend(); err != nil {
			return nil, err
		}
	}
	f, err := m.fitTargets(ctx, pr, x, t, task, labels, relativeWeights(w))
	if err != nil {
		return nil, err
	}
	if m.Probability {
		if f.calib, err = m.calibrate(ctx, x, y, f); err != nil {
			return nil, fmt.Errorf("model: krr probability: %w", err)
		}
	}
	return f, nil
}

// FitMulti trains a multi-output regression on x (n×d, dense or sparse as
// in Fit) and the targets y (n×t), one column per output. Predict then
// returns the first output; PredictMulti returns all of them. A failed
// FitMulti keeps the previous model.
func (m *KRR) FitMulti(ctx context.Context, xIn mat.Matrix, y *mat.Dense) (err error) {
	defer named(&err, "krr")
	defer indefinite(&err, m.Kernel)
	if err := checkContext(ctx, "krr"); err != nil {
		return err
	}
	x, err := multiInput(xIn, y, m.Task, m.sparseBackend(), false)
	if err != nil {
		return err
	}
	if m.ClassWeights != nil {
		return fmt.Errorf("%w: ClassWeights with FitMulti, a multi-output regression: class weights need task classification", ErrInput)
	}
	ctx, pr := startProgress(ctx, m.Progress)
	f, err := m.fitTargets(ctx, pr, x, mat.DenseCopyOf(y), Regression, Labels{}, nil)
	if err = pr.finish(err, "krr"); err != nil {
		return err
	}
	m.fit = f
	return nil
}

// sparseBackend reports whether the backend takes sparse X as it is: exact
// KRR and KRR on MEKA.
func (m *KRR) sparseBackend() bool {
	switch m.Approx.(type) {
	case nil, ExactKRR, *ExactKRR, MEKAKRR, *MEKAKRR, NystromKRR, *NystromKRR, FeatureRidge, *FeatureRidge:
		return true
	}
	return false
}

// weighted checks sample weights for n rows and that the configuration
// takes them: a backend of this package that honours KRRProblem.Weights,
// and no Probability (its held-out fits would be unweighted).
func (m *KRR) weighted(w []float64, n int) error {
	if err := check.Weights(w, n); err != nil {
		return err
	}
	if err := m.weightedBackend(); err != nil {
		return err
	}
	if m.Probability {
		return fmt.Errorf("%w: Probability with sample weights: the calibration's held-out fits do not take them", ErrInput)
	}
	return nil
}

// weightedBackend refuses a backend that does not honour
// KRRProblem.Weights (sample or class weights).
func (m *KRR) weightedBackend() error {
	switch m.Approx.(type) {
	case nil, ExactKRR, *ExactKRR, NystromKRR, *NystromKRR, FeatureRidge, *FeatureRidge:
		return nil
	}
	return fmt.Errorf("%w: the %T backend does not take sample or class weights (the exact, Nyström and feature-ridge backends do)", ErrInput, m.Approx)
}

// reportingBackend reports whether the backend reports its own steps
// (StageSolve); KRR reports once after the others.
func reportingBackend(b KRRApprox) bool {
	switch b.(type) {
	case ExactKRR, *ExactKRR, NystromKRR, *NystromKRR, FeatureRidge, *FeatureRidge:
		return true
	}
	return false
}

func (m *KRR) fitTargets(ctx context.Context, pr *progressRun, xm mat.Matrix, targets *mat.Dense, task Task, labels Labels, w []float64) (*krrFit, error) {
	n, d := xm.Dims()
	if err := check.Positive("Lambda", m.Lambda); err != nil {
		return nil, err
	}
	k := m.Kernel
	if k == nil {
		k = kernel.Gaussian{Gamma: 1 / float64(d)}
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if err := m.Resources.validate("krr"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	backend := m.Approx
	if backend == nil {
		backend = ExactKRR{}
	}
	if _, ok := k.(kernel.Precomputed); ok {
		switch backend.(type) {
		case ExactKRR, *ExactKRR:
			if err := kernel.CheckPrecomputed(xm); err != nil {
				return nil, err
			}
		default:
			return nil, refusePrecomputed(k, fmt.Sprintf("krr with backend %T", backend))
		}
	}
	var pred KRRPredictor
	var info KRRInfo
	var err error
	p := KRRProblem{Kernel: k, Y: targets, Lambda: m.Lambda, Rng: rand.New(rand.NewPCG(m.Seed, krrSeedStream)),
		Resources: m.Resources, Cholesky: m.Cholesky, Weights: w}
	if pr.f != nil {
		p.Progress = pr.report
	}
	if xs, ok := xm.(kernel.Sparse); ok {
		switch b := backend.(type) {
		case MEKAKRR:
			pred, info, err = b.fitKRR(ctx, p, xs)
		case *MEKAKRR:
			pred, info, err = b.fitKRR(ctx, p, xs)
		case NystromKRR:
			pred, info, err = b.fit(ctx, p, xs)
		case *NystromKRR:
			pred, info, err = b.fit(ctx, p, xs)
		case FeatureRidge:
			pred, info, err = b.fit(ctx, p, xs)
		case *FeatureRidge:
			pred, info, err = b.fit(ctx, p, xs)
		default:
			pred, info, err = fitExactSparse(ctx, k, xs, targets, p)
		}
	} else {
		p.X = xm.(*mat.Dense)
		pred, info, err = backend.FitKRR(ctx, p)
	}
	if err != nil {
		return nil, err
	}
	if !reportingBackend(backend) {
		if err := pr.report(Progress{Stage: StageSolve, Done: 1, Total: 1, Residual: noValue, ValError: noValue}); err != nil {
			return nil, err
		}
	}
	_, t := targets.Dims()
	if pred.Outputs() != t {
		return nil, fmt.Errorf("model: KRR backend %T returned %d outputs, want %d", backend, pred.Outputs(), t)
	}
	info.N, info.D, info.Outputs, info.Lambda = n, d, t, m.Lambda
	if info.Penalty == 0 {
		info.Penalty = m.Lambda * float64(n)
	}
	if info.Kernel == "" {
		info.Kernel = k.String()
	}
	return &krrFit{task: task, labels: labels, d: d, pred: pred, info: info}, nil
}

// DecisionFunction returns the raw outputs for the rows of x: n×1 for
// regression and binary classification, n×classes (one-vs-rest scores) for
// multi-class classification.
//
// Sparse x goes to a predictor fitted on sparse data as it is; a non-zero
// at a column at or beyond the training dimension is a coordinate in which
// every training row is zero, as in LIBSVM (beyondInput; refused by the
// random-Fourier-feature maps). Other predictors take a dense copy.
func (m *KRR) DecisionFunction(xIn mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "krr")
	if m.fit == nil {
		return nil, ErrNotFitted
	}
	if sd, ok := m.fit.pred.(sparseDecider); ok {
		return decideBeyond(m.fit.pred, sd, m.fit.d, predKernel(m.fit.pred), xIn)
	}
	return decide(m.fit.pred, m.fit.d, kernel.DenseOf(xIn))
}

// decideBeyond is the decision of a sparse-capable predictor with kernel k
// fitted on d columns, for x that may hold non-zeros beyond column d
// (beyondInput): the predictor runs on the columns below d and its rows
// are scaled, which only predictors linear in the kernel row allow.
func decideBeyond(pred KRRPredictor, sd sparseDecider, d int, k kernel.Kernel, xIn mat.Matrix) (*mat.Dense, error) {
	x, scale, err := predictInput(xIn, d, k)
	if err != nil {
		return nil, err
	}
	if scale != nil && !linearInKernel(pred) {
		return nil, fmt.Errorf("%w: X has non-zeros beyond the training dimension %d, which predictor %T cannot take (its features are not kernel columns)", ErrInput, d, pred)
	}
	n, _ := x.Dims()
	dst := mat.NewDense(n, pred.Outputs(), nil)
	if err := sd.decide(context.Background(), dst, x); err != nil {
		return nil, err
	}
	scaleRows(dst, scale)
	return dst, nil
}

// Predict returns predicted targets (regression, first output) or class labels
// (classification) for the rows of x.
func (m *KRR) Predict(x mat.Matrix) ([]float64, error) {
	p, _, err := m.PredictDecision(x)
	return p, err
}

// PredictDecision returns Predict's values and DecisionFunction's for the
// rows of x from one pass over the kernel between x and the centers, where
// calling both would form it twice: scoring a binary classifier (labels for
// its accuracy, decision values for its AUC) at the cost of one prediction.
// The two are the ones Predict and DecisionFunction return, bit for bit.
func (m *KRR) PredictDecision(x mat.Matrix) (_ []float64, _ *mat.Dense, err error) {
	defer named(&err, "krr")
	f, err := m.DecisionFunction(x)
	if err != nil {
		return nil, nil, err
	}
	return outputs(m.fit.task, m.fit.labels, f), f, nil
}

// Dim returns the number of features of the rows the KRR was fitted on
// (scikit-learn's n_features_in_): the columns Predict takes. It is 0
// before Fit (or Load).
func (m *KRR) Dim() int {
	if m.fit == nil {
		return 0
	}
	return m.fit.d
}

// Info describes the last successful fit; the zero KRRInfo before one.
func (m *KRR) Info() KRRInfo {
	if m.fit == nil {
		return KRRInfo{}
	}
	return m.fit.info
}

// Predictor returns the fitted predictor (nil before Fit), for example a
// *KernelExpansion for exact KRR.
func (m *KRR) Predictor() KRRPredictor {
	if m.fit == nil {
		return nil
	}
	return m.fit.pred
}

// Classes returns the class labels seen in training (nil for regression or
// before Fit).
func (m *KRR) Classes() []float64 {
	if m.fit == nil {
		return nil
	}
	return slices.Clone(m.fit.labels.Classes)
}
