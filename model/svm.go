package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// Multi-class strategies of SVM and BKASVM.
const (
	// OneVsOne trains one binary SVM per pair of classes and predicts by
	// voting, as LIBSVM does. It is the default.
	OneVsOne = "ovo"
	// OneVsRest trains one binary SVM per class against all others and
	// predicts the class with the largest decision value.
	OneVsRest = "ovr"
)

// Defaults of SVM and BKASVM.
const (
	// DefaultSVMC is the default C, LIBSVM's default.
	DefaultSVMC = 1.0
	// DefaultSVMTol is the default stopping tolerance on the maximal KKT
	// violation, LIBSVM's -e default.
	DefaultSVMTol = 1e-3
	// DefaultSVMCacheBytes is the default kernel-column cache budget
	// (LIBSVM's -m defaults to 100 MB of float32 columns; we keep float64).
	DefaultSVMCacheBytes = 200 << 20
)

// SVM is the exact kernel support vector machine for classification, C-SVC:
// for each binary sub-problem with labels y ∈ {±1} it solves the dual
//
//	min ½αᵀQα − eᵀα,  0 ≤ α_i ≤ C·w_{y_i},  yᵀα = 0,  Q = yyᵀ∘K,
//
// by SMO with second-order working-set selection (solver.SolveSMO) and
// predicts f(x) = Σ α_i y_i K(x_i, x) + b. With NoBias it drops b and the
// constraint yᵀα = 0 and solves by dual coordinate descent
// (solver.SolveDCD), the formulation BKA-SVM and DC-SVM use.
//
// C is LIBSVM's -c and ClassWeights its -wi; with the Gaussian kernel
// exp(−γ‖x−y‖²), γ is LIBSVM's -g. The n×n kernel matrix is never formed:
// columns are computed on demand and kept in a cache of CacheBytes.
//
// Two classes give one sub-problem whose positive class is the larger label.
// More classes are handled one-vs-one (default, voting as LIBSVM, ties to the
// smaller label) or one-vs-rest.
//
// The zero value of every field means its default; defaults are resolved into
// a local copy at Fit and never written back. A failed Fit keeps the previous
// model.
//
// Concurrency: after Fit returns, Predict, DecisionFunction, PredictProba, Info, Classes and
// SupportVectors may be called from several goroutines
// at once. Fit must not run at the same time as any other method, and the
// fields must not be changed while other methods run.
type SVM struct {
	// Kernel is the kernel; nil means Gaussian with γ = 1/d, LIBSVM's default.
	Kernel kernel.Kernel `yaml:"kernel"`
	// C is the penalty C > 0; 0 means 1.
	C float64 `yaml:"c"`
	// ClassWeights multiplies C for the samples of a class (LIBSVM's -wi):
	// label → weight > 0. Classes not listed have weight 1.
	ClassWeights map[float64]float64 `yaml:"class_weights"`
	// Multiclass is OneVsOne ("ovo", default) or OneVsRest ("ovr").
	Multiclass string `yaml:"multiclass"`
	// NoBias solves the SVM without bias term.
	NoBias bool `yaml:"no_bias"`
	// Nu, when > 0, makes the fit ν-SVC (LIBSVM's -s 1 -n, scikit-learn's
	// NuSVC; Chang & Lin 2011, Sect. 2.2) in place of C-SVC: in each
	// binary sub-problem ν ∈ (0, 1] bounds the fraction of margin errors
	// from above and the fraction of support vectors from below. The dual
	// min ½αᵀQα over 0 ≤ α_i ≤ 1, yᵀα = 0, eᵀα = νn is solved by
	// solver.SolveNu and scaled by 1/r as LIBSVM does (a C-SVC solution
	// with C = 1/r). C must be 0 and NoBias false (ErrInput). Sample
	// weights and ClassWeights multiply a row's bound, 1 without them, and
	// the α sums become ν·Σw/2 per label, as scikit-learn's NuSVC takes
	// sample_weight (its NuSVC ignores class_weight; here a class weight
	// acts as that weight on each of the class's rows). ν must be feasible
	// in every sub-problem: ν ≤ 2·min(n₁, n₂)/(n₁ + n₂), with n₁ and n₂ the
	// classes' row counts or total weights. With Probability the Platt
	// folds are stratified by class, so that they stay feasible too (an
	// error names a fold that is not). 0 means C-SVC. Saved since format
	// version 9.
	Nu float64 `yaml:"nu"`
	// Tol is the stopping tolerance on the maximal KKT violation; 0 means 1e-3.
	Tol float64 `yaml:"tol"`
	// MaxIter caps the solver updates per sub-problem; 0 means max(10⁷, 100n).
	MaxIter int `yaml:"max_iter"`
	// CacheBytes is the kernel-column cache budget; 0 means 200 MB, or less
	// when MemoryLimit leaves less.
	CacheBytes int64 `yaml:"cache_bytes"`
	// CacheFloat32 keeps the cached kernel columns in float32, as LIBSVM
	// does, so CacheBytes holds twice as many columns (solver.SVMOptions.
	// Float32Cache: α, the gradient and the updates stay float64). The
	// solution is that of a kernel matrix rounded to float32 (≤ 6·10⁻⁸
	// relative per entry): measured on ijcnn1 and a news20-shaped set, the
	// dual objective moves by about 10⁻⁸ relative and the support vectors
	// are the same (docs/performance.md, "Kernel SVM"). Off by default, so that a fit is
	// bit-identical to earlier versions and dense and sparse fits agree to
	// 1e-10. Not saved with the model (it only matters for a refit).
	CacheFloat32 bool `yaml:"cache_float32"`
	// NoShrinking turns the solver's shrinking heuristic off.
	NoShrinking bool `yaml:"no_shrinking"`
	// Probability fits Platt sigmoids on 5-fold cross-validated decision
	// values (LIBSVM's -b 1), which makes PredictProba available and Fit
	// about five times slower.
	Probability bool `yaml:"probability"`
	// Seed seeds the cross-validation folds of Probability.
	Seed uint64 `yaml:"seed"`
	// Resources bounds the fit: Workers the goroutines computing kernel
	// columns and predictions; MemoryLimit the planned peak of a fit, which
	// counts the data and state of the largest sub-problem, its kernel-column
	// cache, and the support vectors kept (ErrMemory before the solver
	// allocates).
	Resources `yaml:",inline"`
	// Progress, when non-nil, receives StageSolver reports from the dual
	// solver (about every 1,000 updates) and a StageTask report after each
	// sub-problem; an error from it stops the fit (ErrStopped).
	Progress ProgressFunc `yaml:"-"`

	fit *svmFit
}

