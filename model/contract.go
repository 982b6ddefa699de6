package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"
)

// The estimator contract. Every estimator of this package (Falkon, KRR, SVM,
// BKASVM, OneClassSVM) is an Estimator and a Classifier, with an Info method, a Progress
// field of type ProgressFunc and a Resources field; Falkon and KRR are also
// MultiOutput. The methods behave the same way on all of them:
//
//   - Fit validates its arguments and configuration, then trains. A Fit that
//     fails (bad input, cancelled context, ErrMemory, ErrStopped) leaves the
//     estimator as it was: a model fitted before stays fitted and predicts as
//     before; an unfitted estimator stays unfitted.
//   - Predict, DecisionFunction, PredictProba and PredictMulti return
//     ErrNotFitted before the first successful Fit and ErrInput for bad rows.
//   - Info returns the zero value before the first successful Fit.
//   - After Fit returns, the prediction methods, Info and Classes may be
//     called from several goroutines at once. Fit (and FitMulti) must not run
//     at the same time as any other method of the same estimator.

// Estimator is what every Landmark model implements. For regression y holds
// targets; for classification it holds class labels (any distinct integral
// values, for example ±1 or 0…9) and Predict returns labels from the same
// set.
type Estimator interface {
	Fit(ctx context.Context, x mat.Matrix, y []float64) error
	Predict(x mat.Matrix) ([]float64, error)
}

// Classifier is an Estimator that gives scores and class probabilities.
// SVM and BKASVM are always classifiers; Falkon and KRR are when their Task
// is Classification (fitted as regressors, Classes is nil and PredictProba
// fails with ErrInput).
type Classifier interface {
	Estimator
	// Classes returns the labels seen in training, ascending (nil before
	// Fit). They order the columns of PredictProba.
	Classes() []float64
	// DecisionFunction returns the raw scores of the rows of x; each
	// estimator documents its columns.
	DecisionFunction(x mat.Matrix) (*mat.Dense, error)
	// PredictProba returns class probabilities, one row per row of x and one
	// column per class in the order of Classes; every row sums to 1. Each
	// estimator documents its calibration.
	PredictProba(x mat.Matrix) (*mat.Dense, error)
}

// WeightedEstimator is an estimator that takes sample weights, as
// scikit-learn's fit(X, y, sample_weight) does: w holds one finite weight
// ≥ 0 per row of x, not all 0 (ErrInput otherwise), and nil means every
// weight is 1, so FitWeighted(ctx, x, y, nil) is Fit(ctx, x, y). On every
// estimator an integer weight k gives the model of the data with that row
// repeated k times (with the same centers, for Falkon and Nyström, whose
// sampling does not look at weights). The SVMs bound row i's dual variables
// by C·w_i (scikit-learn's SVC and SVR, LIBSVM's instance-weight variant);
// KRR and Falkon weigh row i's squared loss by w_i and average over Σ w_i,
// so their weights are relative: multiplied by a constant, they give the
// same model. Rows of weight 0 do not enter the fit.
type WeightedEstimator interface {
	Estimator
	FitWeighted(ctx context.Context, x mat.Matrix, y, w []float64) error
}

// MultiOutput is an estimator that fits several regression targets at once
// (n×t, one column per output) and predicts all of them. Predict returns the
// first output only.
type MultiOutput interface {
	Estimator
	FitMulti(ctx context.Context, x mat.Matrix, y *mat.Dense) error
	// PredictMulti returns one row per row of x and one column per output
	// (one column after Fit on a single target).
	PredictMulti(x mat.Matrix) (*mat.Dense, error)
}

// Informer is an estimator that describes its last successful fit; I is the
// estimator's info type (FalkonInfo, KRRInfo, SVMInfo, BKAInfo, SVRInfo). Info returns
// the zero I before the first successful Fit.
type Informer[I any] interface {
	Info() I
}

