package experiments

import (
	"math"
	"strings"
	"testing"
)

// TestMarkdownUndefinedAUC: summary.md prints a NaN auc — what Score gives
// when the labels scored are not two classes — as "undefined (labels not
// two classes)" in the test table and in the grid's CV column when auc is
// the selection metric, while a failed point keeps its NaN and its
// "failed" mark, and the other metrics print as numbers.
func TestMarkdownUndefinedAUC(t *testing.T) {
	nan := math.NaN()
	r := &Result{
		Spec:   &Spec{Name: "one-class", Task: "binary"},
		Metric: "auc",
		Best:   -1,
		Points: []PointResult{
			{Key: "a", Metrics: []Summary{{Name: "accuracy", Mean: 1}, {Name: "auc", Mean: nan, Std: nan}}, Fits: 5},
			{Key: "b", Metrics: []Summary{{Name: "accuracy", Mean: nan, Std: nan}, {Name: "auc", Mean: nan, Std: nan}}, Error: "boom"},
		},
		Test: &TestResult{Metrics: []Summary{{Name: "accuracy", Mean: 0.9}, {Name: "auc", Mean: nan}}, NTrain: 10, NTest: 4},
	}
	md := r.Markdown()
	for _, want := range []string{
		"| accuracy | 0.9 |\n",
		"| auc | undefined (labels not two classes) |\n",
		"| undefined (labels not two classes) |", // point a's CV auc
		"| NaN ± NaN |",                          // point b failed
		"failed: boom",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "undefined") != 2 {
		t.Errorf("summary.md has %d \"undefined\", want 2 (the test auc and point a's):\n%s", strings.Count(md, "undefined"), md)
	}
}
