package datasets

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// scaleData returns an n×4 matrix: a wide-range column, a column with a large
// offset (where a one-pass variance would lose digits), a constant column and
// a normal column.
func scaleData(rng *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, 4, nil)
	for i := range n {
		x.Set(i, 0, rng.Float64()*1e4)
		x.Set(i, 1, 1e8+rng.NormFloat64())
		x.Set(i, 2, 3.3)
		x.Set(i, 3, rng.NormFloat64())
	}
	return x
}

func TestStandardizer(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	train, test := scaleData(rng, 500), scaleData(rng, 50)
	var s Standardizer
	if err := s.Fit(train); err != nil {
		t.Fatal(err)
	}
	// Statistics equal a direct computation (gonum's population mean and
	// variance); 1e-12 relative is float64 round-off over 500 terms.
	for j := range 4 {
		col := mat.Col(nil, j, train)
		mean, variance := stat.PopMeanVariance(col, nil)
		if !scalar.EqualWithinRel(s.Mean[j], mean, 1e-12) {
			t.Errorf("column %d: mean %v, direct %v", j, s.Mean[j], mean)
		}
		if j == 2 {
			if s.Std[j] != 0 {
				t.Errorf("constant column: Std %v, want exactly 0", s.Std[j])
			}
			continue
		}
		if !scalar.EqualWithinRel(s.Std[j], math.Sqrt(variance), 1e-9) {
			t.Errorf("column %d: std %v, direct %v", j, s.Std[j], math.Sqrt(variance))
		}
	}
	// Transformed training columns have mean 0 and std 1 (the constant
	// column: all zeros); test data use the training statistics.
	z, err := s.Transform(train)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 4 {
		mean, variance := stat.PopMeanVariance(mat.Col(nil, j, z), nil)
		wantVar := 1.0
		if j == 2 {
			wantVar = 0
		}
		// Column 1 sits at 1e8, where one ulp is 1.5e-8: its centred values
		// cannot average closer to 0 than a few ulps (its std is about 1).
		tol := 1e-9
		if j == 1 {
			tol = 1e-7
		}
		if math.Abs(mean) > tol || math.Abs(variance-wantVar) > 1e-9 {
			t.Errorf("standardized column %d: mean %v variance %v", j, mean, variance)
		}
	}
	zt, err := s.Transform(test)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		for j := range 4 {
			want := test.At(i, j) - s.Mean[j]
			if s.Std[j] > 0 {
				want /= s.Std[j]
			}
			if zt.At(i, j) != want {
				t.Fatalf("test[%d,%d] → %v, want %v", i, j, zt.At(i, j), want)
			}
		}
	}
	back, err := s.Inverse(zt)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(back, test, 1e-7) { // 1e8 offset × 1e-15 round-off
		t.Errorf("Inverse(Transform(x)) differs from x")
	}
	// Errors: not fitted, wrong width, bad data.
	var fresh Standardizer
	if _, err := fresh.Transform(test); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted: err = %v", err)
	}
	if _, err := s.Transform(mat.NewDense(2, 3, nil)); !errors.Is(err, ErrInput) {
		t.Errorf("wrong width: err = %v", err)
	}
	if err := fresh.Fit(mat.NewDense(1, 1, []float64{math.Inf(1)})); !errors.Is(err, ErrInput) {
		t.Errorf("Inf data: err = %v", err)
	}
}

func TestMinMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	train, test := scaleData(rng, 300), scaleData(rng, 30)
	for _, r := range [][2]float64{{0, 0}, {0, 1}, {-5, 2}} {
		m := MinMax{Lower: r[0], Upper: r[1]}
		lo, hi := r[0], r[1]
		if lo == 0 && hi == 0 {
			lo, hi = -1, 1
		}
		if err := m.Fit(train); err != nil {
			t.Fatal(err)
		}
		if m.Lower != r[0] || m.Upper != r[1] {
			t.Errorf("Fit wrote defaults into the config: %v %v", m.Lower, m.Upper)
		}
		for j := range 4 {
			col := mat.Col(nil, j, train)
			if m.Min[j] != minOf(col) || m.Max[j] != maxOf(col) {
				t.Errorf("column %d: min/max %v %v, direct %v %v", j, m.Min[j], m.Max[j], minOf(col), maxOf(col))
			}
		}
		z, err := m.Transform(train)
		if err != nil {
			t.Fatal(err)
		}
		for j := range 4 {
			col := mat.Col(nil, j, z)
			wantLo, wantHi := lo, hi
			if j == 2 {
				wantLo, wantHi = (lo+hi)/2, (lo+hi)/2
			}
			if math.Abs(minOf(col)-wantLo) > 1e-12 || math.Abs(maxOf(col)-wantHi) > 1e-12 {
				t.Errorf("range %v column %d: scaled to [%v, %v], want [%v, %v]", r, j, minOf(col), maxOf(col), wantLo, wantHi)
			}
		}
		zt, _ := m.Transform(test)
		back, err := m.Inverse(zt)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(back, test, 1e-6) {
			t.Errorf("range %v: Inverse(Transform(x)) differs from x", r)
		}
	}
	if err := (&MinMax{Lower: 1, Upper: -1}).Fit(train); !errors.Is(err, ErrInput) {
		t.Errorf("empty range: err = %v", err)
	}
	if _, err := (&MinMax{}).Transform(train); !errors.Is(err, ErrNotFitted) {
		t.Errorf("unfitted: err = %v", err)
	}
}

