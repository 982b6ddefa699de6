package approx

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/heap"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestLevelPlanCountsChunk: on wide dense X (n = 1,500, d = 2,000,
// m = 50) the top level of RecursiveRLS (its score estimator over all n
// rows against m landmarks; BLESS's estimator is the same) allocates
// mostly what the plans left out before: the chunk of X's rows it gathers
// (here all 1,500 rows, 24 MB: a copy of X) and the block engine's scratch
// for their kernel rows (two workers' 520-row packed blocks of X, 8.3 MB
// each, and a block of K). runtime.MemStats.TotalAlloc around the level
// (every allocation, however short-lived) must reach the chunk's copy and
// stay within the sampler's whole plan (PlanSample), which before was
// 2.1 MB (8·(3m² + 2nm + 3n) + md) and now adds chunkPlan: the chunk's
// kernel rows and solve panel in float64 and float32, 12·n·(64 + 50), three
// n-vectors, 8·n·d and engineBlockBytes(n, m, d), 46.4 MB here.
func TestLevelPlanCountsChunk(t *testing.T) {
	const n, d, m = 1500, 2000, 50
	rng := rand.New(rand.NewPCG(5, 6))
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	k := kernel.Gaussian{Gamma: 1.0 / d}
	pts := points.Landmarks(x, points.Sample(n, m, rng))
	for _, s := range []Sampler{RecursiveRLS{}, BLESS{}} {
		plan, _ := PlanSample(s, x, m)
		if want := levelPlan(n, m, 8*m*d) + 12*n*(64+50) + 24*n + 8*n*d + engineBlockBytes(n, m, d, kernel.Options{}); plan != want {
			t.Errorf("%T: plan %d, want %d", s, plan, want)
		}
		// Fresh: the engine's pooled works emptied first.
		got := heap.AllocatedFresh(t, func() error {
			_, err := (RecursiveRLS{}).levelScores(context.Background(), x, k, pts, levOnes(m), points.Iota(n), 1e-3*n, 1)
			return err
		})
		t.Logf("%T: the top level allocated %d bytes, plan %d", s, got, plan)
		// Under the race detector kernel.Dense's pooled packing buffers
		// are dropped at random and allocated again: no upper bound there.
		if got < 8*n*d || got > plan && !raceBuild {
			t.Errorf("%T: the top level allocated %d bytes, want between the chunk's copy of X (%d) and the plan (%d)", s, got, 8*n*d, plan)
		}
	}
}
