package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TransformInPlace leaves in x exactly (bit for bit) the matrix Transform
// returns, for the three dense scalers, on rows with a constant column
// (Std 0, Max = Min) and on a view whose stride exceeds its columns; the
// errors are Transform's (not fitted, wrong columns).
func TestTransformInPlaceEqualsTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	big := mat.NewDense(40, 6, nil)
	for i := range 40 {
		for j := range 6 {
			big.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(j-2)))
		}
		big.Set(i, 2, 3.5) // constant column
	}
	x := big.Slice(3, 40, 0, 5).(*mat.Dense) // stride 6, 5 columns
	var st Standardizer
	mm := MinMax{Lower: 0, Upper: 1}
	cs := ColumnScaler{Kind: "std"}
	for name, sc := range map[string]struct {
		fit   func(*mat.Dense) error
		tr    func(*mat.Dense) (*mat.Dense, error)
		inPl  func(*mat.Dense) error
		fresh func() error
	}{
		"standardize": {st.Fit, st.Transform, st.TransformInPlace, func() error { var s Standardizer; return s.TransformInPlace(x) }},
		"minmax":      {mm.Fit, mm.Transform, mm.TransformInPlace, func() error { var m MinMax; return m.TransformInPlace(x) }},
		"std": {func(x *mat.Dense) error { return cs.Fit(x) }, func(x *mat.Dense) (*mat.Dense, error) {
			t, err := cs.Transform(x)
			if err != nil {
				return nil, err
			}
			return t.(*mat.Dense), nil
		}, cs.TransformInPlace, func() error { var c ColumnScaler; return c.TransformInPlace(x) }},
	} {
		if err := sc.fresh(); !errors.Is(err, ErrNotFitted) {
			t.Errorf("%s: unfitted: err = %v, want ErrNotFitted", name, err)
		}
		if err := sc.fit(x); err != nil {
			t.Fatal(err)
		}
		want, err := sc.tr(x)
		if err != nil {
			t.Fatal(err)
		}
		whole := mat.DenseCopyOf(big)
		got := whole.Slice(3, 40, 0, 5).(*mat.Dense)
		if err := sc.inPl(got); err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			if whole.At(i, 5) != big.At(i, 5) || i < 3 && whole.At(i, 0) != big.At(i, 0) {
				t.Fatalf("%s: row %d outside the view changed", name, i)
			}
		}
		for i := range 37 {
			for j := range 5 {
				if a, b := got.At(i, j), want.At(i, j); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("%s: [%d,%d] in place %v, Transform %v", name, i, j, a, b)
				}
			}
		}
		if err := sc.inPl(mat.NewDense(2, 4, nil)); !errors.Is(err, ErrInput) {
			t.Errorf("%s: 4 columns for 5: err = %v, want ErrInput", name, err)
		}
	}
}
