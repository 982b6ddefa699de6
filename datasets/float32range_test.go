package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// The refusal of a value beyond float32's range says what rounds X where
// it is read: "X is read into float32" for a dense read with Float32 (it
// does), "X is rounded to float32 later" with Float32Range (X stays
// float64) and for a sparse read with Float32 (its values stay float64),
// and the caller's ReadOptions.Float32Reason when given (data shard
// --float32, falkon's float32 passes). Each is a *ParseError naming the
// line and wrapping ErrFloat32Range. Before, every one said "X is read
// into float32".
func TestFloat32RangeReason(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.libsvm")
	if err := os.WriteFile(p, []byte("1 1:0.1 2:2\n-1 1:1e39\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := func(opt ReadOptions) error {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, _, err = ReadLIBSVMSparseWith(t.Context(), f, opt)
		return err
	}
	dense := func(opt ReadOptions) error { _, err := ReadFile(p, opt); return err }
	for _, c := range []struct {
		name string
		read func(ReadOptions) error
		opt  ReadOptions
		want string
	}{
		{"dense Float32", dense, ReadOptions{Float32: true}, "(±3.4e38; X is read into float32)"},
		{"dense Float32Range", dense, ReadOptions{Float32Range: true}, "(±3.4e38; X is rounded to float32 later)"},
		{"sparse Float32", sparse, ReadOptions{Float32: true}, "(±3.4e38; X is rounded to float32 later)"},
		{"dense Float32Range, reason", dense, ReadOptions{Float32Range: true, Float32Reason: "the shards store it so"}, "(±3.4e38; the shards store it so)"},
		{"sparse Float32Range, reason", sparse, ReadOptions{Float32Range: true, Float32Reason: "the passes round it"}, "(±3.4e38; the passes round it)"},
	} {
		err := c.read(c.opt)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 2 || !errors.Is(err, ErrFloat32Range) || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err %v; want a *ParseError at line 2 wrapping ErrFloat32Range, ending %q", c.name, err, c.want)
		}
	}
	if err := dense(ReadOptions{Float32Reason: "unused"}); err != nil {
		t.Errorf("Float32Reason alone checks nothing: %v", err)
	}
}
