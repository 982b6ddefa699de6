package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

type fitScores struct {
	est          model.Estimator
	scaling      Scaling
	target       datasets.TargetScaler
	scores       []float64
	fit, predict float64
	peak         int64
	// gamma is the kernel γ a gamma rule (scale, auto) resolved to on
	// the training rows; 0 without a rule.
	gamma float64
}

// decider is implemented by estimators that expose decision values; binary
// auc then ranks by them instead of by labels.
type decider interface {
	DecisionFunction(x mat.Matrix) (*mat.Dense, error)
}

// fitScore fits the estimator of point p on (xtr, ytr) — scaling features
// (and the regression target) with the training rows' statistics when the
// spec asks — and scores it on (xva, yva).
func (r *runner) fitScore(ctx context.Context, p Point, xtr mat.Matrix, ytr []float64, xva mat.Matrix, yva []float64, seed uint64) (fitScores, error) {
	return r.fitScoreWith(ctx, p, xtr, ytr, xva, yva, fitOpts{seed: seed, pathKey: "all"})
}

// fitOpts are the per-fit settings of fitScoreWith.
type fitOpts struct {
	// seed seeds the estimator.
	seed uint64
	// est, when non-nil, is an already fitted model to score again.
	est model.Estimator
	// from, when non-nil, is the fitted model to warm-start from.
	from model.Estimator
	// pathKey names the training rows (fold) for the BLESS path cache.
	pathKey string
	// point and points locate the fit in the grid for progress events.
	point, points int
	// scaled, when non-nil, says that xtr and xva are already scaled with
	// it (fitOwned scaled them in place): no scaling is fitted.
	scaled *Scaling
	// owned says that xtr and xva are this fit's own copies (a fold's
	// rows): a dense feature scaling is applied to them in place.
	owned bool
	// w holds the sample weights of xtr's rows (nil: none).
	w []float64
}

// fitScoreWith is fitScore reusing est, when non-nil, as the already fitted
// model (its scalers are refitted on xtr, which is deterministic), or
// warm-starting a new fit from the fitted model from, when non-nil.
func (r *runner) fitScoreWith(ctx context.Context, p Point, xtr mat.Matrix, ytr []float64, xva mat.Matrix, yva []float64, fo fitOpts) (fitScores, error) {
	est := fo.est
	xtr, xva, sc, err := r.foldScaling(fo, xtr, xva)
	if err != nil {
		return fitScores{}, err
	}
	yfit, ts, err := r.targetScaling(ytr)
	if err != nil {
		return fitScores{}, err
	}
	cfg := r.configW(p, len(ytr), weightSum(fo.w, len(ytr)), fo.seed)
	// A gamma rule is resolved on the training rows as scaled, before a
	// float32 copy (fitRows) rounds them.
	gamma, err := r.resolveGamma(&cfg, xtr)
	if err != nil {
		return fitScores{}, err
	}
	capBytes, held := r.capFit(&cfg, xtr, xva)
	if est == nil {
		if xtr, err = r.fitRows(ctx, &cfg, p, fo, xtr, xva); err != nil {
			return fitScores{}, err
		}
	}
	r.iterationEvents(&cfg, p, fo)
	w := startMemWatch()
	t0 := time.Now()
	if est == nil {
		est, err = r.newFit(ctx, cfg, fo.from, xtr, yfit, fo.w)
	}
	t1 := time.Now()
	if err != nil {
		w.Stop()
		if errors.Is(err, model.ErrMemory) && capBytes > 0 && held > 0 {
			err = fmt.Errorf("%w: what the cap of %d bytes (%s) leaves after the data held beside the fit (training and test rows, their split and scaled copies: %d bytes, %s)",
				err, int64(capBytes), check.FormatBytes(int64(capBytes)), held, check.FormatBytes(held))
		}
		return fitScores{}, r.memoryHint(err)
	}
	var pred, dec []float64
	pd, both := est.(predictDecider)
	if both && r.s.Task == TaskBinary {
		pred, dec, err = predictDecision(pd, xva)
	} else {
		pred, err = inRowBlocks(xva, est.Predict)
	}
	t2 := time.Now()
	if err == nil && r.s.Task == TaskBinary && !both {
		dec, err = decisionValues(est, xva)
	}
	peak := w.Stop()
	if err != nil {
		return fitScores{}, err
	}
	if r.s.Dataset.StandardizeTarget {
		pred = ts.Inverse(pred)
	}
	out := fitScores{est: est, scaling: sc, target: ts, fit: t1.Sub(t0).Seconds(), predict: t2.Sub(t1).Seconds(), peak: peak}
	if r.s.Estimator.GammaRule != "" {
		out.gamma = gamma
	}
	if out.scores, err = r.score(yva, pred, dec); err != nil {
		return fitScores{}, err
	}
	return out, nil
}

