package experiments

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestGridRanges: a grid axis written as a range gives the values listed
// by hand, so the two specs are the same spec (equal Hash): grid.py's
// -log2c -5,15,2 (11 values, 2^-5 … 2^15) and -log2g 3,-15,-2 (10 values,
// 8 … 2^-15), numpy.logspace(-9, -3, 7) (10^-9 … 10^-3, as float64
// literals: numpy gives 9.999999999999999e-10 for the first, an ulp off)
// and numpy.linspace(1, 4, 4) and (0.5, 1, 3) (numpy's values, checked
// 2026-11-27). logspace(0, 1, 3)'s middle value is math.Pow(10, 0.5) =
// 3.1622776601683795, the float64 nearest √10 (numpy's power gives
// 3.162277660168379). Bad ranges are spec errors naming their line.
func TestGridRanges(t *testing.T) {
	const head = "name: r\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: svm, kernel: {type: gaussian}}\ngrid:\n"
	ranged := mustDecode(t, head+"  c: {log2: [-5, 15, 2]}\n  gamma: {log2: [3, -15, -2]}\n")
	listed := mustDecode(t, head+"  c: [0.03125, 0.125, 0.5, 2, 8, 32, 128, 512, 2048, 8192, 32768]\n  gamma: [8, 2, 0.5, 0.125, 0.03125, 0.0078125, 0.001953125, 0.00048828125, 0.0001220703125, 3.0517578125e-05]\n")
	if !reflect.DeepEqual(ranged.Grid, listed.Grid) || ranged.Hash() != listed.Hash() {
		t.Errorf("log2 ranges %v, listed %v", ranged.Grid, listed.Grid)
	}
	krr := "name: r\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: krr, kernel: {type: gaussian}}\ngrid:\n"
	for _, c := range []struct {
		axis, other string // other: the other axis the spec needs
		want        []float64
	}{
		{"lambda: {logspace: [-9, -3, 7]}", "gamma: [1]", []float64{1e-9, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3}},
		{"lambda: {logspace: [0, 1, 3]}", "gamma: [1]", []float64{1, 3.1622776601683795, 10}},
		{"lambda: {logspace: [-2, -2, 1]}", "gamma: [1]", []float64{0.01}},
		{"sigma: {linspace: [1, 4, 4]}", "lambda: [1]", []float64{1, 2, 3, 4}},
		{"sigma: {linspace: [0.5, 1, 3]}", "lambda: [1]", []float64{0.5, 0.75, 1}},
	} {
		s := mustDecode(t, krr+"  "+c.axis+"\n  "+c.other+"\n")
		name := strings.TrimSpace(c.axis[:strings.IndexByte(c.axis, ':')])
		if got := s.Grid[name]; !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.axis, got, c.want)
		}
	}
	for _, c := range []struct{ axis, want string }{
		{"c: {log2: [-5, 15, 0]}", "line 6: grid.c: log2 [-5 15 0]: the step 0 does not go from -5 towards 15"},
		{"c: {log2: [5, -5, 2]}", "the step 2 does not go from 5 towards -5"},
		{"c: {log2: [1, 2]}", "log2 wants three numbers"},
		{"c: {logspace: [1, 2, 0]}", "num = 0, want a whole number from 1 to 1000"},
		{"c: {linspace: [1, 2, 2.5]}", "num = 2.5"},
		{"c: {log2: [0, 5000, 1]}", "gives 5001 values, over 1000"},
		{"c: {range: [1, 2, 3]}", `unknown range "range"`},
		{"c: {log2: [1, 2, 1], logspace: [1, 2, 3]}", "a range is one of"},
	} {
		_, err := Decode(strings.NewReader(head+"  "+c.axis+"\n"), ".")
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a spec error with %q", c.axis, err, c.want)
		}
	}
	if math.Ldexp(1, -15) != 3.0517578125e-05 {
		t.Fatal("2^-15 is not the literal above")
	}
}
