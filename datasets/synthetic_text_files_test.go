package datasets

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
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

// cutoffContext is a live context whose Err reports context.Canceled from
// its k-th call on: a cancellation at each check WriteSyntheticTextContext
// makes, in turn, without timing.
type cutoffContext struct {
	context.Context
	calls, k int
}

func (c *cutoffContext) Err() error {
	c.calls++
	if c.calls >= c.k {
		return context.Canceled
	}
	return nil
}

// WriteSyntheticTextContext stops at a cancelled context while drawing or
// writing and leaves both files as they were (here a training file that
// already holds "old\n" and a test file that does not exist), and no
// temporary file in the folder. The context is cut off at each of its
// checks in turn: 4,000 rows are checked every 1,024 rows, so drawing
// checks 4 times (rows 0, 1,024, 2,048, 3,072), writing the 3,000
// training rows 3 times and the 1,000 test rows once: the first 8 cut-offs
// fail with an error wrapping context.Canceled, the 9th and later write
// both files, the same bytes as WriteSyntheticText's. Before, the write had
// no context (and the CLI's data synth text ran on after Ctrl-C).
func TestWriteSyntheticTextContextCancel(t *testing.T) {
	dir := t.TempDir()
	opt := TextOptions{Dim: 300, NNZ: 4}
	tr, te := filepath.Join(dir, "tr.svm"), filepath.Join(dir, "te.svm")
	ref := filepath.Join(t.TempDir(), "ref")
	parts := []TextPart{{Path: tr, Rows: 3000}, {Path: te, Rows: 1000}}
	if _, err := WriteSyntheticText(rand.New(rand.NewPCG(1, 2)), opt, []TextPart{{Path: ref + "tr", Rows: 3000}, {Path: ref + "te", Rows: 1000}}); err != nil {
		t.Fatal(err)
	}
	failed := 0
	for k := 1; k <= 12; k++ {
		if err := os.WriteFile(tr, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(te)
		ctx := &cutoffContext{Context: context.Background(), k: k}
		_, err := WriteSyntheticTextContext(ctx, rand.New(rand.NewPCG(1, 2)), opt, parts)
		entries, _ := os.ReadDir(dir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if err != nil {
			failed++
			b, _ := os.ReadFile(tr)
			if !errors.Is(err, context.Canceled) || string(b) != "old\n" || !slices.Equal(names, []string{"tr.svm"}) {
				t.Fatalf("cut off at check %d: err %v; training file %q, folder %v; want context.Canceled, \"old\\n\", [tr.svm]", k, err, b, names)
			}
			continue
		}
		for _, p := range []string{"tr", "te"} {
			got, _ := os.ReadFile(filepath.Join(dir, p+".svm"))
			want, _ := os.ReadFile(ref + p)
			if !bytes.Equal(got, want) {
				t.Fatalf("cut off at check %d: %s.svm differs from WriteSyntheticText's", k, p)
			}
		}
	}
	if failed != 8 {
		t.Errorf("%d cut-offs stopped the write, want 8 (4 checks drawing, 3 writing the training rows, 1 the test rows)", failed)
	}
}

// TestWriteSyntheticTextProgress: Progress reports every ProgressRows
// (65,536) rows drawn, then written to each file, and each stage's end, in
// that order; the files are those written without it, byte for byte.
func TestWriteSyntheticTextProgress(t *testing.T) {
	dir := t.TempDir()
	opt := TextOptions{Dim: 1000, NNZ: 4}
	var got []TextProgress
	files := func(sub string, progress func(TextProgress)) [][]byte {
		os.Mkdir(filepath.Join(dir, sub), 0o755)
		parts := []TextPart{{Path: filepath.Join(dir, sub, "tr.svm"), Rows: 70000}, {Path: filepath.Join(dir, sub, "te.svm"), Rows: 10}}
		o := opt
		o.Progress = progress
		if _, err := WriteSyntheticText(rand.New(rand.NewPCG(1, 2)), o, parts); err != nil {
			t.Fatal(err)
		}
		var out [][]byte
		for _, p := range parts {
			b, err := os.ReadFile(p.Path)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}
	with := files("with", func(p TextProgress) {
		if p.Path != "" {
			p.Path = filepath.Base(p.Path)
		}
		got = append(got, p)
	})
	want := []TextProgress{
		{"", 65536, 70010}, {"", 70010, 70010},
		{"tr.svm", 65536, 70000}, {"tr.svm", 70000, 70000},
		{"te.svm", 10, 10},
	}
	if !slices.Equal(got, want) {
		t.Errorf("reports %v, want %v", got, want)
	}
	without := files("without", nil)
	for k := range with {
		if !bytes.Equal(with[k], without[k]) {
			t.Errorf("file %d differs with Progress set", k)
		}
	}
}
