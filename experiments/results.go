package experiments

import (
	"encoding/json"
	"math"
	"time"
)

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

// nanSummaries returns one Summary per name with a NaN mean and standard
// deviation: the metrics of a grid point whose fits failed.
func nanSummaries(names []string) []Summary {
	out := make([]Summary, len(names))
	for i, n := range names {
		out[i] = Summary{Name: n, Mean: math.NaN(), Std: math.NaN()}
	}
	return out
}

// metricNames lists the names of ms in order.
func metricNames(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
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
	FoldScores []MetricValue `json:"fold_scores,omitempty"`
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
func (r PointResult) Metric(name string) (Summary, bool) { return findMetric(r.Metrics, name) }

// Metric returns the named test score.
func (r TestResult) Metric(name string) (Summary, bool) { return findMetric(r.Metrics, name) }

// findMetric returns the summary named name in ms.
func findMetric(ms []Summary, name string) (Summary, bool) {
	for _, m := range ms {
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
	// Gamma is the kernel γ the spec's gamma rule (scale, auto) resolved
	// to on the whole training set (absent without a rule; the points'
	// Info["gamma"] is the mean of their folds').
	Gamma float64 `json:"gamma,omitempty"`
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

// MetricValue is one fit's value of a metric (an element of
// PointResult.FoldScores and FoldResult.Scores). It is a float64 whose NaN
// or ±Inf (a failed fit, an undefined score) is written to JSON as null and
// read back as NaN; convert with float64(v).
type MetricValue float64

// MarshalJSON writes non-finite values as null.
func (f MetricValue) MarshalJSON() ([]byte, error) {
	if p := finite(float64(f)); p != nil {
		return json.Marshal(*p)
	}
	return []byte("null"), nil
}

// UnmarshalJSON reads null as NaN.
func (f *MetricValue) UnmarshalJSON(b []byte) error {
	var p *float64
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*f = MetricValue(unfinite(p))
	return nil
}
