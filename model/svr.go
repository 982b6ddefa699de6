package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// DefaultSVREpsilon is the default half-width ε of SVR's insensitive tube,
// LIBSVM's -p and scikit-learn's SVR default.
const DefaultSVREpsilon = 0.1

// SVR is ε-support vector regression, LIBSVM's ε-SVR (svm-train -s 3) and
// scikit-learn's SVR: it fits f(x) = Σ_i β_i K(x_i, x) + b minimizing
//
//	½‖f‖²_H + C Σ_i max(0, |y_i − f(x_i)| − ε),
//
// through the dual over (α, α*) ∈ [0, C]^{2n} (Chang & Lin, LIBSVM: a
// library for support vector machines, 2011, Sect. 2.4):
//
//	min ½(α − α*)ᵀK(α − α*) + ε Σ(α_i + α*_i) − Σ y_i(α_i − α*_i),
//	Σ(α_i − α*_i) = 0,
//
// solved by solver.SolveSMO on 2n variables with labels (+1…, −1…) and linear
// term p = (ε − y, ε + y); β = α − α* and b = −ρ as LIBSVM. Residuals inside
// the tube cost nothing, so only the points on or outside it are support
// vectors. C is LIBSVM's -c, Epsilon its -p; with the Gaussian kernel
// exp(−γ‖x−y‖²), γ is its -g. ε and the fit's residuals are in the units of
// y: scale y (or ε) when y is large.
//
// The n×n kernel matrix is never formed: columns are computed on demand and
// kept in a cache of CacheBytes, one column of n values per point, shared by
// its α_i and α*_i (solver.SVMProblem.Rows, as LIBSVM's SVR_Q). x may be
// sparse (kernel.Sparse), as for SVM.
//
// The zero value of every field means its default; defaults are resolved into
// a local copy at Fit and never written back. A failed Fit keeps the previous
// model.
//
// Concurrency: after Fit returns, Predict, Info and SupportVectors may be
// called from several goroutines at once. Fit must not run at the same time
// as any other method, and the fields must not be changed while other
// methods run.
type SVR struct {
	// Kernel is the kernel; nil means Gaussian with γ = 1/d, LIBSVM's default.
	Kernel kernel.Kernel `yaml:"kernel"`
	// C is the penalty C > 0; 0 means 1.
	C float64 `yaml:"c"`
	// Epsilon is the half-width ε > 0 of the insensitive tube, in the units
	// of y; 0 means DefaultSVREpsilon (0.1). For ε = 0 set AbsoluteLoss.
	Epsilon float64 `yaml:"epsilon"`
	// AbsoluteLoss fits with ε = 0, the loss |y − f(x)| (LIBSVM's -p 0);
	// Epsilon must then be 0.
	AbsoluteLoss bool `yaml:"absolute_loss"`
	// Nu, when > 0, makes the fit ν-SVR (LIBSVM's -s 4 -n, scikit-learn's
	// NuSVR; Chang & Lin 2011, Sect. 2.5): the tube's half-width ε is
	// found by the fit (Info().Epsilon, LIBSVM's "epsilon = −r") and ν ∈
	// (0, 1] bounds the fraction of rows outside the tube from above and
	// the fraction of support vectors from below. The dual over (α, α*)
	// ∈ [0, C]^{2n} adds Σ(α_i + α*_i) = C·ν·n to ε-SVR's and drops its
	// ε term; solver.SolveNu solves it. Epsilon and AbsoluteLoss must be
	// unset. With sample weights the bounds are C·w_i and the sum
	// C·ν·Σw, as scikit-learn's. 0 means ε-SVR. Saved since format
	// version 9.
	Nu float64 `yaml:"nu"`
	// Tol is the stopping tolerance on the maximal KKT violation; 0 means 1e-3.
	Tol float64 `yaml:"tol"`
	// MaxIter caps the solver updates; 0 means max(10⁷, 200n).
	MaxIter int `yaml:"max_iter"`
	// CacheBytes is the kernel-column cache budget; 0 means 200 MB, or less
	// when MemoryLimit leaves less.
	CacheBytes int64 `yaml:"cache_bytes"`
	// CacheFloat32 keeps the cached kernel columns in float32, as SVM's.
	CacheFloat32 bool `yaml:"cache_float32"`
	// NoShrinking turns the solver's shrinking heuristic off.
	NoShrinking bool `yaml:"no_shrinking"`
	// Probability fits LIBSVM's probability model of a regression
	// (svm-train -s 3 -b 1): target = f(x) + z with z Laplace-distributed,
	// density e^(−|z|/σ)/(2σ), σ estimated from 5-fold cross-validated
	// residuals r_i = y_i − f_cv(x_i) as the mean |r_i| over the rows with
	// |r_i| ≤ 5·√2·mean|r| (the outliers beyond five of the Laplace's
	// standard deviations left out). It takes about six fits' time;
	// Info().Sigma holds σ and PredictInterval uses it. The folds are drawn
	// from Seed. With a MemoryLimit, each fold's fit is planned within what
	// X and the fitted model leave of it (ErrMemory otherwise). Saved since
	// format version 8.
	Probability bool `yaml:"probability"`
	// Seed seeds Probability's folds.
	Seed uint64 `yaml:"seed"`
	// Resources bounds the fit: Workers the goroutines computing kernel
	// columns and predictions; MemoryLimit the planned peak of a fit (the
	// data, the solver's state of 2n variables, its cache and the support
	// vectors kept; ErrMemory before the solver allocates).
	Resources `yaml:",inline"`
	// Progress, when non-nil, receives StageSolver reports from the dual
	// solver (about every 1,000 updates); an error from it stops the fit
	// (ErrStopped).
	Progress ProgressFunc `yaml:"-"`

	fit *svrFit
}

