package check

import (
	"fmt"
	"math"
	"slices"
)

// FewClasses is the number of distinct integral labels that always count as
// classes: datasets.GuessTask calls up to this many "multiclass", and
// ClassLabels accepts up to this many whatever the number of rows.
const FewClasses = 20

// MaxClassShare is the largest share of the rows that may be distinct class
// labels once there are more than FewClasses of them: with more distinct
// values than MaxClassShare·n (fewer than two rows per class on average) the
// labels look like a discretized regression target.
const MaxClassShare = 0.5

// Integral reports whether v is an integer up to a relative 1e-9 (labels
// written as "1.0" or "0.99999999999" are classes; 0.5 is not).
func Integral(v float64) bool {
	return math.Abs(v-math.Round(v)) <= 1e-9*math.Max(1, math.Abs(v))
}

// ClassLabels checks that y, already known finite, can be class labels in
// the sense of scikit-learn's check_classification_targets: every value
// integral (non-integer values are a "continuous" target), and at most
// max(FewClasses, MaxClassShare·len(y)) distinct values. The error wraps
// ErrInput and names the rule that failed.
func ClassLabels(y []float64) error {
	c := slices.Clone(y)
	slices.Sort(c)
	c = slices.Compact(c)
	for _, v := range c {
		if !Integral(v) {
			return fmt.Errorf("%w: classification targets look continuous: %d distinct values in %d rows, non-integer values such as %v (want integer class labels; use regression)",
				ErrInput, len(c), len(y), v)
		}
	}
	if limit := max(FewClasses, int(MaxClassShare*float64(len(y)))); len(c) > limit {
		return fmt.Errorf("%w: classification targets look continuous: %d distinct values in %d rows, more than max(%d, %g·rows) = %d (want class labels; use regression)",
			ErrInput, len(c), len(y), FewClasses, MaxClassShare, limit)
	}
	return nil
}