func minOf(s []float64) float64 {
	m := math.Inf(1)
	for _, v := range s {
		m = math.Min(m, v)
	}
	return m
}

func maxOf(s []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		m = math.Max(m, v)
	}
	return m
}

// TestMinMaxMatchesSVMScale compares with LIBSVM's svm-scale, which prints
// six significant digits (%g): hence the 1e-5 relative tolerance.
func TestMinMaxMatchesSVMScale(t *testing.T) {
	bin, err := exec.LookPath("svm-scale")
	if err != nil {
		t.Skip("svm-scale not installed")
	}
	rng := rand.New(rand.NewPCG(9, 10))
	x := scaleData(rng, 40)
	for i := range 40 { // column 1 at a smaller offset so %g keeps its digits
		x.Set(i, 1, x.At(i, 1)-1e8+5)
	}
	d := &Dataset{X: x, Y: make([]float64, 40)}
	for i := range d.Y {
		d.Y[i] = float64(i % 2)
	}
	p := filepath.Join(t.TempDir(), "in.libsvm")
	if err := WriteFile(p, d, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "-l", "-1", "-u", "1", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	ref, err := ReadLIBSVM(bytes.NewReader(out), 4)
	if err != nil {
		t.Fatal(err)
	}
	var m MinMax
	if err := m.Fit(x); err != nil {
		t.Fatal(err)
	}
	z, _ := m.Transform(x)
	for i := range 40 {
		for j := range 4 {
			if !scalar.EqualWithinAbsOrRel(z.At(i, j), ref.X.At(i, j), 1e-12, 1e-5) {
				t.Fatalf("[%d,%d]: %v, svm-scale %v", i, j, z.At(i, j), ref.X.At(i, j))
			}
		}
	}
	_ = os.Remove(p)
}

func TestTargetScaler(t *testing.T) {
	y := []float64{14999, 500001, 120000, 250000, 99000}
	var s TargetScaler
	if err := s.Fit(y); err != nil {
		t.Fatal(err)
	}
	mean, variance := stat.PopMeanVariance(y, nil)
	if !scalar.EqualWithinRel(s.Mean, mean, 1e-14) || !scalar.EqualWithinRel(s.Std, math.Sqrt(variance), 1e-12) {
		t.Errorf("Mean, Std = %v, %v; direct %v, %v", s.Mean, s.Std, mean, math.Sqrt(variance))
	}
	z := s.Transform(y)
	m2, v2 := stat.PopMeanVariance(z, nil)
	if math.Abs(m2) > 1e-12 || math.Abs(v2-1) > 1e-12 {
		t.Errorf("standardized target: mean %v variance %v", m2, v2)
	}
	back := s.Inverse(z)
	for i := range y {
		if !scalar.EqualWithinRel(back[i], y[i], 1e-14) {
			t.Errorf("Inverse: %v, want %v", back[i], y[i])
		}
	}
	// A constant target is centred only; a rebuilt scaler behaves the same.
	var c TargetScaler
	if err := c.Fit([]float64{4, 4}); err != nil || c.Std != 0 {
		t.Fatalf("constant target: %v, Std %v", err, c.Std)
	}
	if got := (&TargetScaler{Mean: 4}).Transform([]float64{5}); got[0] != 1 {
		t.Errorf("rebuilt constant scaler: %v, want 1", got[0])
	}
	if err := c.Fit(nil); !errors.Is(err, ErrInput) {
		t.Errorf("empty: err = %v", err)
	}
	if err := c.Fit([]float64{1, math.NaN()}); !errors.Is(err, ErrInput) {
		t.Errorf("NaN: err = %v", err)
	}
}