var (
	_ Estimator         = (*SVR)(nil)
	_ Informer[SVRInfo] = (*SVR)(nil)
)

// SVRInfo describes an SVR fit.
type SVRInfo struct {
	// Kernel is the kernel used, after defaults (LIBSVM's kernel_type,
	// gamma, degree and coef0), as kernel.Kernel's String writes it.
	Kernel string
	// N is the number of training samples in the dual (those of positive
	// sample weight).
	N int
	// Epsilon and C are the values the fit used; for ν-SVR (Nu) Epsilon is
	// the half-width the fit found (LIBSVM's "epsilon = −r").
	Epsilon, C float64
	// Objective is the dual objective at the solution (LIBSVM's obj).
	Objective float64
	// Bias is b (LIBSVM's −ρ).
	Bias float64
	// SV counts the support vectors (β_i ≠ 0), BoundedSV those with
	// |β_i| = C (LIBSVM's nSV and nBSV).
	SV, BoundedSV int
	// Iterations is the number of solver updates; Status says why it stopped.
	Iterations int
	Status     solver.SVMStatus
	// Violation is the final maximal KKT violation.
	Violation float64
	// Sigma is the scale σ of the Laplace model of the residuals
	// (Probability); 0 without it.
	Sigma float64
}

// svrFit is the fitted state of an SVR.
type svrFit struct {
	d    int
	dec  *svmDecision
	info SVRInfo
	// laplace says that info.Sigma was fitted (Probability).
	laplace bool
}

// Fit trains the SVR on x (n×d, dense or kernel.Sparse) and targets y. A
// failed Fit keeps the previous model.
func (s *SVR) Fit(ctx context.Context, xIn mat.Matrix, y []float64) error {
	return s.FitWeighted(ctx, xIn, y, nil)
}

// FitWeighted is Fit with sample weights w (nil: all 1): both of row i's
// dual variables are bounded by C·w_i, as in scikit-learn's
// SVR.fit(sample_weight), so an integer weight k gives the model of k
// copies of the row. Rows of weight 0 are left out of the dual. See
// WeightedEstimator.
func (s *SVR) FitWeighted(ctx context.Context, xIn mat.Matrix, y, w []float64) (err error) {
	defer named(&err, "svr")
	if err := checkContext(ctx, "svr"); err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, s.Progress)
	f, err := s.train(ctx, pr, xIn, y, w)
	if err == nil && s.Probability {
		if f.info.Sigma, err = s.laplaceScale(ctx, xIn, y, w, heldBytes(xIn, f.dec.sv)); err != nil {
			err = fmt.Errorf("model: svr probability: %w", err)
		}
		f.laplace = true
	}
	if err = pr.finish(err, "svr"); err != nil {
		return err
	}
	s.fit = f
	return nil
}

