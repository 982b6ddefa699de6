package datasets

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// smallOne and smallZero are smallX/smallY (libsvm_test.go) written with
// 1-based indices, as LIBSVM does, and with 0-based ones, as scikit-learn's
// dump_svmlight_file does by default: the same file up to the base.
const (
	smallOne  = "1 1:0.5 3:-2\n-1 2:1e-3\n2 1:4 2:5 3:6\n"
	smallZero = "1 0:0.5 2:-2\n-1 1:1e-3\n2 0:4 1:5 2:6\n"
)

// TestReadLIBSVMZeroBased: with ZeroBased, index j is column j, so the
// 0-based file reads as exactly the matrix its 1-based twin reads as, in
// every reader (dense, float32, CSR, a model's test read), and the width
// is the largest index + 1.
func TestReadLIBSVMZeroBased(t *testing.T) {
	ctx := context.Background()
	d, err := Read(strings.NewReader(smallZero), ReadOptions{Format: LIBSVM, ZeroBased: true})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "dense, 0-based", d, smallX, smallY)

	d32, err := Read(strings.NewReader(smallZero), ReadOptions{Format: LIBSVM, ZeroBased: true, Float32: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for j := range 3 {
			if got, want := d32.X32.At(i, j), float64(float32(smallX.At(i, j))); got != want {
				t.Fatalf("float32, 0-based: X[%d,%d] = %v, want %v", i, j, got, want)
			}
		}
	}

	xs, ys, err := ReadLIBSVMSparseWith(ctx, strings.NewReader(smallZero), ReadOptions{ZeroBased: true})
	if err != nil {
		t.Fatal(err)
	}
	one, _, err := ReadLIBSVMSparse(ctx, strings.NewReader(smallOne), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := xs.Dims(); r != 3 || c != 3 || !mat.Equal(xs.ToDense(), one.ToDense()) || !mat.Equal(xs.ToDense(), smallX) || ys[2] != 2 {
		t.Fatalf("CSR, 0-based: %d×%d\n%v\nwant\n%v", r, c, mat.Formatted(xs.ToDense()), mat.Formatted(smallX))
	}

	// A model of 4 columns reads the test file's 3 as 4, column 3 zero.
	in, err := newInput(strings.NewReader(smallZero), LIBSVM)
	if err != nil {
		t.Fatal(err)
	}
	xt, _, rows, cols, err := in.ReadTestOptions(ctx, ReadOptions{Dim: 4, ZeroBased: true})
	if err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 4, nil)
	want.Slice(0, 3, 0, 3).(*mat.Dense).Copy(smallX)
	if rows != 0 || cols != 0 || !mat.Equal(xt.ToDense(), want) {
		t.Fatalf("test read, 0-based: beyond %d/%d\n%v\nwant\n%v", rows, cols, mat.Formatted(xt.ToDense()), mat.Formatted(want))
	}
}

// TestReadLIBSVMZeroBasedRefusals: the limits speak the file's base: with
// Dim 3 a 0-based file's index 3 is beyond it (indices run to 2), repeats
// and descents name the index as written, the largest index is one less
// than 1-based's (the column count is what int32 bounds), and CSV data
// refuses the option.
func TestReadLIBSVMZeroBasedRefusals(t *testing.T) {
	zero := ReadOptions{Format: LIBSVM, ZeroBased: true}
	for _, c := range []struct{ name, text, msg string }{
		{"index = dim", "1 0:1\n1 3:1\n", "feature index 3 exceeds the dimension 3 (0-based indices run to 2)"},
		{"repeated", "1 0:1 0:2\n", "feature index 0 repeated"},
		{"descending", "1 1:1\n1 2:1 1:2\n", "feature index 1 after 2"},
		{"negative", "1 -1:1\n", `bad feature index "-1" in "-1:1" (want an integer ≥ 0)`},
		{"value", "1 0:x\n", `feature 0: value "x" is not a number`},
	} {
		opt := zero
		if c.name == "index = dim" {
			opt.Dim = 3
		}
		_, err := Read(strings.NewReader(c.text), opt)
		line := strings.Count(c.text, "\n")
		wantLine(t, err, line, c.msg)
	}
	// 2³¹ − 1 is the largest 1-based index; 0-based, it would be column
	// 2³¹, beyond int32.
	_, _, err := ReadLIBSVMSparseWith(context.Background(), strings.NewReader("1 2147483647:1\n"), ReadOptions{ZeroBased: true})
	if !errors.Is(err, ErrIndexRange) || !strings.Contains(err.Error(), "largest supported index 2147483646") {
		t.Fatalf("0-based index 2³¹ − 1: err %v, want ErrIndexRange naming 2147483646", err)
	}
	x, _, err := ReadLIBSVMSparseWith(context.Background(), strings.NewReader("1 2147483646:1\n"), ReadOptions{ZeroBased: true})
	if err != nil {
		t.Fatalf("0-based index 2³¹ − 2: %v", err)
	}
	if _, c := x.Dims(); c != MaxIndex || x.Indices[0] != MaxIndex-1 {
		t.Fatalf("0-based index 2³¹ − 2: %d columns, index %d; want %d, %d", c, x.Indices[0], MaxIndex, MaxIndex-1)
	}

	_, err = Read(strings.NewReader("a,b,y\n1,2,3\n"), ReadOptions{Format: CSV, ZeroBased: true})
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "zero-based indices describe LIBSVM files, not csv") {
		t.Fatalf("csv with ZeroBased: err %v, want ErrInput saying it is for LIBSVM files", err)
	}
}
