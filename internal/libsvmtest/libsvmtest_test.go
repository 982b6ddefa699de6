package libsvmtest

import (
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestWrite: the exact bytes for a 2×3 matrix with zeros, labelled 1-based
// and unlabelled 0-based (no leading space on a line without a label, an
// empty line for an all-zero row), and a value that needs all 17 digits.
func TestWrite(t *testing.T) {
	tenth := 0.1 // a variable: the constant 0.1 + 0.2 is exactly 0.3
	x := mat.NewDense(3, 3, []float64{0, 0.5, 2, 0, 0, 0, tenth + 0.2, 0, -1})
	dir := t.TempDir()
	for _, tc := range []struct {
		y    []float64
		base int
		want string
	}{
		{[]float64{1, -1, 3}, 1, "1 2:0.5 3:2\n-1\n3 1:0.30000000000000004 3:-1\n"},
		{nil, 0, "1:0.5 2:2\n\n0:0.30000000000000004 2:-1\n"},
	} {
		path := filepath.Join(dir, "f.libsvm")
		Write(t, path, x, tc.y, tc.base)
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("base %d, labels %v: wrote %q, want %q", tc.base, tc.y != nil, got, tc.want)
		}
	}
}
