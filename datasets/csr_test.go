package datasets

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const csrText = `1 1:0.5 4:-2
-1
# comment line
2 2:3 3:1e-3 4:7 # trailing comment
`

func TestReadLIBSVMSparseMatchesDense(t *testing.T) {
	m, y, err := ReadLIBSVMSparse(context.Background(), strings.NewReader(csrText), 0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadLIBSVM(strings.NewReader(csrText), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 3 || c != 4 || m.NNZ() != 5 {
		t.Fatalf("dims %d×%d nnz %d, want 3×4 nnz 5", r, c, m.NNZ())
	}
	if !mat.Equal(m.ToDense(), d.X) || !mat.Equal(m, d.X) {
		t.Fatalf("sparse %v\ndense %v", mat.Formatted(m.ToDense()), mat.Formatted(d.X))
	}
	for i := range y {
		if y[i] != d.Y[i] {
			t.Fatalf("label %d: %v vs %v", i, y[i], d.Y[i])
		}
	}
	// Row 1 is empty: its squared norm is 0; row 2 is 9 + 1e-6 + 49.
	norms := m.RowNorms(nil)
	if norms[0] != 0.25+4 || norms[1] != 0 || norms[2] != 9+1e-3*1e-3+49 {
		t.Fatalf("row norms %v", norms)
	}
	sub, err := m.Rows([]int{2, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if sub.At(0, 3) != 7 || sub.At(1, 0) != 0.5 || sub.At(2, 1) != 3 || sub.At(1, 1) != 0 || sub.NNZ() != 8 {
		t.Fatalf("row subset wrong: %v", mat.Formatted(sub.ToDense()))
	}
	if _, err := m.Rows([]int{3}); !errors.Is(err, ErrInput) {
		t.Fatalf("out-of-range row subset: %v", err)
	}
}

func TestReadLIBSVMSparseErrors(t *testing.T) {
	_, _, err := ReadLIBSVMSparse(context.Background(), strings.NewReader("1 1:1\n1 2:1 2:3\n"), 0)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Msg, "repeated") {
		t.Fatalf("duplicate index: %v, want a ParseError on line 2", err)
	}
	_, _, err = ReadLIBSVMSparse(context.Background(), strings.NewReader("1 5:1\n"), 4)
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("index beyond dim: %v", err)
	}
	if _, err := NewCSR(1, 3, []int{0, 2}, []int32{2, 1}, []float64{1, 1}); !errors.Is(err, ErrInput) {
		t.Fatalf("descending columns accepted: %v", err)
	}
	if _, err := NewCSR(1, 3, []int{0, 1}, []int32{3}, []float64{1}); !errors.Is(err, ErrInput) {
		t.Fatalf("column beyond dimension accepted: %v", err)
	}
}

func TestWriteLIBSVMSparseRoundTrip(t *testing.T) {
	m, y, err := SparseRegression(40, 30, 5, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteLIBSVMSparse(&buf, m, y); err != nil {
		t.Fatal(err)
	}
	back, yb, err := ReadLIBSVMSparse(context.Background(), &buf, 30)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.Indptr, m.Indptr) || !slices.Equal(back.Indices, m.Indices) ||
		!slices.Equal(back.Values, m.Values) || !slices.Equal(yb, y) {
		t.Fatal("LIBSVM round trip changed the CSR matrix or labels")
	}
}

// TestWriteLIBSVMSparseFileRoundTrip: the file writer gives back the same
// CSR matrix and labels, plain and gzip-compressed (.gz, detected on read);
// mismatched labels leave no file (nor a temporary) behind, and bzip2 is
// refused.
func TestWriteLIBSVMSparseFileRoundTrip(t *testing.T) {
	m, y, err := SparseRegression(40, 30, 5, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"a.svm", "a.svm.gz"} {
		p := filepath.Join(dir, name)
		if err := WriteLIBSVMSparseFile(p, m, y); err != nil {
			t.Fatal(err)
		}
		back, yb, err := ReadLIBSVMSparseFile(context.Background(), p, 30)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(back.Indptr, m.Indptr) || !slices.Equal(back.Indices, m.Indices) ||
			!slices.Equal(back.Values, m.Values) || !slices.Equal(yb, y) {
			t.Fatalf("%s: round trip changed the CSR matrix or labels", name)
		}
	}
	if err := WriteLIBSVMSparseFile(filepath.Join(dir, "b.svm"), m, y[:3]); !errors.Is(err, ErrInput) {
		t.Errorf("3 labels for 40 rows: %v, want ErrInput", err)
	}
	if err := WriteLIBSVMSparseFile(filepath.Join(dir, "c.svm.bz2"), m, y); !errors.Is(err, ErrInput) {
		t.Errorf("bz2: %v, want ErrInput", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the folder, want the 2 written", len(entries))
	}
}

func TestSparseRegressionSeededAndShaped(t *testing.T) {
	a, ya, err := SparseRegression(50, 1000, 7, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	b, yb, _ := SparseRegression(50, 1000, 7, rand.New(rand.NewPCG(5, 6)))
	if !slices.Equal(a.Values, b.Values) || !slices.Equal(a.Indices, b.Indices) || !slices.Equal(ya, yb) {
		t.Fatal("same seed gave different data")
	}
	// NewCSR re-checks the invariants: ascending distinct columns in range.
	if _, err := NewCSR(50, 1000, a.Indptr, a.Indices, a.Values); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		if a.Indptr[i+1]-a.Indptr[i] != 7 {
			t.Fatalf("row %d has %d non-zeros, want 7", i, a.Indptr[i+1]-a.Indptr[i])
		}
	}
	if _, _, err := SparseRegression(5, 3, 4, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, ErrInput) {
		t.Fatalf("nnz > d accepted: %v", err)
	}
}

func TestMaxAbsScaleKeepsSparsity(t *testing.T) {
	// Column 0: max |x| = 4; column 1: 0.5; column 2 all zero -> factor 1.
	m, err := NewCSR(3, 3, []int{0, 2, 3, 3}, []int32{0, 1, 0}, []float64{-4, 0.5, 2})
	if err != nil {
		t.Fatal(err)
	}
	s := m.MaxAbsScale()
	if !slices.Equal(s, []float64{0.25, 2, 1}) {
		t.Fatalf("scale %v, want [0.25 2 1]", s)
	}
	out, err := m.ScaleColumns(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Values, []float64{-1, 1, 0.5}) || !slices.Equal(out.Indices, m.Indices) || out.NNZ() != 3 {
		t.Fatalf("scaled values %v indices %v", out.Values, out.Indices)
	}
	if _, err := m.ScaleColumns([]float64{1}); !errors.Is(err, ErrInput) {
		t.Fatalf("short scale accepted: %v", err)
	}
}
