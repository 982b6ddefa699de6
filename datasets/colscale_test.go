package datasets

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
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
	for name, in := range map[string]mat.Matrix{"3-column dense": mat.NewDense(1, 3, nil), "nil": nil} {
		if _, err := c.Transform(in); !errors.Is(err, ErrInput) {
			t.Errorf("Transform %s: %v", name, err)
		}
	}
	// A CSR test row with a non-zero beyond the 2 training columns: that
	// column is zero on every training row, factor 1 (maxabs factors here
	// 1/3 and 1/4).
	wide, _ := NewCSR(1, 3, []int{0, 3}, []int32{0, 1, 2}, []float64{6, 8, 5})
	got, err := c.Transform(wide)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.(*CSR).Values; v[0] != 2 || v[1] != 2 || v[2] != 5 {
		t.Errorf("3-column CSR scaled to %v, want [2 2 5]", v)
	}
}

// TestColumnScalerWide fits both kinds on a CSR with 10⁸ columns, 5 of them
// used: the sparse form holds the used columns only, its factors are the
// bits of a fit on the same columns packed next to each other (same visit
// order), every other column has factor 1, Transform matches, the JSON
// round trip keeps it, and the whole takes memory ∝ the non-zeros (TotalAlloc
// under 64 KiB; the dense form would be 7 arrays of 10⁸ float64, 5.6 GB).
func TestColumnScalerWide(t *testing.T) {
	const d = 100_000_000
	cols := []int32{3, 70, 99_999, 5_000_000, d - 1}
	rng := rand.New(rand.NewPCG(9, 10))
	n := 30
	indptr := []int{0}
	var wi, pi []int32
	var vals []float64
	for range n {
		for k, j := range cols {
			if rng.Float64() < 0.5 {
				v := rng.NormFloat64() * 4
				wi, pi, vals = append(wi, j), append(pi, int32(k)), append(vals, v)
			}
		}
		indptr = append(indptr, len(vals))
	}
	wide, err := NewCSR(n, d, indptr, wi, vals)
	if err != nil {
		t.Fatal(err)
	}
	packed, err := NewCSR(n, len(cols), slices.Clone(indptr), pi, slices.Clone(vals))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{ScaleMaxAbs, ScaleStd} {
		var a, b ColumnScaler
		a.Kind, b.Kind = kind, kind
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := a.Fit(wide); err != nil {
			t.Fatal(err)
		}
		tw, err := a.Transform(wide)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
			t.Errorf("%s: fit and transform of %d non-zeros allocated %d bytes", kind, len(vals), got)
		}
		if err := b.Fit(packed); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(a.Columns, cols) || a.Dim != d || len(a.Factors) != len(cols) || b.Columns != nil {
			t.Fatalf("%s: sparse form columns %v dim %d, %d factors", kind, a.Columns, a.Dim, len(a.Factors))
		}
		for k, j := range cols {
			if math.Float64bits(a.Factors[k]) != math.Float64bits(b.Factors[k]) || a.Factor(int(j)) != b.Factors[k] {
				t.Errorf("%s column %d: %v, packed %v", kind, j, a.Factors[k], b.Factors[k])
			}
		}
		if a.Factor(0) != 1 || a.Factor(d-2) != 1 || a.Factor(d+5) != 1 {
			t.Errorf("%s: an unused column's factor is not 1", kind)
		}
		tp, err := b.Transform(packed)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(tw.(*CSR).Values, tp.(*CSR).Values) || !slices.Equal(tw.(*CSR).Indices, wi) {
			t.Errorf("%s: transformed wide data differ from the packed columns'", kind)
		}
		js, err := json.Marshal(&a)
		if err != nil {
			t.Fatal(err)
		}
		var back ColumnScaler
		if err := json.Unmarshal(js, &back); err != nil || !slices.Equal(back.Columns, a.Columns) || back.Dim != d || !slices.Equal(back.Factors, a.Factors) {
			t.Errorf("%s: JSON round trip %s -> %+v (%v)", kind, js, back, err)
		}
		if _, err := a.Transform(mat.NewDense(1, 3, nil)); !errors.Is(err, ErrInput) {
			t.Errorf("%s: sparse-form factors applied to dense data: %v", kind, err)
		}
	}
}
