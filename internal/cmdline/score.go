package cmdline

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
)

// ScoreLine formats metrics as the commands print them, "accuracy 0.9,
// auc 0.95, …" (6 significant digits). A NaN auc, which experiments.Score
// gives when the labels scored are not two classes (no ROC curve exists:
// scikit-learn's roc_auc_score raises "Only one class present in y_true"),
// is printed as "auc undefined (…)" with the reason instead of NaN; the
// other metrics print as usual. y, when non-nil, are the labels scored,
// from which the reason names their classes; nil says only that they are
// not two.
func ScoreLine(s []experiments.Summary, y []float64) string {
	parts := make([]string, len(s))
	for i, m := range s {
		parts[i] = fmt.Sprintf("%s %.6g", m.Name, m.Mean)
		if m.Name == "auc" && math.IsNaN(m.Mean) {
			if why := aucUndefined(y); why != "" {
				parts[i] = "auc undefined (" + why + ")"
			}
		}
	}
	return strings.Join(parts, ", ")
}

// aucUndefined says why the AUC of labels y is undefined: "" when y are
// two classes (a NaN then has another cause, printed as NaN).
func aucUndefined(y []float64) string {
	if y == nil {
		return "the labels are not two classes; ROC AUC needs exactly two"
	}
	cs := slices.Compact(slices.Sorted(slices.Values(y)))
	switch {
	case len(cs) == 1:
		return "only one class in the labels, " + strconv.FormatFloat(cs[0], 'g', -1, 64) + "; ROC AUC needs two"
	case len(cs) > 2:
		return fmt.Sprintf("the labels hold %d classes; ROC AUC needs exactly two", len(cs))
	}
	return ""
}
