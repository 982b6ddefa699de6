package experiments

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// FitResult is one estimator fitted on a spec's whole training set.
type FitResult struct {
	// Estimator is the fitted model (it expects features scaled as Scale says).
	Estimator model.Estimator
	// SavedSpec is the spec a loaded fit was saved with (LoadFit; nil when
	// it was saved without one). Fit leaves it nil: its caller has the spec.
	SavedSpec *Spec
	// Bare says that LoadFit read a file model.Save wrote: the estimator
	// alone, with no scaling, feature names or spec recorded.
	Bare bool
	// Point is the setting fitted (the spec's single grid value per axis).
	Point Point
	// Train are the scores on the training set itself.
	Train []Summary
	// Test are the scores on the test set (nil without one).
	Test []Summary
	// NTrain, NTest and Dim describe the data.
	NTrain, NTest, Dim int
	// WeightSum is Σw over the training rows' sample weights
	// (sample_weights) and ZeroWeights counts the rows of weight 0; both
	// are 0 without weights. Train and Test are unweighted scores.
	WeightSum   float64
	ZeroWeights int
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
	// Task is the task fitted: the spec's, or the one inferred from the
	// labels for task auto.
	Task string
	// TaskRule, for task auto, says what decided the task, e.g. "2
	// distinct labels {-1, 1}" ("" when the spec named the task).
	TaskRule string
	// Features names the training data's feature columns, in X's order,
	// when the data named them (a CSV header); it is nil for data without
	// names (LIBSVM, a CSV without a header, bundled sets), which sets
	// ImpliedFeatures instead: their names are x1…xd, the names landmark
	// data convert writes (datasets.FeatureName), implied and never built,
	// so that nothing about names grows with d. TargetName names the
	// target column ("y" when unnamed). Predict matches a CSV header
	// against them (datasets.ReadOptions Features, ImpliedFeatures). A fit
	// loaded from a file saved before names were kept has none of the
	// three: its columns go by position.
	Features        []string
	ImpliedFeatures bool
	TargetName      string
	// ClassNames names the classes when the training labels were text
	// ("B", "M"; datasets.Dataset.Classes): the estimator's labels are
	// their indices 0…len−1, and ClassName maps a predicted label back.
	// Nil for numeric labels. A saved fit keeps it; predict reads a test
	// file's text labels as these classes.
	ClassNames []string
	// Gamma is the kernel γ the spec's gamma rule (EstimatorSpec.GammaRule:
	// scale or auto) resolved to on the training rows; 0 without a rule.
	// The estimator's kernel holds it, so a saved fit predicts with it;
	// the saved fit keeps it here too.
	Gamma float64
	// ZeroBased says the training data's LIBSVM feature indices started at
	// 0 (dataset zero_based): column j was index j. Data to predict must
	// say its own base (ReadOptions.ZeroBased); landmark predict asks for
	// --zero-based (or --zero-based=false) when this is set, so that a
	// 0-based file without index 0 is not read one column off. A saved
	// fit keeps it with its spec.
	ZeroBased bool
	// Layout says how the training CSV file's read took its columns (its
	// width, the target's column, the columns the dataset's drop left
	// out; datasets.Dataset.Layout), nil for other data. ReadInput reads
	// a CSV file to predict the same way (datasets.ReadOptions.Layout). A
	// saved fit keeps it; files saved before it have none.
	Layout *datasets.Layout
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

// TestMetric returns the named score on the test set (false without a test
// set or when the task has no such metric).
func (r *FitResult) TestMetric(name string) (Summary, bool) { return findMetric(r.Test, name) }

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
	// header guess), as Options.Notify, and that a fit streams its training
	// shards because they do not fit the memory cap.
	Notify func(msg string)
	// Limit names the memory cap in messages as the caller set it (e.g.
	// "--memory 2G"); default "the memory limit 2 GB".
	Limit string
}