var _ Estimator = (*SVM)(nil)

// SVMTaskInfo describes the solution of one binary sub-problem.
type SVMTaskInfo struct {
	// Positive and Negative are the labels coded +1 and −1; Negative is NaN
	// for a one-vs-rest task (all other classes).
	Positive, Negative float64
	// N is the number of training samples of the sub-problem (those of
	// positive sample weight).
	N int
	// Objective is the dual objective ½αᵀQα − eᵀα.
	Objective float64
	// Bias is b (0 without bias).
	Bias float64
	// SV and BoundedSV count support vectors and those at the bound C_i.
	SV, BoundedSV int
	// Iterations is the number of solver updates; Status says why it stopped.
	Iterations int
	Status     solver.SVMStatus
	// Violation is the final maximal KKT violation.
	Violation float64
	// R is, for ν-SVC (SVM.Nu), the r of the sub-problem's solution: its α
	// and bias are C-SVC's with C = 1/R (LIBSVM prints that C); 0 for
	// C-SVC.
	R float64
}

// SVMInfo describes an SVM fit.
type SVMInfo struct {
	// Kernel is the kernel used, after defaults (LIBSVM's kernel_type,
	// gamma, degree and coef0), as kernel.Kernel's String writes it.
	Kernel string
	// Tasks holds one entry per binary sub-problem, in decision-column order.
	Tasks []SVMTaskInfo
	// SV is the number of distinct training points that are support vectors
	// of some sub-problem.
	SV int
}

// svmFit is the fitted state of an SVM.
type svmFit struct {
	labels Labels
	ovo    bool
	d      int
	dec    *svmDecision
	info   SVMInfo
	platt  []sigmoid // one per task when fitted with Probability
}

// svmConfig is an SVM or BKASVM configuration with its defaults resolved.
type svmConfig struct {
	k          kernel.Kernel
	c          float64
	weights    map[float64]float64
	ovo        bool
	tol        float64
	maxIter    int
	cacheBytes int64
	noShrink   bool
	workers    int
	float32    bool // float32 column cache (SVM.CacheFloat32)
	// nu, when > 0, makes every binary sub-problem ν-SVC (SVM.Nu).
	nu float64
}

