package experiments

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// ErrSpecChanged is returned when an output folder holds results of a
// different spec and the run was not told to start over (Options.Fresh).
var ErrSpecChanged = errors.New("experiments: the output folder holds results of a different spec")

// Options configure Run. The zero value means: output folder from the spec,
// resume, quiet.
type Options struct {
	// Out is the output folder; default the spec's output, else results/NAME.
	Out string
	// Fresh discards results already in the folder instead of resuming:
	// the previous run's log, tables, summary, plots and manifest are
	// removed before the run starts.
	Fresh bool
	// Notify, when non-nil, hears the decisions the data reader made on
	// its own (whether a CSV file's first line is its header, and why).
	Notify func(msg string)
	// Progress, when non-nil, receives an Event per fold started and
	// finished, solver iteration and finished grid point.
	Progress func(Event)
	// OnPoint, when non-nil, is called after each grid point is computed and
	// logged (not for points resumed from the log): i is the point's index,
	// n the number of points.
	OnPoint func(i, n int, r PointResult)
	// Version is the module version recorded in the manifest.
	Version string
	// NoPlots skips the PNG/SVG plots.
	NoPlots bool
	// Remote, when set, computes the grid points not already in the log
	// (see PointEvaluator); they are then logged and reported as local
	// ones. Ignored for runs whose points are not independent.
	Remote PointEvaluator
}

// Random streams: each use of randomness has its own PCG stream of the seed.
const (
	streamSplit uint64 = iota + 1
	streamSubsample
	streamTestSubsample
	streamFolds // + repeat
)

// runner holds one run's resolved state.
type runner struct {
	// ctx bounds the data reading (a FIFO waiting for its writer).
	ctx      context.Context
	notify   func(string)
	s        *Spec
	entry    EstimatorEntry
	metric   Metric
	metrics  []Metric
	folds    int
	repeats  int
	strat    bool
	x, xTest mat.Matrix // *mat.Dense, or *datasets.CSR with sparse storage; x a *kernel.Dense32 with f32
	// f32 is set when the training X is read into float32
	// (kernel.Dense32; datasets.ReadOptions.Float32): falkon with
	// float32_storage on dense data. The test rows stay float64.
	f32 bool
	// f32Passes is set for falkon's float32 passes over float64 X: the
	// training file is read in float64 with a value beyond float32's range
	// refused at its line (datasets.ReadOptions.Float32Range), where the
	// fit would name only a row and column of X.
	f32Passes bool
	y, yTest  []float64
	// w holds the training rows' sample weights (nil without
	// sample_weights), row for row with y.
	w []float64
	// storage is the storage used (dense or sparse), density X's fraction
	// of non-zeros, storageWhy why auto chose it ("" when not auto).
	storage, storageWhy string
	density             float64
	// beyondRows and beyondCols count the test rows with a non-zero
	// beyond the training dimension and the distinct such columns.
	beyondRows, beyondCols int
	cv                     [][]datasets.Fold // [repeat][fold]
	// warm is set when the estimator warm-starts along λ (warm_start: true);
	// warmPrev holds the previous point's fitted models [repeat][fold].
	warm     bool
	warmPrev [][]model.Estimator
	// path is set when falkon takes its centers from one BLESS path per
	// fold and λ chain (approx option path: true); pathCache holds the paths
	// of the current chain, pathRuns counts the paths computed.
	path      bool
	pathChain string
	pathCache map[string][]approx.PathStep
	pathRuns  int
	progress  func(Event)
	// inferTask is set when the task comes from the training labels
	// (r.s is then the runner's own copy of the spec); taskRule says which
	// rule decided it.
	inferTask bool
	taskRule  string
	// features and target name the training data's columns (a CSV
	// header), nil and "" when it has none.
	features []string
	target   string
	// classNames names the classes when the training labels were text
	// (datasets.Dataset.Classes): the labels are their indices.
	classNames []string
	// layout is how the training file's CSV read took its columns
	// (datasets.Dataset.Layout; FitResult.Layout).
	layout *datasets.Layout
	// testClasses names the test file's classes (its Dataset.Classes:
	// classNames, then labels the training data lacks).
	testClasses []string
	// start is when Run began; computed and evalTime count the points
	// evaluated in this run and their total time (for the ETA).
	start    time.Time
	computed int
	evalTime time.Duration
	// pointStart is when the current point's first fit began and
	// pointDone counts its finished fits (for EventFoldDone's ETAs).
	pointStart time.Time
	pointDone  int
}