// FitWith is Fit with options (progress reports).
//
// A training set given as a shard manifest (dataset path DIR/manifest.json)
// is planned first: X's copies as the fit holds them and the estimator's
// plan beside them, against the memory cap (memory_limit, else
// DefaultMemoryLimit). Within it the shards are read into memory and the
// usual fit runs. Over it a falkon fit streams the shards on every pass
// (model.Falkon.FitShardSet; Notify hears it; Storage is StorageStreamed
// and the training rows are not scored), and other estimators are refused
// with an error wrapping model.ErrMemory that says how many rows would fit.
func FitWith(ctx context.Context, s *Spec, opt FitOptions) (*FitResult, error) {
	if err := oneSetting(s, "fit"); err != nil {
		return nil, err
	}
	sp, err := planShards(s)
	if err != nil {
		return nil, err
	}
	if sp != nil && !sp.fits() {
		if s.Estimator.Type == "falkon" {
			return fitStreamed(ctx, s, sp, opt)
		}
		return nil, sp.overLimit(s.Estimator.Type, "or fit falkon, which streams the shards on every pass")
	}
	r, err := newRunnerMode(ctx, s, Options{Progress: opt.Progress, Notify: opt.Notify}, runMode{fit: true})
	if err != nil {
		return nil, err
	}
	r.start = time.Now()
	p := s.Grid.Points()[0]
	res := &FitResult{Point: p, NTrain: len(r.y), NTest: len(r.yTest), Storage: r.storage, Density: r.density, StorageReason: r.storageWhy,
		ScalingUsed: r.scalingUsed(), BeyondRows: r.beyondRows, BeyondCols: r.beyondCols}
	_, res.Dim = r.x.Dims()
	if r.w != nil {
		res.WeightSum = weightSum(r.w, len(r.w))
		for _, v := range r.w {
			if v == 0 {
				res.ZeroWeights++
			}
		}
	}
	t0 := time.Now()
	fs, scores, err := r.fitOwned(ctx, p, fitSeed(s.Seed, 1<<20, 0))
	if err != nil {
		return nil, err
	}
	res.FitSeconds = time.Since(t0).Seconds()
	res.Estimator = fs.est
	res.Gamma = fs.gamma
	res.Scaling = fs.scaling
	if s.Dataset.StandardizeTarget {
		t := fs.target
		res.Target = &t
	}
	res.Task, res.TaskRule = r.s.Task, r.taskRule
	// Unnamed features stay unnamed: x1…xd built would take O(d) memory
	// and model-file bytes (439 KB of an 855 KB model at d = 50,000,
	// 1.6 GB at d = 10⁸).
	sourceNames{features: r.features, target: r.target, classNames: r.classNames, layout: r.layout}.keep(res)
	// A manifest of shards written from a 0-based file keeps that base.
	res.ZeroBased = s.Dataset.ZeroBased || (sp != nil && sp.m.ZeroBased)
	res.Train = scores[0]
	if len(scores) > 1 {
		res.Test = scores[1]
	}
	return res, nil
}

// oneSetting refuses, for what (fit, cross-validation), a spec that is no
// single estimator setting: an approximation block, or a grid axis of
// more than one value. A nil spec is left to the runner.
func oneSetting(s *Spec, what string) error {
	if s == nil {
		return nil
	}
	if s.Approximation != nil {
		return s.errAt(what+" needs an estimator, not an approximation block", "approximation")
	}
	for _, a := range s.Grid.Axes() {
		if len(s.Grid[a]) != 1 {
			return s.errAt(fmt.Sprintf("%s takes one setting but the grid has %d values of %s (use run for grids)", what, len(s.Grid[a]), a), "grid", a)
		}
	}
	return nil
}

// DefaultTargetName is the target column's name for data that names none
// (datasets.WriteCSV writes it).
const DefaultTargetName = "y"

// DefaultFeatureNames are the names of d unnamed features: x1…xd, the
// header datasets.WriteCSV (and so landmark data convert) writes; the
// number is the LIBSVM index. It builds the list, O(d); a fit keeps the
// names implied (FitResult.ImpliedFeatures) and FeatureName names one.
func DefaultFeatureNames(d int) []string {
	names := make([]string, d)
	for j := range names {
		names[j] = datasets.FeatureName(j)
	}
	return names
}

// FeatureName returns the name of feature j (0-based): Features[j] for
// named data, x<j+1> for unnamed (implied) features, "" for a fit saved
// before names were kept or j out of range.
func (f *FitResult) FeatureName(j int) string {
	switch {
	case j < 0 || j >= f.Dim:
		return ""
	case f.Features != nil:
		return f.Features[j]
	case f.ImpliedFeatures:
		return datasets.FeatureName(j)
	}
	return ""
}

// decisionFunction is implemented by every estimator of the table: raw
// outputs, one column for regression and binary classification.
type decisionFunction interface {
	DecisionFunction(x mat.Matrix) (*mat.Dense, error)
}