// targetScaling returns the targets to fit, ytr standardized with its own
// mean and deviation when the dataset asks (standardize_target), and the
// scaler that maps predictions back (the identity otherwise).
func (r *runner) targetScaling(ytr []float64) ([]float64, datasets.TargetScaler, error) {
	var ts datasets.TargetScaler // zero value: identity
	if !r.s.Dataset.StandardizeTarget {
		return ytr, ts, nil
	}
	if err := ts.Fit(ytr); err != nil {
		return nil, ts, err
	}
	return ts.Transform(ytr), ts, nil
}

// capFit makes cfg's memory_limit, when set, cover the whole fit: the data
// the runner holds beside the estimator (read, split, scaled) is taken off
// what the estimator's own plan may use. It returns the cap as configured
// (0 when none) and the bytes held.
func (r *runner) capFit(cfg *Config, xtr, xva mat.Matrix) (capBytes float64, held int64) {
	held = r.heldBytes(xtr, xva)
	if planCountsRows(r.entry.Name, cfg.Approx) {
		// The estimator's plan counts the rows it is given (Falkon's
		// FalkonPlan.Data, KRR's "the data"): they are not taken off its
		// cap twice. (A float32_storage fold's float64 rows are replaced
		// below by float32 ones, which the plan counts.)
		held -= dataBytes(xtr)
	}
	capBytes, _ = cfg.Options["memory_limit"].(float64)
	if capBytes > 0 {
		cfg.Options["memory_limit"] = math.Max(1, capBytes-float64(held))
	}
	return capBytes, held
}

// planCountsRows reports whether the plan of the estimator name with the
// approximation backend approx counts the training rows it is given
// (8·n·d dense, or the CSR arrays) in every check it makes: falkon
// (FalkonPlan.Data) and exact KRR, dense and sparse (KRRInfo.MemoryBytes,
// one check). The Nyström and feature backends also count X in their
// total, but check their sampler's or feature map's plan on its own,
// without X, so the runner keeps X off their cap; MEKA's plan and the
// SVMs' do not count X (the SVMs count their support vectors' copy).
func planCountsRows(name, approx string) bool {
	switch name {
	case "falkon":
		return true
	case "krr":
		return approx == "" || approx == "exact"
	}
	return false
}

// fitRows readies a new fit's training rows: the BLESS path's centers
// for the fold (pathCenters, into cfg) and, when xtr is this fit's own
// copy, the float32 rows of float32_storage (float32Rows). It returns the
// rows to fit.
func (r *runner) fitRows(ctx context.Context, cfg *Config, p Point, fo fitOpts, xtr, xva mat.Matrix) (mat.Matrix, error) {
	if r.path {
		if err := r.pathCenters(ctx, cfg, p, fo.pathKey, pathData(xtr)); err != nil {
			return nil, err
		}
	}
	if !sameMatrix(xtr, xva) && !sameMatrix(xtr, r.x) {
		// xtr is this fit's own copy (a fold, a scaled copy): held in
		// float32 for float32_storage, the float64 rows dropped before
		// the fit rather than kept beside the estimator's float32 copy
		// (which its plan counts, as it counted the float64 rows).
		return r.float32Rows(*cfg, xtr)
	}
	return xtr, nil
}

// iterationEvents, when the runner reports progress, has the fit report
// each solver iteration as an EventIteration of point p with its ETA.
func (r *runner) iterationEvents(cfg *Config, p Point, fo fitOpts) {
	if r.progress == nil {
		return
	}
	// FALKON is the estimator that reports iterations; max_iter 0 is
	// its default budget.
	maxIter := cfg.Int("max_iter", 0)
	if maxIter <= 0 && r.entry.Name == "falkon" {
		maxIter = model.DefaultFalkonMaxIter
	}
	var clock eta.Iter
	cfg.Progress = func(it int, res float64) {
		r.emit(Event{Kind: EventIteration, Point: fo.point, Points: fo.points, Key: p.Key(), Iteration: it, MaxIter: maxIter, Residual: res, ETA: clock.Left(it, maxIter)})
	}
	cfg.Setup = func(step string, done, total int) {
		r.emit(Event{Kind: EventSetup, Point: fo.point, Points: fo.points, Key: p.Key(), Step: step, StepsDone: done, Steps: total})
	}
}

