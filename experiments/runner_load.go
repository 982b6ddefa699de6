package experiments

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

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
		if IsManifest(p) {
			if x, xt, y, yt, err = r.loadShards(p); err != nil {
				return err
			}
			if err := r.dense(&x, &xt); err != nil {
				return err
			}
			return r.split(x, xt, y, yt)
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
			opt.Float32, opt.Float32Range, opt.Float32Reason = r.f32, r.f32Passes, r.float32Reason(false)
			// Text labels are classes, as scikit-learn's classifiers take
			// them; a regression target must be numbers.
			opt.TextLabels = r.s.Task != TaskRegression
			if train, err = in.Read(r.ctx, opt); err != nil {
				return r.readError(err, "path")
			}
			opt.Float32, opt.Float32Range, opt.Float32Reason = false, false, "" // the test rows are float64
			if d.TestPath != "" {
				tp, err := resolvePath(r.s.dir, d.TestPath)
				if err != nil {
					return r.s.errAt(err.Error(), "dataset", "test_path")
				}
				opt.Format = datasets.Format(d.Format)
				if f, ok := datasets.FormatOf(tp); ok && f == datasets.CSV && d.Format == "" {
					opt.ZeroBased = false // a CSV test file beside the LIBSVM training file
				}
				if test, err = datasets.ReadTestFile(tp, train, opt); err != nil {
					return r.readError(err, "test_path")
				}
			}
		}
	} else {
		// The official split of a training part; a test part named
		// itself (pendigits.test) is that part's rows, not its training set.
		if info, _ := datasets.Lookup(d.Name); d.TestFraction == 0 && info.Train == "" {
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
		if train.X32 != nil {
			x = train.X32
		}
		if test != nil {
			xt, yt, r.testClasses = test.X, test.Y, test.Classes
		}
		r.features, r.target, r.classNames, r.layout = train.Features, train.Target, train.Classes, train.Layout
		if err := r.dense(&x, &xt); err != nil {
			return err
		}
	}
	return r.split(x, xt, y, yt)
}

// split infers the task when asked, checks the labels, splits off the test
// fraction, subsamples and keeps the result.
func (r *runner) split(x, xt mat.Matrix, y, yt []float64) error {
	d := r.s.Dataset
	atStage("loaded")
	if r.inferTask {
		if err := r.guessTask(y); err != nil {
			return err
		}
	}
	if err := r.checkLabels(y, "training"); err != nil {
		return err
	}
	w, err := r.sampleWeights(len(y))
	if err != nil {
		return err
	}
	if d.TestFraction > 0 {
		tr, te, err := SplitRows(y, r.s.Task != TaskRegression, d.TestFraction, r.s.Seed)
		if err != nil {
			return r.s.errAt(err.Error(), "dataset", "test_fraction")
		}
		// Float32 training rows (f32) give float64 test rows, as a test
		// file is read: the values the float64 read would have, when
		// float32 holds them exactly.
		xt, yt = rows(x, y, te)
		xt = widened(xt)
		w = pick(w, tr)
		if d.TestFraction <= 0.5 {
			// The training rows (most of them) are moved up in the
			// matrix read rather than copied out of it: no second copy
			// of X at the split.
			x, y = rowsInPlace(x, y, tr)
		} else {
			x, y = rows(x, y, tr)
		}
	}
	if d.Subsample > 0 && d.Subsample < len(y) {
		idx := subsample(len(y), d.Subsample, rand.New(rand.NewPCG(r.s.Seed, streamSubsample)))
		x, y = rows(x, y, idx)
		w = pick(w, idx)
	}
	if xt != nil && d.TestSubsample > 0 && d.TestSubsample < len(yt) {
		xt, yt = rows(xt, yt, subsample(len(yt), d.TestSubsample, rand.New(rand.NewPCG(r.s.Seed, streamTestSubsample))))
	}
	if err := r.checkLabels(y, "training"); err != nil {
		return err
	}
	if r.notify != nil && yt != nil && (r.s.Task == TaskBinary || r.s.Task == TaskMulticlass) {
		var seen []float64
		for _, c := range datasets.ClassCounts(y) {
			seen = append(seen, c.Label)
		}
		if note := unseenNote("the test data", yt, seen, labelNamer(r.testClasses)); note != "" {
			r.notify(note)
		}
	}
	if w != nil && !slices.ContainsFunc(w, func(v float64) bool { return v > 0 }) {
		return r.s.errAt("every training row left after test_fraction and subsample has sample weight 0", "dataset", "sample_weights")
	}
	r.x, r.y, r.xTest, r.yTest, r.w = x, y, xt, yt, w
	atStage("split")
	return nil
}

