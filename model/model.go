package model

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// ErrNotFitted is returned by Predict and friends before a successful Fit.
var ErrNotFitted = errors.New("model: not fitted")

// ErrInput is wrapped by every error about bad training or prediction data,
// and by errors about invalid configuration values.
var ErrInput = check.ErrInput

// Task says what an estimator learns.
type Task string

// The tasks. The zero value means regression.
const (
	Regression     Task = "regression"
	Classification Task = "classification"
)

func (t Task) resolve() (Task, error) {
	switch t {
	case "", Regression:
		return Regression, nil
	case Classification, "binary", "multiclass":
		return Classification, nil
	}
	return "", fmt.Errorf("%w: unknown task %q (want regression or classification)", ErrInput, t)
}

// Labels maps class labels to columns of a one-vs-rest target matrix and back.
// Classes are kept sorted. With two classes a single ±1 column is used (the
// larger label is +1), as LIBSVM and FALKON do for binary problems.
type Labels struct {
	// Classes are the distinct labels seen in training, ascending.
	Classes []float64
}

// NewLabels collects the distinct labels of y. It errors (wrapping ErrInput)
// when there are fewer than two, and, as scikit-learn's
// check_classification_targets does, when y looks continuous: a non-integer
// value, or more distinct values than max(20, n/2) — the 20 is the bound
// datasets.GuessTask uses to call integral labels multiclass.
func NewLabels(y []float64) (Labels, error) {
	if err := check.ClassLabels(y); err != nil {
		return Labels{}, err
	}
	return labelsOf(y)
}

// labelsOf is NewLabels without the continuous-target rule, for a list of
// classes given as such (a remote fit's class list).
func labelsOf(y []float64) (Labels, error) {
	c := slices.Clone(y)
	slices.Sort(c)
	c = slices.Compact(c)
	if len(c) < 2 {
		return Labels{}, fmt.Errorf("%w: classification needs at least two classes, y has %d", ErrInput, len(c))
	}
	return Labels{Classes: c}, nil
}

// BalancedClassWeights returns scikit-learn's class_weight='balanced'
// weights of the class labels y: n/(k·n_c) for the n_c rows of each of the
// k classes, so that every class weighs n/k in all; the SVMs' ClassWeights.
// y must hold class labels (NewLabels's rules).
func BalancedClassWeights(y []float64) (map[float64]float64, error) {
	l, err := NewLabels(y)
	if err != nil {
		return nil, err
	}
	count := make(map[float64]int, len(l.Classes))
	for _, v := range y {
		count[v]++
	}
	w := make(map[float64]float64, len(l.Classes))
	for _, c := range l.Classes {
		w[c] = float64(len(y)) / (float64(len(l.Classes)) * float64(count[c]))
	}
	return w, nil
}

// relativeWeights returns w scaled to sum to n = len(w) (nil for nil).
// KRR's and Falkon's weighted loss (1/Σw)·Σ w_i‖f(x_i) − y_i‖² is the same
// with these weights and the divisor n, so that their penalty stays λn and
// Falkon's preconditioner, built for n rows, is used as it stands. Weights
// all 1 are returned unchanged (1·n/n = 1).
func relativeWeights(w []float64) []float64 {
	if w == nil {
		return nil
	}
	scale := float64(len(w)) / floats.Sum(w)
	r := make([]float64, len(w))
	for i, v := range w {
		r[i] = v * scale
	}
	return r
}

// classRowWeights returns the row weights of class weights cw on the labels
// y (classes l, task task): w_i·cw[y_i], with w nil meaning 1 and classes
// not in cw weighing 1; w unchanged when cw is nil. It refuses class
// weights for regression, for a label not in y, and weights that are not
// finite and > 0 (ErrInput).
func classRowWeights(cw map[float64]float64, task Task, l Labels, y, w []float64) ([]float64, error) {
	if cw == nil {
		return w, nil
	}
	if task != Classification {
		return nil, fmt.Errorf("%w: ClassWeights with task %s: class weights need task classification", ErrInput, task)
	}
	keys := slices.Sorted(maps.Keys(cw)) // deterministic error messages
	for _, c := range keys {
		if err := check.Positive(fmt.Sprintf("class weight of %g", c), cw[c]); err != nil {
			return nil, err
		}
		if _, ok := slices.BinarySearch(l.Classes, c); !ok {
			return nil, fmt.Errorf("%w: class weight for label %g, which is not in y", ErrInput, c)
		}
	}
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = 1
		if c, ok := cw[v]; ok {
			out[i] = c
		}
		if w != nil {
			out[i] *= w[i]
		}
	}
	return out, nil
}

// Outputs is the number of target columns: 1 for binary, the number of classes otherwise.
func (l Labels) Outputs() int {
	if len(l.Classes) == 2 {
		return 1
	}
	return len(l.Classes)
}

// Targets returns the n×Outputs() target matrix: ±1 for binary, one-vs-rest ±1
// columns otherwise. It fails with ErrInput when y is empty or holds a label
// that is not one of Classes.
func (l Labels) Targets(y []float64) (*mat.Dense, error) {
	if len(l.Classes) < 2 || len(y) == 0 {
		return nil, fmt.Errorf("%w: Targets of %d labels with %d classes", ErrInput, len(y), len(l.Classes))
	}
	for i, v := range y {
		if _, ok := slices.BinarySearch(l.Classes, v); !ok {
			return nil, fmt.Errorf("%w: y[%d] = %g is not one of the classes %v", ErrInput, i, v, l.Classes)
		}
	}
	return l.targetMatrix(y), nil
}

