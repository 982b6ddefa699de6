package kernel

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestSpecRoundTrip(t *testing.T) {
	for _, k := range append(allKernels(), Precomputed{}) {
		s, ok := SpecOf(k)
		if !ok {
			t.Fatalf("%v: no spec", k)
		}
		got, err := New(s)
		if err != nil {
			t.Fatalf("%v: %v", k, err)
		}
		if got != k {
			t.Fatalf("round trip of %v gave %v", k, got)
		}
	}
	g, err := New(Spec{Type: "gaussian", Sigma: 2})
	if err != nil || g.(Gaussian).Gamma != 0.125 {
		t.Fatalf("sigma 2: %v %v, want gamma 0.125", g, err)
	}
}

func TestSpecErrors(t *testing.T) {
	bad := []Spec{{Type: "rbf"}, {Type: "gaussian"}, {Type: "gaussian", Gamma: 1, Sigma: 1},
		{Type: "linear", Sigma: 1}, {Type: "gaussian", Sigma: -1}, {Type: "polynomial", Gamma: 1, Degree: -2},
		// A parameter of another kernel is refused, not ignored.
		{Type: "sigmoid", Gamma: 1, Degree: 2}, {Type: "gaussian", Gamma: 1, Coef0: 1}, {Type: "linear", Degree: 3}, {Type: "linear", Gamma: 1},
		{Type: "sigmoid"}, {Type: "sigmoid", Gamma: 1, Coef0: math.Inf(1)},
		{Type: "precomputed", Gamma: 1}, {Type: "precomputed", Coef0: 1}}
	for _, s := range bad {
		if _, err := New(s); !errors.Is(err, ErrParam) {
			t.Errorf("%+v: err = %v, want ErrParam", s, err)
		}
	}
}

// TestSigmoidValues: tanh(γ x·y + c₀) at hand-computed points (x·y = 2·1 +
// (−1)·3 = −1: tanh(0.5·(−1) − 0.25) = tanh(−0.75) = −0.635148952387…), a
// negative c₀ accepted (Lin & Lin 2003's usual setting), and the diagonal
// tanh(γ‖x‖² + c₀) (‖x‖² = 5: tanh(2.25) = 0.978026…).
func TestSigmoidValues(t *testing.T) {
	k, err := New(Spec{Type: "sigmoid", Gamma: 0.5, Coef0: -0.25})
	if err != nil {
		t.Fatal(err)
	}
	x, y := []float64{2, -1}, []float64{1, 3}
	if got := k.Eval(x, y); math.Abs(got-(-0.6351489523872873)) > 1e-15 {
		t.Errorf("k(x, y) = %.16g, want tanh(−0.75) = −0.6351489523872873", got)
	}
	d := make([]float64, 1)
	k.Diag(d, mat.NewDense(1, 2, x))
	if math.Abs(d[0]-0.9780261147388136) > 1e-15 {
		t.Errorf("k(x, x) = %.16g, want tanh(2.25) = 0.9780261147388136", d[0])
	}
	if k.ShiftInvariant() || k.String() != "sigmoid(gamma=0.5, coef0=-0.25)" {
		t.Errorf("ShiftInvariant %v, String %q", k.ShiftInvariant(), k.String())
	}
}