// Run runs the experiment: every grid point cross-validated, each finished
// point appended to OUT/results.log, then the best point refitted on the whole
// training set and scored on the test set, and the tables, plots and manifest
// written. A rerun with the same spec resumes from the log; a different spec
// is refused with ErrSpecChanged unless opt.Fresh is set.
func Run(ctx context.Context, s *Spec, opt Options) (*Result, error) {
	start := time.Now()
	r, err := newRunnerContext(ctx, s, opt)
	if err != nil {
		return nil, err
	}
	r.start = start
	res := r.newResult(outFolder(s, opt), start)
	log, done, err := openLog(res.Out, res.Hash, opt.Fresh)
	if err != nil {
		return nil, err
	}
	defer log.Close()

	pts := s.Grid.Points()
	eval := r.evalPoint
	if s.Approximation != nil {
		pts = s.approxPoints()
		eval = r.evalApprox
	}
	remote, err := r.remoteResults(ctx, opt, pts, done)
	if err != nil {
		return nil, err
	}
	pl := pointLoop{r: r, pts: pts, done: done, remote: remote, eval: eval, log: log, res: res, onPoint: opt.OnPoint}
	if err := pl.run(ctx); err != nil {
		return nil, err
	}
	res.Best = r.best(res.Points)
	if res.Best < 0 {
		return nil, fmt.Errorf("experiments: every grid point failed; first error: %s", res.Points[0].Error)
	}
	if r.xTest != nil {
		t, err := r.test(ctx, res.Points[res.Best].Params, pts)
		if err != nil {
			return nil, fmt.Errorf("experiments: refit of the best point: %w", err)
		}
		res.Test = t
	}
	res.End = time.Now()
	if err := writeOutputs(res, opt); err != nil {
		return nil, err
	}
	return res, nil
}

// outFolder is the output folder of a run: opt.Out, else the spec's output,
// else results/NAME.
func outFolder(s *Spec, opt Options) string {
	switch {
	case opt.Out != "":
		return opt.Out
	case s.Output != "":
		return s.Output
	}
	return filepath.Join("results", s.Name)
}

// newResult is the Result of a run before any point is evaluated: the data
// and the decisions taken while loading it.
func (r *runner) newResult(out string, start time.Time) *Result {
	s := r.s
	res := &Result{Spec: s, Hash: s.Hash(), Metric: r.metric.Name, Out: out, Start: start, Best: -1}
	res.NTrain, res.Dim = r.x.Dims()
	res.NTest = len(r.yTest)
	res.Storage, res.Density, res.StorageReason = r.storage, r.density, r.storageWhy
	res.BeyondRows, res.BeyondCols = r.beyondRows, r.beyondCols
	res.Scaling = r.scalingUsed()
	res.Task, res.TaskRule = r.s.Task, r.taskRule
	return res
}

