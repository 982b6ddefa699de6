package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// StorageStreamed is FitResult.Storage of a fit streamed from shards on
// every pass (X never held).
const StorageStreamed = "streamed"

// fitStreamed is FitWith for a falkon fit whose training shards do not fit
// the memory cap in memory: model.Falkon.FitShardSet streams them on every
// pass, standardized on read with the manifest's statistics when the spec
// scales with standardize. The data options that need the rows in memory
// (test_fraction, subsample, other scalings, standardize_target) are
// refused; a test set (test_path) is read into memory and scored. The
// training rows are not scored (that would be one more pass).
func fitStreamed(ctx context.Context, s *Spec, sp *shardPlan, opt FitOptions) (*FitResult, error) {
	c := *s
	names, err := namesOf(sp.path, sp.m)
	if err != nil {
		return nil, s.errAt(err.Error(), "dataset", "path")
	}
	rule := ""
	if c.Task == TaskAuto {
		c.Task = manifestTask(sp.m)
		rule = "the manifest's task " + sp.m.Task
		switch {
		case names.classNames != nil:
			rule += " with text labels " + quoteClasses(names.classNames)
		case len(sp.m.Classes) > 0:
			rule += " with classes " + classList(sp.m.Classes)
		}
	}
	d := c.Dataset
	for _, o := range []struct {
		set bool
		key string
	}{{d.TestFraction > 0, "test_fraction"}, {d.Subsample > 0, "subsample"}, {d.StandardizeTarget, "standardize_target"},
		{d.scale() != "" && d.scale() != scaleStandardize, "scale"}} {
		if o.set {
			return nil, s.errAt(fmt.Sprintf("%s needs the training rows in memory, and %s (%s) streams them from the shards (give a test set as test_path; scale: standardize uses the manifest's statistics)", o.key, sp.path, sizeLine(sp)), "dataset", o.key)
		}
	}
	r := &runner{ctx: ctx, notify: opt.Notify, s: &c, progress: opt.Progress, start: time.Now()}
	r.entry, _ = estimatorByName(c.Estimator.Type)
	p := c.Grid.Points()[0]
	cfg := r.config(p, sp.m.N, fitSeed(c.Seed, 1<<20, 0))
	var gamma float64
	switch c.Estimator.GammaRule {
	case GammaAuto:
		gamma = 1 / float64(sp.m.D)
		cfg.Kernel.Gamma = gamma
	case GammaScale:
		// From the manifest's statistics: no pass over the rows.
		v := manifestVariance(sp.m, d.scale() == scaleStandardize)
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, s.errAt(fmt.Sprintf("gamma scale: the variance of X's %d×%d entries (from %s's column statistics) is %g, so 1/(d·Var(X)) is not a width (give gamma a number)", sp.m.N, sp.m.D, sp.path, v), "estimator", "kernel", "gamma")
		}
		gamma = 1 / (float64(sp.m.D) * v)
		cfg.Kernel.Gamma = gamma
	}
	est, err := r.entry.New(cfg)
	if err != nil {
		return nil, err
	}
	f := est.(*model.Falkon)
	set, err := model.OpenShards(sp.path)
	if err != nil {
		return nil, s.errAt(err.Error(), "dataset", "path")
	}
	var sc Scaling
	if d.scale() == scaleStandardize {
		set.Mean, set.Std = sp.m.Mean, sp.m.Std
		sc.Standardize = &datasets.Standardizer{Mean: slices.Clone(sp.m.Mean), Std: slices.Clone(sp.m.Std)}
	}
	f.Progress = r.streamProgress(p, f.MaxIter)
	if opt.Notify != nil {
		opt.Notify(fmt.Sprintf("%s: streaming it from the shards on every pass", overLine(sp, opt)))
	}
	t0 := time.Now()
	if err := f.FitShardSet(ctx, set); err != nil {
		if errors.Is(err, model.ErrMemory) {
			err = fmt.Errorf("%s: %w; in memory it would need %s (%s of X and the estimator's plan beside them)", sp.path, err, decimalBytes(sp.need), copiesOf(sp.copies))
		}
		return nil, r.memoryHint(err)
	}
	res := &FitResult{Estimator: f, Point: p, NTrain: sp.m.N, Dim: sp.m.D, FitSeconds: time.Since(t0).Seconds(), Scaling: sc, Gamma: gamma,
		ScalingUsed: scaleUsed(d.scale(), false), Task: c.Task, TaskRule: rule,
		Storage: StorageStreamed, Density: 1, ZeroBased: c.Dataset.ZeroBased || sp.m.ZeroBased, StorageReason: fmt.Sprintf("%s; fit plan %s", overLine(sp, opt), decimalBytes(f.Info().Plan.Total))}
	names.keep(res)
	if d.TestPath == "" {
		return res, nil
	}
	xt, yt, err := r.shardTest(sp.m, names, max(sp.limit, 0))
	if err != nil {
		return nil, err
	}
	res.NTest = len(yt)
	if res.Test, err = r.scoreTest(res, xt, yt); err != nil {
		return nil, err
	}
	return res, nil
}

