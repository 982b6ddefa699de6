package experiments

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CVResult is CrossValidate's result: the cross-validated scores of one
// setting.
type CVResult struct {
	// Point holds the scores: Metrics (mean and sample standard
	// deviation over the fits), FoldScores (the selection metric of each
	// fit), Fits, and the mean fit and predict times.
	Point PointResult
	// Metric is the selection metric (cv.metric, or the task's default).
	Metric string
	// Folds and Repeats are the folds and repeats fitted.
	Folds, Repeats int
	// Task and TaskRule are the task fitted and, when it was inferred, how.
	Task, TaskRule string
	// NTrain is the number of rows the folds split (after test_fraction
	// and subsample).
	NTrain int
}

// ErrCVFit is wrapped by CrossValidate's error when a fold's fit fails.
var ErrCVFit = errors.New("a cross-validation fit failed")

// CrossValidate scores the spec's one setting (every grid axis must have a
// single value, as for Fit) by cross-validation on the training rows, as
// Run scores a grid point: cv.folds folds (stratified for classification
// unless cv.stratified is false), repeats times, from the spec's seed;
// scikit-learn's cross_validate and LIBSVM's svm-train -v. Nothing is
// written and the test set, when there is one, is left alone. A fold
// whose fit fails is an error wrapping ErrCVFit with its message.
func CrossValidate(ctx context.Context, s *Spec, opt Options) (*CVResult, error) {
	if err := oneSetting(s, "cross-validation"); err != nil {
		return nil, err
	}
	r, err := newRunnerContext(ctx, s, opt)
	if err != nil {
		return nil, err
	}
	r.start = time.Now()
	p := r.s.Grid.Points()[0]
	pr, err := r.evalPoint(ctx, 0, 1, p)
	if err != nil {
		return nil, err
	}
	if pr.Error != "" {
		return nil, fmt.Errorf("experiments: %w: %s", ErrCVFit, pr.Error)
	}
	res := &CVResult{Point: pr, Metric: r.metric.Name, Repeats: r.repeats, Task: r.s.Task, TaskRule: r.taskRule}
	if len(r.cv) > 0 {
		res.Folds = len(r.cv[0])
	}
	res.NTrain, _ = r.x.Dims()
	return res, nil
}