// epsilon resolves Epsilon and AbsoluteLoss (0 for ν-SVR, which finds ε).
func (s *SVR) epsilon() (float64, error) {
	if s.Nu != 0 {
		switch {
		case !(s.Nu > 0 && s.Nu <= 1):
			return 0, fmt.Errorf("%w: Nu = %g, want 0 < ν ≤ 1 (0: ε-SVR)", ErrInput, s.Nu)
		case s.Epsilon != 0 || s.AbsoluteLoss:
			return 0, fmt.Errorf("%w: Epsilon = %g, AbsoluteLoss = %v with Nu = %g: ν-SVR finds ε (leave both unset)", ErrInput, s.Epsilon, s.AbsoluteLoss, s.Nu)
		}
		return 0, nil
	}
	switch {
	case s.AbsoluteLoss && s.Epsilon != 0:
		return 0, fmt.Errorf("%w: AbsoluteLoss with Epsilon = %g: AbsoluteLoss means ε = 0", ErrInput, s.Epsilon)
	case s.AbsoluteLoss:
		return 0, nil
	case s.Epsilon == 0:
		return DefaultSVREpsilon, nil
	}
	if err := check.Positive("Epsilon", s.Epsilon); err != nil {
		return 0, fmt.Errorf("%w (ε = 0 is AbsoluteLoss)", err)
	}
	return s.Epsilon, nil
}

// train is Fit without the context check and the final assignment.
func (s *SVR) train(ctx context.Context, pr *progressRun, xIn mat.Matrix, y, w []float64) (*svrFit, error) {
	x, err := exactInput(xIn, y, 0)
	if err != nil {
		return nil, err
	}
	if err := checkPrecomputed(s.Kernel, x); err != nil {
		return nil, err
	}
	if err := check.Weights(w, len(y)); err != nil {
		return nil, err
	}
	if err := s.Resources.validate("svr"); err != nil {
		return nil, err
	}
	_, d := x.Dims()
	// all lists the rows in the dual: those of positive weight.
	var all []int
	for i := range y {
		if w == nil || w[i] > 0 {
			all = append(all, i)
		}
	}
	n := len(all)
	eps, err := s.epsilon()
	if err != nil {
		return nil, err
	}
	// MaxIter 0 is the solver's default for its 2n variables, max(10⁷, 200n).
	cfg, err := resolveSVM(s.Kernel, s.C, nil, "", s.Tol, s.MaxIter, s.CacheBytes, d)
	if err != nil {
		return nil, err
	}
	cfg.noShrink = s.NoShrinking
	cfg.workers = parallel.Workers(s.Workers)
	cfg.float32 = s.CacheFloat32
	// The plan of one problem over the n points (their data, one cache of
	// columns of n values) plus the solver's state of the n more variables
	// (svmStateBytes's 84 bytes each, without data) and the variables' rows
	// (8 bytes each).
	extra := 84*int64(n) + 16*int64(n)
	if err := checkSVMMemory("svr", len(y), dataBytesPerRow(x), []int{n}, &cfg, s.CacheBytes > 0, s.MemoryLimit, extra+sparseIndexPlan(cfg.k, x, [][]int{all})+scatterPlan(cfg.k, x, cfg.workers)+svmEngineBytes(cfg.k, x, cfg.workers)); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sign := make([]float64, 2*n)
	p := make([]float64, 2*n)
	bounds := make([]float64, 2*n)
	rows := make([]int, 2*n) // α_i and α*_i are both point i
	for i, row := range all {
		v, c := y[row], cfg.c
		if w != nil {
			c *= w[row]
		}
		sign[i], sign[n+i] = 1, -1
		p[i], p[n+i] = eps-v, eps+v
		bounds[i], bounds[n+i] = c, c
		rows[i], rows[n+i] = i, i
	}
	opt := cfg.options(nil)
	opt.Progress = solverProgress(pr, 0)
	cols := newKernelColumns(cfg.k, taskRows(x, all), cfg.workers)
	prob := solver.SVMProblem{K: cols, Rows: rows, Y: sign, C: bounds, P: p}
	var r *solver.SVMResult
	if s.Nu > 0 {
		// LIBSVM's solve_nu_svr: p = (−y, y) (ε-SVR's with ε = 0, as
		// epsilon resolved it), and from the first row on α_i = α*_i =
		// min(C_i, what is left of C·ν·Σw/2).
		var total float64
		for i := range n {
			total += bounds[i]
		}
		left := s.Nu * total / 2
		init := make([]float64, 2*n)
		for i := range n {
			init[i] = min(bounds[i], left)
			init[n+i] = init[i]
			left -= init[i]
		}
		opt.Init = init
		if r, err = solver.SolveNu(ctx, prob, opt); err != nil {
			return nil, err
		}
		eps = -r.R
	} else if r, err = solver.SolveSMO(ctx, prob, opt); err != nil {
		return nil, err
	}
	// β = α − α*, kept as |β| with the sign as label, the form of an SVM
	// sub-problem's solution (svmPart).
	part := svmPart{rows: all, y: make([]float64, n), alpha: make([]float64, n), bias: r.Bias}
	f := &svrFit{d: d, info: SVRInfo{N: n, Epsilon: eps, C: cfg.c, Objective: r.Objective, Bias: r.Bias,
		Iterations: r.Iterations, Status: r.Status, Violation: r.Violation}}
	for i := range n {
		b := r.Alpha[i] - r.Alpha[n+i]
		part.y[i] = 1
		if b < 0 {
			part.y[i] = -1
		}
		part.alpha[i] = math.Abs(b)
		if b != 0 {
			f.info.SV++
			if math.Abs(b) >= bounds[i] {
				f.info.BoundedSV++
			}
		}
	}
	f.dec = newSVMDecision(cfg.k, x, []svmPart{part}, cfg.workers)
	return f, nil
}