// Compile-time checks of the contract.
var (
	_ Classifier           = (*SVM)(nil)
	_ Classifier           = (*BKASVM)(nil)
	_ Classifier           = (*KRR)(nil)
	_ Classifier           = (*Falkon)(nil)
	_ MultiOutput          = (*KRR)(nil)
	_ MultiOutput          = (*Falkon)(nil)
	_ Informer[SVMInfo]    = (*SVM)(nil)
	_ Informer[BKAInfo]    = (*BKASVM)(nil)
	_ Informer[KRRInfo]    = (*KRR)(nil)
	_ Informer[FalkonInfo] = (*Falkon)(nil)
	_ Estimator            = (*SVR)(nil)
	_ WeightedEstimator    = (*SVM)(nil)
	_ WeightedEstimator    = (*SVR)(nil)
	_ WeightedEstimator    = (*KRR)(nil)
	_ WeightedEstimator    = (*Falkon)(nil)
	_ Informer[SVRInfo]    = (*SVR)(nil)
)

// Resources bounds what a fit may use. Every estimator embeds it, so its
// fields read as est.Workers and est.MemoryLimit and map to the YAML keys
// workers and memory_limit; in a composite literal write
// Resources: model.Resources{Workers: 4, MemoryLimit: 1 << 30}. The zero
// value means no limit on either.
type Resources struct {
	// Workers bounds the goroutines of a fit and of predictions; 0 means
	// GOMAXPROCS. Results do not depend on it.
	Workers int `yaml:"workers"`
	// MemoryLimit, when positive, bounds the planned peak memory of a fit in
	// bytes (what the plan counts is in each estimator's documentation). A
	// fit that cannot stay within it fails with ErrMemory before allocating
	// anything large. 0 means no limit (Falkon then still spends memory
	// unasked only within 75% of the machine's: see Falkon.CacheKnm). The
	// plan includes each worker's
	// scratch, so the same cap can pass with few workers and fail with
	// many: set Workers too when a cap must give the same verdict on every
	// machine (the fitted model never depends on Workers). The plan counts
	// live allocations;
	// the process's resident size also includes what the garbage collector
	// has not yet returned, so pair the limit with GOMEMLIMIT or
	// debug.SetMemoryLimit when the process itself must stay below it.
	MemoryLimit int64 `yaml:"memory_limit"`
}

// validate refuses negative values, naming the field.
func (r Resources) validate(who string) error {
	if r.Workers < 0 {
		return fmt.Errorf("model: %s: %w: Workers = %d, want ≥ 0 (0 means GOMAXPROCS)", who, ErrInput, r.Workers)
	}
	if r.MemoryLimit < 0 {
		return fmt.Errorf("model: %s: %w: MemoryLimit = %d bytes, want ≥ 0 (0 means no limit)", who, ErrInput, r.MemoryLimit)
	}
	return nil
}

// ErrStopped is wrapped by the error of a fit that its ProgressFunc stopped
// (together with the callback's own error, so errors.Is finds both).
var ErrStopped = errors.New("stopped by the progress callback")

// The stages a ProgressFunc sees.
const (
	// StageIteration: Falkon finished a CG iteration; Done is the
	// iteration, Total the iteration cap, Residual the relative residual and
	// ValError the validation error (NaN without validation data).
	StageIteration = "iteration"
	// StageSolver: SVM's dual solver in sub-problem Task made about 1,000
	// more updates; Done counts the updates, Residual is the maximal KKT
	// violation.
	StageSolver = "solver"
	// StageTask: a binary sub-problem of SVM (or of BKASVM's Refine step)
	// is solved; Done of Total.
	StageTask = "task"
	// StageCluster: a cluster problem of BKASVM is solved; Done of Total.
	StageCluster = "cluster"
	// StageSolve: a step of KRR's backend is done (for example a chunk of
	// rows of K_nM, or the factorization); Done of Total.
	StageSolve = "solve"
	// StageSetup: Falkon finished a step of its setup before CG; Step
	// names it (StepCenters, StepPreconditioner, StepRHS), Done counts the
	// steps so far of Total.
	StageSetup = "setup"
	// StagePass: a pass of Falkon.FitShards over the shards is done; Done
	// counts the passes, Total is their number when CG runs to MaxIter,
	// and Rows, Bytes, PassTime, IOWait, RowsPerSec and MBPerSec say what
	// the pass read and how fast.
	StagePass = "pass"
)

// The steps of Falkon's setup a StageSetup report names.
const (
	// StepCenters: the centers are drawn (or taken as given).
	StepCenters = "centers"
	// StepPreconditioner: K_MM and the preconditioner's two factors are
	// built.
	StepPreconditioner = "preconditioner"
	// StepRHS: K_nMᵀY is formed (and K_nM kept, when the fit keeps it).
	StepRHS = "rhs"
)

