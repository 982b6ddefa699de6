package model

import (
	"errors"
	"strings"
	"testing"
)

// TestNewLabelsRule pins the continuous-target rule of NewLabels at its
// boundaries: integral labels with at most max(20, n/2) distinct values are
// classes; a non-integer value or one distinct value more is refused.
func TestNewLabelsRule(t *testing.T) {
	seq := func(k, n int) []float64 { // n rows cycling through labels 0..k-1
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(i % k)
		}
		return y
	}
	for _, c := range []struct {
		name    string
		y       []float64
		classes int    // want this many classes, or
		refuse  string // an error containing this
	}{
		{"±1", []float64{-1, 1, 1, -1}, 2, ""},
		{"primes", []float64{1, 2, 3, 5, 7, 7}, 5, ""},
		{"digits", seq(10, 10), 10, ""},
		{"1.0 written with rounding", []float64{0, 1 + 1e-12, 2}, 3, ""},
		{"20 classes in 20 rows (FewClasses)", seq(20, 20), 20, ""},
		{"21 classes in 21 rows", seq(21, 21), 0, "21 distinct values in 21 rows, more than max(20, 0.5·rows) = 20"},
		{"21 classes in 42 rows (n/2)", seq(21, 42), 21, ""},
		{"22 classes in 42 rows", seq(22, 42), 0, "22 distinct values in 42 rows, more than max(20, 0.5·rows) = 21"},
		{"two non-integer values", []float64{0.5, 1.5, 0.5}, 0, "non-integer values such as 0.5"},
		{"one half-integer among integers", []float64{1, 2, 2.5, 3}, 0, "4 distinct values in 4 rows, non-integer values such as 2.5"},
	} {
		l, err := NewLabels(c.y)
		if c.refuse != "" {
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.refuse) {
				t.Errorf("%s: err = %v, want ErrInput with %q", c.name, err, c.refuse)
			}
			continue
		}
		if err != nil || len(l.Classes) != c.classes {
			t.Errorf("%s: %d classes, err %v; want %d classes", c.name, len(l.Classes), err, c.classes)
		}
	}
}

// TestBalancedClassWeights: scikit-learn's class_weight='balanced' is
// n/(k·n_c): heart_scale's 150 rows of −1 and 120 of +1 give 270/300 = 0.9
// and 270/240 = 1.125 (compute_class_weight gives the same), so each class
// weighs n/k = 135 in all; three classes of 1, 2 and 3 rows give 6/3, 6/6
// and 6/9. Continuous targets are refused as NewLabels refuses them.
func TestBalancedClassWeights(t *testing.T) {
	y := make([]float64, 270)
	for i := range y {
		y[i] = -1
		if i < 120 {
			y[i] = 1
		}
	}
	w, err := BalancedClassWeights(y)
	if err != nil || len(w) != 2 || w[-1] != 0.9 || w[1] != 1.125 {
		t.Errorf("heart_scale's counts: %v (%v), want -1: 0.9, 1: 1.125", w, err)
	}
	w, err = BalancedClassWeights([]float64{7, 3, 3, 5, 5, 5})
	if err != nil || w[7] != 2 || w[3] != 1 || w[5] != 6.0/9 {
		t.Errorf("counts 1, 2, 3: %v (%v)", w, err)
	}
	if _, err := BalancedClassWeights([]float64{0.5, 1.25, 3.1, 4.7}); !errors.Is(err, ErrInput) {
		t.Errorf("continuous targets: %v, want ErrInput", err)
	}
}
