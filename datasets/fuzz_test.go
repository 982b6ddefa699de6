package datasets

import (
	"bytes"
	"math"
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
// (the corpus grows in testdata/fuzz/FuzzReadLIBSVM).
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
	})
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