// sizeLine is "X is 11.2 GB (50,000,000 × 28 float64)".
func sizeLine(sp *shardPlan) string {
	return fmt.Sprintf("X is %s (%s × %d float64)", decimalBytes(sp.x), groupDigits(sp.m.N), sp.m.D)
}

// overLine says why the set is streamed: "X is 11.2 GB (50,000,000 × 28
// float64), over --memory 2G" when X's copies alone are over the cap,
// else "X is 4.48 MB (…); with the estimator's plan beside it the fit in
// memory would need 14.3 MB, over --memory 10M" (it said X was over a cap
// X is under).
func overLine(sp *shardPlan, opt FitOptions) string {
	over := limitName(opt, sp.limit)
	if sp.x*int64(sp.copies) > sp.limit {
		return fmt.Sprintf("%s, over %s", sizeLine(sp), over)
	}
	return fmt.Sprintf("%s; with the estimator's plan beside it the fit in memory would need %s, over %s", sizeLine(sp), decimalBytes(sp.need), over)
}

// limitName names the memory cap as the caller set it (FitOptions.Limit),
// else "the memory limit 2 GB".
func limitName(opt FitOptions, limit int64) string {
	if opt.Limit != "" {
		return opt.Limit
	}
	return "the memory limit " + decimalBytes(limit)
}

// classList is "{-1, 1}".
func classList(c []float64) string {
	parts := make([]string, len(c))
	for i, v := range c {
		parts[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// streamProgress reports a streamed fit's CG iterations (EventIteration)
// and passes (EventPass), or nothing without a progress callback.
func (r *runner) streamProgress(p Point, maxIter int) model.ProgressFunc {
	if r.progress == nil {
		return nil
	}
	if maxIter <= 0 {
		maxIter = model.DefaultFalkonMaxIter
	}
	return func(pr model.Progress) error {
		switch pr.Stage {
		case model.StageIteration:
			r.emit(Event{Kind: EventIteration, Points: 1, Key: p.Key(), Iteration: pr.Done, MaxIter: maxIter, Residual: pr.Residual})
		case model.StagePass:
			r.emit(Event{Kind: EventPass, Points: 1, Key: p.Key(), Pass: pr.Done, Passes: pr.Total, Rows: pr.Rows,
				RowsPerSec: pr.RowsPerSec, MBPerSec: pr.MBPerSec, PassTime: pr.PassTime, IOWait: pr.IOWait})
		}
		return nil
	}
}

// scoreTest scores a fitted result on test rows with the task's metrics.
func (r *runner) scoreTest(res *FitResult, xt *mat.Dense, yt []float64) ([]Summary, error) {
	var pred, dec []float64
	var err error
	if res.Task == TaskBinary {
		var m *mat.Dense
		if pred, m, err = res.PredictScores(xt); err != nil {
			return nil, err
		}
		dec = mat.Col(nil, 0, m)
	} else if pred, err = res.Predict(xt); err != nil {
		return nil, err
	}
	var out []Summary
	for _, m := range taskMetrics(res.Task) {
		v, err := m.Score(yt, pred, dec)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		out = append(out, Summary{Name: m.Name, Mean: v})
	}
	return out, nil
}

// manifestVariance is the variance of all the n·d entries of a manifest's
// X from its column statistics (population Mean and Std, in float64):
// the mean of the columns' variances plus the variance of the column
// means, the exact decomposition of Var(X), with no cancellation. With
// standardized, the X the fit sees (model.ShardSet.Standardize with those
// statistics): each column of Std > 0 has mean 0 and variance 1, and a
// constant column becomes 0, so Var(X) is the fraction of non-constant
// columns. It equals ResolveGamma's variance of the rows up to rounding
// (the sums run in another order). Float32 shards' statistics are those of
// the rounded values (shard.WriteDirWith, datasets.WriteSyntheticHiggs),
// so it equals that of the float32 rows too; a set written before
// 2026-11-27 has the float64 values' statistics (gamma scale 1.3e-10
// relative off on 3,000 synthetic HIGGS rows, TestStreamedGammaScaleFloat32).
func manifestVariance(m *shard.Manifest, standardized bool) float64 {
	d := float64(m.D)
	if standardized {
		k := 0
		for _, s := range m.Std {
			if s > 0 {
				k++
			}
		}
		return float64(k) / d
	}
	var mu float64
	for _, v := range m.Mean {
		mu += v
	}
	mu /= d
	var within, between float64
	for j, s := range m.Std {
		within += s * s
		between += (m.Mean[j] - mu) * (m.Mean[j] - mu)
	}
	return (within + between) / d
}