func resolveSVM(k kernel.Kernel, c float64, w map[float64]float64, mc string, tol float64, maxIter int, cache int64, d int) (svmConfig, error) {
	cfg := svmConfig{k: k, c: c, weights: w, tol: tol, maxIter: maxIter, cacheBytes: cache}
	if cfg.k == nil {
		cfg.k = kernel.Gaussian{Gamma: 1 / float64(d)}
	}
	if err := cfg.k.Validate(); err != nil {
		return cfg, err
	}
	if cfg.c == 0 {
		cfg.c = DefaultSVMC
	}
	if err := check.Positive("C", cfg.c); err != nil {
		return cfg, err
	}
	for l, v := range w {
		if err := check.Positive(fmt.Sprintf("class weight of %g", l), v); err != nil {
			return cfg, err
		}
	}
	switch mc {
	case "", OneVsOne:
		cfg.ovo = true
	case OneVsRest:
	default:
		return cfg, fmt.Errorf("%w: Multiclass %q, want %q or %q", ErrInput, mc, OneVsOne, OneVsRest)
	}
	if cfg.tol == 0 {
		cfg.tol = DefaultSVMTol
	}
	if err := check.Positive("Tol", cfg.tol); err != nil {
		return cfg, err
	}
	if cfg.maxIter < 0 {
		return cfg, fmt.Errorf("%w: MaxIter = %d, want ≥ 0", ErrInput, cfg.maxIter)
	}
	if cfg.cacheBytes < 0 {
		return cfg, fmt.Errorf("%w: CacheBytes = %d, want ≥ 0", ErrInput, cfg.cacheBytes)
	}
	if cfg.cacheBytes == 0 {
		cfg.cacheBytes = DefaultSVMCacheBytes
	}
	return cfg, nil
}

// svmTask is one binary sub-problem: the training rows it uses and their ±1 labels.
type svmTask struct {
	pos, neg int // class indices; neg = −1 for one-vs-rest
	rows     []int
	y        []float64
}

// svmTasks splits a classification problem into binary sub-problems.
func svmTasks(labels Labels, cls []int, ovo bool) []svmTask {
	k := len(labels.Classes)
	if k == 2 {
		t := svmTask{pos: 1, neg: 0, rows: make([]int, len(cls)), y: make([]float64, len(cls))}
		for i, c := range cls {
			t.rows[i] = i
			t.y[i] = float64(2*c - 1)
		}
		return []svmTask{t}
	}
	var tasks []svmTask
	if ovo {
		// Pair (a, b), a < b, in class order; +1 is the larger label b, as
		// for binary problems.
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				t := svmTask{pos: b, neg: a}
				for i, c := range cls {
					if c == a || c == b {
						v := -1.0
						if c == b {
							v = 1
						}
						t.rows = append(t.rows, i)
						t.y = append(t.y, v)
					}
				}
				tasks = append(tasks, t)
			}
		}
		return tasks
	}
	for a := 0; a < k; a++ {
		t := svmTask{pos: a, neg: -1, rows: make([]int, len(cls)), y: make([]float64, len(cls))}
		for i, c := range cls {
			t.rows[i] = i
			t.y[i] = -1
			if c == a {
				t.y[i] = 1
			}
		}
		tasks = append(tasks, t)
	}
	return tasks
}

// classIndex returns the index of each label in labels.Classes.
func classIndex(labels Labels, y []float64) []int {
	cls := make([]int, len(y))
	for i, v := range y {
		cls[i], _ = slices.BinarySearch(labels.Classes, v)
	}
	return cls
}

func (cfg svmConfig) options(init []float64) solver.SVMOptions {
	return solver.SVMOptions{Tol: cfg.tol, MaxIter: cfg.maxIter, CacheBytes: cfg.cacheBytes, NoShrinking: cfg.noShrink, Init: init, Float32Cache: cfg.float32}
}

func taskInfo(labels Labels, t svmTask, r *solver.SVMResult) SVMTaskInfo {
	ti := SVMTaskInfo{Positive: labels.Classes[t.pos], Negative: math.NaN(), N: len(t.rows),
		Objective: r.Objective, Bias: r.Bias, SV: r.SV, BoundedSV: r.BoundedSV,
		Iterations: r.Iterations, Status: r.Status, Violation: r.Violation}
	if t.neg >= 0 {
		ti.Negative = labels.Classes[t.neg]
	}
	return ti
}

