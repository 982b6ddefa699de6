package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/eta"
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

// Summary is the mean and sample standard deviation of a metric over the
// fits of a grid point (folds × repeats).
type Summary struct {
	// Name is the metric.
	Name string `json:"name"`
	// Mean is the average over fits.
	Mean float64 `json:"mean"`
	// Std is the sample standard deviation over fits (n−1 denominator; 0 for one fit).
	Std float64 `json:"std"`
}

// PointResult is the cross-validation summary of one grid point.
type PointResult struct {
	// Index is the point's position in Grid.Points().
	Index int `json:"index"`
	// Key is Point.Key(), the identity used to resume.
	Key string `json:"key"`
	// Params are the point's grid values.
	Params Point `json:"params"`
	// Fits is the number of fits scored (folds × repeats).
	Fits int `json:"fits"`
	// FoldScores is the selection metric of each fit, repeat by repeat, fold
	// by fold (NaN for an undefined value is written as null).
	FoldScores []jsonFloat `json:"fold_scores,omitempty"`
	// Metrics summarises every metric of the task, in table order.
	Metrics []Summary `json:"metrics"`
	// FitSeconds is the mean wall time of one fit.
	FitSeconds float64 `json:"fit_seconds"`
	// PredictSeconds is the mean wall time of predicting one validation fold.
	PredictSeconds float64 `json:"predict_seconds"`
	// PeakBytes is the largest Go-heap growth seen during a fit and predict.
	PeakBytes int64 `json:"peak_bytes"`
	// Error is set when a fit failed; the metrics are then NaN.
	Error string `json:"error,omitempty"`
	// Info holds the estimator's own numbers averaged over the fits:
	// centers and iterations (falkon), rank (krr), support_vectors (svm).
	Info map[string]float64 `json:"info,omitempty"`
	// Method is the approximation method (approximation runs only).
	Method string `json:"method,omitempty"`
	// Bytes is the memory of the approximation's representation of K̃ on the
	// training set (approximation runs only).
	Bytes int64 `json:"bytes,omitempty"`
}

// Metric returns the summary of the named metric.
func (r PointResult) Metric(name string) (Summary, bool) {
	for _, m := range r.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Summary{}, false
}

// TestResult is the refit of the best point on the whole training set, scored on the test set.
type TestResult struct {
	// Metrics are the test scores, one per metric of the task.
	Metrics []Summary `json:"metrics"`
	// NTrain and NTest are the sizes of the training and test sets.
	NTrain int `json:"n_train"`
	NTest  int `json:"n_test"`
	// FitSeconds and PredictSeconds are the refit's wall times.
	FitSeconds     float64 `json:"fit_seconds"`
	PredictSeconds float64 `json:"predict_seconds"`
	// PeakBytes is the Go-heap growth during the refit.
	PeakBytes int64 `json:"peak_bytes"`
}

