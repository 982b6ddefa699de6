package experiments

import (
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
)

// Overrides replace a grid axis by one value, drop the excluded partner
// (sigma for gamma, alpha for lambda), set plain options as given, and
// say what the spec had; the spec is checked again afterwards.
func TestApplyOverrides(t *testing.T) {
	s := &Spec{Name: "o", Dataset: DatasetSpec{Name: "heart_scale"}, Task: TaskBinary, Seed: 3,
		Estimator: EstimatorSpec{Type: "falkon", Kernel: kernel.Spec{Type: "gaussian", Sigma: 2}, Options: map[string]any{"alpha": 1.0}},
		Grid:      Grid{"m": {10, 20}}}
	lines, err := ApplyOverrides(s, []Override{
		{Name: "gamma", Value: 0.5}, {Name: "lambda", Value: 1e-3}, {Name: "m", Value: 30},
		{Name: "max_iter", Value: 7, Option: true}, {Name: "seed", Value: uint64(9)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"override: gamma 0.5 (spec: sigma 2)", "override: lambda 0.001 (spec: alpha 1)", "override: m 30 (spec: grid [10, 20])",
		"override: max_iter 7 (spec: not set)", "override: seed 9 (spec: 3)"}
	if !slices.Equal(lines, want) {
		t.Errorf("lines %q, want %q", lines, want)
	}
	k, o := s.Estimator.Kernel, s.Estimator.Options
	if k.Gamma != 0.5 || k.Sigma != 0 || o["lambda"] != 1e-3 || o["alpha"] != nil || o["m"] != 30 || o["max_iter"] != 7 || s.Grid["m"] != nil || s.Seed != 9 {
		t.Errorf("spec after overrides: kernel %+v, options %v, grid %v, seed %d", k, o, s.Grid, s.Seed)
	}
	if _, err := ApplyOverrides(s, []Override{{Name: "nope", Value: 1.0, Option: true}}); err == nil {
		t.Error("an option falkon does not take: no error")
	}
}