// probabilities is implemented by every classifier of the table; they give
// calibrated class probabilities when fitted with probability: true.
type probabilities interface {
	PredictProba(x mat.Matrix) (*mat.Dense, error)
}

// ErrNoProba is wrapped by Proba when the fitted model gives no
// probabilities.
var ErrNoProba = errors.New("experiments: the model gives no probabilities")

// Scores returns the model's raw outputs for new rows (scaled as in
// Predict): for regression the predictions themselves (in target units);
// for binary classification one decision value per row, positive meaning
// the larger label; for multi-class one column per class (one-vs-rest) or
// per pair of classes (one-vs-one SVMs, see model.SVM.DecisionFunction).
func (f *FitResult) Scores(xIn mat.Matrix) (*mat.Dense, error) {
	if f.Task == TaskRegression || f.Task == "" {
		p, err := f.Predict(xIn)
		if err != nil {
			return nil, err
		}
		return mat.NewDense(len(p), 1, p), nil
	}
	d, ok := f.Estimator.(decisionFunction)
	if !ok {
		return nil, fmt.Errorf("%w: %T gives no decision values", datasets.ErrInput, f.Estimator)
	}
	if xIn == nil {
		return nil, fmt.Errorf("%w: X is nil", datasets.ErrInput)
	}
	xs, err := f.Scaling.Apply(xIn)
	if err != nil {
		return nil, err
	}
	return d.DecisionFunction(xs)
}

// PredictScores returns Predict's values and Scores' for the rows of x. For
// a classifier that gives both from one prediction (falkon, krr:
// model.Falkon.PredictDecision) it forms the kernel between x and the
// centers once, where calling Predict and Scores forms it twice; a binary
// task's scores need both (labels for accuracy, decision values for AUC).
func (f *FitResult) PredictScores(xIn mat.Matrix) ([]float64, *mat.Dense, error) {
	pd, both := f.Estimator.(predictDecider)
	if f.Task == TaskRegression || f.Task == "" {
		// Scores are the predictions: one prediction, two copies.
		p, err := f.Predict(xIn)
		if err != nil {
			return nil, nil, err
		}
		return p, mat.NewDense(len(p), 1, slices.Clone(p)), nil
	}
	if !both {
		p, err := f.Predict(xIn)
		if err != nil {
			return nil, nil, err
		}
		s, err := f.Scores(xIn)
		return p, s, err
	}
	if xIn == nil {
		return nil, nil, fmt.Errorf("%w: X is nil", datasets.ErrInput)
	}
	xs, err := f.Scaling.Apply(xIn)
	if err != nil {
		return nil, nil, err
	}
	p, s, err := pd.PredictDecision(xs)
	if err != nil {
		return nil, nil, err
	}
	if f.Target != nil {
		p = f.Target.Inverse(p)
	}
	return p, s, nil
}

// Proba returns class probabilities (n × classes, columns in the order of
// Classes) where the model has calibrated ones: a classifier fitted with
// probability: true (model.Classifier.PredictProba: Platt scaling for the
// SVMs, a softmax temperature for KRR and FALKON). Like scikit-learn, which
// has predict_proba only for calibrated models, other models are an error
// wrapping ErrNoProba: raw ridge outputs and SVM decision values are not
// probabilities.
func (f *FitResult) Proba(xIn mat.Matrix) (*mat.Dense, error) {
	if err := f.HasProba(); err != nil {
		return nil, err
	}
	p := f.Estimator.(probabilities)
	if xIn == nil {
		return nil, fmt.Errorf("%w: X is nil", datasets.ErrInput)
	}
	xs, err := f.Scaling.Apply(xIn)
	if err != nil {
		return nil, err
	}
	out, err := p.PredictProba(xs)
	if err != nil && errors.Is(err, model.ErrInput) {
		return nil, fmt.Errorf("%w: %v (fit with the option probability: true)", ErrNoProba, err)
	}
	return out, err
}