// Fit trains the SVM on x (n×d) and class labels y. A failed Fit keeps the
// previous model.
//
// x may be sparse (kernel.Sparse, such as datasets.CSR): it is then kept
// sparse, kernel columns come from the merge of sparse rows, and the support
// vectors are kept as sparse rows. The model saved from a sparse fit has the
// same form as one from a dense fit (Save writes dense support vectors).
func (s *SVM) Fit(ctx context.Context, xIn mat.Matrix, y []float64) error {
	return s.FitWeighted(ctx, xIn, y, nil)
}

// FitWeighted is Fit with sample weights w (nil: all 1): row i's bound is
// C·w_i times its class weight (w_i times its class weight for ν-SVC), as
// in scikit-learn's SVC.fit and NuSVC.fit(sample_weight) and LIBSVM's
// instance-weight variant, so an integer weight k gives the model of k
// copies of the row. Rows of weight 0 are left out of every dual
// (scikit-learn drops them too); each sub-problem needs a row of positive
// weight in both of its classes. See WeightedEstimator.
func (s *SVM) FitWeighted(ctx context.Context, xIn mat.Matrix, y, w []float64) (err error) {
	defer named(&err, "svm")
	if err := checkContext(ctx, "svm"); err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, s.Progress)
	f, err := s.train(ctx, pr, xIn, y, w)
	if err = pr.finish(err, "svm"); err != nil {
		return err
	}
	s.fit = f
	return nil
}

// train is Fit without the context check and the final assignment.
func (s *SVM) train(ctx context.Context, pr *progressRun, xIn mat.Matrix, y, w []float64) (*svmFit, error) {
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
	if err := s.Resources.validate("svm"); err != nil {
		return nil, err
	}
	_, d := x.Dims()
	cfg, err := resolveSVM(s.Kernel, s.C, s.ClassWeights, s.Multiclass, s.Tol, s.MaxIter, s.CacheBytes, d)
	if err != nil {
		return nil, err
	}
	cfg.noShrink = s.NoShrinking
	cfg.workers = parallel.Workers(s.Workers)
	cfg.float32 = s.CacheFloat32
	labels, err := NewLabels(y)
	if err != nil {
		return nil, fmt.Errorf("model: svm: %w", err)
	}
	if err := cfg.checkWeights(labels); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cls := classIndex(labels, y)
	tasks, err := weightedTasks(svmTasks(labels, cls, cfg.ovo), labels, w)
	if err != nil {
		return nil, err
	}
	if s.Nu != 0 {
		if err := s.checkNuConfig(); err != nil {
			return nil, err
		}
		cfg.nu = s.Nu
		if err := checkNu(cfg, labels, cls, tasks, w); err != nil {
			return nil, err
		}
	}
	n := len(y)
	sizes := make([]int, len(tasks))
	taskRowSets := make([][]int, len(tasks))
	for i, t := range tasks {
		sizes[i] = len(t.rows)
		taskRowSets[i] = t.rows
	}
	if err := checkSVMMemory("svm", n, dataBytesPerRow(x), sizes, &cfg, s.CacheBytes > 0, s.MemoryLimit, sparseIndexPlan(cfg.k, x, taskRowSets)+scatterPlan(cfg.k, x, cfg.workers)+svmEngineBytes(cfg.k, x, cfg.workers)); err != nil {
		return nil, err
	}
	f := &svmFit{labels: labels, ovo: cfg.ovo && len(labels.Classes) > 2, d: d}
	parts := make([]svmPart, len(tasks))
	for ti, t := range tasks {
		cols := newKernelColumns(cfg.k, taskRows(x, t.rows), cfg.workers)
		opt := cfg.options(nil)
		opt.Progress = solverProgress(pr, ti)
		bounds := cfg.bounds(labels, cls, t, w)
		prob := solver.SVMProblem{K: cols, Y: t.y, C: bounds}
		r, err := cfg.solve(ctx, s.NoBias, prob, opt)
		if err != nil {
			return nil, fmt.Errorf("model: svm task %d: %w", ti, err)
		}
		parts[ti] = svmPart{rows: t.rows, y: t.y, alpha: r.Alpha, bias: r.Bias}
		if s.Probability {
			dec, err := cvDecision(ctx, cfg, s.NoBias, x, t, bounds, rand.New(rand.NewPCG(s.Seed, uint64(ti))))
			if err != nil {
				return nil, fmt.Errorf("model: svm task %d probability: %w", ti, err)
			}
			f.platt = append(f.platt, fitSigmoid(dec, t.y))
		}
		ti2 := taskInfo(labels, t, r)
		ti2.R = r.R
		f.info.Tasks = append(f.info.Tasks, ti2)
		if err := pr.report(Progress{Stage: StageTask, Task: ti, Done: ti + 1, Total: len(tasks), Residual: r.Violation, ValError: noValue}); err != nil {
			return nil, err
		}
	}
	f.dec = newSVMDecision(cfg.k, x, parts, cfg.workers)
	f.info.SV, _ = f.dec.sv.Dims()
	if f.dec.empty {
		f.info.SV = 0
	}
	return f, nil
}