// svrFolds is the number of folds of Probability's cross-validation, as
// LIBSVM's svm_svr_probability.
const svrFolds = 5

// laplaceScale is Probability's σ: the rows (those of positive weight)
// dealt at random into svrFolds folds, each fold predicted by an SVR of
// the same configuration fitted on the others (with their weights), and
// the mean absolute residual over the rows within 5·√2 times the first
// mean of it. held is what stays in memory while the folds are fitted (X
// and the fitted model's support vectors): with a MemoryLimit, each fold's
// fit is planned within what is left of it.
func (s *SVR) laplaceScale(ctx context.Context, xIn mat.Matrix, y, w []float64, held int64) (float64, error) {
	x, err := exactInput(xIn, y, 0) // dense or sparse, as train took it
	if err != nil {
		return 0, err
	}
	foldLimit := s.MemoryLimit
	if foldLimit > 0 {
		if foldLimit -= held; foldLimit <= 0 {
			return 0, fmt.Errorf("%w: Probability's cross-validation folds: the data and the fitted model hold %s of MemoryLimit %s", ErrMemory, formatBytes(held), formatBytes(s.MemoryLimit))
		}
	}
	var rows []int
	for i := range y {
		if w == nil || w[i] > 0 {
			rows = append(rows, i)
		}
	}
	n := len(rows)
	if n < 2 {
		return 0, fmt.Errorf("%w: cross-validated residuals need at least 2 rows of positive weight, have %d", ErrInput, n)
	}
	rng := rand.New(rand.NewPCG(s.Seed, svrSeedStream))
	perm := rng.Perm(n)
	k := min(svrFolds, n)
	res := make([]float64, n)
	for fold := range k {
		var trn, tst []int
		for r, p := range perm {
			if r%k == fold {
				tst = append(tst, rows[p])
			} else {
				trn = append(trn, rows[p])
			}
		}
		sub := *s
		sub.fit, sub.Probability, sub.Progress = nil, false, nil
		sub.MemoryLimit = foldLimit
		if err := sub.FitWeighted(ctx, pickRows(x, trn), pickValues(y, trn), pickValues(w, trn)); err != nil {
			return 0, fmt.Errorf("fold %d: %w", fold+1, err)
		}
		p, err := sub.Predict(pickRows(x, tst))
		if err != nil {
			return 0, err
		}
		for q, i := range tst {
			res[i] = math.Abs(y[i] - p[q])
		}
	}
	var mae float64
	for _, i := range rows {
		mae += res[i]
	}
	mae /= float64(n)
	limit := 5 * math.Sqrt(2*mae*mae)
	var sum float64
	kept := 0
	for _, i := range rows {
		if res[i] <= limit {
			sum += res[i]
			kept++
		}
	}
	return sum / float64(kept), nil
}

