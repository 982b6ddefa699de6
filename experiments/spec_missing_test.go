package experiments

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestSpecErrorMissing checks that a spec lacking a required setting says
// which keys would supply it in SpecError.Missing (what the commands turn
// into flags), and that other spec errors leave it nil.
func TestSpecErrorMissing(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string
	}{
		{"no gamma", "name: a\ntask: binary\ndataset: {name: heart_scale}\nestimator: {type: krr, kernel: {type: gaussian}, lambda: 1e-3}\n", []string{"gamma", "sigma"}},
		{"laplacian no gamma", "name: a\ntask: binary\ndataset: {name: heart_scale}\nestimator: {type: krr, kernel: {type: laplacian}, lambda: 1e-3}\n", []string{"gamma"}},
		{"no lambda", "name: a\ntask: binary\ndataset: {name: heart_scale}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}}\n", []string{"lambda", "alpha"}},
		{"both gamma and sigma", "name: a\ntask: binary\ndataset: {name: heart_scale}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1, sigma: 1}, lambda: 1e-3}\n", nil},
	} {
		_, err := Decode(strings.NewReader(c.yaml), ".")
		var se *SpecError
		if !errors.As(err, &se) {
			t.Fatalf("%s: err = %v, want a *SpecError", c.name, err)
		}
		if !slices.Equal(se.Missing, c.want) {
			t.Errorf("%s: Missing = %q, want %q (error: %v)", c.name, se.Missing, c.want, err)
		}
	}
}