// solverProgress forwards the dual solver's reports on sub-problem task as
// StageSolver (nil without a callback). The solver cannot stop on its own:
// a stopping callback cancels the fit's context (startProgress), which it
// checks.
func solverProgress(pr *progressRun, task int) func(solver.SVMProgress) {
	if pr.f == nil {
		return nil
	}
	return func(p solver.SVMProgress) {
		pr.report(Progress{Stage: StageSolver, Task: task, Done: p.Iter, Residual: p.Violation, ValError: noValue})
	}
}

// Dim returns the number of features of the rows the SVM was fitted on
// (scikit-learn's n_features_in_): the columns Predict takes. It is 0
// before Fit (or Load).
func (s *SVM) Dim() int {
	if s.fit == nil {
		return 0
	}
	return s.fit.d
}

// Info describes the last successful fit; the zero SVMInfo before one.
func (s *SVM) Info() SVMInfo {
	if s.fit == nil {
		return SVMInfo{}
	}
	info := s.fit.info
	info.Tasks = slices.Clone(info.Tasks)
	info.Kernel = s.fit.dec.k.String()
	return info
}

// SupportVectors returns the distinct training rows that are support vectors
// of some sub-problem, in training order, as the fit keeps them: sparse rows
// (kernel.Sparse) after a sparse fit, dense rows otherwise. The matrix is
// shared with the model and must not be modified. It is nil when there is
// no support vector; ErrNotFitted before Fit.
func (s *SVM) SupportVectors() (_ mat.Matrix, err error) {
	defer named(&err, "svm")
	if s.fit == nil {
		return nil, ErrNotFitted
	}
	if s.fit.dec.empty {
		return nil, nil
	}
	return s.fit.dec.sv, nil
}

// Classes returns the class labels seen in training, ascending; nil before Fit.
func (s *SVM) Classes() []float64 {
	if s.fit == nil {
		return nil
	}
	return slices.Clone(s.fit.labels.Classes)
}

// DecisionFunction returns the decision values of the rows of x: one column
// for two classes (positive means the larger label), one column per pair
// (a, b) of class indices a < b in order (0,1), (0,2), …, (1,2), … for
// one-vs-one (positive means b), one column per class for one-vs-rest.
// Sparse x is used as it is; a non-zero at a column at or beyond the training
// dimension is a coordinate in which every training row is zero, as in
// LIBSVM (beyondInput).
func (s *SVM) DecisionFunction(xIn mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "svm")
	if s.fit == nil {
		return nil, ErrNotFitted
	}
	x, scale, err := predictInput(xIn, s.fit.d, s.fit.dec.k)
	if err != nil {
		return nil, err
	}
	return s.fit.dec.evalScaled(context.Background(), x, scale)
}

// Predict returns the predicted class label of each row of x.
func (s *SVM) Predict(x mat.Matrix) (_ []float64, err error) {
	defer named(&err, "svm")
	dec, err := s.DecisionFunction(x)
	if err != nil {
		return nil, err
	}
	return decodeSVM(s.fit.labels, s.fit.ovo, dec), nil
}

