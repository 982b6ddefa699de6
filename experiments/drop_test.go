package experiments

import (
	"slices"
	"strings"
	"testing"
)

// TestDropSpec: the dataset block's drop list, YAML numbers and names
// alike, becomes datasets.ReadOptions.Drop as strings ("0" is the pandas
// index column); absent, nothing is dropped.
func TestDropSpec(t *testing.T) {
	for _, c := range []struct {
		yaml string
		want []string
	}{
		{"drop: [0, id]", []string{"0", "id"}},
		{"drop: [-1]", []string{"-1"}},
		{"target: y", nil},
	} {
		y := "name: d\ntask: regression\ndataset: {path: a.csv, " + c.yaml + "}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.001}\n"
		s, err := Decode(strings.NewReader(y), t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", c.yaml, err)
		}
		opt, err := s.Dataset.ReadOptions()
		if err != nil || !slices.Equal(opt.Drop, c.want) {
			t.Errorf("%s: Drop %q (err %v), want %q", c.yaml, opt.Drop, err, c.want)
		}
	}
}
