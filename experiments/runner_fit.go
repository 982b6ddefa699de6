package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/eta"
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
}

// fitScoreWith is fitScore reusing est, when non-nil, as the already fitted
// model (its scalers are refitted on xtr, which is deterministic), or
// warm-starting a new fit from the fitted model from, when non-nil.
func (r *runner) fitScoreWith(ctx context.Context, p Point, xtr mat.Matrix, ytr []float64, xva mat.Matrix, yva []float64, fo fitOpts) (fitScores, error) {
	est, from, seed := fo.est, fo.from, fo.seed
	d := r.s.Dataset
	xtr, xva, sc, err := scaleFeatures(d.scale(), xtr, xva)
	if err != nil {
		return fitScores{}, err
	}
	yfit := ytr
	var ts datasets.TargetScaler // zero value: identity
	if d.StandardizeTarget {
		if err := ts.Fit(ytr); err != nil {
			return fitScores{}, err
		}
		yfit = ts.Transform(ytr)
	}
	cfg := r.config(p, len(ytr), seed)
	// The cap covers the whole fit: the data the runner holds beside the
	// estimator (read, split, scaled) is taken off what the estimator's own
	// plan may use.
	held := r.heldBytes(xtr, xva)
	capBytes, _ := cfg.Options["memory_limit"].(float64)
	if capBytes > 0 {
		cfg.Options["memory_limit"] = math.Max(1, capBytes-float64(held))
	}
	if r.path && est == nil {
		if err := r.pathCenters(ctx, &cfg, p, fo.pathKey, pathData(xtr)); err != nil {
			return fitScores{}, err
		}
	}
	if r.progress != nil {
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
	}
	w := startMemWatch()
	t0 := time.Now()
	if est == nil {
		est, err = r.entry.New(cfg)
		if err == nil && from != nil {
			err = r.entry.Warm(est, from)
		}
		if err == nil {
			err = est.Fit(ctx, xtr, yfit)
		}
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
	pred, err := est.Predict(xva)
	t2 := time.Now()
	var dec []float64
	if err == nil && r.s.Task == TaskBinary {
		if dm, ok := est.(decider); ok {
			m, derr := dm.DecisionFunction(xva)
			if derr != nil {
				err = derr
			} else {
				dec = mat.Col(nil, 0, m)
			}
		}
	}
	peak := w.Stop()
	if err != nil {
		return fitScores{}, err
	}
	if d.StandardizeTarget {
		pred = ts.Inverse(pred)
	}
	out := fitScores{est: est, scaling: sc, target: ts, fit: t1.Sub(t0).Seconds(), predict: t2.Sub(t1).Seconds(), peak: peak}
	for _, m := range r.metrics {
		v, err := m.Score(yva, pred, dec)
		if err != nil {
			return fitScores{}, fmt.Errorf("%s: %w", m.Name, err)
		}
		out.scores = append(out.scores, v)
	}
	return out, nil
}

// fitScoreMany fits point p on (xtr, ytr) and scores the fitted model on
// each (xs[i], ys[i]), scaling features (and the target) with the training
// rows' statistics as fitScore does.
func (r *runner) fitScoreMany(ctx context.Context, p Point, xtr mat.Matrix, ytr []float64, xs []mat.Matrix, ys [][]float64, seed uint64) (fitScores, [][]Summary, error) {
	var est model.Estimator
	var last fitScores
	var out [][]Summary
	for i := range xs {
		// A feature scaling returns new matrices (and scales xs[i] that is
		// xtr once): the copies would be garbage as soon as made, each
		// 8·n·d bytes of dense data outside the memory plan.
		xf, xv := xtr, xs[i]
		if r.s.Dataset.scale() == "" {
			xf, xv = copyX(xtr), copyX(xs[i])
		}
		fs, err := r.fitScoreWith(ctx, p, xf, ytr, xv, ys[i], fitOpts{seed: seed, est: est, pathKey: "all"})
		if err != nil {
			return fitScores{}, nil, err
		}
		est, last = fs.est, fs
		var sc []Summary
		for j, m := range r.metrics {
			sc = append(sc, Summary{Name: m.Name, Mean: fs.scores[j]})
		}
		out = append(out, sc)
	}
	return last, out, nil
}
