package cluster

import (
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
)

// TestKMeansPlanWide: without a sketch no d×d matrix exists, so on wide data
// (n = 2,000, d = 50,000, K = 50, the shape of a text set) the plan is the
// one K×d centroid set (the means are summed in place) and a d-vector plus
// O(n + K) terms: 8·(50·50,000 + 50,000 + 3·2,000 + 2·2,000 + 2,048·50) =
// 21,299,200 bytes, not the 20 GB of a d×d sketch. The sketched plan adds the p×d
// sketch and the s×p sketched sample.
func TestKMeansPlanWide(t *testing.T) {
	n, d, k := 2000, 50000, 50
	if got, want := (KMeans{K: k}).PlanBytes(n, d), int64(8*(k*d+d+3*n+2*n+points.PlanChunk*k)); got != want {
		t.Errorf("unsketched plan %d bytes, want %d", got, want)
	}
	p := 16
	got := (KMeans{K: k, Sketch: p}).PlanBytes(n, d)
	if want := int64(8 * (n*p + p*d + k*d + d + 3*n + 2*n + points.PlanChunk*k)); got != want {
		t.Errorf("sketched plan %d bytes, want %d", got, want)
	}
}