// remoteResults evaluates the points not yet in the log through opt.Remote,
// when it is set and the spec can be evaluated remotely; the map is keyed by
// point index and is nil otherwise.
func (r *runner) remoteResults(ctx context.Context, opt Options, pts []Point, done map[string]PointResult) (map[int]PointResult, error) {
	if opt.Remote == nil || !r.remotable() {
		return nil, nil
	}
	var todo []int
	for k, p := range pts {
		if _, ok := done[p.Key()]; !ok {
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil, nil
	}
	got, err := opt.Remote(ctx, todo)
	if err != nil {
		return nil, err
	}
	if len(got) != len(todo) {
		return nil, fmt.Errorf("experiments: remote evaluation returned %d results for %d points", len(got), len(todo))
	}
	remote := make(map[int]PointResult, len(todo))
	for q, k := range todo {
		remote[k] = got[q]
	}
	return remote, nil
}

// pointLoop evaluates the grid points of a run in order, taking logged
// results where it may, and appends each into res.Points.
type pointLoop struct {
	r       *runner
	pts     []Point
	done    map[string]PointResult // logged results by point key
	remote  map[int]PointResult    // remotely evaluated results by index
	eval    func(ctx context.Context, idx, total int, p Point) (PointResult, error)
	log     *resultLog
	res     *Result
	onPoint func(idx, total int, pr PointResult)
}

// chainOf is the key of p's regularization chain: p without its
// regularization parameters.
func chainOf(p Point) string {
	q := Point{}
	for _, v := range p {
		if !isReg(v.Name) {
			q = append(q, v)
		}
	}
	return q.Key()
}

// run walks the points. With warm starts a regularization chain (consecutive
// points that differ only in λ) is the unit of work: it is resumed whole or
// recomputed whole, so a resumed run gives the results of an uninterrupted one.
func (l *pointLoop) run(ctx context.Context) error {
	pts := l.pts
	for i := 0; i < len(pts); {
		j := i + 1
		for l.r.warm && j < len(pts) && chainOf(pts[j]) == chainOf(pts[i]) {
			j++
		}
		all := true
		for _, p := range pts[i:j] {
			_, ok := l.done[p.Key()]
			all = all && ok
		}
		l.r.warmPrev = nil
		for k := i; k < j; k++ {
			if err := l.point(ctx, k, all); err != nil {
				return err
			}
		}
		i = j
	}
	return nil
}

// point takes point k from the log when its whole chain is logged, else
// evaluates it (or takes its remote result), logs and reports it.
func (l *pointLoop) point(ctx context.Context, k int, chainLogged bool) error {
	p := l.pts[k]
	key := p.Key()
	res := l.res
	pr, logged := l.done[key]
	if logged && chainLogged {
		pr.Index = k
		res.Points = append(res.Points, pr)
		res.Resumed++
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t0 := time.Now()
	pr, ok := l.remote[k]
	if !ok {
		var err error
		if pr, err = l.eval(ctx, k, len(l.pts), p); err != nil {
			return err
		}
	}
	r := l.r
	r.computed++
	r.evalTime += time.Since(t0)
	s, _ := pr.Metric(r.metric.Name)
	if s.Name == "" && len(pr.Metrics) > 0 {
		s = pr.Metrics[0]
	}
	r.emit(Event{Kind: EventPoint, Point: k, Points: len(l.pts), Key: key, Summary: s, FitSeconds: pr.FitSeconds, Err: pr.Error})
	if !logged {
		if err := l.log.append(pr); err != nil {
			return err
		}
	}
	res.Points = append(res.Points, pr)
	res.Computed++
	if l.onPoint != nil {
		l.onPoint(k, len(l.pts), pr)
	}
	return nil
}

func newRunner(s *Spec, opt Options) (*runner, error) {
	return newRunnerContext(context.Background(), s, opt)
}

// newRunnerContext is newRunner reading the data under ctx.
func newRunnerContext(ctx context.Context, s *Spec, opt Options) (*runner, error) {
	return newRunnerMode(ctx, s, opt, runMode{})
}

// runMode is how a runner is used: fit (one fit on the whole training set,
// no cross-validation) and whether the task comes from the labels.
type runMode struct {
	// fit skips the folds: there are no cross-validation limits (m ≤ the
	// rows of a training fold, at least folds rows).
	fit bool
	// inferTask replaces the spec's task by datasets.GuessTask of the
	// training labels (on a copy of the spec), before the test split; a
	// spec with task auto sets it.
	inferTask bool
}

// newRunnerMode is newRunnerContext for a use of the runner (mode).
func newRunnerMode(ctx context.Context, s *Spec, opt Options, mode runMode) (*runner, error) {
	if s == nil {
		return nil, &SpecError{Msg: "nil spec"}
	}
	mode.inferTask = mode.inferTask || s.Task == TaskAuto
	if mode.inferTask {
		c := *s // the task is resolved on the runner's own copy
		c.Task = TaskAuto
		s = &c
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	r := &runner{ctx: ctx, notify: opt.Notify, s: s, progress: opt.Progress, inferTask: mode.inferTask}
	r.repeats = max(s.Repeats, 1)
	if s.Approximation != nil {
		if err := r.initApprox(); err != nil {
			return nil, err
		}
		return r, nil
	}
	r.entry, _ = estimatorByName(s.Estimator.Type)
	r.folds = s.CV.Folds
	if r.folds == 0 {
		r.folds = defaultFolds
	}
	if mode.fit {
		r.folds = 0
	}
	r.warm = r.entry.Warm != nil && s.Estimator.Options["warm_start"] == true
	r.path = s.Estimator.Approx.Options["path"] == true
	// Falkon holding X in float32 reads dense X straight into float32 (no
	// float64 copy of X is ever made): the fits take float32 training rows
	// (a fold's or the refit's copy, scaled in place), the rows they are
	// scored on are float64. A BLESS path (its centers are drawn from
	// float64 rows) and sparse storage read float64 rows as before.
	r.f32 = r.entry.Name == "falkon" && s.Estimator.Options["float32_storage"] == true &&
		!r.path && s.Dataset.storage() != StorageSparse
	r.f32Passes = r.entry.Name == "falkon" && s.Estimator.Options["float32"] == true
	if err := r.load(); err != nil {
		return nil, err
	}
	// The task is known now (load infers it when asked).
	mname := r.s.CV.Metric
	if mname == "" {
		mname = defaultMetric(r.s.Task)
	}
	r.metric, _ = metricByName(mname)
	r.metrics = taskMetrics(r.s.Task)
	r.strat = r.s.Task != TaskRegression && (r.s.CV.Stratified == nil || *r.s.CV.Stratified)
	n := len(r.y)
	if r.folds > n {
		return nil, s.errAt(fmt.Sprintf("folds = %d exceeds the %d training rows", r.folds, n), "cv", "folds")
	}
	if err := r.checkSizes(); err != nil {
		return nil, err
	}
	if mode.fit {
		return r, nil
	}
	for rep := 0; rep < r.repeats; rep++ {
		f, err := folds(r.y, r.folds, r.strat, rand.New(rand.NewPCG(s.Seed, streamFolds+uint64(rep))))
		if err != nil {
			return nil, err
		}
		r.cv = append(r.cv, f)
	}
	if r.notify != nil && r.s.Task == TaskBinary {
		if note := oneClassFolds(r.y, r.cv, r.strat, labelNamer(r.classNames)); note != "" {
			r.notify(note)
		}
	}
	return r, nil
}

// defaultFolds is k when the spec names no folds.
const defaultFolds = 5

// initApprox prepares an approximation run: data, measures, size checks.
func (r *runner) initApprox() error {
	a := r.s.Approximation
	r.metric = Metric{Name: a.measures()[0]}
	if err := r.load(); err != nil {
		return err
	}
	r.xTest, r.yTest = nil, nil
	// X stays as load left it, sparse or dense: every method and measure
	// reads CSR rows (exact-rls, O(n³) anyway, takes a dense copy).
	// No cross-validation here: the scaling is fitted on all the rows used.
	x, _, _, err := scaleFeatures(r.s.Dataset.scale(), r.x, r.x)
	if err != nil {
		return err
	}
	r.x = x
	n := len(r.y)
	for i, v := range r.s.Grid["m"] {
		if v > float64(n) {
			return r.s.errAt(fmt.Sprintf("m = %v exceeds the %d rows", v, n), "grid", "m", "["+strconv.Itoa(i)+"]")
		}
	}
	for i, v := range r.s.Grid["clusters"] {
		if v > float64(n) {
			return r.s.errAt(fmt.Sprintf("clusters = %v exceeds the %d rows", v, n), "grid", "clusters", "["+strconv.Itoa(i)+"]")
		}
	}
	return nil
}

// config builds the estimator configuration of point p for a fit on n rows
// without sample weights.
func (r *runner) config(p Point, n int, seed uint64) Config {
	return r.configW(p, n, float64(n), seed)
}

// configW is config with alpha = λ·rowsAlpha (n without weights, Σw with).
func (r *runner) configW(p Point, n int, rowsAlpha float64, seed uint64) Config {
	c := Config{
		Task:          model.Regression,
		Kernel:        r.s.Estimator.Kernel,
		Approx:        r.s.Estimator.Approx.Type,
		ApproxOptions: maps.Clone(r.s.Estimator.Approx.Options),
		Options:       map[string]any{},
		N:             n,
		Seed:          seed,
	}
	if r.s.Task != TaskRegression {
		c.Task = model.Classification
	}
	set := func(name string, v any) {
		if name == "alpha" {
			f, _ := toFloat(v)
			c.Options["lambda"] = f / rowsAlpha // scikit-learn's alpha = λn (λ·Σw with weights)
			return
		}
		if name == "memory_limit" || name == "cache_bytes" {
			v, _ = byteOption(v) // "4G" → 4e9 (checked by Validate)
		}
		c.Options[name] = v
	}
	for _, k := range sortedKeys(r.s.Estimator.Options) {
		set(k, r.s.Estimator.Options[k])
	}
	if _, ok := c.Options["memory_limit"]; !ok && r.hasMemoryLimit() {
		c.Options["memory_limit"] = float64(DefaultMemoryLimit())
	}
	for _, q := range p {
		if slices.Contains(kernelParams, q.Name) {
			setKernelField(&c.Kernel, q.Name, q.Value)
			continue
		}
		set(q.Name, q.Value)
	}
	return c
}

// fitSeed derives the estimator seed of one fit from the spec seed.
func fitSeed(seed uint64, rep, fold int) uint64 {
	z := seed + 0x9e3779b97f4a7c15*uint64(rep*1000+fold+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// evalPoint cross-validates one grid point: its folds in order (the first
// failing fold ends the point), assembled by assemblePoint — the same code
// EvalFold and AssemblePoint run when the folds are computed elsewhere.
func (r *runner) evalPoint(ctx context.Context, idx, total int, p Point) (PointResult, error) {
	var fits []FoldResult
	var next [][]model.Estimator
	r.pointStarted()
	for rep, folds := range r.cv {
		next = append(next, make([]model.Estimator, len(folds)))
		for f := range folds {
			var from model.Estimator
			if r.warm && r.warmPrev != nil {
				from = r.warmPrev[rep][f]
			}
			fr, est, err := r.evalFold(ctx, idx, total, p, rep, f, from)
			if err != nil {
				r.warmPrev = nil
				return PointResult{Index: idx, Key: p.Key(), Params: p}, err
			}
			fits = append(fits, fr)
			if fr.Error != "" {
				r.warmPrev = nil
				return r.assemblePoint(idx, p, fits), nil
			}
			next[rep][f] = est
		}
	}
	if r.warm {
		r.warmPrev = next
	}
	return r.assemblePoint(idx, p, fits), nil
}

// FoldResult is one cross-validation fit of a grid point (EvalFold).
type FoldResult struct {
	// Scores has one value per metric of the spec, in its order.
	Scores []MetricValue `json:"scores,omitempty"`
	// FitSeconds and PredictSeconds time the fit and the prediction.
	FitSeconds     float64 `json:"fit_seconds"`
	PredictSeconds float64 `json:"predict_seconds"`
	// PeakBytes is the fit's peak heap growth.
	PeakBytes int64 `json:"peak_bytes"`
	// Info is the fitted model's summary (centers, iterations, …).
	Info map[string]float64 `json:"info,omitempty"`
	// Error is the fit's error, when it failed.
	Error string `json:"error,omitempty"`
}

// evalFold fits and scores fold f of repeat rep of point p; a failed fit
// is reported in the result's Error (the returned error is cancellation
// only).
func (r *runner) evalFold(ctx context.Context, idx, total int, p Point, rep, f int, from model.Estimator) (FoldResult, model.Estimator, error) {
	folds := r.cv[rep]
	fold := folds[f]
	r.emit(Event{Kind: EventFold, Point: idx, Points: total, Key: p.Key(), Fold: f, Folds: len(folds), Repeat: rep, Repeats: r.repeats})
	xtr, ytr := rows(r.x, r.y, fold.Train)
	xva, yva := rows(r.x, r.y, fold.Test)
	xva = widened(xva) // float32 rows read (f32): the validation rows are scored in float64
	fs, err := r.fitScoreWith(ctx, p, xtr, ytr, xva, yva, fitOpts{seed: fitSeed(r.s.Seed, rep, f), from: from, pathKey: fmt.Sprintf("cv%d/%d", rep, f), point: idx, points: total, owned: true, w: pick(r.w, fold.Train)})
	if err != nil {
		if ctx.Err() != nil {
			return FoldResult{}, nil, ctx.Err()
		}
		return FoldResult{Error: err.Error()}, nil, nil
	}
	fr := FoldResult{FitSeconds: fs.fit, PredictSeconds: fs.predict, PeakBytes: fs.peak, Info: FitInfo(fs.est)}
	if fs.gamma != 0 {
		// The γ the spec's gamma rule gave on this fold's training rows.
		if fr.Info == nil {
			fr.Info = map[string]float64{}
		}
		fr.Info["gamma"] = fs.gamma
	}
	for _, v := range fs.scores {
		fr.Scores = append(fr.Scores, MetricValue(v))
	}
	r.foldDone(Event{Point: idx, Points: total, Key: p.Key(), Fold: f, Folds: len(folds), Repeat: rep, Repeats: r.repeats})
	return fr, fs.est, nil
}

// assemblePoint summarizes the fold results of point idx, in fold order,
// up to the first failed one.
func (r *runner) assemblePoint(idx int, p Point, fits []FoldResult) PointResult {
	pr := PointResult{Index: idx, Key: p.Key(), Params: p}
	scores := make([][]float64, len(r.metrics))
	var fitSum, predSum float64
	info := map[string]float64{}
	for _, fr := range fits {
		if fr.Error != "" {
			pr.Error = fr.Error
			pr.Fits = 0
			pr.Metrics = nanSummaries(metricNames(r.metrics))
			return pr
		}
		for i, v := range fr.Scores {
			scores[i] = append(scores[i], float64(v))
		}
		fitSum += fr.FitSeconds
		predSum += fr.PredictSeconds
		pr.PeakBytes = max(pr.PeakBytes, fr.PeakBytes)
		pr.Fits++
		addInfo(info, fr.Info)
	}
	for i, m := range r.metrics {
		mean, std := sampleMeanStd(scores[i])
		pr.Metrics = append(pr.Metrics, Summary{Name: m.Name, Mean: mean, Std: std})
		if m.Name == r.metric.Name {
			for _, v := range scores[i] {
				pr.FoldScores = append(pr.FoldScores, MetricValue(v))
			}
		}
	}
	pr.FitSeconds = fitSum / float64(pr.Fits)
	pr.PredictSeconds = predSum / float64(pr.Fits)
	pr.Info = meanInfo(info, pr.Fits)
	return pr
}

func sampleMeanStd(v []float64) (mean, std float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)-1))
}

// best returns the index of the point with the best mean selection metric
// (the first of equals), or −1 when all failed.
func (r *runner) best(pts []PointResult) int {
	b := -1
	bv := math.NaN()
	for i, p := range pts {
		if p.Error != "" {
			continue
		}
		s, _ := p.Metric(r.metric.Name)
		if b < 0 || r.metric.better(s.Mean, bv) {
			b, bv = i, s.Mean
		}
	}
	return b
}
