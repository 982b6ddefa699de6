package model

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// DefaultOneClassNu is the default ν of OneClassSVM, LIBSVM's -n and
// scikit-learn's OneClassSVM default.
const DefaultOneClassNu = 0.5

// OneClassSVM is the one-class support vector machine of Schölkopf et al.,
// "Estimating the support of a high-dimensional distribution", Neural
// Computation 13 (2001): LIBSVM's svm-train -s 2 and scikit-learn's
// OneClassSVM, for outlier and novelty detection. It separates the training
// rows from the origin in the kernel's feature space with the largest
// margin, through the dual (their eq. (4)–(5), scaled by νn as LIBSVM does;
// Chang & Lin, LIBSVM, 2011, Sect. 2.3)
//
//	min ½αᵀKα,  0 ≤ α_i ≤ 1,  Σ α_i = νn,
//
// solved by solver.SolveSMO from LIBSVM's starting point (the first ⌊νn⌋
// α_i at 1, the next at νn − ⌊νn⌋). The decision function is
// f(x) = Σ α_i K(x_i, x) − ρ; Predict gives +1 (inlier) where f(x) > 0 and −1
// (outlier) elsewhere, as LIBSVM. ν ∈ (0, 1] bounds the fraction of training
// rows that are outliers from above and the fraction that are support
// vectors from below (their ν-property).
//
// Fit ignores y: a one-class fit has no labels, so y may be nil (when given,
// it must have one value per row, so that a mismatched file is caught). The
// Classes are −1 and +1, the labels Predict returns; LIBSVM's tools score
// them against a file's labels, +1 for the normal rows.
//
// With the Gaussian kernel exp(−γ‖x−y‖²), γ is LIBSVM's -g. The n×n kernel
// matrix is never formed: columns are computed on demand and kept in a
// cache of CacheBytes. x may be sparse (kernel.Sparse), as for SVM.
//
// The zero value of every field means its default; defaults are resolved
// into a local copy at Fit and never written back. A failed Fit keeps the
// previous model.
//
// Concurrency: after Fit returns, Predict, DecisionFunction, Info, Classes
// and SupportVectors may be called from several goroutines at once. Fit
// must not run at the same time as any other method, and the fields must
// not be changed while other methods run.
type OneClassSVM struct {
	// Kernel is the kernel; nil means Gaussian with γ = 1/d, LIBSVM's default.
	Kernel kernel.Kernel `yaml:"kernel"`
	// Nu is ν ∈ (0, 1]; 0 means 0.5.
	Nu float64 `yaml:"nu"`
	// Tol is the stopping tolerance on the maximal KKT violation; 0 means 1e-3.
	Tol float64 `yaml:"tol"`
	// MaxIter caps the solver updates; 0 means max(10⁷, 100n).
	MaxIter int `yaml:"max_iter"`
	// CacheBytes is the kernel-column cache budget; 0 means 200 MB, or less
	// when MemoryLimit leaves less.
	CacheBytes int64 `yaml:"cache_bytes"`
	// CacheFloat32 keeps the cached kernel columns in float32, as SVM's.
	CacheFloat32 bool `yaml:"cache_float32"`
	// NoShrinking turns the solver's shrinking heuristic off.
	NoShrinking bool `yaml:"no_shrinking"`
	// Resources bounds the fit: Workers the goroutines computing kernel
	// columns and predictions; MemoryLimit the planned peak of a fit (the
	// data, the solver's state, its cache and the support vectors kept;
	// ErrMemory before the solver allocates).
	Resources `yaml:",inline"`
	// Progress, when non-nil, receives StageSolver reports from the dual
	// solver (about every 1,000 updates) and a StageTask report when it
	// has solved; an error from it stops the fit (ErrStopped).
	Progress ProgressFunc `yaml:"-"`

	fit *oneClassFit
}

var (
	_ Classifier             = (*OneClassSVM)(nil)
	_ WeightedEstimator      = (*OneClassSVM)(nil)
	_ Informer[OneClassInfo] = (*OneClassSVM)(nil)
)

// OneClassInfo describes a OneClassSVM fit.
type OneClassInfo struct {
	// Kernel is the kernel used, after defaults (LIBSVM's kernel_type,
	// gamma, degree and coef0), as kernel.Kernel's String writes it.
	Kernel string
	// N is the number of training rows in the dual (those of positive
	// sample weight).
	N int
	// Nu is the ν the fit used.
	Nu float64
	// Rho is the offset ρ of f(x) = Σ α_i K(x_i, x) − ρ (LIBSVM's rho;
	// scikit-learn's offset_).
	Rho float64
	// Objective is the dual objective ½αᵀKα at the solution (LIBSVM's obj).
	Objective float64
	// SV counts the support vectors (α_i > 0), BoundedSV those at their
	// bound (LIBSVM's nSV and nBSV).
	SV, BoundedSV int
	// Outliers counts the training rows with f(x_i) ≤ 0, those Predict
	// labels −1; at most about νn (Schölkopf et al. 2001, the ν-property).
	Outliers int
	// Iterations is the number of solver updates; Status says why it stopped.
	Iterations int
	Status     solver.SVMStatus
	// Violation is the final maximal KKT violation.
	Violation float64
}

