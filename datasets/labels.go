package datasets

import (
	"fmt"
	"math"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
)

// Task is what a dataset's Y holds. The strings are the ones model.Task
// accepts ("binary" and "multiclass" both mean classification there).
type Task string

// The tasks.
const (
	Regression Task = "regression"
	Binary     Task = "binary"
	Multiclass Task = "multiclass"
)

// MaxGuessClasses is the largest number of distinct integral labels GuessTask
// still calls classification; more distinct values look like a discretized
// regression target (cpusmall's 0–99, for example, has 56).
// It is the same bound model's classifiers use (internal/check.FewClasses).
const MaxGuessClasses = check.FewClasses

// ClassCount is one class label and how many rows carry it.
type ClassCount struct {
	Label float64
	Count int
}

// ClassCounts returns the distinct values of y with their counts, ascending by
// label; NaNs, which compare unequal to everything, are counted together as
// one NaN label, first.
func ClassCounts(y []float64) []ClassCount {
	s := slices.Clone(y)
	slices.Sort(s) // NaNs first
	var out []ClassCount
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && (s[j] == s[i] || math.IsNaN(s[j]) && math.IsNaN(s[i])) {
			j++
		}
		out = append(out, ClassCount{Label: s[i], Count: j - i})
		i = j
	}
	return out
}

// integral reports whether v is an integer up to a relative 1e-9 (labels
// written as "1.0" or "0.99999999999" are classes; 0.5 is not); it is the
// rule model's classifiers apply too (internal/check.Integral).
func integral(v float64) bool { return check.Integral(v) }

// GuessTask guesses what y holds: Binary for exactly two distinct values,
// Multiclass for 3…MaxGuessClasses distinct integral values, Regression
// otherwise. It is a guess: an ordinal target such as wine quality (3–9)
// reads as Multiclass; Bundled() records the true task of bundled sets.
func GuessTask(y []float64) Task {
	cc := ClassCounts(y)
	if len(cc) == 2 {
		return Binary
	}
	if len(cc) < 3 || len(cc) > MaxGuessClasses {
		return Regression
	}
	for _, c := range cc {
		if !integral(c.Label) {
			return Regression
		}
	}
	return Multiclass
}

// CheckClasses checks that y can be classification labels: finite, at least
// two classes, every label integral (up to 1e-9 relative), and at most
// maxClasses distinct labels (maxClasses ≤ 0 means 1000).
func CheckClasses(y []float64, maxClasses int) error {
	if maxClasses <= 0 {
		maxClasses = 1000
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("datasets: %w: label %d is %v", ErrInput, i, v)
		}
		if !integral(v) {
			return fmt.Errorf("datasets: %w: label %d is %v, not an integer: is this a regression target?", ErrInput, i, v)
		}
	}
	cc := ClassCounts(y)
	switch {
	case len(cc) < 2:
		return fmt.Errorf("datasets: %w: classification needs at least two classes, the labels have %d", ErrInput, len(cc))
	case len(cc) > maxClasses:
		return fmt.Errorf("datasets: %w: %d distinct labels, more than %d: is this a regression target?", ErrInput, len(cc), maxClasses)
	}
	return nil
}

// PlusMinus maps two-class labels to ±1: the larger label becomes +1 and the
// smaller −1 (the convention of model.Labels, LIBSVM and FALKON). covtype's
// {1, 2} becomes {−1, +1} with Lodgepole Pine (2) positive. It errors unless
// y has exactly two distinct finite values.
func PlusMinus(y []float64) ([]float64, error) {
	if err := check2(y); err != nil {
		return nil, err
	}
	cc := ClassCounts(y)
	return OneVsRest(y, cc[1].Label)
}

func check2(y []float64) error {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("datasets: %w: label %d is %v", ErrInput, i, v)
		}
	}
	if k := len(ClassCounts(y)); k != 2 {
		return fmt.Errorf("datasets: %w: want exactly two classes, the labels have %d", ErrInput, k)
	}
	return nil
}

// OneVsRest returns +1 where y equals positive and −1 elsewhere. It errors
// when positive does not occur or when every label is positive.
func OneVsRest(y []float64, positive float64) ([]float64, error) {
	out := make([]float64, len(y))
	pos := 0
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("datasets: %w: label %d is %v", ErrInput, i, v)
		}
		out[i] = -1
		if v == positive {
			out[i] = 1
			pos++
		}
	}
	switch {
	case pos == 0:
		return nil, fmt.Errorf("datasets: %w: no label equals the positive class %v", ErrInput, positive)
	case pos == len(y):
		return nil, fmt.Errorf("datasets: %w: every label equals the positive class %v", ErrInput, positive)
	}
	return out, nil
}
