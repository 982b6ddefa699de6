package model

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestExactKRRSparseWideAllocs: exact KRR on 6 CSR rows at d = 10⁸ fits
// with less than 1 MiB allocated, Gaussian (kernel.SparseIndex) and
// Laplacian (compactColumns) — a d-element scatter vector alone is 800 MB,
// and one per worker took 1.6 GB — and the Gaussian fit predicts its own ±1
// labels (λ = 10⁻³ against a Gram matrix with unit diagonal: the fit
// interpolates).
func TestExactKRRSparseWideAllocs(t *testing.T) {
	// 6 rows, one non-zero at column 10⁸ − 1.
	ip := []int{0, 2, 4, 6, 8, 10, 12}
	ix := []int32{0, 4, 1, 99_999_999, 0, 2, 1, 2, 0, 3, 1, 5}
	iv := []float64{1, 0.5, 1, 0.3, 0.9, 0.2, 0.8, 1, 0.4, 1, 0.5, 0.7}
	wide := kernel.NewCSRRows(100_000_000, ip, ix, iv)
	y := []float64{1, -1, 1, -1, 1, -1}
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 1}, kernel.Laplacian{Gamma: 1}} {
		m := &KRR{Kernel: k, Lambda: 1e-3, Resources: Resources{Workers: 2}, Task: Classification}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := m.Fit(context.Background(), wide, y); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
			t.Errorf("%v: exact KRR on 6 rows at d = 10⁸ allocated %d bytes", k, got)
		}
		// Training labels only: predicting takes the SVM decision's sparse
		// path, which (for the Laplacian) still allocates d elements.
		if k, ok := k.(kernel.Gaussian); ok {
			p, err := m.Predict(wide)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range p {
				if v != y[i] {
					t.Errorf("%v: row %d: predicted %g, label %g", k, i, v, y[i])
				}
			}
		}
	}
}

// TestCompactColumnsLaplacian: the Laplacian Gram matrix of exact KRR on X
// with its non-zero columns renumbered is the one on X itself to the bit (at
// d = 10⁶, 30 rows of 7 non-zeros), and the dense engine's to 1e-12 (at
// d = 2,000; sums of a few dozen |differences| ≤ 8); other kernels keep X.
func TestCompactColumnsLaplacian(t *testing.T) {
	k := kernel.Laplacian{Gamma: 0.2}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, d := range []int{2000, 1_000_000} {
		x, _ := wideCSR(30, d, 7, rng)
		cx, u := compactColumns(k, x)
		if _, c := cx.Dims(); c != u || u > 210 || u < 7 {
			t.Fatalf("d = %d: compacted to %d columns (u = %d)", d, c, u)
		}
		got, want := mat.NewDense(30, 30, nil), mat.NewDense(30, 30, nil)
		if err := sparseGram(context.Background(), k, cx, got, 2); err != nil {
			t.Fatal(err)
		}
		if err := sparseGram(context.Background(), k, x, want, 2); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("d = %d: compacted Gram differs from the uncompacted one", d)
		}
		if d == 2000 {
			xd := kernel.DenseOf(x)
			dense := mat.NewDense(30, 30, nil)
			if err := kernel.NewOp(k, xd, xd, kernel.Options{}).Block(context.Background(), dense); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(got, dense, 1e-12) {
				t.Errorf("compacted Gram differs from the dense engine's")
			}
		}
		if cg, ug := compactColumns(kernel.Gaussian{Gamma: 1}, x); cg != kernel.Sparse(x) || ug != d {
			t.Errorf("d = %d: the Gaussian got %d columns", d, ug)
		}
	}
}

// TestExactKRRSparseDensePlan: exact KRR on dense-ish CSR rows (75% of d =
// 2,000 columns set, so the Laplacian's columns are not renumbered: u = d)
// allocates no more than its plan, Info().MemoryBytes, minus the caller's
// data (12 bytes a non-zero and 8 a row, counted by the plan, not
// allocated by the fit). heap.AllocatedFresh counts every allocation,
// however short-lived, so this bounds the peak too. The Laplacian fit
// allocated 9.17 MB against 8.15 MB planned beside the data before its
// plan counted compactColumns' sorted copy of the indices (4 bytes a
// non-zero, 1.8 MB here), which is made to find u even when X is then
// kept; the Gaussian (kernel.SparseIndex) is the control.
func TestExactKRRSparseDensePlan(t *testing.T) {
	const n, d, nnz = 300, 2000, 1500
	x, y := wideCSR(n, d, nnz, rand.New(rand.NewPCG(1, 2)))
	data := int64(12*n*nnz + 8*(n+1))
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 0.01}, kernel.Laplacian{Gamma: 0.01}} {
		m := &KRR{Kernel: k, Lambda: 1e-3}
		got := heap.AllocatedFresh(t, func() error { return m.Fit(context.Background(), x, y) })
		plan := m.Info().MemoryBytes
		t.Logf("%v: allocated %d bytes, plan %d beside the data", k, got, plan-data)
		if got > plan-data {
			t.Errorf("%v: the fit allocated %d bytes, plan %d beside the data", k, got, plan-data)
		}
	}
}
