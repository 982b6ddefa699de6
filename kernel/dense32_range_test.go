package kernel

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// csrOf is a Sparse view of dense x (its non-zeros, row by row).
type csrOf struct{ *mat.Dense }

func (c csrOf) CSR() ([]int, []int32, []float64) {
	r, k := c.Dims()
	indptr := []int{0}
	var idx []int32
	var val []float64
	for i := range r {
		for j := range k {
			if v := c.At(i, j); v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
		indptr = append(indptr, len(val))
	}
	return indptr, idx, val
}

// TestDense32OfRange: a finite value whose float32 rounding is an infinity
// is refused, naming its row and column (dense and sparse X), wrapping
// ErrFloat32Range and check.ErrInput; it was +Inf silently. The edge is
// float32 rounding's: MaxFloat32 = (2 − 2⁻²³)·2¹²⁷ has an odd last bit and
// a last place of 2¹⁰⁴, so MaxFloat32 + 2¹⁰² rounds down to it (kept) and
// MaxFloat32 + 2¹⁰³, halfway, rounds to even, the infinity (refused).
// Underflow is not an error: 1e-45 becomes the smallest subnormal
// 2⁻¹⁴⁹ ≈ 1.4e-45, 1e-46 becomes 0. NaN and ±Inf pass through (the
// callers' finiteness checks name them).
func TestDense32OfRange(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{1e300, "row 1, column 2: 1e+300 rounds to an infinity in float32"},
		{-1e39, "row 1, column 2: -1e+39 rounds to an infinity in float32"},
		{math.MaxFloat32 + 0x1p103, "row 1, column 2: 3.4028235677973366e+38 rounds to an infinity"},
	} {
		x := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, c.v})
		for name, m := range map[string]mat.Matrix{"dense": x, "sparse": csrOf{x}} {
			_, err := Dense32Of(m)
			if !errors.Is(err, ErrFloat32Range) || !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s %g: err %v, want ErrFloat32Range naming %q", name, c.v, err, c.want)
			}
			// CheckFloat32Range, the same check without the copy,
			// gives the same error.
			if err2 := CheckFloat32Range(x); err2 == nil || err == nil || err2.Error() != err.Error() {
				t.Errorf("%s %g: CheckFloat32Range gave %v, Dense32Of %v", name, c.v, err2, err)
			}
		}
	}
	x := mat.NewDense(1, 6, []float64{math.MaxFloat32 + 0x1p102, -math.MaxFloat32, 1e-45, 1e-46, math.Inf(-1), math.NaN()})
	if err := CheckFloat32Range(x); err != nil {
		t.Errorf("CheckFloat32Range refused the edge values: %v", err)
	}
	d, err := Dense32Of(x)
	if err != nil {
		t.Fatal(err)
	}
	got := d.RawRow(0)
	if got[0] != math.MaxFloat32 || got[1] != -math.MaxFloat32 || got[2] != math.SmallestNonzeroFloat32 || got[3] != 0 ||
		!math.IsInf(float64(got[4]), -1) || !math.IsNaN(float64(got[5])) {
		t.Fatalf("edge values rounded to %v", got)
	}
}
