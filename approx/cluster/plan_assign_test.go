package cluster

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/heap"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// TestAssignPlanned: one assignment pass of dense rows to their nearest
// centroids (kmNearest, every Lloyd iteration and the final labels) at
// n = 1,500, d = 400, K = 100 allocates (runtime.MemStats.TotalAlloc
// around it) at least each worker's block of 256 rows copied from X
// (8·256·d = 0.8 MB a worker) and at most assignBytes (those blocks, their
// distances, the packing buffers of X_b·Cᵀ, the norms), plus 16 KiB for the
// pass's closures and slices of buffers. The plans counted
// points.PlanChunk·K distances (1.6 MB) for it before; the pass allocates
// 4.44 MB on two workers, and 4.44 MB is planned now. PlanFor adds the
// difference for dense X, not for CSR rows (their pass reads the rows in
// place).
func TestAssignPlanned(t *testing.T) {
	const n, d, k = 1500, 400, 100
	rng := rand.New(rand.NewPCG(7, 8))
	x, c := mat.NewDense(n, d, nil), mat.NewDense(k, d, nil)
	for _, m := range []*mat.Dense{x, c} {
		for i := range m.RawMatrix().Data {
			m.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	lab, dist := make([]int, n), make([]float64, n)
	got := heap.AllocatedFresh(t, func() error { return kmNearest(context.Background(), lab, dist, x, nil, c) })
	plan := assignBytes(k, d)
	w := int64(min(parallel.Workers(0), (n+assignRows-1)/assignRows))
	t.Logf("the pass allocated %d bytes, assignBytes %d, before %d", got, plan, 8*points.PlanChunk*k)
	// Under the race detector kernel.Dense's pooled packing buffers are
	// dropped at random and allocated again: no upper bound there.
	if low := w * 8 * assignRows * d; got < low || got > plan+16<<10 && !raceBuild {
		t.Errorf("the pass allocated %d bytes, want between the blocks of X (%d) and assignBytes + 16 KiB (%d)", got, low, plan+16<<10)
	}
	km := KMeans{K: k}
	if dense, csr := km.PlanFor(x), km.PlanBytes(n, d); dense != csr+plan-8*points.PlanChunk*k {
		t.Errorf("PlanFor(dense X) = %d, want PlanBytes %d + assignBytes %d − the chunk of distances %d", dense, csr, plan, 8*points.PlanChunk*k)
	}
}
