package experiments

import (
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// The falkon options float32 and float32_storage reach model.Falkon's
// Float32 and Float32Storage, each on its own (issue 25 item 6).
func TestFalkonFloat32StorageOption(t *testing.T) {
	for _, c := range []struct {
		opts            map[string]any
		passes, storage bool
	}{{nil, false, false}, {map[string]any{"float32": true}, true, false}, {map[string]any{"float32_storage": true}, false, true}} {
		opts := map[string]any{"lambda": 1e-3, "m": 10.0}
		for k, v := range c.opts {
			opts[k] = v
		}
		est, err := NewEstimator("falkon", Config{Task: model.Regression, Kernel: kernel.Spec{Type: "gaussian", Gamma: 1}, Options: opts, N: 50})
		if err != nil {
			t.Fatal(err)
		}
		f := est.(*model.Falkon)
		if f.Float32 != c.passes || f.Float32Storage != c.storage {
			t.Errorf("options %v: Float32 %v, Float32Storage %v", c.opts, f.Float32, f.Float32Storage)
		}
	}
}
