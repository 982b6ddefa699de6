package experiments

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
)

// UnseenLabels returns the labels of y that are none of classes (the
// training labels, or a fitted classifier's Classes), with their row
// counts, ascending by label; nil when every label is a class. Such rows
// can never be predicted right: scored, they count as errors.
func UnseenLabels(y, classes []float64) []datasets.ClassCount {
	var out []datasets.ClassCount
	for _, c := range datasets.ClassCounts(y) {
		if !slices.Contains(classes, c.Label) {
			out = append(out, c)
		}
	}
	return out
}

// unseenNote is the warning for the rows of a test set (what, e.g. "the
// test data") whose labels the model never saw, naming each label (name
// gives a label's text: the class name of a text label) with its count:
// `warning: 3 of 50 rows of the test data have labels the training data
// lacks: "X" (2 rows), "A" (1 row): the model cannot predict them, so
// they are scored as errors`; "" when there are none.
func unseenNote(what string, y, classes []float64, name func(float64) string) string {
	un := UnseenLabels(y, classes)
	if len(un) == 0 {
		return ""
	}
	const shown = 10
	rows := 0
	var parts []string
	for i, c := range un {
		rows += c.Count
		if i < shown {
			parts = append(parts, fmt.Sprintf("%s (%d row%s)", name(c.Label), c.Count, plural(c.Count)))
		}
	}
	if len(un) > shown {
		parts = append(parts, fmt.Sprintf("… (%d labels in all)", len(un)))
	}
	return fmt.Sprintf("warning: %d of %d rows of %s have labels the training data lacks: %s: the model cannot predict them, so they are scored as errors", rows, len(y), what, strings.Join(parts, ", "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// labelNamer names the labels of data whose text labels are classes
// (quoted), numbers in their shortest form otherwise.
func labelNamer(classes []string) func(float64) string {
	return func(v float64) string {
		if k := int(v); classes != nil && float64(k) == v && k >= 0 && k < len(classes) {
			return strconv.Quote(classes[k])
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
}
