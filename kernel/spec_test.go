package kernel

import (
	"errors"
	"testing"
)

func TestSpecRoundTrip(t *testing.T) {
	for _, k := range allKernels() {
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
		{Type: "linear", Sigma: 1}, {Type: "gaussian", Sigma: -1}, {Type: "polynomial", Gamma: 1, Degree: -2}}
	for _, s := range bad {
		if _, err := New(s); !errors.Is(err, ErrParam) {
			t.Errorf("%+v: err = %v, want ErrParam", s, err)
		}
	}
}
