package datasets

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestClassCounts(t *testing.T) {
	y := []float64{2, 1, 2, 7, 1, 2}
	got := ClassCounts(y)
	want := []ClassCount{{1, 2}, {2, 3}, {7, 1}}
	if !slices.Equal(got, want) {
		t.Fatalf("ClassCounts = %v, want %v", got, want)
	}
	// Brute-force check on the labels of a random split of pendigits-like data.
	y = []float64{}
	for i := range 1000 {
		y = append(y, float64((i*7919)%10))
	}
	total := 0
	for _, c := range ClassCounts(y) {
		n := 0
		for _, v := range y {
			if v == c.Label {
				n++
			}
		}
		if n != c.Count {
			t.Errorf("class %v: count %d, brute force %d", c.Label, c.Count, n)
		}
		total += c.Count
	}
	if total != len(y) {
		t.Errorf("counts add to %d, want %d", total, len(y))
	}
}

func TestGuessTask(t *testing.T) {
	cases := []struct {
		y    []float64
		want Task
	}{
		{[]float64{-1, 1, 1, -1}, Binary},
		{[]float64{1, 2, 2}, Binary},
		{[]float64{0, 1, 2, 3, 1}, Multiclass},
		{[]float64{1.0000000000001, 2, 3}, Multiclass},
		{[]float64{0.5, 1.5, 2.5}, Regression},
		{[]float64{3, 3, 3}, Regression},
	}
	for _, c := range cases {
		if got := GuessTask(c.y); got != c.want {
			t.Errorf("GuessTask(%v) = %s, want %s", c.y, got, c.want)
		}
	}
	// More than MaxGuessClasses integral values read as a regression target.
	var y []float64
	for i := range MaxGuessClasses + 1 {
		y = append(y, float64(i))
	}
	if got := GuessTask(y); got != Regression {
		t.Errorf("%d integral values: %s, want regression", len(y), got)
	}
}

func TestCheckClasses(t *testing.T) {
	if err := CheckClasses([]float64{1, 2, 3, 1}, 0); err != nil {
		t.Errorf("good labels: %v", err)
	}
	for _, y := range [][]float64{
		{1, 1, 1},
		{1, 2.5},
		{1, math.NaN()},
		{1, math.Inf(1)},
		{0, 1, 2, 3},
	} {
		if err := CheckClasses(y, 3); !errors.Is(err, ErrInput) {
			t.Errorf("CheckClasses(%v, 3) = %v, want ErrInput", y, err)
		}
	}
}

func TestPlusMinus(t *testing.T) {
	// covtype's {1, 2}: 2 (Lodgepole Pine) becomes +1.
	got, err := PlusMinus([]float64{1, 2, 2, 1})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{-1, 1, 1, -1}; !slices.Equal(got, want) {
		t.Errorf("PlusMinus = %v, want %v", got, want)
	}
	for _, y := range [][]float64{{1, 1}, {1, 2, 3}, {1, math.NaN()}} {
		if _, err := PlusMinus(y); !errors.Is(err, ErrInput) {
			t.Errorf("PlusMinus(%v): err = %v, want ErrInput", y, err)
		}
	}
	got, err = OneVsRest([]float64{0, 3, 5, 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{-1, 1, -1, 1}; !slices.Equal(got, want) {
		t.Errorf("OneVsRest = %v, want %v", got, want)
	}
	if _, err := OneVsRest([]float64{0, 1}, 2); !errors.Is(err, ErrInput) {
		t.Errorf("absent positive class: err = %v", err)
	}
	if _, err := OneVsRest([]float64{2, 2}, 2); !errors.Is(err, ErrInput) {
		t.Errorf("all positive: err = %v", err)
	}
}
