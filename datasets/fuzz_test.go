package datasets

import (
	"bytes"
	"context"
	"math"
	"slices"
	"testing"
)

// fuzzMaxBytes caps the dense matrix a fuzzed input may allocate, so a line
// naming feature 10⁹ is refused instead of exhausting memory.
const fuzzMaxBytes = 1 << 20

// checkFuzzed asserts what a reader promises for any input: either an
// error with a text, or a
// dataset whose shape agrees with its targets and whose values are finite.
func checkFuzzed(t *testing.T, d *Dataset, err error) {
	t.Helper()
	if err != nil {
		// Decompressors report their own errors (gzip.ErrHeader,
		// bzip2.StructuralError) besides ErrInput; any error is fine as
		// long as it says something.
		if err.Error() == "" {
			t.Fatalf("empty error text")
		}
		return
	}
	r, c := 0, 0
	if d.X != nil {
		r, c = d.X.Dims()
	}
	if r != len(d.Y) || (d.Len() > 0 && c != d.Dim()) {
		t.Fatalf("X is %d×%d for %d targets", r, c, len(d.Y))
	}
	for i := range r {
		for j := range c {
			if v := d.X.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("X[%d,%d] is %v", i, j, v)
			}
		}
	}
	for i, y := range d.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			t.Fatalf("target %d is %v", i, y)
		}
	}
}

// FuzzReadLIBSVM feeds arbitrary bytes to the LIBSVM reader; the seeds
// cover comments, qid, blank lines and the mistakes the reader must refuse
// (the corpus grows in testdata/fuzz/FuzzReadLIBSVM). Each input is also
// read sparse (checkSparseFuzzed), so the one target covers both readers.
func FuzzReadLIBSVM(f *testing.F) {
	for _, s := range []string{
		"1 1:0.5 3:-2\n-1 2:1\n",
		"+1 qid:3 1:1 2:2 # comment\n\n0 4:1e-3\n",
		"1 0:1\n", "1 2:1 1:1\n", "1 1:nan\n", "x 1:1\n", "1 1:1 1:2\n", "1 999999999:1\n", "1 1\n", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Read(bytes.NewReader(b), ReadOptions{Format: LIBSVM, MaxBytes: fuzzMaxBytes})
		checkFuzzed(t, d, err)
		checkSparseFuzzed(t, b, d, err)
	})
}

// checkSparseFuzzed reads b as ReadLIBSVMSparseFile reads a file
// (decompress, then ReadLIBSVMSparse) and compares with the dense read
// (d, err): both fail or neither, except that the dense reader also refuses
// a matrix over its budget (fuzzMaxBytes), which the sparse one reads; when
// both succeed the CSR arrays are valid (NewCSR accepts them), the labels
// are the same and ToDense equals the dense X entry for entry.
func checkSparseFuzzed(t *testing.T, b []byte, d *Dataset, err error) {
	t.Helper()
	br, closeFn, serr := decompress(bytes.NewReader(b))
	var xs *CSR
	var ys []float64
	if serr == nil {
		xs, ys, serr = ReadLIBSVMSparse(context.Background(), br, 0)
		closeFn()
	}
	if serr != nil {
		if serr.Error() == "" {
			t.Fatal("empty error text from the sparse reader")
		}
		if err == nil {
			t.Fatalf("sparse read failed (%v), dense read succeeded", serr)
		}
		return
	}
	n, c := xs.Dims()
	if _, verr := NewCSR(n, c, xs.Indptr, xs.Indices, xs.Values); verr != nil {
		t.Fatalf("sparse read gave invalid CSR arrays: %v", verr)
	}
	if len(ys) != n {
		t.Fatalf("sparse read: %d rows, %d labels", n, len(ys))
	}
	if over := float64(n) * float64(c) * 8; over > fuzzMaxBytes {
		if err == nil {
			t.Fatalf("dense read of a %d×%d matrix succeeded over its %d-byte budget", n, c, fuzzMaxBytes)
		}
		return
	}
	if err != nil {
		t.Fatalf("dense read failed (%v), sparse read succeeded (%d×%d)", err, n, c)
	}
	if !slices.Equal(ys, d.Y) {
		t.Fatalf("labels: sparse %v, dense %v", ys, d.Y)
	}
	if r, dc := d.X.Dims(); r != n || dc != c {
		t.Fatalf("sparse %d×%d, dense %d×%d", n, c, r, dc)
	}
	xd := xs.ToDense()
	for i := range n {
		for j := range c {
			if a, b := xd.At(i, j), d.X.At(i, j); a != b {
				t.Fatalf("X[%d,%d]: sparse %v, dense %v", i, j, a, b)
			}
		}
	}
}

// FuzzReadCSV feeds arbitrary bytes to the CSV reader, with and without a
// header and with the target in the first or last column.
func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,y\n1,2,3\n4,5,6\n",
		"1,2,3\n4,5,6\n",
		"a,b\n1\n", "1,2\n3,x\n", "\"a\",\"b\"\n1,2\n", "a;b\n1;2\n", "1,NaN\n", "1,2,\n", "",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, b []byte, first bool) {
		opt := ReadOptions{Format: CSV, MaxBytes: fuzzMaxBytes}
		if first {
			opt.Target = "0"
		}
		d, err := Read(bytes.NewReader(b), opt)
		checkFuzzed(t, d, err)
	})
}

// FuzzReadUnlabelled reads arbitrary text as predict does: CSV columns
// matched to the names a, b, c (target y, which may be absent), or LIBSVM
// rows with or without labels, three features. A success has either no
// labels or one per row, and three columns unless a CSV was read by
// position.
func FuzzReadUnlabelled(f *testing.F) {
	for _, s := range []string{
		"a,b,c,y\n1,2,3,4\n", "y,c,b,a\n4,3,2,1\n", "c,a,b\n3,1,2\n", "a,b\n1,2\n", "a,a,b,c\n1,1,2,3\n",
		"1,2,3\n", "1,2,3,4\n", "1:0.5 3:2\n2:1\n", "1 1:0.5\n2:1\n", "",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, libsvm bool) {
		opt := ReadOptions{Format: CSV, MaxBytes: fuzzMaxBytes, Dim: 3, AllowUnlabelled: true, Features: []string{"a", "b", "c"}, Target: "y"}
		if libsvm {
			opt.Format = LIBSVM
		}
		d, err := Read(bytes.NewReader(b), opt)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error text")
			}
			return
		}
		// A CSV read by position may have any width (predict checks it
		// against the model); LIBSVM and a header matched by name have 3.
		r, c := d.X.Dims()
		if (c != 3 && (libsvm || d.Features != nil)) || (d.Y != nil && len(d.Y) != r) || d.Len() != r {
			t.Fatalf("X is %d×%d with %d labels (Len %d)", r, c, len(d.Y), d.Len())
		}
		if d.Y != nil {
			checkFuzzed(t, d, nil)
		}
	})
}
