package datasets

import (
	"errors"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Column statistics that overflow float64 are refused, not kept as ±Inf.
// Before 2026-11-27, Fit on the column {1e308, −1e308} kept Std = +Inf
// (the sum of squares 2e616 overflows) and Transform mapped both values to 0,
// and on {1e308, 1e308, 1} the mean overflowed to +Inf and Transform gave NaN.
// 1e200 is far beyond the ~1.3e154 where a square overflows; 1e150 is below it
// (squares 1e300, two of them sum to 2e300 < 1.8e308) and must still work.
func TestStandardizerOverflowRefused(t *testing.T) {
	for _, col := range [][]float64{{1e308, -1e308}, {1e308, 1e308, 1}, {1e200, -1e200, 0}} {
		x := mat.NewDense(len(col), 1, col)
		var s Standardizer
		err := s.Fit(x)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "column 0") {
			t.Errorf("Fit(%v): err = %v, want ErrInput naming column 0 (Mean %v, Std %v)", col, err, s.Mean, s.Std)
		}
		if s.Mean != nil {
			t.Errorf("Fit(%v) failed but set Mean %v", col, s.Mean)
		}
		var ts TargetScaler
		if err := ts.Fit(col); !errors.Is(err, ErrInput) {
			t.Errorf("TargetScaler.Fit(%v): err = %v, want ErrInput", col, err)
		}
	}
	var s Standardizer
	if err := s.Fit(mat.NewDense(2, 1, []float64{1e150, -1e150})); err != nil {
		t.Fatalf("Fit(±1e150): %v", err)
	}
	// Mean 0 and population std 1e150, up to rounding of the square root.
	if s.Mean[0] != 0 || math.Abs(s.Std[0]/1e150-1) > 1e-15 {
		t.Errorf("Fit(±1e150): Mean %g, Std %g, want 0 and 1e150", s.Mean[0], s.Std[0])
	}
}
