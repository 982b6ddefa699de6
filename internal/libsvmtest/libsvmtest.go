// Package libsvmtest writes small LIBSVM files for tests: the files users
// bring, 1-based as LIBSVM's tools write them or 0-based as
// scikit-learn's dump_svmlight_file writes them by default.
package libsvmtest

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Write writes the rows of x as a LIBSVM file at path, feature j as index
// j+base (base 1 as LIBSVM, 0 as scikit-learn's default), zeros left out,
// each line led by its label y[i] unless y is nil (an unlabelled file,
// as landmark predict reads). Values are written in the shortest form that
// reads back to the same float64. It fails tb on a write error.
func Write(tb testing.TB, path string, x mat.Matrix, y []float64, base int) {
	tb.Helper()
	var b strings.Builder
	n, c := x.Dims()
	for i := range n {
		sep := false
		if y != nil {
			b.WriteString(strconv.FormatFloat(y[i], 'g', -1, 64))
			sep = true
		}
		for j := range c {
			if v := x.At(i, j); v != 0 {
				if sep {
					b.WriteByte(' ')
				}
				sep = true
				b.WriteString(strconv.Itoa(j+base) + ":" + strconv.FormatFloat(v, 'g', -1, 64))
			}
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
}