// sampleWeights reads the spec's sample_weights file (nil without one) for
// the n training rows read.
func (r *runner) sampleWeights(n int) ([]float64, error) {
	d := r.s.Dataset
	if d.SampleWeights == "" {
		return nil, nil
	}
	p, err := resolvePath(r.s.dir, d.SampleWeights)
	if err != nil {
		return nil, r.s.errAt(err.Error(), "dataset", "sample_weights")
	}
	w, err := datasets.ReadWeights(r.ctx, p)
	if err != nil {
		return nil, err
	}
	if len(w) != n {
		what := "the training data has"
		if d.Name != "" {
			what = fmt.Sprintf("the training part of %s has", d.Name)
		}
		return nil, r.s.errAt(fmt.Sprintf("%s has %d weights, %s %d rows (one weight per line, one line per row, in order)", d.SampleWeights, len(w), what, n), "dataset", "sample_weights")
	}
	return w, nil
}

// SplitRows returns the training and test rows of a test_fraction split
// of the labels y with the spec's seed, exactly as Fit and Run split them
// (stratified for classification; datasets.StratifiedSplit, else
// datasets.Split), so that files written from them (landmark data split)
// give a fit of the training file the rows a fit of the whole file with
// that test_fraction trains on, in the same order.
func SplitRows(y []float64, classification bool, fraction float64, seed uint64) (train, test []int, err error) {
	rng := rand.New(rand.NewPCG(seed, streamSplit))
	if classification {
		return datasets.StratifiedSplit(y, fraction, rng)
	}
	return datasets.Split(len(y), fraction, rng)
}

// guessTask sets the task from the training labels (datasets.GuessTask)
// and checks the spec again with it: the estimator must do that task.
func (r *runner) guessTask(y []float64) error {
	if r.s.Estimator.Type == oneClassName {
		// Its predictions are the labels ±1: a two-class task, whatever
		// the training labels hold (all +1 for novelty detection).
		r.s.Task, r.taskRule = TaskBinary, oneClassName+" predicts the labels +1 and −1"
		return r.s.Validate()
	}
	t := datasets.GuessTask(y)
	r.taskRule = taskRule(t, datasets.ClassCounts(y))
	if r.classNames != nil {
		// Text labels are classes however many there are.
		t = datasets.Multiclass
		if len(r.classNames) == 2 {
			t = datasets.Binary
		}
		r.taskRule = fmt.Sprintf("%d distinct text labels %s", len(r.classNames), quoteClasses(r.classNames))
	}
	r.s.Task = string(t)
	if err := r.s.Validate(); err != nil {
		return fmt.Errorf("%w (task %s inferred: %s; name the task to override)", err, t, r.taskRule)
	}
	return nil
}

// quoteClasses lists class names for a message: {"B", "M"}, the first
// twenty and the count when there are more.
func quoteClasses(names []string) string {
	const shown = 20
	q := make([]string, 0, shown+1)
	for _, n := range names[:min(len(names), shown)] {
		q = append(q, strconv.Quote(n))
	}
	if len(names) > shown {
		q = append(q, fmt.Sprintf("… (%d in all)", len(names)))
	}
	return "{" + strings.Join(q, ", ") + "}"
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
	if r.s.Estimator.Type == oneClassName {
		return r.checkOneClassLabels(y, which)
	}
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

// oneClassName is the one-class SVM's estimator type.
const oneClassName = "one-class-svm"

// checkOneClassLabels checks the labels a one-class SVM is scored against:
// it fits without them and predicts +1 (inside the estimated support) or
// −1 (outside), so they must be +1 for the normal rows and −1 for the
// outliers, as in LIBSVM's -s 2 files. A set of normal rows alone (all +1,
// novelty detection) is allowed.
func (r *runner) checkOneClassLabels(y []float64, which string) error {
	if r.classNames != nil {
		return r.s.errAt(fmt.Sprintf("%s scores its predictions +1 (normal) and −1 (outlier) against labels +1 and −1, but the %s labels are text %s: write them as +1 and −1", oneClassName, which, quoteClasses(r.classNames)), "estimator", "type")
	}
	for i, v := range y {
		if v != 1 && v != -1 {
			return r.s.errAt(fmt.Sprintf("%s scores its predictions +1 (normal) and −1 (outlier) against labels +1 and −1, but %s row %d has label %g (the labels are not used to fit)", oneClassName, which, i+1, v), "estimator", "type")
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