// Result is a finished run.
type Result struct {
	// Spec is the spec that ran (after --smoke, if any).
	Spec *Spec `json:"spec"`
	// Hash is Spec.Hash().
	Hash string `json:"spec_hash"`
	// Metric is the selection metric.
	Metric string `json:"metric"`
	// Points are the grid points in Grid.Points() order.
	Points []PointResult `json:"points"`
	// Best is the index of the selected point (−1 when every point failed).
	Best int `json:"best"`
	// Test is the best point's test score (nil without a test set).
	Test *TestResult `json:"test,omitempty"`
	// Computed and Resumed count the points computed now and read from the log.
	Computed int `json:"computed"`
	Resumed  int `json:"resumed"`
	// NTrain, NTest and Dim describe the data after splitting and subsampling.
	NTrain int `json:"n_train"`
	NTest  int `json:"n_test"`
	Dim    int `json:"dim"`
	// Storage is how the estimators got X (dense or sparse) and Density its
	// fraction of non-zeros; StorageReason says why storage auto chose it.
	Storage       string  `json:"storage,omitempty"`
	Density       float64 `json:"density,omitempty"`
	StorageReason string  `json:"storage_reason,omitempty"`
	// Scaling describes the feature scaling the fits applied ("" for none;
	// standardize on sparse X is std, not centred).
	Scaling string `json:"scaling,omitempty"`
	// BeyondRows and BeyondCols count the test rows with a non-zero beyond
	// the training dimension and the distinct such columns (FitResult's).
	BeyondRows int `json:"test_rows_beyond_dim,omitempty"`
	BeyondCols int `json:"test_cols_beyond_dim,omitempty"`
	// Task is the task run: the spec's, or for task auto the one inferred
	// from the training labels, TaskRule then saying what decided it.
	Task     string `json:"task,omitempty"`
	TaskRule string `json:"task_rule,omitempty"`
	// Out is the output folder.
	Out string `json:"out"`
	// Start and End bracket the run.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
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
	x, xTest mat.Matrix // *mat.Dense, or *datasets.CSR with sparse storage
	y, yTest []float64
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
	out := opt.Out
	if out == "" {
		out = s.Output
	}
	if out == "" {
		out = filepath.Join("results", s.Name)
	}
	res := &Result{Spec: s, Hash: s.Hash(), Metric: r.metric.Name, Out: out, Start: start, Best: -1}
	res.NTrain, res.Dim = r.x.Dims()
	res.NTest = len(r.yTest)
	res.Storage, res.Density, res.StorageReason = r.storage, r.density, r.storageWhy
	res.BeyondRows, res.BeyondCols = r.beyondRows, r.beyondCols
	res.Scaling = r.scalingUsed()
	res.Task, res.TaskRule = r.s.Task, r.taskRule

	log, done, err := openLog(out, res.Hash, opt.Fresh)
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
	// With warm starts a regularization chain (consecutive points that differ
	// only in λ) is the unit of work: it is resumed whole or recomputed whole,
	// so a resumed run gives the results of an uninterrupted one.
	chainOf := func(p Point) string {
		q := Point{}
		for _, v := range p {
			if !isReg(v.Name) {
				q = append(q, v)
			}
		}
		return q.Key()
	}
	var remote map[int]PointResult
	if opt.Remote != nil && r.remotable() {
		var todo []int
		for k, p := range pts {
			if _, ok := done[p.Key()]; !ok {
				todo = append(todo, k)
			}
		}
		if len(todo) > 0 {
			got, err := opt.Remote(ctx, todo)
			if err != nil {
				return nil, err
			}
			if len(got) != len(todo) {
				return nil, fmt.Errorf("experiments: remote evaluation returned %d results for %d points", len(got), len(todo))
			}
			remote = make(map[int]PointResult, len(todo))
			for q, k := range todo {
				remote[k] = got[q]
			}
		}
	}
	for i := 0; i < len(pts); {
		j := i + 1
		for r.warm && j < len(pts) && chainOf(pts[j]) == chainOf(pts[i]) {
			j++
		}
		all := true
		for _, p := range pts[i:j] {
			_, ok := done[p.Key()]
			all = all && ok
		}
		r.warmPrev = nil
		for k := i; k < j; k++ {
			p := pts[k]
			key := p.Key()
			pr, logged := done[key]
			if logged && all {
				pr.Index = k
				res.Points = append(res.Points, pr)
				res.Resumed++
				continue
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			t0 := time.Now()
			pr, ok := remote[k]
			if !ok {
				if pr, err = eval(ctx, k, len(pts), p); err != nil {
					return nil, err
				}
			}
			r.computed++
			r.evalTime += time.Since(t0)
			s, _ := pr.Metric(r.metric.Name)
			if s.Name == "" && len(pr.Metrics) > 0 {
				s = pr.Metrics[0]
			}
			r.emit(Event{Kind: EventPoint, Point: k, Points: len(pts), Key: key, Summary: s, FitSeconds: pr.FitSeconds, Err: pr.Error})
			if !logged {
				if err := log.append(pr); err != nil {
					return nil, err
				}
			}
			res.Points = append(res.Points, pr)
			res.Computed++
			if opt.OnPoint != nil {
				opt.OnPoint(k, len(pts), pr)
			}
		}
		i = j
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

// load reads, splits and subsamples the data.
func (r *runner) load() error {
	d := r.s.Dataset
	var train, test *datasets.Dataset
	var err error
	var x, xt mat.Matrix
	var y, yt []float64
	if d.Name == "" {
		// The training file is opened once: a pipe or FIFO (fit --data
		// <(…)) cannot be read twice, so the format is settled on the open
		// input and the sparse or the dense reader takes it.
		p, err := resolvePath(r.s.dir, d.Path)
		if err != nil {
			return r.s.errAt(err.Error(), "dataset", "path")
		}
		in, err := datasets.OpenInput(r.ctx, p, datasets.Format(d.Format))
		if err != nil {
			return r.s.errAt(err.Error(), "dataset", "path")
		}
		defer in.Close()
		if x, y, xt, yt, err = r.loadSparse(in); err != nil {
			return err
		}
		if x == nil {
			opt, err := d.readOptions()
			if err != nil {
				return r.s.errAt(err.Error(), "dataset", "delim")
			}
			// The dense matrix must fit the fit's memory cap: refused
			// before it is allocated (a sparse file read dense for
			// standardize).
			opt.Notify, opt.MaxBytes = r.notify, max(r.readLimit(), 0)
			if train, err = in.Read(r.ctx, opt); err != nil {
				return r.readError(err, "path")
			}
			if d.TestPath != "" {
				tp, err := resolvePath(r.s.dir, d.TestPath)
				if err != nil {
					return r.s.errAt(err.Error(), "dataset", "test_path")
				}
				opt.Format = datasets.Format(d.Format)
				if test, err = datasets.ReadTestFile(tp, train, opt); err != nil {
					return r.readError(err, "test_path")
				}
			}
		}
	} else {
		if d.TestFraction == 0 {
			train, test, err = datasets.LoadSplit(d.Name)
		}
		if train == nil {
			train, err = datasets.Load(d.Name)
		}
		if err != nil {
			return r.s.errAt(err.Error(), "dataset", "name")
		}
	}
	if x == nil {
		x, y = train.X, train.Y
		if test != nil {
			xt, yt = test.X, test.Y
		}
		r.features, r.target = train.Features, train.Target
		if err := r.dense(&x, &xt); err != nil {
			return err
		}
	}
	if r.inferTask {
		if err := r.guessTask(y); err != nil {
			return err
		}
	}
	if err := r.checkLabels(y, "training"); err != nil {
		return err
	}
	if d.TestFraction > 0 {
		rng := rand.New(rand.NewPCG(r.s.Seed, streamSplit))
		var tr, te []int
		if r.s.Task == TaskRegression {
			tr, te, err = datasets.Split(len(y), d.TestFraction, rng)
		} else {
			tr, te, err = datasets.StratifiedSplit(y, d.TestFraction, rng)
		}
		if err != nil {
			return r.s.errAt(err.Error(), "dataset", "test_fraction")
		}
		xt, yt = rows(x, y, te)
		x, y = rows(x, y, tr)
	}
	if d.Subsample > 0 && d.Subsample < len(y) {
		x, y = rows(x, y, subsample(len(y), d.Subsample, rand.New(rand.NewPCG(r.s.Seed, streamSubsample))))
	}
	if xt != nil && d.TestSubsample > 0 && d.TestSubsample < len(yt) {
		xt, yt = rows(xt, yt, subsample(len(yt), d.TestSubsample, rand.New(rand.NewPCG(r.s.Seed, streamTestSubsample))))
	}
	if err := r.checkLabels(y, "training"); err != nil {
		return err
	}
	r.x, r.y, r.xTest, r.yTest = x, y, xt, yt
	return nil
}

// guessTask sets the task from the training labels (datasets.GuessTask)
// and checks the spec again with it: the estimator must do that task.
func (r *runner) guessTask(y []float64) error {
	t := datasets.GuessTask(y)
	r.s.Task = string(t)
	r.taskRule = taskRule(t, datasets.ClassCounts(y))
	if err := r.s.Validate(); err != nil {
		return fmt.Errorf("%w (task %s inferred: %s; name the task to override)", err, t, r.taskRule)
	}
	return nil
}

// taskRule says why GuessTask chose t for labels with the class counts cc,
// e.g. "2 distinct labels {-1, 1}".
func taskRule(t datasets.Task, cc []datasets.ClassCount) string {
	list := func() string {
		parts := make([]string, len(cc))
		for i, c := range cc {
			parts[i] = strconv.FormatFloat(c.Label, 'g', -1, 64)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	switch t {
	case datasets.Binary:
		return "2 distinct labels " + list()
	case datasets.Multiclass:
		return fmt.Sprintf("%d distinct integral labels %s, at most %d", len(cc), list(), datasets.MaxGuessClasses)
	}
	if len(cc) > datasets.MaxGuessClasses {
		return fmt.Sprintf("%d distinct values, more than the %d classes a label column may have", len(cc), datasets.MaxGuessClasses)
	}
	if len(cc) < 2 {
		return fmt.Sprintf("%d distinct value", len(cc))
	}
	return fmt.Sprintf("%d distinct values, not all integers", len(cc))
}

// checkLabels checks that the labels fit the task.
func (r *runner) checkLabels(y []float64, which string) error {
	c := len(classes(y))
	switch r.s.Task {
	case TaskBinary:
		if c != 2 {
			return r.s.errAt(fmt.Sprintf("task binary but the %s data has %d distinct labels", which, c), "task")
		}
	case TaskMulticlass:
		if c < 2 {
			return r.s.errAt(fmt.Sprintf("task multiclass but the %s data has %d distinct labels", which, c), "task")
		}
	}
	return nil
}

// checkSizes checks options bounded by the number of training rows (m ≤ n)
// against the smallest fit: a cross-validation training fold, or the whole
// training set when no cross-validation runs (folds 0).
func (r *runner) checkSizes() error {
	n := len(r.y)
	nFit := n
	where := fmt.Sprintf("the %d training rows", n)
	if r.folds > 0 {
		nFit = n - (n+r.folds-1)/r.folds
		where = fmt.Sprintf("the %d rows of a cross-validation training fold (n = %d, %d folds)", nFit, n, r.folds)
	}
	for _, o := range r.entry.Options {
		if !o.AtMostN {
			continue
		}
		if v, ok := r.s.Estimator.Options[o.Name]; ok {
			if f, _ := toFloat(v); f > float64(nFit) {
				return r.s.errAt(fmt.Sprintf("%s = %v exceeds %s", o.Name, f, where), "estimator", o.Name)
			}
		}
		for i, f := range r.s.Grid[o.Name] {
			if f > float64(nFit) {
				return r.s.errAt(fmt.Sprintf("%s = %v exceeds %s", o.Name, f, where), "grid", o.Name, "["+strconv.Itoa(i)+"]")
			}
		}
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// config builds the estimator configuration of point p for a fit on n rows.
func (r *runner) config(p Point, n int, seed uint64) Config {
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
			c.Options["lambda"] = f / float64(n) // scikit-learn's alpha = λn
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
	Scores []jsonFloat `json:"scores,omitempty"`
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
	fs, err := r.fitScoreWith(ctx, p, xtr, ytr, xva, yva, fitOpts{seed: fitSeed(r.s.Seed, rep, f), from: from, pathKey: fmt.Sprintf("cv%d/%d", rep, f), point: idx, points: total})
	if err != nil {
		if ctx.Err() != nil {
			return FoldResult{}, nil, ctx.Err()
		}
		return FoldResult{Error: err.Error()}, nil, nil
	}
	fr := FoldResult{FitSeconds: fs.fit, PredictSeconds: fs.predict, PeakBytes: fs.peak, Info: fitInfo(fs.est)}
	for _, v := range fs.scores {
		fr.Scores = append(fr.Scores, jsonFloat(v))
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
			pr.Metrics = nanSummaries(r.metrics)
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
				pr.FoldScores = append(pr.FoldScores, jsonFloat(v))
			}
		}
	}
	pr.FitSeconds = fitSum / float64(pr.Fits)
	pr.PredictSeconds = predSum / float64(pr.Fits)
	pr.Info = meanInfo(info, pr.Fits)
	return pr
}

func nanSummaries(ms []Metric) []Summary {
	out := make([]Summary, len(ms))
	for i, m := range ms {
		out[i] = Summary{Name: m.Name, Mean: math.NaN(), Std: math.NaN()}
	}
	return out
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

// test refits point p on the whole training set and scores it on the test
// set. With warm starts the refit walks p's λ chain (pts) from its start, as
// cross-validation did, so the test score is that of the model selected.
func (r *runner) test(ctx context.Context, p Point, pts []Point) (*TestResult, error) {
	r.emit(Event{Kind: EventRefit, Key: p.Key()})
	seed := fitSeed(r.s.Seed, 1<<20, 0)
	var from model.Estimator
	if r.warm {
		for _, q := range pts {
			if q.Key() == p.Key() {
				break
			}
			if chainKey(q) != chainKey(p) {
				continue
			}
			fs, err := r.fitScoreWith(ctx, q, copyX(r.x), r.y, copyX(r.xTest), r.yTest, fitOpts{seed: seed, from: from, pathKey: "all"})
			if err != nil {
				return nil, err
			}
			from = fs.est
		}
	}
	fs, err := r.fitScoreWith(ctx, p, copyX(r.x), r.y, copyX(r.xTest), r.yTest, fitOpts{seed: seed, from: from, pathKey: "all"})
	if err != nil {
		return nil, err
	}
	t := &TestResult{NTrain: len(r.y), NTest: len(r.yTest), FitSeconds: fs.fit, PredictSeconds: fs.predict, PeakBytes: fs.peak}
	for i, m := range r.metrics {
		t.Metrics = append(t.Metrics, Summary{Name: m.Name, Mean: fs.scores[i]})
	}
	return t, nil
}

// summaryJSON is Summary on the wire: NaN (a failed or undefined metric) is null.
type summaryJSON struct {
	Name string   `json:"name"`
	Mean *float64 `json:"mean"`
	Std  *float64 `json:"std"`
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func unfinite(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// MarshalJSON writes NaN values as null.
func (s Summary) MarshalJSON() ([]byte, error) {
	return json.Marshal(summaryJSON{Name: s.Name, Mean: finite(s.Mean), Std: finite(s.Std)})
}

// UnmarshalJSON reads null values as NaN.
func (s *Summary) UnmarshalJSON(b []byte) error {
	var w summaryJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*s = Summary{Name: w.Name, Mean: unfinite(w.Mean), Std: unfinite(w.Std)}
	return nil
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

// jsonFloat is a float64 whose NaN or ±Inf is written as null (and read back as NaN).
type jsonFloat float64

// MarshalJSON writes non-finite values as null.
func (f jsonFloat) MarshalJSON() ([]byte, error) {
	if p := finite(float64(f)); p != nil {
		return json.Marshal(*p)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads null as NaN.
func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	var p *float64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = jsonFloat(unfinite(p))
	return nil
}
