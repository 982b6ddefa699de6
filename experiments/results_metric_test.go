package experiments

import "testing"

// TestMetricLookups checks the three by-name lookups against hand-built
// results: the named summary is found whatever its position, and a missing
// name (or a FitResult without a test set) reports false.
func TestMetricLookups(t *testing.T) {
	ms := []Summary{{Name: "rmse", Mean: 1.5}, {Name: "mae", Mean: 0.75}, {Name: "r2", Mean: 0.5}}
	pr := PointResult{Metrics: ms}
	tr := TestResult{Metrics: ms}
	fr := &FitResult{Test: ms}
	for _, c := range []struct {
		name string
		want float64
	}{{"rmse", 1.5}, {"mae", 0.75}, {"r2", 0.5}} {
		for who, got := range map[string]func(string) (Summary, bool){
			"PointResult.Metric": pr.Metric, "TestResult.Metric": tr.Metric, "FitResult.TestMetric": fr.TestMetric,
		} {
			s, ok := got(c.name)
			if !ok || s.Mean != c.want || s.Name != c.name {
				t.Errorf("%s(%q) = %+v, %v; want mean %v", who, c.name, s, ok, c.want)
			}
		}
	}
	if _, ok := tr.Metric("accuracy"); ok {
		t.Error("TestResult.Metric found a metric it does not hold")
	}
	if _, ok := (&FitResult{}).TestMetric("rmse"); ok {
		t.Error("FitResult.TestMetric without a test set reported a score")
	}
}