// oneClassFit is the fitted state of a OneClassSVM.
type oneClassFit struct {
	d    int
	dec  *svmDecision
	info OneClassInfo
}

// oneClassLabels are the labels a OneClassSVM predicts: −1 outlier, +1 inlier.
var oneClassLabels = []float64{-1, 1}

// Fit trains the one-class SVM on the rows of x (n×d, dense or
// kernel.Sparse); y is not used (nil, or one value per row). A failed Fit
// keeps the previous model.
func (s *OneClassSVM) Fit(ctx context.Context, xIn mat.Matrix, y []float64) error {
	return s.FitWeighted(ctx, xIn, y, nil)
}

// FitWeighted is Fit with sample weights w (nil: all 1), as scikit-learn's
// OneClassSVM.fit(sample_weight): row i's bound is w_i and the constraint
// Σ α_i = ν·Σ w_i, so an integer weight k gives the model of k copies of the
// row. Rows of weight 0 are left out of the dual. See WeightedEstimator.
func (s *OneClassSVM) FitWeighted(ctx context.Context, xIn mat.Matrix, y, w []float64) (err error) {
	defer named(&err, "one-class svm")
	if err := checkContext(ctx, "one-class svm"); err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, s.Progress)
	f, err := s.train(ctx, pr, xIn, y, w)
	if err = pr.finish(err, "one-class svm"); err != nil {
		return err
	}
	s.fit = f
	return nil
}

// nu resolves Nu.
func (s *OneClassSVM) nu() (float64, error) {
	if s.Nu == 0 {
		return DefaultOneClassNu, nil
	}
	if !(s.Nu > 0 && s.Nu <= 1) {
		return 0, fmt.Errorf("%w: Nu = %g, want 0 < ν ≤ 1", ErrInput, s.Nu)
	}
	return s.Nu, nil
}

// train is Fit without the context check and the final assignment.
func (s *OneClassSVM) train(ctx context.Context, pr *progressRun, xIn mat.Matrix, y, w []float64) (*oneClassFit, error) {
	if xd, ok := xIn.(*mat.Dense); xIn == nil || ok && (xd == nil || xd.IsEmpty()) {
		return nil, fmt.Errorf("%w: nil or empty x", ErrInput)
	}
	rowsIn, _ := xIn.Dims()
	if y != nil && len(y) != rowsIn {
		return nil, fmt.Errorf("%w: x has %d rows but y has %d values (y is not used, but must match when given)", ErrInput, rowsIn, len(y))
	}
	x, err := exactInput(xIn, make([]float64, rowsIn), 0) // checks x; y's values are not used
	if err != nil {
		return nil, err
	}
	if err := checkPrecomputed(s.Kernel, x); err != nil {
		return nil, err
	}
	if err := check.Weights(w, rowsIn); err != nil {
		return nil, err
	}
	if err := s.Resources.validate("one-class svm"); err != nil {
		return nil, err
	}
	nu, err := s.nu()
	if err != nil {
		return nil, err
	}
	_, d := x.Dims()
	var all []int
	for i := range rowsIn {
		if w == nil || w[i] > 0 {
			all = append(all, i)
		}
	}
	n := len(all)
	cfg, err := resolveSVM(s.Kernel, 0, nil, "", s.Tol, s.MaxIter, s.CacheBytes, d)
	if err != nil {
		return nil, err
	}
	cfg.noShrink = s.NoShrinking
	cfg.workers = parallel.Workers(s.Workers)
	cfg.float32 = s.CacheFloat32
	// One problem over the n rows (their data and one cache of columns of
	// n values), the start and the bounds (16 bytes a row).
	extra := 16 * int64(n)
	if err := checkSVMMemory("one-class svm", rowsIn, dataBytesPerRow(x), []int{n}, &cfg, s.CacheBytes > 0, s.MemoryLimit, extra+sparseIndexPlan(cfg.k, x, [][]int{all})+scatterPlan(cfg.k, x, cfg.workers)+svmEngineBytes(cfg.k, x, cfg.workers)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ones := make([]float64, n)
	bounds := make([]float64, n)
	var total float64
	for i, row := range all {
		ones[i], bounds[i] = 1, 1
		if w != nil {
			bounds[i] = w[row]
		}
		total += bounds[i]
	}
	// LIBSVM's start (solve_one_class; scikit-learn's with weights): the
	// rows in order, each up to its bound, until Σ α_i = ν·Σ w_i.
	sum := nu * total
	init := make([]float64, n)
	left := sum
	for i := range init {
		if left <= 0 {
			break
		}
		init[i] = min(bounds[i], left)
		left -= init[i]
	}
	opt := cfg.options(init)
	opt.Progress = solverProgress(pr, 0)
	cols := newKernelColumns(cfg.k, taskRows(x, all), cfg.workers)
	r, err := solver.SolveSMO(ctx, solver.SVMProblem{K: cols, Y: ones, C: bounds, P: make([]float64, n), Sum: sum}, opt)
	if err != nil {
		return nil, err
	}
	if err := pr.report(Progress{Stage: StageTask, Task: 0, Done: 1, Total: 1, Residual: r.Violation, ValError: noValue}); err != nil {
		return nil, err
	}
	part := svmPart{rows: all, y: ones, alpha: r.Alpha, bias: r.Bias}
	f := &oneClassFit{d: d, info: OneClassInfo{N: n, Nu: nu, Rho: -r.Bias, Objective: r.Objective,
		SV: r.SV, BoundedSV: r.BoundedSV, Iterations: r.Iterations, Status: r.Status, Violation: r.Violation}}
	// The solver's gradient is Kα, so f(x_i) = g_i − ρ without another pass.
	for i := range n {
		if r.Gradient[i]-f.info.Rho <= 0 {
			f.info.Outliers++
		}
	}
	f.dec = newSVMDecision(cfg.k, x, []svmPart{part}, cfg.workers)
	return f, nil
}

// Dim returns the number of features of the rows the one-class SVM was fitted on
// (scikit-learn's n_features_in_): the columns Predict takes. It is 0
// before Fit (or Load).
func (s *OneClassSVM) Dim() int {
	if s.fit == nil {
		return 0
	}
	return s.fit.d
}

// Info describes the last successful fit; the zero OneClassInfo before one.
func (s *OneClassSVM) Info() OneClassInfo {
	if s.fit == nil {
		return OneClassInfo{}
	}
	info := s.fit.info
	info.Kernel = s.fit.dec.k.String()
	return info
}

// Classes returns −1 and +1, the labels Predict gives (nil before Fit).
func (s *OneClassSVM) Classes() []float64 {
	if s.fit == nil {
		return nil
	}
	return append([]float64(nil), oneClassLabels...)
}

// DecisionFunction returns f(x) = Σ α_i K(x_i, x) − ρ for each row of x, one
// column (scikit-learn's decision_function, LIBSVM's decision value):
// positive inside the estimated support, negative outside. Sparse x is used
// as it is.
func (s *OneClassSVM) DecisionFunction(xIn mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "one-class svm")
	if s.fit == nil {
		return nil, ErrNotFitted
	}
	x, scale, err := predictInput(xIn, s.fit.d, s.fit.dec.k)
	if err != nil {
		return nil, err
	}
	return s.fit.dec.evalScaled(context.Background(), x, scale)
}

