package datasets

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestReadLIBSVMSparseFile reads a gzip file with an empty row, and checks
// that a repeated index and an index beyond dim are errors naming the file
// and the line.
func TestReadLIBSVMSparseFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "a.libsvm.gz")
	f, err := os.Create(good)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	gz.Write([]byte("1 2:0.5 7:1\n-1\n1 1:3\n"))
	gz.Close()
	f.Close()
	x, y, err := ReadLIBSVMSparseFile(context.Background(), good, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 3 || c != 7 || x.NNZ() != 3 || y[1] != -1 || x.At(0, 6) != 1 || x.At(2, 0) != 3 {
		t.Fatalf("read %d×%d, nnz %d, y %v", r, c, x.NNZ(), y)
	}
	bad := filepath.Join(dir, "dup.svm")
	os.WriteFile(bad, []byte("1 1:1\n1 2:1 2:3\n"), 0o644)
	_, _, err = ReadLIBSVMSparseFile(context.Background(), bad, 0)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != bad || pe.Line != 2 || !strings.Contains(err.Error(), "dup.svm: line 2") {
		t.Fatalf("repeated index: %v", err)
	}
	if _, _, err = ReadLIBSVMSparseFile(context.Background(), good, 5); !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("index 7 beyond dim 5: %v", err)
	}
}

func TestCSRFromDense(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{0, 1, 0, 2, 0, 0, 0, 0, -3, 0, 0, 0})
	c, err := CSRFromDense(x)
	if err != nil {
		t.Fatal(err)
	}
	if c.NNZ() != 3 || !mat.Equal(c.ToDense(), x) {
		t.Fatalf("nnz %d, dense %v", c.NNZ(), mat.Formatted(c.ToDense()))
	}
	x.Set(1, 1, math.NaN())
	if _, err := CSRFromDense(x); !errors.Is(err, ErrInput) {
		t.Fatalf("NaN: %v", err)
	}
}

// TestReadLIBSVMSparseWideIndex reads the largest index an int32 column can
// hold, 2³¹ − 1, with memory for the non-zeros only (the total allocation is
// bounded by 1.5 MiB, where one length-d array would take 16 GiB), and refuses
// 2³¹ (and a 20-digit index) with an error naming the limit, file and line.
func TestReadLIBSVMSparseWideIndex(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "wide.libsvm")
	os.WriteFile(p, []byte("1 1:1 2147483647:0.5\n-1 100000000:2\n"), 0o644)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	x, y, err := ReadLIBSVMSparseFile(context.Background(), p, 0)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 2 || c != MaxIndex || x.NNZ() != 3 || y[1] != -1 || x.At(0, MaxIndex-1) != 0.5 || x.At(1, 99999999) != 2 {
		t.Fatalf("read %d×%d, nnz %d", r, c, x.NNZ())
	}
	// The parser's first chunk (2^16 int32 and float64: 768 KiB), the
	// decompression sniffer's 256 KiB buffer and the scanner's 64 KiB are the
	// allocations (1.06 MiB measured).
	if got := after.TotalAlloc - before.TotalAlloc; got > 3<<19 {
		t.Errorf("reading 3 non-zeros allocated %d bytes", got)
	}
	for _, idx := range []string{"2147483648", "99999999999999999999"} {
		os.WriteFile(p, []byte("1 1:1\n1 2:1 "+idx+":3\n"), 0o644)
		_, _, err = ReadLIBSVMSparseFile(context.Background(), p, 0)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != p || pe.Line != 2 || !errors.Is(err, ErrIndexRange) || !errors.Is(err, ErrFormat) ||
			!strings.Contains(err.Error(), "2147483647") || !strings.Contains(err.Error(), idx) {
			t.Errorf("index %s: %v", idx, err)
		}
	}
}

// TestReadLIBSVMTestFile: a test file for a 10-column model keeps 10 columns
// when its indices stay below (even with no feature at all), and widens to
// its largest index otherwise, counting the rows and distinct columns beyond
// the training dimension (rows 1 and 3 use columns 12 and 40, and 12).
func TestReadLIBSVMTestFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.libsvm")
	for _, tc := range []struct {
		text            string
		cols, rows, far int
	}{
		{"1 2:1\n-1 9:2\n", 10, 0, 0},
		{"1\n-1\n", 10, 0, 0},
		{"1 2:1\n-1 3:1 12:2\n1 10:1\n1 12:1 40:-1\n", 40, 2, 2},
	} {
		os.WriteFile(p, []byte(tc.text), 0o644)
		x, y, rows, far, err := ReadLIBSVMTestFile(context.Background(), p, 10)
		if err != nil {
			t.Fatal(err)
		}
		if _, c := x.Dims(); c != tc.cols || rows != tc.rows || far != tc.far || y[1] != -1 {
			t.Errorf("%q: %d columns, %d rows and %d columns beyond 10; want %d, %d, %d", tc.text, c, rows, far, tc.cols, tc.rows, tc.far)
		}
	}
	os.WriteFile(p, []byte("1 2:1\n1 3:x\n"), 0o644)
	if _, _, _, _, err := ReadLIBSVMTestFile(context.Background(), p, 10); !strings.Contains(fmt.Sprint(err), p+": line 2") {
		t.Errorf("malformed test file: %v", err)
	}
}

// TestDensity: the share of non-zeros, counted by hand on a 3×4 matrix with
// 5 non-zeros (5/12), the same for its CSR form, 0 for an all-zero matrix.
func TestDensity(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{
		1, 0, 0, 2,
		0, 0, 0, 0,
		-3, 4, 0, 5,
	})
	if got := Density(x); got != 5.0/12 {
		t.Errorf("Density(dense) = %v, want 5/12", got)
	}
	c, err := CSRFromDense(x)
	if err != nil {
		t.Fatal(err)
	}
	if got := Density(c); got != 5.0/12 || c.NNZ() != 5 {
		t.Errorf("Density(csr) = %v (%d stored), want 5/12 (5 stored)", got, c.NNZ())
	}
	if got := Density(mat.NewDense(2, 2, nil)); got != 0 {
		t.Errorf("Density(zeros) = %v, want 0", got)
	}
}