// pickValues returns v's elements at idx, nil for nil v.
func pickValues(v []float64, idx []int) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(idx))
	for q, i := range idx {
		out[q] = v[i]
	}
	return out
}

// svrSeedStream is the second PCG word of SVR's random source.
const svrSeedStream = 0x737672 // "svr"

// PredictInterval returns, for each row of x, the central interval that
// holds the target with probability coverage (0 < coverage < 1) under the
// Laplace model of Probability: f(x) ∓ σ·ln(1/(1 − coverage)). It fails
// with ErrInput for a model fitted without Probability.
func (s *SVR) PredictInterval(x mat.Matrix, coverage float64) (lo, hi []float64, err error) {
	defer named(&err, "svr")
	if s.fit == nil {
		return nil, nil, ErrNotFitted
	}
	if !s.fit.laplace {
		return nil, nil, fmt.Errorf("%w: PredictInterval needs a model fitted with Probability", ErrInput)
	}
	if !(coverage > 0 && coverage < 1) {
		return nil, nil, fmt.Errorf("%w: coverage %g, want 0 < coverage < 1", ErrInput, coverage)
	}
	p, err := s.Predict(x)
	if err != nil {
		return nil, nil, err
	}
	half := s.fit.info.Sigma * math.Log(1/(1-coverage))
	lo, hi = make([]float64, len(p)), make([]float64, len(p))
	for i, v := range p {
		lo[i], hi[i] = v-half, v+half
	}
	return lo, hi, nil
}

// Dim returns the number of features of the rows the SVR was fitted on
// (scikit-learn's n_features_in_): the columns Predict takes. It is 0
// before Fit (or Load).
func (s *SVR) Dim() int {
	if s.fit == nil {
		return 0
	}
	return s.fit.d
}

// Info describes the last successful fit; the zero SVRInfo before one.
func (s *SVR) Info() SVRInfo {
	if s.fit == nil {
		return SVRInfo{}
	}
	info := s.fit.info
	info.Kernel = s.fit.dec.k.String()
	return info
}

// SupportVectors returns the training rows with β_i ≠ 0, in training order,
// and their coefficients β_i (scikit-learn's support_vectors_ and
// dual_coef_): sparse rows after a sparse fit, dense rows otherwise. The
// matrix is shared with the model and must not be modified. Both are nil
// when there is no support vector; ErrNotFitted before Fit.
func (s *SVR) SupportVectors() (_ mat.Matrix, coef []float64, err error) {
	defer named(&err, "svr")
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

// Predict returns f(x) for each row of x. Sparse x is used as it is; a
// non-zero at a column at or beyond the training dimension is a coordinate in
// which every training row is zero, as in LIBSVM.
func (s *SVR) Predict(xIn mat.Matrix) (_ []float64, err error) {
	defer named(&err, "svr")
	if s.fit == nil {
		return nil, ErrNotFitted
	}
	x, scale, err := predictInput(xIn, s.fit.d, s.fit.dec.k)
	if err != nil {
		return nil, err
	}
	out, err := s.fit.dec.evalScaled(context.Background(), x, scale)
	if err != nil {
		return nil, err
	}
	return mat.Col(nil, 0, out), nil
}

// heldBytes is the memory of data x and support vectors sv, as
// dataBytesPerRow counts it (8 bytes a value, dense or sparse).
func heldBytes(x, sv mat.Matrix) int64 {
	var b int64
	for _, m := range []mat.Matrix{x, sv} {
		if m == nil {
			continue
		}
		n, _ := m.Dims()
		b += 8 * int64(n) * int64(dataBytesPerRow(m))
	}
	return b
}