// ScoreSamples returns Σ α_i K(x_i, x) for each row of x: the decision
// value before ρ is subtracted, DecisionFunction + ρ (scikit-learn's
// OneClassSVM.score_samples, whose offset_ is ρ). It ranks rows by how far
// inside the support they lie, larger inside; with the Gaussian kernel it
// is, up to a factor, a kernel density estimate over the support vectors.
func (s *OneClassSVM) ScoreSamples(x mat.Matrix) (_ []float64, err error) {
	defer named(&err, "one-class svm")
	dec, err := s.DecisionFunction(x)
	if err != nil {
		return nil, err
	}
	out := mat.Col(nil, 0, dec)
	for i := range out {
		out[i] += s.fit.info.Rho
	}
	return out, nil
}

// Predict returns +1 for the rows of x with f(x) > 0 (inliers) and −1 for
// the others (outliers), as LIBSVM's svm-predict.
func (s *OneClassSVM) Predict(x mat.Matrix) (_ []float64, err error) {
	defer named(&err, "one-class svm")
	dec, err := s.DecisionFunction(x)
	if err != nil {
		return nil, err
	}
	out := mat.Col(nil, 0, dec)
	for i, v := range out {
		out[i] = -1
		if v > 0 {
			out[i] = 1
		}
	}
	return out, nil
}

// PredictProba fails with ErrInput after a fit (ErrNotFitted before): a
// one-class SVM gives no probabilities (LIBSVM refuses -b 1 for -s 2);
// DecisionFunction gives its scores.
func (s *OneClassSVM) PredictProba(mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "one-class svm")
	if s.fit == nil {
		return nil, ErrNotFitted
	}
	return nil, fmt.Errorf("%w: a one-class SVM gives no class probabilities (DecisionFunction gives its scores)", ErrInput)
}

// SupportVectors returns the training rows with α_i > 0, in training order,
// and their coefficients α_i (scikit-learn's support_vectors_ and
// dual_coef_): sparse rows after a sparse fit, dense rows otherwise. The
// matrix is shared with the model and must not be modified. ErrNotFitted
// before Fit.
func (s *OneClassSVM) SupportVectors() (_ mat.Matrix, coef []float64, err error) {
	defer named(&err, "one-class svm")
	if s.fit == nil {
		return nil, nil, ErrNotFitted
	}
	if s.fit.dec.empty {
		return nil, nil, nil
	}
	m, _ := s.fit.dec.w.Dims()
	coef = make([]float64, m)
	for i := range coef {
		coef[i] = s.fit.dec.w.At(i, 0)
	}
	return s.fit.dec.sv, coef, nil
}
