package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadWeights reads a weight file and refuses each malformed one with
// the line at fault.
func TestReadWeights(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	w, err := ReadWeights(context.Background(), write("ok.txt", "\ufeff1\n0.5 \r\n0\n2e1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1, 0.5, 0, 20}; !slices.Equal(w, want) {
		t.Errorf("weights %v, want %v", w, want)
	}
	for _, c := range []struct{ text, want string }{
		{"1\n\n2\n", "line 2: empty line"},
		{"w\n1\n", `line 1: "w" is not a number: want one weight per line (a header?`},
		{"1\n1,2\n", `line 2: "1,2" is not a number: want one weight per line (one column only`},
		{"1\n-1\n", "line 2: weight -1: want finite and ≥ 0"},
		{"NaN\n", "line 1: weight NaN: want finite and ≥ 0"},
		{"1\ninf\n", "line 2: weight inf"},
		{"", "no weights"},
		{"0\n0\n", "all 2 weights are 0"},
	} {
		p := write("bad.txt", c.text)
		_, err := ReadWeights(context.Background(), p)
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%q: err = %v, want ErrFormat naming %s and %q", c.text, err, p, c.want)
		}
	}
	if _, err := ReadWeights(context.Background(), Stdin); !errors.Is(err, ErrInput) {
		t.Errorf("stdin: err = %v, want ErrInput", err)
	}
	if _, err := ReadWeights(context.Background(), filepath.Join(dir, "missing.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want ErrNotExist", err)
	}
}
