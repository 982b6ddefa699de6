package datasets

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// WriteSyntheticText splits one draw in order: reading the two files back
// gives exactly the rows and labels of SyntheticText with the same seed and
// the summed row count.
func TestWriteSyntheticTextSplitsOneDraw(t *testing.T) {
	dir := t.TempDir()
	opt := TextOptions{Dim: 500, NNZ: 12, Classes: 3}
	parts := []TextPart{{Path: filepath.Join(dir, "tr.svm"), Rows: 30}, {Path: filepath.Join(dir, "te.svm"), Rows: 10}}
	nnz, err := WriteSyntheticText(rand.New(rand.NewPCG(4, 5)), opt, parts)
	if err != nil {
		t.Fatal(err)
	}
	opt.Rows = 40
	x, y, err := SyntheticText(rand.New(rand.NewPCG(4, 5)), opt)
	if err != nil {
		t.Fatal(err)
	}
	lo := 0
	for k, p := range parts {
		got, gy, err := ReadLIBSVMSparseFile(t.Context(), p.Path, 500)
		if err != nil {
			t.Fatal(err)
		}
		want := x.Indptr[lo+p.Rows] - x.Indptr[lo]
		if got.NNZ() != want || nnz[k] != want || !slices.Equal(gy, y[lo:lo+p.Rows]) {
			t.Fatalf("%s: %d non-zeros (reported %d), want %d; labels %v, want %v", p.Path, got.NNZ(), nnz[k], want, gy, y[lo:lo+p.Rows])
		}
		for i := range p.Rows {
			a, b := got.Indptr[i], x.Indptr[lo+i]
			n := got.Indptr[i+1] - a
			if !slices.Equal(got.Indices[a:a+n], x.Indices[b:b+n]) || !slices.Equal(got.Values[a:a+n], x.Values[b:b+n]) {
				t.Fatalf("%s row %d differs from the draw's row %d", p.Path, i, lo+i)
			}
		}
		lo += p.Rows
	}
	if _, err := WriteSyntheticText(rand.New(rand.NewPCG(4, 5)), opt, []TextPart{{Path: parts[0].Path}}); !errors.Is(err, ErrInput) {
		t.Errorf("a part of 0 rows: err = %v, want ErrInput", err)
	}
}
