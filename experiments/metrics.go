package experiments

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Metric scores predictions against the truth.
type Metric struct {
	// Name is the YAML name.
	Name string
	// HigherBetter says which direction is better (false: lower is better).
	HigherBetter bool
	// Tasks lists the spec tasks the metric applies to.
	Tasks []string
	// Doc is a one-line description.
	Doc string
	// Score computes the metric. y are the true values or labels, pred the
	// predictions; scores, when non-nil, are binary decision values (larger
	// means the larger label), used by auc.
	Score func(y, pred, scores []float64) (float64, error)
}

func (m Metric) appliesTo(task string) bool { return slices.Contains(m.Tasks, task) }

// better reports whether a is strictly better than b under m.
func (m Metric) better(a, b float64) bool {
	if math.IsNaN(b) {
		return !math.IsNaN(a)
	}
	if m.HigherBetter {
		return a > b
	}
	return a < b
}

var (
	regression     = []string{TaskRegression}
	classification = []string{TaskBinary, TaskMulticlass}
)

// metrics is the metric table, sorted by name.
var metrics = []Metric{
	{Name: "accuracy", HigherBetter: true, Tasks: classification, Doc: "fraction of correct labels", Score: accuracy},
	{Name: "auc", HigherBetter: true, Tasks: []string{TaskBinary}, Doc: "area under the ROC curve (binary; ties count ½; from decision values when the estimator gives them, else from labels)", Score: auc},
	{Name: "balanced_accuracy", HigherBetter: true, Tasks: classification, Doc: "mean per-class recall", Score: balancedAccuracy},
	{Name: "error", HigherBetter: false, Tasks: classification, Doc: "fraction of wrong labels (1 − accuracy)", Score: errorRate},
	{Name: "f1", HigherBetter: true, Tasks: classification, Doc: "F1 of the larger label (binary); unweighted mean of per-class F1 (multiclass)", Score: f1},
	{Name: "mae", HigherBetter: false, Tasks: regression, Doc: "mean absolute error, target units", Score: mae},
	{Name: "r2", HigherBetter: true, Tasks: regression, Doc: "coefficient of determination 1 − SSE/SST", Score: r2},
	{Name: "rmse", HigherBetter: false, Tasks: regression, Doc: "root mean squared error, target units", Score: rmse},
}

// MetricNames returns the metric names, sorted.
func MetricNames() []string {
	n := make([]string, len(metrics))
	for i, m := range metrics {
		n[i] = m.Name
	}
	return n
}

// Metrics returns a copy of the metric table, sorted by name.
func Metrics() []Metric { return slices.Clone(metrics) }

func metricByName(name string) (Metric, bool) {
	for _, m := range metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// taskMetrics returns the metrics that apply to a task, in table order.
func taskMetrics(task string) []Metric {
	var out []Metric
	for _, m := range metrics {
		if m.appliesTo(task) {
			out = append(out, m)
		}
	}
	return out
}

// defaultMetric is the selection metric when the spec names none.
func defaultMetric(task string) string {
	if task == TaskRegression {
		return "rmse"
	}
	return "accuracy"
}

func sameLen(y, pred []float64) error {
	if len(y) != len(pred) {
		return fmt.Errorf("%w: %d predictions for %d targets", ErrSpec, len(pred), len(y))
	}
	if len(y) == 0 {
		return fmt.Errorf("%w: no predictions to score", ErrSpec)
	}
	return nil
}

func rmse(y, pred, _ []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	var s float64
	for i := range y {
		d := y[i] - pred[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(y))), nil
}

func mae(y, pred, _ []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	var s float64
	for i := range y {
		s += math.Abs(y[i] - pred[i])
	}
	return s / float64(len(y)), nil
}

func r2(y, pred, _ []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(len(y))
	var sse, sst float64
	for i := range y {
		sse += (y[i] - pred[i]) * (y[i] - pred[i])
		sst += (y[i] - mean) * (y[i] - mean)
	}
	if sst == 0 {
		return math.NaN(), nil
	}
	return 1 - sse/sst, nil
}

func accuracy(y, pred, _ []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	c := 0
	for i := range y {
		if y[i] == pred[i] {
			c++
		}
	}
	return float64(c) / float64(len(y)), nil
}

func errorRate(y, pred, s []float64) (float64, error) {
	a, err := accuracy(y, pred, s)
	return 1 - a, err
}

// classes returns the sorted distinct labels of y.
func classes(y []float64) []float64 {
	c := slices.Clone(y)
	slices.Sort(c)
	return slices.Compact(c)
}

func balancedAccuracy(y, pred, _ []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	cs := classes(y)
	var sum float64
	for _, c := range cs {
		tp, n := 0, 0
		for i := range y {
			if y[i] == c {
				n++
				if pred[i] == c {
					tp++
				}
			}
		}
		sum += float64(tp) / float64(n)
	}
	return sum / float64(len(cs)), nil
}

// f1For is the F1 score of class c: 2TP/(2TP+FP+FN), 0 when undefined.
func f1For(y, pred []float64, c float64) float64 {
	var tp, fp, fn int
	for i := range y {
		switch {
		case y[i] == c && pred[i] == c:
			tp++
		case y[i] != c && pred[i] == c:
			fp++
		case y[i] == c && pred[i] != c:
			fn++
		}
	}
	if tp == 0 {
		return 0
	}
	return 2 * float64(tp) / float64(2*tp+fp+fn)
}

func f1(y, pred, _ []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	cs := classes(append(slices.Clone(y), pred...))
	if len(cs) <= 2 {
		return f1For(y, pred, cs[len(cs)-1]), nil
	}
	var sum float64
	tc := classes(y)
	for _, c := range tc {
		sum += f1For(y, pred, c)
	}
	return sum / float64(len(tc)), nil
}

// auc is the Mann–Whitney statistic: the probability that a random positive
// (the larger label) scores above a random negative, ties counting ½.
func auc(y, pred, scores []float64) (float64, error) {
	if err := sameLen(y, pred); err != nil {
		return 0, err
	}
	if scores == nil {
		scores = pred
	}
	if len(scores) != len(y) {
		return 0, fmt.Errorf("%w: %d scores for %d labels", ErrSpec, len(scores), len(y))
	}
	cs := classes(y)
	if len(cs) != 2 {
		return math.NaN(), nil
	}
	pos := cs[1]
	idx := make([]int, len(y))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	// Average ranks over ties, then U = Σ ranks(pos) − P(P+1)/2.
	var rankSum float64
	var np, nn float64
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // mean of 1-based ranks i+1…j
		for k := i; k < j; k++ {
			if y[idx[k]] == pos {
				rankSum += r
			}
		}
		i = j
	}
	for _, v := range y {
		if v == pos {
			np++
		} else {
			nn++
		}
	}
	return (rankSum - np*(np+1)/2) / (np * nn), nil
}

// Score computes every metric of task (regression, binary, multiclass) for
// predictions pred of y; auc uses labels as scores (it is then balanced
// accuracy: use ScoreWith and the decision values).
func Score(task string, y, pred []float64) ([]Summary, error) {
	return ScoreWith(task, y, pred, nil)
}

// ScoreWith is Score with binary decision values (larger means the larger
// label) for auc, as cross-validation and fit --test-data compute it;
// scores nil means the labels.
func ScoreWith(task string, y, pred, scores []float64) ([]Summary, error) {
	var out []Summary
	for _, m := range taskMetrics(task) {
		v, err := m.Score(y, pred, scores)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		out = append(out, Summary{Name: m.Name, Mean: v})
	}
	return out, nil
}