// newFit builds the estimator of cfg, warm-started from the fitted model
// from when non-nil, and fits it on (xtr, yfit), with the sample weights w
// when non-nil.
func (r *runner) newFit(ctx context.Context, cfg Config, from model.Estimator, xtr mat.Matrix, yfit, w []float64) (model.Estimator, error) {
	if cfg.Task == model.Classification {
		cfg.Labels, cfg.ClassNames = yfit, r.classNames
	}
	est, err := r.entry.New(cfg)
	if err == nil && from != nil {
		err = r.entry.Warm(est, from)
	}
	if err == nil {
		atStage("fit")
		if w == nil {
			err = est.Fit(ctx, xtr, yfit)
		} else if we, ok := est.(model.WeightedEstimator); ok {
			err = we.FitWeighted(ctx, xtr, yfit, w)
		} else {
			err = fmt.Errorf("%w: estimator %s does not take sample weights (%s do)", ErrSpec, r.entry.Name, strings.Join(weightedEstimators, ", "))
		}
	}
	return est, err
}

// score returns the spec's metrics of the predictions pred (and decision
// values dec, binary tasks) against yva, in the order of r.metrics.
func (r *runner) score(yva, pred, dec []float64) ([]float64, error) {
	var scores []float64
	for _, m := range r.metrics {
		v, err := m.Score(yva, pred, dec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		scores = append(scores, v)
	}
	return scores, nil
}

// foldScaling applies the dataset's feature scaling to a fit's training
// and validation rows: fo.scaled when the caller fitted it already; in
// place, fitted on xtr, when the fit owns both (distinct dense, or float32
// training and float64 validation) arrays; otherwise on scaled copies
// (scaleFeatures). It returns the rows to use
// and the scaling.
func (r *runner) foldScaling(fo fitOpts, xtr, xva mat.Matrix) (mat.Matrix, mat.Matrix, Scaling, error) {
	scale := r.s.Dataset.scale()
	xd, dtr := xtr.(*mat.Dense)
	xvd, dva := xva.(*mat.Dense)
	x32, f32 := xtr.(*kernel.Dense32)
	switch {
	case fo.scaled != nil:
		return xtr, xva, *fo.scaled, nil
	case fo.owned && scale != "" && f32 && dva:
		// A fold of float32 rows read (f32): the scaling fitted on them
		// (in float64) and applied to them and the float64 validation
		// rows in place.
		sc, err := fitScaling32(scale, x32)
		if err == nil {
			if err = scaleInPlace32(sc, x32); err == nil {
				err = scaleInPlace(sc, xvd)
			}
		}
		return xtr, xva, sc, err
	case fo.owned && scale != "" && dtr && dva && xd != xvd:
		sc, err := fitScaling(scale, xd)
		if err == nil {
			if err = scaleInPlace(sc, xd); err == nil {
				err = scaleInPlace(sc, xvd)
			}
		}
		return xtr, xva, sc, err
	default:
		return scaleFeatures(scale, xtr, xva)
	}
}

// decisionValues returns a binary classifier's decision values on x (nil
// when est has none), in row blocks as its predictions.
func decisionValues(est model.Estimator, x mat.Matrix) ([]float64, error) {
	dm, ok := est.(decider)
	if !ok {
		return nil, nil
	}
	return inRowBlocks(x, func(x mat.Matrix) ([]float64, error) {
		m, err := dm.DecisionFunction(x)
		if err != nil {
			return nil, err
		}
		return mat.Col(nil, 0, m), nil
	})
}

// predictDecider is implemented by estimators that give their labels and
// decision values from one prediction (model.Falkon, model.KRR): a binary
// task's scores need both.
type predictDecider interface {
	PredictDecision(x mat.Matrix) ([]float64, *mat.Dense, error)
}

// predictDecision returns the labels and the first column of the decision
// values of pd for the rows of x from one prediction (in row blocks as
// inRowBlocks, for float32 rows).
func predictDecision(pd predictDecider, x mat.Matrix) (pred, dec []float64, err error) {
	pred, err = inRowBlocks(x, func(x mat.Matrix) ([]float64, error) {
		p, f, err := pd.PredictDecision(x)
		if err != nil {
			return nil, err
		}
		dec = append(dec, mat.Col(nil, 0, f)...)
		return p, nil
	})
	return pred, dec, err
}

// predictBlockBytes bounds the float64 rows inRowBlocks has predicted at
// a time.
const predictBlockBytes = 32 << 20

// inRowBlocks returns f(x), one value per row of x. Float32 rows
// (kernel.Dense32, the training rows of a float32_storage fit) go to f a
// block of rows at a time: the estimators predict on float64 rows, and the
// whole of x expanded to float64 would be twice the float32 rows held. Each
// row's value depends on that row alone, so the blocks change nothing.
func inRowBlocks(x mat.Matrix, f func(mat.Matrix) ([]float64, error)) ([]float64, error) {
	x32, ok := x.(*kernel.Dense32)
	if !ok {
		return f(x)
	}
	n, d := x32.Dims()
	step := max(1, predictBlockBytes/(8*d))
	if step >= n {
		return f(x)
	}
	out := make([]float64, 0, n)
	for i := 0; i < n; i += step {
		p, err := f(x32.Rows(i, min(i+step, n)))
		if err != nil {
			return nil, err
		}
		out = append(out, p...)
	}
	return out, nil
}

// float32Rows returns dense x rounded to float32 (kernel.Dense32Of, as
// model.Falkon.Fit rounds float64 rows) when the estimator holds X in
// float32 (falkon's float32_storage), and x itself otherwise.
func (r *runner) float32Rows(cfg Config, x mat.Matrix) (mat.Matrix, error) {
	xd, ok := x.(*mat.Dense)
	if _, has := r.entry.option("float32_storage"); !ok || !has || !cfg.Bool("float32_storage", false) {
		return x, nil
	}
	x32, err := kernel.Dense32Of(xd)
	if err != nil {
		return nil, err
	}
	if err := x32.CheckFinite("X rounded to float32"); err != nil {
		return nil, fmt.Errorf("%s: %w", r.entry.Name, err)
	}
	return x32, nil
}

// fitOwned fits point p once on the runner's training rows and scores the
// model on them and on the test rows: FitWith's one fit. The runner's
// matrices are its own (it read them) and serve this fit only, so the fit
// takes them without copies: a dense feature scaling (fitted on the
// training rows in float64, as fitScoreWith does) is applied to them in
// place, with the very values Scaling.Transform returns; with falkon's
// float32_storage the scaled training rows are then rounded to float32 and
// the float64 ones dropped, so one copy of X is held through the fit (the
// training rows are scored as the fit held them). Sparse data with a
// column scaling goes through fitScoreWith's scaled copies as before.
func (r *runner) fitOwned(ctx context.Context, p Point, seed uint64) (fitScores, [][]Summary, error) {
	var sc *Scaling
	xd, dense := r.x.(*mat.Dense)
	x32, dense32 := r.x.(*kernel.Dense32)
	xt, denseTest := r.xTest.(*mat.Dense)
	if kind := r.s.Dataset.scale(); kind != "" && (dense || dense32) && (r.xTest == nil || denseTest) {
		var s Scaling
		var err error
		if dense32 {
			// Rows read into float32 (r.f32): statistics in float64
			// from the float32 values, scaled values rounded.
			if s, err = fitScaling32(kind, x32); err == nil {
				err = scaleInPlace32(s, x32)
			}
		} else if s, err = fitScaling(kind, xd); err == nil {
			err = scaleInPlace(s, xd)
		}
		if err != nil {
			return fitScores{}, nil, err
		}
		if denseTest {
			if err := scaleInPlace(s, xt); err != nil {
				return fitScores{}, nil, err
			}
		}
		sc = &s
	}
	// What reading and splitting left behind (the reader's buffers) is
	// collected before the float32 copy and again, with the float64 rows
	// it replaces, before the fit, so that their memory is reused rather
	// than the heap grown past it.
	runtime.GC()
	xf := r.x
	if cfg := r.configW(p, len(r.y), weightSum(r.w, len(r.y)), seed); dense && !r.path && cfg.Bool("float32_storage", false) { // a BLESS path draws its centers from the float64 rows
		// The float32 copy is made beside the float64 rows: both within
		// the cap, before anything is allocated.
		n, c := xd.Dims()
		if err := check.Memory(fmt.Sprintf("the float32 copy of X (%d×%d) beside the float64 rows", n, c), r.heldBytes(r.x, r.xTest)+4*int64(n)*int64(c), r.readLimit()); err != nil {
			return fitScores{}, nil, r.memoryHint(err)
		}
		var err error
		if xf, err = r.float32Rows(cfg, r.x); err != nil {
			return fitScores{}, nil, err
		}
	}
	if xf != r.x {
		r.x = xf
		runtime.GC()
	}
	xs, ys := []mat.Matrix{r.x}, [][]float64{r.y}
	if r.xTest != nil {
		xs, ys = append(xs, r.xTest), append(ys, r.yTest)
	}
	var est model.Estimator
	var last fitScores
	var out [][]Summary
	for i := range xs {
		fs, err := r.fitScoreWith(ctx, p, r.x, r.y, xs[i], ys[i], fitOpts{seed: seed, est: est, pathKey: "all", scaled: sc, w: r.w})
		if err != nil {
			return fitScores{}, nil, err
		}
		est, last = fs.est, fs
		var sum []Summary
		for j, m := range r.metrics {
			sum = append(sum, Summary{Name: m.Name, Mean: fs.scores[j]})
		}
		out = append(out, sum)
	}
	return last, out, nil
}
