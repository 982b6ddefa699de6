package experiments

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/model"
)

// classWeightBalanced is class_weight's value for scikit-learn's rule.
const classWeightBalanced = "balanced"

// optClassWeight is the SVMs' class_weight option (svm and bka-svm).
var optClassWeight = Option{Name: "class_weight", Kind: KindString, Parse: checkClassWeight,
	Doc: "multiply C per class: balanced (n/(k·n_c) on each fit's labels, scikit-learn's class_weight='balanced') or LABEL:W,… (LIBSVM's -wLABEL W; a text label by its name); other classes 1"}

// optClassWeightRidge is krr's and falkon's class_weight: the same values,
// weighing the squared loss.
var optClassWeightRidge = Option{Name: "class_weight", Kind: KindString, Parse: checkClassWeight,
	Doc: "classification: weigh each row's squared loss by its class's weight (scikit-learn's RidgeClassifier class_weight): balanced (n/(k·n_c) on each fit's labels) or LABEL:W,… (a text label by its name); other classes 1; times the sample weights"}

// checkClassWeight checks class_weight's syntax (the labels are checked
// against the data at fit time).
func checkClassWeight(s string) error {
	_, err := parseClassWeight(s)
	return err
}

// classWeight is one LABEL:W of class_weight, the label as written.
type classWeight struct {
	label  string
	weight float64
}

// parseClassWeight splits class_weight "LABEL:W,…" into its pairs (nil
// for balanced): weights finite and > 0, no label twice.
func parseClassWeight(s string) ([]classWeight, error) {
	if s == classWeightBalanced {
		return nil, nil
	}
	var out []classWeight
	for part := range strings.SplitSeq(s, ",") {
		i := strings.LastIndexByte(part, ':')
		if i < 0 {
			return nil, fmt.Errorf("%q: want balanced or LABEL:WEIGHT pairs separated by commas, such as 1:5,-1:1", s)
		}
		label, ws := strings.TrimSpace(part[:i]), strings.TrimSpace(part[i+1:])
		w, err := strconv.ParseFloat(ws, 64)
		if err != nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("%q: the weight of %q is %q, want a finite number > 0", s, label, ws)
		}
		if label == "" || slices.ContainsFunc(out, func(c classWeight) bool { return c.label == label }) {
			return nil, fmt.Errorf("%q: label %q empty or given twice", s, label)
		}
		out = append(out, classWeight{label, w})
	}
	return out, nil
}

// classWeights resolves the class_weight option of c into the SVMs'
// ClassWeights (label → weight; nil without the option): balanced gives
// each class of c.Labels n/(k·n_c), scikit-learn's rule; pairs name a
// label by its number, or by its name for text labels (c.ClassNames).
func classWeights(c Config) (map[float64]float64, error) {
	s := c.String(optClassWeight.Name, "")
	if s == "" {
		return nil, nil
	}
	pairs, err := parseClassWeight(s)
	if err != nil {
		return nil, fmt.Errorf("%w: class_weight %w", ErrSpec, err)
	}
	if s == classWeightBalanced {
		if len(c.Labels) == 0 {
			return nil, fmt.Errorf("%w: class_weight balanced needs the fit's labels", ErrSpec)
		}
		return model.BalancedClassWeights(c.Labels)
	}
	w := make(map[float64]float64, len(pairs))
	for _, p := range pairs {
		var label float64
		if c.ClassNames != nil {
			k := slices.Index(c.ClassNames, p.label)
			if k < 0 {
				return nil, fmt.Errorf("%w: class_weight names %q, not one of the classes %s", ErrSpec, p.label, quoteClasses(c.ClassNames))
			}
			label = float64(k)
		} else if label, err = strconv.ParseFloat(p.label, 64); err != nil {
			return nil, fmt.Errorf("%w: class_weight names %q, but the labels are numbers", ErrSpec, p.label)
		}
		w[label] = p.weight
	}
	return w, nil
}
