package experiments

import (
	"context"
	"fmt"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// FitResult is one estimator fitted on a spec's whole training set.
type FitResult struct {
	// Estimator is the fitted model (it expects features scaled as Scale says).
	Estimator model.Estimator
	// Point is the setting fitted (the spec's single grid value per axis).
	Point Point
	// Train are the scores on the training set itself.
	Train []Summary
	// Test are the scores on the test set (nil without one).
	Test []Summary
	// NTrain, NTest and Dim describe the data.
	NTrain, NTest, Dim int
	// FitSeconds is the fit's wall time.
	FitSeconds float64
	// Scaling is the feature scaling fitted on the training set; new data
	// must go through it before Estimator.Predict.
	Scaling Scaling
	// ScalingUsed describes the feature scaling applied, e.g. "maxabs
	// (…)", or std for standardize on sparse X ("" for none).
	ScalingUsed string
	// Target, when set, maps the estimator's outputs back to target units.
	Target *datasets.TargetScaler
	// Task is the spec's task.
	Task string
	// Storage is how the estimator got X (dense or sparse), Density X's
	// fraction of non-zeros, StorageReason why storage auto chose it.
	Storage       string
	Density       float64
	StorageReason string
	// BeyondRows and BeyondCols count the test rows (of a LIBSVM test
	// file) with a non-zero at a column beyond the training dimension, and
	// the distinct such columns: coordinates in which every training row
	// is zero, as LIBSVM reads them.
	BeyondRows, BeyondCols int
}

// Predict applies the scaling, the estimator and the target scaling to new rows.
// Sparse x (kernel.Sparse) stays sparse when the feature scaling keeps zeros
// (none, maxabs, std) and goes through a dense copy otherwise (Scaling.Apply).
func (f *FitResult) Predict(xIn mat.Matrix) ([]float64, error) {
	if xIn == nil {
		return nil, fmt.Errorf("%w: X is nil", datasets.ErrInput)
	}
	xs, err := f.Scaling.Apply(xIn)
	if err != nil {
		return nil, err
	}
	p, err := f.Estimator.Predict(xs)
	if err != nil {
		return nil, err
	}
	if f.Target != nil {
		p = f.Target.Inverse(p)
	}
	return p, nil
}

// Fit fits the spec's estimator once on the whole training set, at the one
// setting its grid names (every axis must have a single value; use Run for
// grids), and scores it on the training and test sets. Feature scaling and
// target standardization are fitted on the training set as in Run; the
// returned estimator is trained on scaled features.
func Fit(ctx context.Context, s *Spec) (*FitResult, error) {
	return FitWith(ctx, s, FitOptions{})
}

// FitOptions configure FitWith. The zero value means quiet.
type FitOptions struct {
	// Progress, when non-nil, receives an EventIteration per solver
	// iteration.
	Progress func(Event)
	// Notify, when non-nil, hears the data reader's own decisions (the CSV
	// header guess), as Options.Notify.
	Notify func(msg string)
}

// FitWith is Fit with options (progress reports).
func FitWith(ctx context.Context, s *Spec, opt FitOptions) (*FitResult, error) {
	if s != nil && s.Approximation != nil {
		return nil, s.errAt("fit needs an estimator, not an approximation block", "approximation")
	}
	if s != nil {
		for _, a := range s.Grid.Axes() {
			if len(s.Grid[a]) != 1 {
				return nil, s.errAt(fmt.Sprintf("fit takes one setting but the grid has %d values of %s (use run for grids)", len(s.Grid[a]), a), "grid", a)
			}
		}
	}
	r, err := newRunnerContext(ctx, s, Options{Progress: opt.Progress, Notify: opt.Notify})
	if err != nil {
		return nil, err
	}
	r.start = time.Now()
	p := s.Grid.Points()[0]
	res := &FitResult{Point: p, NTrain: len(r.y), NTest: len(r.yTest), Storage: r.storage, Density: r.density, StorageReason: r.storageWhy,
		ScalingUsed: r.scalingUsed(), BeyondRows: r.beyondRows, BeyondCols: r.beyondCols}
	_, res.Dim = r.x.Dims()
	xs := []mat.Matrix{copyX(r.x)}
	ys := [][]float64{r.y}
	if r.xTest != nil {
		xs = append(xs, r.xTest)
		ys = append(ys, r.yTest)
	}
	t0 := time.Now()
	fs, scores, err := r.fitScoreMany(ctx, p, xs[0], r.y, xs, ys, fitSeed(s.Seed, 1<<20, 0))
	if err != nil {
		return nil, err
	}
	res.FitSeconds = time.Since(t0).Seconds()
	res.Estimator = fs.est
	res.Scaling = fs.scaling
	if s.Dataset.StandardizeTarget {
		t := fs.target
		res.Target = &t
	}
	res.Task = s.Task
	res.Train = scores[0]
	if len(scores) > 1 {
		res.Test = scores[1]
	}
	return res, nil
}
