package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestCLIPrecomputed: fit --kernel precomputed on LIBSVM -t 4 files (rows
// "y 0:i 1:K(x_i, x_1) …") reads them 0-based without --zero-based (said
// on stdout), and predict reads the query file ("0:0 …") the same way; the
// same rows as CSV (serial first, label last) give the same test scores;
// the scores predict writes are those of the same points fitted with the
// Gaussian kernel the files hold, to 1e-6; and svm-train -t 4 with
// svm-predict (when installed) give the same labels.
func TestCLIPrecomputed(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(41, 42))
	g := kernel.Gaussian{Gamma: 0.5}
	points := func(k int) (*mat.Dense, []float64) {
		x, y := mat.NewDense(k, 2, nil), make([]float64, k)
		for i := range k {
			y[i] = float64(2*rng.IntN(2) - 1)
			x.Set(i, 0, rng.NormFloat64()+0.9*y[i])
			x.Set(i, 1, rng.NormFloat64())
		}
		return x, y
	}
	x, y := points(80)
	q, yq := points(25)
	p := func(name string) string { return filepath.Join(dir, name) }
	write := func(name string, rows *mat.Dense, y []float64, kern, train bool) {
		var b strings.Builder
		r, _ := rows.Dims()
		k := mat.NewDense(r, 80, nil)
		g.Block(k, rows, x)
		for i := range r {
			fmt.Fprintf(&b, "%g", y[i])
			if !kern {
				fmt.Fprintf(&b, " 1:%.17g 2:%.17g\n", rows.At(i, 0), rows.At(i, 1))
				continue
			}
			s := 0
			if train {
				s = i + 1
			}
			fmt.Fprintf(&b, " 0:%d", s)
			for j := range 80 {
				fmt.Fprintf(&b, " %d:%.17g", j+1, k.At(i, j))
			}
			b.WriteByte('\n')
		}
		if err := os.WriteFile(p(name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pre.libsvm", x, y, true, true)
	write("pre.t", q, yq, true, false)
	write("pts.libsvm", x, y, false, true)
	write("pts.t", q, yq, false, false)
	// The same kernel rows as CSV: the serial number first, the label last.
	for _, f := range []struct{ from, to string }{{"pre.libsvm", "pre.csv"}, {"pre.t", "pre_t.csv"}} {
		b, err := os.ReadFile(p(f.from))
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			fields := strings.Fields(line)
			for _, kv := range fields[1:] {
				_, v, _ := strings.Cut(kv, ":")
				out.WriteString(v + ",")
			}
			out.WriteString(fields[0] + "\n")
		}
		if err := os.WriteFile(p(f.to), []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testLine := func(args ...string) string {
		t.Helper()
		code, so, se := runCLI(append([]string{"fit", "--estimator", "svm", "--kernel", "precomputed", "--c", "2", "--progress", "never"}, args...)...)
		i := strings.Index(so, "test (25 rows):")
		if code != 0 || i < 0 {
			t.Fatalf("fit %v: exit %d\n%s\n%s", args, code, so, se)
		}
		return strings.SplitN(so[i:], "\n", 2)[0]
	}
	if a, b := testLine("--data", p("pre.libsvm"), "--test-data", p("pre.t")), testLine("--data", p("pre.csv"), "--test-data", p("pre_t.csv")); a != b {
		t.Errorf("LIBSVM files: %s; CSV files: %s", a, b)
	}
	code, so, se := runCLI("fit", "--data", p("pre.libsvm"), "--estimator", "svm", "--kernel", "precomputed", "--c", "2", "--save", p("pre.lmk"), "--progress", "never")
	if code != 0 || !strings.Contains(so, "zero_based (LIBSVM's precomputed-kernel rows start with 0:i)") {
		t.Fatalf("fit: exit %d\n%s\n%s", code, so, se)
	}
	if code, so, se := runCLI("fit", "--data", p("pts.libsvm"), "--estimator", "svm", "--gamma", "0.5", "--c", "2", "--save", p("pts.lmk"), "--progress", "never"); code != 0 {
		t.Fatalf("fit gaussian: exit %d\n%s\n%s", code, so, se)
	}
	for _, m := range []struct{ model, data, out string }{{"pre.lmk", "pre.t", "pre.out"}, {"pts.lmk", "pts.t", "pts.out"}} {
		if code, so, se := runCLI("predict", "--model", p(m.model), "--data", p(m.data), "--out", p(m.out), "--output", "scores", "--progress", "never"); code != 0 {
			t.Fatalf("predict %s: exit %d\n%s\n%s", m.model, code, so, se)
		}
	}
	// numbers reads the 25 numbers, one a line, that a run wrote to name.
	numbers := func(name string) []float64 {
		t.Helper()
		b, err := os.ReadFile(p(name))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(b))
		if len(f) != 25 {
			t.Fatalf("%s: %d values, want 25", name, len(f))
		}
		v := make([]float64, len(f))
		for i, s := range f {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("%s line %d: %v", name, i+1, err)
			}
		}
		return v
	}
	pre, pts := numbers("pre.out"), numbers("pts.out")
	for i := range pre {
		if math.Abs(pre[i]-pts[i]) > 1e-6 {
			t.Errorf("row %d: precomputed score %v, gaussian %v", i, pre[i], pts[i])
		}
	}
	// LIBSVM reads the same files (when installed): svm-predict's labels
	// are predict's.
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("LIBSVM's svm-train is not installed (Debian: libsvm-tools)")
	}
	if out, err := exec.Command("svm-train", "-t", "4", "-c", "2", "-q", p("pre.libsvm"), p("pre.model")).CombinedOutput(); err != nil {
		t.Fatalf("svm-train -t 4: %v\n%s", err, out)
	}
	if out, err := exec.Command("svm-predict", p("pre.t"), p("pre.model"), p("libsvm.out")).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	if code, so, se := runCLI("predict", "--model", p("pre.lmk"), "--data", p("pre.t"), "--out", p("labels.out"), "--progress", "never"); code != 0 {
		t.Fatalf("predict labels: exit %d\n%s\n%s", code, so, se)
	}
	if l, o := numbers("libsvm.out"), numbers("labels.out"); !slices.Equal(l, o) {
		t.Errorf("svm-predict's labels %v, predict's %v", l, o)
	}
}
