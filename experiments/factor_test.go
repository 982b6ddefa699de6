package experiments

import (
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// The falkon option factor reaches model.Falkon's Factor (auto when
// absent); a value other than auto, off or on is a spec error.
func TestFalkonFactorOption(t *testing.T) {
	for v, want := range map[any]model.FactorMode{nil: model.FactorAuto, "auto": model.FactorAuto, "off": model.FactorOff, "on": model.FactorOn} {
		opts := map[string]any{"lambda": 1e-3, "m": 10.0}
		if v != nil {
			opts["factor"] = v
		}
		est, err := NewEstimator("falkon", Config{Task: model.Regression, Kernel: kernel.Spec{Type: "gaussian", Gamma: 1}, Options: opts, N: 50})
		if err != nil {
			t.Fatal(err)
		}
		if f := est.(*model.Falkon); f.Factor != want {
			t.Errorf("factor: %v gave %v, want %v", v, f.Factor, want)
		}
	}
	_, err := NewEstimator("falkon", Config{Task: model.Regression, Kernel: kernel.Spec{Type: "gaussian", Gamma: 1},
		Options: map[string]any{"lambda": 1e-3, "factor": "sometimes"}, N: 50})
	if !errors.Is(err, ErrSpec) {
		t.Fatalf("factor: sometimes: %v, want ErrSpec", err)
	}
}