// HasProba returns nil when Proba can give probabilities, else an error
// wrapping ErrNoProba that says why not.
func (f *FitResult) HasProba() error {
	if f.Task == TaskRegression || f.Task == "" {
		return fmt.Errorf("%w: a regression model predicts values, not classes", ErrNoProba)
	}
	const how = "fit with the option probability: true: Platt sigmoids for svm and bka-svm, a softmax temperature for krr and falkon"
	if _, ok := f.Estimator.(*model.OneClassSVM); ok {
		// LIBSVM refuses -b 1 with -s 2: it has no probability model.
		return fmt.Errorf("%w: a one-class SVM gives no class probabilities, only decision values (--output scores)", ErrNoProba)
	}
	if _, ok := f.Estimator.(probabilities); !ok {
		return fmt.Errorf("%w: %s outputs are not calibrated probabilities (%s)", ErrNoProba, EstimatorType(f.Estimator), how)
	}
	var on bool
	switch e := f.Estimator.(type) {
	case *model.SVM:
		on = e.Probability
	case *model.BKASVM:
		on = e.Probability
	case *model.KRR:
		on = e.Probability
	case *model.Falkon:
		on = e.Probability
	}
	if !on {
		return fmt.Errorf("%w: the %s was fitted without probability: true (%s)", ErrNoProba, EstimatorType(f.Estimator), how)
	}
	return nil
}

// ErrNoInterval is wrapped by Interval when the fitted model gives no
// prediction intervals.
var ErrNoInterval = errors.New("experiments: the model gives no prediction intervals")

// Interval returns, for each row of xIn (scaled as in Predict), the central
// interval that holds the target with probability coverage (0 < coverage <
// 1) under the Laplace model of the residuals of an svr fitted with
// probability: true (svm-train -s 3 -b 1; model.SVR.PredictInterval), in
// the target's units (mapped back through standardize_target): n×2, the
// lower and upper ends. Other models are an error wrapping ErrNoInterval.
func (f *FitResult) Interval(xIn mat.Matrix, coverage float64) (*mat.Dense, error) {
	if err := f.HasInterval(); err != nil {
		return nil, err
	}
	if xIn == nil {
		return nil, fmt.Errorf("%w: X is nil", datasets.ErrInput)
	}
	xs, err := f.Scaling.Apply(xIn)
	if err != nil {
		return nil, err
	}
	lo, hi, err := f.Estimator.(*model.SVR).PredictInterval(xs, coverage)
	if err != nil {
		return nil, err
	}
	if f.Target != nil {
		// An increasing affine map (Std > 0): the ends stay in order.
		lo, hi = f.Target.Inverse(lo), f.Target.Inverse(hi)
	}
	out := mat.NewDense(len(lo), 2, nil)
	for i := range lo {
		out.Set(i, 0, lo[i])
		out.Set(i, 1, hi[i])
	}
	return out, nil
}

// HasInterval returns nil when Interval can give intervals, else an error
// wrapping ErrNoInterval that says why not.
func (f *FitResult) HasInterval() error {
	e, ok := f.Estimator.(*model.SVR)
	switch {
	case !ok:
		return fmt.Errorf("%w: the %s has no model of its residuals (svr with probability: true has)", ErrNoInterval, EstimatorType(f.Estimator))
	case !e.Probability:
		return fmt.Errorf("%w: the svr was fitted without probability: true (svm-train -s 3 -b 1's Laplace model of the residuals)", ErrNoInterval)
	}
	return nil
}

// EstimatorType is the YAML type of a fitted estimator (krr, falkon, svm,
// bka-svm, svr, one-class-svm), the name specs and messages use; the Go
// type's name in lower case for an estimator specs do not build.
func EstimatorType(e model.Estimator) string {
	switch e.(type) {
	case *model.KRR:
		return "krr"
	case *model.Falkon:
		return "falkon"
	case *model.SVM:
		return "svm"
	case *model.BKASVM:
		return "bka-svm"
	case *model.SVR:
		return "svr"
	case *model.OneClassSVM:
		return "one-class-svm"
	}
	n := fmt.Sprintf("%T", e)
	if i := strings.LastIndexByte(n, '.'); i >= 0 {
		n = n[i+1:]
	}
	return strings.ToLower(n)
}

// classer is implemented by the classifiers that report their classes.
type classer interface {
	Classes() []float64
}

// ClassName returns the name of class label v: ClassNames[v] when the
// training labels were text, else v in the shortest form that reads back
// to it ("1", "-1", "0.5").
func (f *FitResult) ClassName(v float64) string {
	if k := int(v); f.ClassNames != nil && float64(k) == v && k >= 0 && k < len(f.ClassNames) {
		return f.ClassNames[k]
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// Classes returns the class labels of a classifier, ascending (nil for
// regression or an estimator that does not report them); with ClassNames
// they are the names' indices.
func (f *FitResult) Classes() []float64 {
	if c, ok := f.Estimator.(classer); ok && f.Task != TaskRegression {
		return c.Classes()
	}
	return nil
}
