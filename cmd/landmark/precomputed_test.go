package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestCLIPrecomputed: fit --kernel precomputed on LIBSVM -t 4 files (rows
// "y 0:i 1:K(x_i, x_1) …") reads them 0-based without --zero-based (said
// on stdout), and predict reads the query file ("0:0 …") the same way; the
// scores predict writes are those of the same points fitted with the
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
	a, _ := os.ReadFile(p("pre.out"))
	b, _ := os.ReadFile(p("pts.out"))
	fa, fb := strings.Fields(string(a)), strings.Fields(string(b))
	if len(fa) != 25 || len(fb) != 25 {
		t.Fatalf("%d and %d scores, want 25", len(fa), len(fb))
	}
	for i := range fa {
		var va, vb float64
		fmt.Sscan(fa[i], &va)
		fmt.Sscan(fb[i], &vb)
		if math.Abs(va-vb) > 1e-6 {
			t.Errorf("row %d: precomputed score %s, gaussian %s", i, fa[i], fb[i])
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
	l, _ := os.ReadFile(p("libsvm.out"))
	o, _ := os.ReadFile(p("labels.out"))
	fl, fo := strings.Fields(string(l)), strings.Fields(string(o))
	if len(fl) != 25 || len(fo) != 25 {
		t.Fatalf("%d and %d labels, want 25", len(fl), len(fo))
	}
	for i := range fl {
		var a, b float64
		fmt.Sscan(fl[i], &a)
		fmt.Sscan(fo[i], &b)
		if a != b {
			t.Errorf("row %d: svm-predict %s, predict %s", i, fl[i], fo[i])
		}
	}
}
