package model

import (
	"context"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
)

// TestExactKRRSparseWideAllocs: exact KRR on 6 CSR rows at d = 10⁸ fits
// with less than 1 MiB allocated (a d-element scatter vector alone is
// 800 MB; one per worker took 1.6 GB before kernel.SparseIndex) and
// predicts its own ±1 labels (λ = 10⁻³ against a Gram matrix with unit
// diagonal: the fit interpolates).
func TestExactKRRSparseWideAllocs(t *testing.T) {
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