// targetMatrix is Targets for labels known to be in Classes.
func (l Labels) targetMatrix(y []float64) *mat.Dense {
	t := mat.NewDense(len(y), l.Outputs(), nil)
	for i, v := range y {
		k, _ := slices.BinarySearch(l.Classes, v)
		if l.Outputs() == 1 {
			if k == 1 {
				t.Set(i, 0, 1)
			} else {
				t.Set(i, 0, -1)
			}
			continue
		}
		for j := range l.Classes {
			t.Set(i, j, -1)
		}
		t.Set(i, k, 1)
	}
	return t
}

// Decode turns decision values (n×Outputs()) into labels: the sign for binary,
// the arg-max column otherwise (ties go to the smaller label). It fails with
// ErrInput when scores is empty, holds NaN, or does not have Outputs()
// columns.
func (l Labels) Decode(scores *mat.Dense) ([]float64, error) {
	if len(l.Classes) < 2 {
		return nil, fmt.Errorf("%w: Decode with %d classes", ErrInput, len(l.Classes))
	}
	if err := check.Matrix("scores", scores); err != nil {
		return nil, err
	}
	if _, c := scores.Dims(); c != l.Outputs() {
		return nil, fmt.Errorf("%w: scores have %d columns, %d classes need %d", ErrInput, c, len(l.Classes), l.Outputs())
	}
	return l.decode(scores), nil
}

// decode is Decode for scores known to have Outputs() columns.
func (l Labels) decode(scores *mat.Dense) []float64 {
	n, c := scores.Dims()
	out := make([]float64, n)
	for i := 0; i < n; i++ {
		if c == 1 {
			if scores.At(i, 0) > 0 {
				out[i] = l.Classes[1]
			} else {
				out[i] = l.Classes[0]
			}
			continue
		}
		best := 0
		for j := 1; j < c; j++ {
			if scores.At(i, j) > scores.At(i, best) {
				best = j
			}
		}
		out[i] = l.Classes[best]
	}
	return out
}

// targets validates a training set given as labels or single targets and
// turns it into the target matrix the ridge-type estimators solve for: one
// column of y for regression, Labels.Targets for classification.
func targets(x *mat.Dense, y []float64, t Task, who string) (Task, Labels, *mat.Dense, error) {
	if err := check.XY(x, y); err != nil {
		return "", Labels{}, nil, err
	}
	return targetsOf(y, t, who)
}

// targetsOf is targets for labels y already checked against X. who names the
// estimator in a label error ("model: krr: ...").
func targetsOf(y []float64, t Task, who string) (Task, Labels, *mat.Dense, error) {
	task, err := t.resolve()
	if err != nil {
		return "", Labels{}, nil, err
	}
	if task == Classification {
		labels, err := NewLabels(y)
		if err != nil {
			return "", Labels{}, nil, fmt.Errorf("model: %s: %w", who, err)
		}
		return task, labels, labels.targetMatrix(y), nil
	}
	return task, Labels{}, mat.NewDense(len(y), 1, slices.Clone(y)), nil
}

// multiInput validates a multi-output regression training set (FitMulti):
// sparse x is kept as it is when sparseOK, a *kernel.Dense32 when float32OK,
// other x is taken dense.
func multiInput(x mat.Matrix, y *mat.Dense, t Task, sparseOK, float32OK bool) (mat.Matrix, error) {
	if task, err := t.resolve(); err != nil {
		return nil, err
	} else if task != Regression {
		return nil, fmt.Errorf("%w: FitMulti is for regression; classification takes labels through Fit", ErrInput)
	}
	if err := check.Matrix("Y", y); err != nil {
		return nil, err
	}
	var xv mat.Matrix
	x32, is32 := x.(*kernel.Dense32)
	if xs, ok := x.(kernel.Sparse); ok && sparseOK {
		v, err := checkSparse(xs, 0)
		if err != nil {
			return nil, err
		}
		xv = v
	} else if is32 && float32OK {
		if err := x32.CheckFinite("X"); err != nil {
			return nil, err
		}
		xv = x32
	} else {
		xd := kernel.DenseOf(x)
		if err := check.Matrix("X", xd); err != nil {
			return nil, err
		}
		xv = xd
	}
	if rx, _ := xv.Dims(); rx != y.RawMatrix().Rows {
		return nil, fmt.Errorf("%w: X has %d rows, Y has %d", ErrInput, rx, y.RawMatrix().Rows)
	}
	return xv, nil
}

// decide evaluates a fitted predictor for d-dimensional data on the rows of x.
func decide(pred KRRPredictor, d int, x *mat.Dense) (*mat.Dense, error) {
	if err := check.Cols(x, d); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	dst := mat.NewDense(n, pred.Outputs(), nil)
	if err := pred.Decision(context.Background(), dst, x); err != nil {
		return nil, err
	}
	return dst, nil
}

// outputs turns decision values into predictions: class labels for
// classification, the first output for regression.
func outputs(task Task, labels Labels, f *mat.Dense) []float64 {
	if task == Classification {
		return labels.decode(f)
	}
	return mat.Col(nil, 0, f)
}

// checkContext refuses a nil context, which would otherwise panic deep in a
// fit at the first cancellation check. who names the estimator.
func checkContext(ctx context.Context, who string) error {
	if ctx == nil {
		return fmt.Errorf("model: %s: %w: nil context (pass context.Background())", who, ErrInput)
	}
	return nil
}
