package cmdline

import (
	"math"
	"testing"

	"github.com/landmark-ml/landmark/experiments"
)

// TestScoreLine: a NaN auc prints as undefined with the reason the labels
// give (one class, more than two, or unknown), never as NaN; the other
// metrics as before, 6 significant digits.
func TestScoreLine(t *testing.T) {
	s := []experiments.Summary{{Name: "accuracy", Mean: 0.8583333333333333}, {Name: "auc", Mean: math.NaN()}, {Name: "f1", Mean: 2.0 / 3}}
	for _, c := range []struct {
		y    []float64
		want string
	}{
		{[]float64{1, 1, 1}, "accuracy 0.858333, auc undefined (only one class in the labels, 1; ROC AUC needs two), f1 0.666667"},
		{[]float64{-1, -1}, "accuracy 0.858333, auc undefined (only one class in the labels, -1; ROC AUC needs two), f1 0.666667"},
		{[]float64{-1, 1, 2, 1}, "accuracy 0.858333, auc undefined (the labels hold 3 classes; ROC AUC needs exactly two), f1 0.666667"},
		{nil, "accuracy 0.858333, auc undefined (the labels are not two classes; ROC AUC needs exactly two), f1 0.666667"},
		// Two classes and still NaN: another cause, not guessed at.
		{[]float64{-1, 1}, "accuracy 0.858333, auc NaN, f1 0.666667"},
	} {
		if got := ScoreLine(s, c.y); got != c.want {
			t.Errorf("y %v:\n got %s\nwant %s", c.y, got, c.want)
		}
	}
	s[1].Mean = 0.5
	if got, want := ScoreLine(s, []float64{1}), "accuracy 0.858333, auc 0.5, f1 0.666667"; got != want {
		t.Errorf("a defined auc: got %s, want %s", got, want)
	}
}
