package datasets

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// float32Sample is a small file's content in each format: decimals that
// float32 does not hold exactly (0.1, 1/3, 2.000000001, 1e-40 a float32
// subnormal, 3e38 near the top of its range), integers, and zeros; the
// LIBSVM rows skip indices (zeros) and include a blank and a comment line.
var float32Sample = map[Format]string{
	CSV:    "a,b,c,y\n0.1,0.3333333333333333,2.000000001,1\n-7,1e-40,3e38,0\n# comment\n0,-0.25,123456789.123,1\n",
	LIBSVM: "1 1:0.1 2:0.3333333333333333 3:2.000000001\n0 1:-7 2:1e-40 3:3e38\n\n# comment\n1 2:-0.25 3:123456789.123\n",
}

// A read into float32 (ReadOptions.Float32) holds exactly float32 of
// every value the float64 read holds, for CSV and LIBSVM, through ReadFile
// (a named file) and Input.Read; the targets, the names and the shape are
// those of the float64 read. Exact comparison: the float32 reader rounds
// the same parsed float64 once.
func TestReadFloat32EqualsRoundedFloat64(t *testing.T) {
	dir := t.TempDir()
	for format, text := range float32Sample {
		p := filepath.Join(dir, "x."+string(format))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		d64, err := ReadFile(p, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		d32, err := ReadFile(p, ReadOptions{Float32: true})
		if err != nil {
			t.Fatal(err)
		}
		if d32.X != nil || d32.X32 == nil {
			t.Fatalf("%s: float32 read gave X %v, X32 %v", format, d32.X != nil, d32.X32 != nil)
		}
		n, c := d64.X.Dims()
		if n32, c32 := d32.X32.Dims(); n32 != n || c32 != c || d32.Dim() != c || d32.Len() != n {
			t.Fatalf("%s: float32 read %d×%d (Dim %d, Len %d), float64 %d×%d", format, n32, c32, d32.Dim(), d32.Len(), n, c)
		}
		inexact := 0
		for i := range n {
			for j := range c {
				v := d64.X.At(i, j)
				if got := d32.X32.RawRow(i)[j]; math.Float32bits(got) != math.Float32bits(float32(v)) {
					t.Errorf("%s: X[%d,%d] = %v, want float32(%v) = %v", format, i, j, got, v, float32(v))
				}
				if float64(float32(v)) != v {
					inexact++
				}
			}
		}
		if inexact < 5 {
			t.Errorf("%s: only %d values that float32 rounds: the sample tests little", format, inexact)
		}
		if !equalFloats(d32.Y, d64.Y) || strings.Join(d32.Features, ",") != strings.Join(d64.Features, ",") || d32.Target != d64.Target {
			t.Errorf("%s: targets or names differ: %v %v %q vs %v %v %q", format, d32.Y, d32.Features, d32.Target, d64.Y, d64.Features, d64.Target)
		}
		// The test-file reader accepts float32 training data.
		if te, err := ReadTestFile(p, d32, ReadOptions{}); err != nil || te.Dim() != c {
			t.Errorf("%s: ReadTestFile against float32 training data: %v", format, err)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// A finite float64 value beyond float32's range is an error naming the
// file and the line when X is read into float32, never an infinity: the
// largest float32 plus half its last place (2¹⁰³), which rounds to +Inf
// (ties to even: the largest float32's last bit is 1), is refused; plus a
// quarter of it, which rounds to the largest float32, is read as that.
// Both are finite float64 values that the float64 read takes. The error
// wraps ErrFloat32Range and ErrFormat. A target beyond float32's range is
// fine (targets stay float64), and the sparse read with Float32 refuses
// the same value with the same line.
func TestReadFloat32Overflow(t *testing.T) {
	top := float64(math.MaxFloat32)
	bad := strconv.FormatFloat(-(top + math.Ldexp(1, 103)), 'g', -1, 64)
	ok := strconv.FormatFloat(top+math.Ldexp(1, 102), 'g', -1, 64)
	if !math.IsInf(float64(float32(-(top+math.Ldexp(1, 103)))), -1) || float32(top+math.Ldexp(1, 102)) != math.MaxFloat32 {
		t.Fatal("the test's premises on float32 rounding are wrong")
	}
	dir := t.TempDir()
	files := map[Format]string{
		CSV:    "a,b,y\n1,2,1e300\n1," + ok + ",0\n\n3," + bad + ",1\n",
		LIBSVM: "1e300 1:1 2:2\n0 1:1 2:" + ok + "\n# comment\n1 1:3 2:" + bad + "\n",
	}
	for format, text := range files {
		p := filepath.Join(dir, "big."+string(format))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(p, ReadOptions{}); err != nil {
			t.Fatalf("%s: the float64 read refused finite values: %v", format, err)
		}
		_, err := ReadFile(p, ReadOptions{Float32: true})
		var pe *ParseError
		line := map[Format]int{CSV: 5, LIBSVM: 4}[format] // the CSV header is line 1
		if !errors.As(err, &pe) || pe.File != p || pe.Line != line || !errors.Is(err, ErrFloat32Range) || !errors.Is(err, ErrFormat) {
			t.Fatalf("%s: err = %v, want a ParseError of %s line %d wrapping ErrFloat32Range", format, err, p, line)
		}
		if !strings.Contains(err.Error(), "float32") || !strings.Contains(err.Error(), bad) {
			t.Errorf("%s: %v: want the value and float32 named", format, err)
		}
		// Without the offending line the largest float32 is read.
		cut := strings.Join(strings.Split(text, "\n")[:line-1], "\n") + "\n"
		d, err := Read(strings.NewReader(cut), ReadOptions{Format: format, Float32: true})
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if got := d.X32.RawRow(1)[1]; got != math.MaxFloat32 {
			t.Errorf("%s: %s read as %v, want the largest float32", format, ok, got)
		}
	}
	in, err := OpenInput(context.Background(), filepath.Join(dir, "big.libsvm"), Auto)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	_, _, err = in.ReadSparseWith(context.Background(), ReadOptions{Float32: true})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 4 || !errors.Is(err, ErrFloat32Range) || !strings.Contains(err.Error(), "big.libsvm") {
		t.Errorf("sparse read: err = %v, want big.libsvm line 4 beyond float32's range", err)
	}
}

// The scalers on float32 rows: statistics equal, bit for bit, those of
// the float64 matrix holding the same (float32) values, since they run
// the same float64 arithmetic in the same order; the rows scaled in place
// are float32 of the float64 Transform of those values, for each scaler.
// A scaled value beyond float32's range is an error, not an infinity.
func TestScalersOnFloat32Rows(t *testing.T) {
	d, err := Read(strings.NewReader(float32Sample[CSV]), ReadOptions{Float32: true})
	if err != nil {
		t.Fatal(err)
	}
	x32 := d.X32
	n, c := x32.Dims()
	wide := mat.NewDense(n, c, nil)
	for i := range n {
		for j, v := range x32.RawRow(i) {
			wide.Set(i, j, float64(v))
		}
	}
	copy32 := func() *kernel.Dense32 {
		data := make([]float32, 0, n*c)
		for i := range n {
			data = append(data, x32.RawRow(i)...)
		}
		m, _ := kernel.NewDense32(n, c, data)
		return m
	}
	same := func(name string, got *kernel.Dense32, want *mat.Dense) {
		t.Helper()
		for i := range n {
			for j, v := range got.RawRow(i) {
				if math.Float32bits(v) != math.Float32bits(float32(want.At(i, j))) {
					t.Errorf("%s: [%d,%d] = %v, want float32(%v)", name, i, j, v, want.At(i, j))
				}
			}
		}
	}

	var s64, s32 Standardizer
	if err := s64.Fit(wide); err != nil {
		t.Fatal(err)
	}
	if err := s32.Fit32(x32); err != nil {
		t.Fatal(err)
	}
	if !equalFloats(s64.Mean, s32.Mean) || !equalFloats(s64.Std, s32.Std) {
		t.Errorf("standardizer: float32 rows' statistics %v %v, float64 %v %v", s32.Mean, s32.Std, s64.Mean, s64.Std)
	}
	got, want := copy32(), mat.DenseCopyOf(wide)
	if err := s32.TransformInPlace32(got); err != nil {
		t.Fatal(err)
	}
	if err := s64.TransformInPlace(want); err != nil {
		t.Fatal(err)
	}
	same("standardize", got, want)

	var m64, m32 MinMax
	if err := m64.Fit(wide); err != nil {
		t.Fatal(err)
	}
	if err := m32.Fit32(x32); err != nil {
		t.Fatal(err)
	}
	if !equalFloats(m64.Min, m32.Min) || !equalFloats(m64.Max, m32.Max) {
		t.Errorf("minmax: %v %v vs %v %v", m32.Min, m32.Max, m64.Min, m64.Max)
	}
	got, want = copy32(), mat.DenseCopyOf(wide)
	if err := m32.TransformInPlace32(got); err != nil {
		t.Fatal(err)
	}
	if err := m64.TransformInPlace(want); err != nil {
		t.Fatal(err)
	}
	same("minmax", got, want)

	for _, kind := range []string{ScaleMaxAbs, ScaleStd} {
		c64, c32 := ColumnScaler{Kind: kind}, ColumnScaler{Kind: kind}
		if err := c64.Fit(wide); err != nil {
			t.Fatal(err)
		}
		if err := c32.Fit(x32); err != nil {
			t.Fatal(err)
		}
		if !equalFloats(c64.Factors, c32.Factors) {
			t.Errorf("%s: factors %v, float64 %v", kind, c32.Factors, c64.Factors)
		}
		got, want = copy32(), mat.DenseCopyOf(wide)
		if err := c32.TransformInPlace32(got); err != nil {
			t.Fatal(err)
		}
		if err := c64.TransformInPlace(want); err != nil {
			t.Fatal(err)
		}
		same(kind, got, want)
	}

	// A factor that takes a float32 value past float32's range.
	big := ColumnScaler{Kind: ScaleMaxAbs, Factors: []float64{1, 1, 1e10}}
	if err := big.TransformInPlace32(copy32()); !errors.Is(err, ErrFloat32Range) || !errors.Is(err, ErrInput) {
		t.Errorf("overflowing scale: err = %v, want ErrFloat32Range", err)
	}
	var wrong Standardizer
	wrong.Mean, wrong.Std = []float64{0}, []float64{1}
	if err := wrong.TransformInPlace32(copy32()); !errors.Is(err, ErrInput) {
		t.Errorf("wrong columns: err = %v", err)
	}
}
