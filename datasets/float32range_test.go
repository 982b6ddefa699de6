package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// ReadOptions.Float32Range refuses a value beyond float32's range at its
// line (LIBSVM and CSV), as Float32 does, but keeps X in float64: 0.1 is
// read as float64's 0.1, not float32's rounding of it (which differs by
// 1.5e-9), and X32 stays nil.
func TestFloat32RangeKeepsFloat64(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, ok, bad string
		line          int
	}{
		{"a.libsvm", "1 1:0.1 2:2\n", "1 1:0.1 2:2\n-1 1:1e39\n", 2},
		{"a.csv", "x,y\n0.1,1\n", "x,y\n0.1,1\n1e39,0\n", 3},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, []byte(c.ok), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := ReadFile(p, ReadOptions{Float32Range: true})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.X == nil || d.X32 != nil || d.X.At(0, 0) != 0.1 {
			t.Fatalf("%s: X %v, X32 %v; want float64 X with 0.1", c.name, d.X, d.X32)
		}
		if err := os.WriteFile(p, []byte(c.bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = ReadFile(p, ReadOptions{Float32Range: true})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != c.line || !errors.Is(err, ErrFloat32Range) {
			t.Fatalf("%s: err %v; want a *ParseError at the 1e39 line wrapping ErrFloat32Range", c.name, err)
		}
	}
}