// Progress is one report of a fit to its ProgressFunc.
type Progress struct {
	// Stage is one of the Stage constants.
	Stage string `json:"stage"`
	// Step names the setup step a StageSetup report finished ("" for
	// other stages).
	Step string `json:"step,omitempty"`
	// Task is the binary sub-problem (SVM, BKASVM), 0 otherwise.
	Task int `json:"task"`
	// Done counts the units of the stage done so far; Total is their number
	// (0 when unknown).
	Done  int `json:"done"`
	Total int `json:"total"`
	// Residual is the stage's convergence measure (Falkon's relative
	// residual, the SVM solver's KKT violation), NaN when there is none.
	Residual float64 `json:"residual"`
	// ValError is Falkon's validation error, NaN otherwise.
	ValError float64 `json:"val_error"`
	// Elapsed is the time since Fit started.
	Elapsed time.Duration `json:"elapsed"`
	// Rows and Bytes are the rows decoded and the file bytes read by a
	// StagePass report's pass, PassTime its wall time and IOWait the part
	// of it the computation waited for the reader (near 0 when reading
	// keeps ahead of the kernel products); RowsPerSec and MBPerSec (10⁶
	// bytes) are the pass's rates over PassTime. Zero for other stages.
	Rows       int64         `json:"rows,omitempty"`
	Bytes      int64         `json:"bytes,omitempty"`
	PassTime   time.Duration `json:"pass_time,omitempty"`
	IOWait     time.Duration `json:"io_wait,omitempty"`
	RowsPerSec float64       `json:"rows_per_sec,omitempty"`
	MBPerSec   float64       `json:"mb_per_sec,omitempty"`
}

// ProgressFunc receives a fit's progress. Calls are serialized. Returning a
// non-nil error stops the fit as soon as the running step can stop (each
// estimator checks at least once per report): Fit then fails with an error
// wrapping both ErrStopped and the returned error, and the estimator keeps
// its previous model.
type ProgressFunc func(Progress) error

// progressRun is a ProgressFunc attached to one fit: it stamps Elapsed,
// serializes calls, and on the first error cancels the fit's context so
// that solvers without a callback of their own stop at their next
// cancellation check.
type progressRun struct {
	f      ProgressFunc
	start  time.Time
	mu     sync.Mutex
	err    error
	cancel context.CancelCauseFunc
}

// startProgress returns the fit's context and its progress reporter; the
// caller must call finish. A nil f reports nothing.
func startProgress(ctx context.Context, f ProgressFunc) (context.Context, *progressRun) {
	p := &progressRun{f: f, start: time.Now()}
	if f == nil {
		return ctx, p
	}
	ctx, p.cancel = context.WithCancelCause(ctx)
	return ctx, p
}

// report sends pr to the callback and returns its error (also after an
// earlier one: a stopped fit stays stopped).
func (p *progressRun) report(pr Progress) error {
	if p.f == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reportLocked(pr)
}

// reportCount increments *done under the reporter's lock and reports pr
// with Done = *done: for workers finishing units in any order.
func (p *progressRun) reportCount(done *int, pr Progress) error {
	if p.f == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	*done++
	pr.Done = *done
	return p.reportLocked(pr)
}

func (p *progressRun) reportLocked(pr Progress) error {
	if p.err != nil {
		return p.err
	}
	pr.Elapsed = time.Since(p.start)
	if err := p.f(pr); err != nil {
		p.err = err
		p.cancel(fmt.Errorf("%w: %w", ErrStopped, err))
		return err
	}
	return nil
}

// stopped reports whether the callback has stopped the fit.
func (p *progressRun) stopped() bool {
	if p.f == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err != nil
}

// finish releases the fit's context and turns err into the stop error when
// the callback stopped the fit. who names the estimator.
func (p *progressRun) finish(err error, who string) error {
	if p.f == nil {
		return err
	}
	p.mu.Lock()
	stop := p.err
	p.mu.Unlock()
	p.cancel(nil)
	if stop != nil {
		return fmt.Errorf("model: %s: %w: %w", who, ErrStopped, stop)
	}
	return err
}

// noValue is the NaN of Progress fields that do not apply.
var noValue = math.NaN()
