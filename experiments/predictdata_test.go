package experiments

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// TestReadInputLIBSVMForms: predict's read of LIBSVM rows for a model whose
// scaling keeps zeros gives the same X whatever the file's form. A plain
// or gzip file at or above SparseDensity is read into dense X directly
// (its shape counted first); the same bytes from a stream (a FIFO) are
// read as CSR and converted; a plain file below SparseDensity stays CSR;
// a plain file with a column beyond the model's stays CSR with the columns
// counted. The test
// rows: 30 × 6, every entry stored (density 1), then every row of a
// 1-entry-a-row file (density 1/6 ≥ 0.1 for a model of 6 columns, 1/60
// below it for one of 60).
func TestReadInputLIBSVMForms(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	var dense, thin strings.Builder
	for i := range 30 {
		fmt.Fprintf(&dense, "%d", 2*(i%2)-1)
		for j := range 6 {
			fmt.Fprintf(&dense, " %d:%.4f", j+1, r.NormFloat64())
		}
		dense.WriteString("\n")
		fmt.Fprintf(&thin, "%d %d:%.4f\n", 2*(i%2)-1, 1+i%6, r.NormFloat64())
	}
	write := func(name, text string, gz bool) string {
		p := filepath.Join(dir, name)
		b := []byte(text)
		if gz {
			var buf bytes.Buffer
			w := gzip.NewWriter(&buf)
			w.Write(b)
			w.Close()
			b = buf.Bytes()
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("tr.libsvm", dense.String(), false)
	res, err := Fit(context.Background(), decodeIn(t, "name: p\ndataset: {path: tr.libsvm}\ntask: binary\nestimator: {type: svm, kernel: {type: gaussian, gamma: 0.5}}\n", dir))
	if err != nil {
		t.Fatal(err)
	}
	read := func(fit *FitResult, path string) (mat.Matrix, []float64) {
		t.Helper()
		in, err := datasets.OpenInput(context.Background(), path, datasets.LIBSVM)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		x, y, _, err := fit.ReadInput(context.Background(), in, datasets.ReadOptions{}, "m")
		if err != nil {
			t.Fatal(err)
		}
		return x, y
	}
	plain, yp := read(res, write("te.libsvm", dense.String(), false))
	gzd, yg := read(res, write("te.libsvm.gz", dense.String(), true))
	if _, ok := plain.(*mat.Dense); !ok {
		t.Errorf("plain file at density 1: X is %T, want *mat.Dense", plain)
	}
	if _, ok := gzd.(*mat.Dense); !ok {
		t.Errorf("gzip file at density 1: X is %T, want *mat.Dense", gzd)
	}
	if !mat.Equal(plain, gzd) || fmt.Sprint(yp) != fmt.Sprint(yg) {
		t.Errorf("plain and gzip reads differ")
	}
	// The same rows from a stream, read once as CSR and converted.
	stream := func(text string) string {
		if !fifoWith(t, dir, "stream.libsvm", []byte(text)) {
			t.Skip("no FIFOs here")
		}
		return filepath.Join(dir, "stream.libsvm")
	}
	if sx, sy := read(res, stream(dense.String())); !mat.Equal(plain, sx) || fmt.Sprint(yp) != fmt.Sprint(sy) {
		t.Errorf("plain and stream reads differ")
	}
	thinPlain, _ := read(res, write("thin.libsvm", thin.String(), false))
	thinGz, _ := read(res, write("thin.libsvm.gz", thin.String(), true))
	thinStream, _ := read(res, stream(thin.String()))
	if _, ok := thinPlain.(*mat.Dense); !ok || !mat.Equal(thinPlain, thinGz) || !mat.Equal(thinPlain, thinStream) {
		t.Errorf("density 1/6 for 6 columns: plain X %T, equal to the gzip read's: %v, to the stream's: %v", thinPlain, mat.Equal(thinPlain, thinGz), mat.Equal(thinPlain, thinStream))
	}
	wide := *res
	wide.Dim = 60
	if x, _ := read(&wide, filepath.Join(dir, "thin.libsvm")); fmt.Sprintf("%T", x) != "*datasets.CSR" {
		t.Errorf("density 1/60: X is %T, want CSR", x)
	}
	far := thin.String() + "1 7:1\n"
	if x, _ := read(res, write("far.libsvm", far, false)); fmt.Sprintf("%T", x) != "*datasets.CSR" {
		t.Errorf("a column beyond the model's: X is %T, want CSR", x)
	} else if _, c := x.Dims(); c != 7 {
		t.Errorf("a column beyond the model's: %d columns, want 7", c)
	}
}