// decodeSVM turns decision values into labels: the sign for one column, votes
// for one-vs-one (ties to the smaller label), the arg-max for one-vs-rest.
func decodeSVM(labels Labels, ovo bool, dec *mat.Dense) []float64 {
	if !ovo {
		return labels.decode(dec)
	}
	n, _ := dec.Dims()
	k := len(labels.Classes)
	out := make([]float64, n)
	votes := make([]int, k)
	for i := range n {
		clear(votes)
		row := dec.RawRowView(i)
		col := 0
		for a := 0; a < k; a++ {
			for b := a + 1; b < k; b++ {
				if row[col] > 0 {
					votes[b]++
				} else {
					votes[a]++
				}
				col++
			}
		}
		best := 0
		for c := 1; c < k; c++ {
			if votes[c] > votes[best] {
				best = c
			}
		}
		out[i] = labels.Classes[best]
	}
	return out
}

// svmPart is the solution of one binary sub-problem over training rows.
type svmPart struct {
	rows  []int
	y     []float64
	alpha []float64
	bias  float64
}

// svmDecision evaluates f_t(x) = Σ_i W_it K(x, s_i) + b_t for all sub-models
// t at once over the union of their support vectors s_i: one pass of the
// kernel block engine, K(X, S)·W.
type svmDecision struct {
	k       kernel.Kernel
	sv      mat.Matrix // m×d support vectors (one row of zeros when empty): *mat.Dense or kernel.Sparse
	w       *mat.Dense // m×T coefficients α_i y_i
	bias    []float64
	empty   bool // no support vector at all: f_t = b_t
	workers int
	// rows are the training rows of the support vectors, ascending (nil
	// when unknown: a decision loaded from a file without them). BKA-SVM's
	// local decisions are saved as positions among the global ones.
	rows []int
}

// newSVMDecision collects the support vectors of parts (rows of x, kept in
// x's format: sparse rows for sparse x).
func newSVMDecision(k kernel.Kernel, x mat.Matrix, parts []svmPart, workers int) *svmDecision {
	_, d := x.Dims()
	pos := map[int]int{}
	var idx []int
	for _, p := range parts {
		for r, a := range p.alpha {
			if a > 0 {
				if _, ok := pos[p.rows[r]]; !ok {
					pos[p.rows[r]] = -1
					idx = append(idx, p.rows[r])
				}
			}
		}
	}
	slices.Sort(idx) // training order, whatever the order of the parts
	for j, i := range idx {
		pos[i] = j
	}
	dec := &svmDecision{k: k, bias: make([]float64, len(parts)), workers: workers}
	if len(idx) == 0 {
		dec.empty = true
		if _, ok := x.(kernel.Sparse); ok {
			// One empty sparse row: no O(d) row in memory or in a saved file.
			dec.sv = kernel.NewCSRRows(d, []int{0, 0}, nil, nil)
		} else {
			dec.sv = mat.NewDense(1, d, nil)
		}
		dec.w = mat.NewDense(1, len(parts), nil)
	} else {
		dec.sv = pickRows(x, idx)
		dec.rows = idx
		dec.w = mat.NewDense(len(idx), len(parts), nil)
	}
	for t, p := range parts {
		dec.bias[t] = p.bias
		for r, a := range p.alpha {
			if a > 0 {
				dec.w.Set(pos[p.rows[r]], t, a*p.y[r])
			}
		}
	}
	return dec
}

func (dec *svmDecision) eval(ctx context.Context, x mat.Matrix) (*mat.Dense, error) {
	return dec.evalScaled(ctx, x, nil)
}

// evalScaled is eval with row i of K(x, SV)·W multiplied by scale[i] before
// the bias is added (nil: no scaling; see beyondInput).
func (dec *svmDecision) evalScaled(ctx context.Context, x mat.Matrix, scale []float64) (*mat.Dense, error) {
	n, _ := x.Dims()
	_, t := dec.w.Dims()
	out := mat.NewDense(n, t, nil)
	if !dec.empty {
		_, xSparse := x.(kernel.Sparse)
		_, svSparse := dec.sv.(kernel.Sparse)
		if xSparse || svSparse {
			if err := dec.evalSparse(ctx, x, out); err != nil {
				return nil, err
			}
		} else {
			op := kernel.NewOp(dec.k, x, dec.sv.(*mat.Dense), kernel.Options{Workers: dec.workers})
			if err := op.Mul(ctx, out, dec.w); err != nil {
				return nil, err
			}
		}
		scaleRows(out, scale)
	}
	for i := range n {
		row := out.RawRowView(i)
		for j := range row {
			row[j] += dec.bias[j]
		}
	}
	return out, nil
}
