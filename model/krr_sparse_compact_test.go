package model

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestSparseGramCompactColumns: the Gram matrix of exact KRR on sparse X,
// formed on X with its non-zero columns renumbered (compactColumns), is the
// one formed on X itself to the bit, for the four built-in kernels (the
// renumbering keeps the order in which entries are summed), and equals the
// dense engine's to 1e-12 (the rounding of a few dozen products of
// values ≤ 4 in magnitude); a kernel outside those four is left alone.
// At d = 10⁸ the fit then allocates no d-element scatter vector: 6 rows fit
// with less than 1 MiB allocated where one such vector is 800 MB.
func TestSparseGramCompactColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, _ := wideCSR(30, 2000, 7, rng)
	xd := kernel.DenseOf(x)
	wx, _ := wideCSR(30, 1_000_000, 7, rng)
	for _, k := range []kernel.Kernel{
		kernel.Gaussian{Gamma: 0.3}, kernel.Laplacian{Gamma: 0.2},
		kernel.Polynomial{Gamma: 0.5, Coef0: 1, Degree: 3}, kernel.Linear{},
	} {
		cw, _ := compactColumns(k, wx)
		wg, ww := mat.NewDense(30, 30, nil), mat.NewDense(30, 30, nil)
		if err := sparseGram(context.Background(), k, cw, wg, 2); err != nil {
			t.Fatal(err)
		}
		if err := sparseGram(context.Background(), k, wx, ww, 2); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(wg, ww) {
			t.Errorf("%v: compacted Gram at d = 10⁶ differs from the uncompacted one", k)
		}
		cx, u := compactColumns(k, x)
		if _, d := cx.Dims(); d != u || u > 30*7 || u < 7 {
			t.Fatalf("%v: compacted to %d columns (u = %d), want ≤ 210 and ≥ 7", k, d, u)
		}
		got, want := mat.NewDense(30, 30, nil), mat.NewDense(30, 30, nil)
		if err := sparseGram(context.Background(), k, cx, got, 2); err != nil {
			t.Fatal(err)
		}
		if err := sparseGram(context.Background(), k, x, want, 2); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("%v: compacted Gram differs from the uncompacted one", k)
		}
		dense := mat.NewDense(30, 30, nil)
		if err := kernel.NewOp(k, xd, xd, kernel.Options{}).Block(context.Background(), dense); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(got, dense, 1e-12) {
			t.Errorf("%v: compacted Gram differs from the dense engine's", k)
		}
	}
	// Another kernel keeps X as it is.
	if cx, u := compactColumns(ownKernel{kernel.Gaussian{Gamma: 0.1}}, x); cx != kernel.Sparse(x) || u != 2000 {
		t.Errorf("own kernel: compacted to %d columns", u)
	}

	// 6 rows, one non-zero at column 10⁸ − 1.
	ip := []int{0, 2, 4, 6, 8, 10, 12}
	ix := []int32{0, 4, 1, 99_999_999, 0, 2, 1, 2, 0, 3, 1, 5}
	iv := []float64{1, 0.5, 1, 0.3, 0.9, 0.2, 0.8, 1, 0.4, 1, 0.5, 0.7}
	wide := kernel.NewCSRRows(100_000_000, ip, ix, iv)
	y := []float64{1, -1, 1, -1, 1, -1}
	m := &KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, Workers: 2, Task: Classification}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := m.Fit(context.Background(), wide, y); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("exact KRR on 6 rows at d = 10⁸ allocated %d bytes", got)
	}
	p, err := m.Predict(wide)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range p {
		if v != y[i] {
			t.Errorf("row %d: predicted %g, label %g", i, v, y[i])
		}
	}
}

// ownKernel is a kernel outside the built-in four (it might read a
// column's position).
type ownKernel struct{ kernel.Gaussian }
