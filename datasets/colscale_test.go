package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestColumnScalerValues: factors of a small matrix worked by hand. Column 0
// is {2, 0, −4, 0}: max |x| = 4; mean −0.5, population variance
// (2.5² + 0.5² + 3.5² + 0.5²)/4 = 4.75. Column 1 is zero (factor 1 for both
// kinds), column 2 constant 3 (std factor 1, maxabs 1/3), column 3
// {0, 0, 0, 5}: mean 1.25, variance (3·1.25² + 3.75²)/4 = 4.6875.
func TestColumnScalerValues(t *testing.T) {
	x := mat.NewDense(4, 4, []float64{
		2, 0, 3, 0,
		0, 0, 3, 0,
		-4, 0, 3, 0,
		0, 0, 3, 5,
	})
	xs, err := CSRFromDense(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		kind string
		want []float64
	}{
		{ScaleMaxAbs, []float64{0.25, 1, 1.0 / 3, 0.2}},
		{ScaleStd, []float64{1 / math.Sqrt(4.75), 1, 1, 1 / math.Sqrt(4.6875)}},
	} {
		for _, in := range []mat.Matrix{x, xs} {
			c := ColumnScaler{Kind: tc.kind}
			if err := c.Fit(in); err != nil {
				t.Fatal(err)
			}
			for j, w := range tc.want {
				// 2 ulp: the two-pass variance rounds a few times.
				if math.Abs(c.Factors[j]-w) > 4e-16*w {
					t.Errorf("%s on %T: factor %d = %v, want %v", tc.kind, in, j, c.Factors[j], w)
				}
			}
		}
	}
	// std agrees with the Standardizer's standard deviation (same
	// population formula; the sums differ only in where the zeros go).
	var st Standardizer
	if err := st.Fit(x); err != nil {
		t.Fatal(err)
	}
	c := ColumnScaler{Kind: ScaleStd}
	if err := c.Fit(x); err != nil {
		t.Fatal(err)
	}
	for _, j := range []int{0, 3} {
		if d := math.Abs(c.Factors[j]*st.Std[j] - 1); d > 1e-15 {
			t.Errorf("column %d: factor·σ − 1 = %g", j, d)
		}
	}
}

// TestColumnScalerSparseMatchesDense: on a random sparse matrix the factors
// from CSR and from its dense copy are bitwise equal, and so are the
// transformed matrices (the CSR one keeps its structure).
func TestColumnScalerSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	xs, _, err := SparseRegression(300, 40, 5, rng)
	if err != nil {
		t.Fatal(err)
	}
	xd := xs.ToDense()
	for _, kind := range []string{ScaleMaxAbs, ScaleStd} {
		var a, b ColumnScaler
		a.Kind, b.Kind = kind, kind
		if err := a.Fit(xs); err != nil {
			t.Fatal(err)
		}
		if err := b.Fit(xd); err != nil {
			t.Fatal(err)
		}
		for j := range a.Factors {
			if a.Factors[j] != b.Factors[j] {
				t.Fatalf("%s column %d: CSR %v, dense %v", kind, j, a.Factors[j], b.Factors[j])
			}
		}
		ts, err := a.Transform(xs)
		if err != nil {
			t.Fatal(err)
		}
		td, err := b.Transform(xd)
		if err != nil {
			t.Fatal(err)
		}
		cs, ok := ts.(*CSR)
		if !ok || cs.NNZ() != xs.NNZ() {
			t.Fatalf("%s: CSR transformed to %T", kind, ts)
		}
		if !mat.Equal(cs.ToDense(), td) {
			t.Fatalf("%s: transformed CSR differs from the transformed dense matrix", kind)
		}
		if kind == ScaleMaxAbs {
			for _, v := range cs.Values {
				if math.Abs(v) > 1 {
					t.Fatalf("maxabs left %v outside [−1, 1]", v)
				}
			}
		}
	}
}

// Explicit zeros stored in a CSR (as svmlight "3:0" keeps them) are zeros
// like the dense path's: the factors are the same bits. Column 0 holds
// {1, 0 (stored), 2, 0 (stored), 4}; the visit order of stored zeros
// changed the std factor's last bits before.
func TestColumnScalerStoredZeros(t *testing.T) {
	xs, err := NewCSR(5, 2, []int{0, 1, 3, 4, 6, 7}, []int32{0, 0, 1, 0, 0, 1, 0}, []float64{1, 0, 3, 2, 0, 0, 4})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := 0; trial < 200; trial++ {
		for _, p := range []int{0, 2, 3, 6} { // the non-zeros; 1, 4, 5 stay stored zeros
			xs.Values[p] = rng.NormFloat64() * 3
		}
		var a, b ColumnScaler
		a.Kind, b.Kind = ScaleStd, ScaleStd
		if err := a.Fit(xs); err != nil {
			t.Fatal(err)
		}
		if err := b.Fit(xs.ToDense()); err != nil {
			t.Fatal(err)
		}
		for j := range a.Factors {
			if math.Float64bits(a.Factors[j]) != math.Float64bits(b.Factors[j]) {
				t.Fatalf("trial %d column %d: CSR %v, dense %v", trial, j, a.Factors[j], b.Factors[j])
			}
		}
	}
}

// TestColumnScalerErrors: bad kinds, data and use before Fit are errors.
func TestColumnScalerErrors(t *testing.T) {
	x := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	if err := (&ColumnScaler{Kind: "minmax"}).Fit(x); !errors.Is(err, ErrInput) {
		t.Errorf("kind minmax: %v", err)
	}
	for name, in := range map[string]mat.Matrix{"nil": nil, "nil CSR": (*CSR)(nil), "empty": &mat.Dense{}, "NaN": mat.NewDense(1, 1, []float64{math.NaN()})} {
		if err := (&ColumnScaler{Kind: ScaleStd}).Fit(in); !errors.Is(err, ErrInput) {
			t.Errorf("Fit on %s: %v", name, err)
		}
	}
	c := ColumnScaler{Kind: ScaleMaxAbs}
	if _, err := c.Transform(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("Transform before Fit: %v", err)
	}
	if err := c.Fit(x); err != nil {
		t.Fatal(err)
	}
	wide, _ := NewCSR(1, 3, []int{0, 1}, []int32{2}, []float64{1})
	for name, in := range map[string]mat.Matrix{"3-column dense": mat.NewDense(1, 3, nil), "3-column CSR": wide, "nil": nil} {
		if _, err := c.Transform(in); !errors.Is(err, ErrInput) {
			t.Errorf("Transform %s: %v", name, err)
		}
	}
}
