package cluster

import (
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// PlanBytes estimates the peak bytes of Fit on n×d data: the clustered
// sample (s×p with s = min(Subsample, n) and p the sketch or d, copied when
// subsampled or sketched; for CSR input an upper bound, the copy being CSR
// rows), the sketch matrix (pd, only with a sketch), one K×d centroid set
// (Lloyd's means are summed in place in the centroids' rows, and in sketch
// mode the original-space centroids are the only K×d matrix; measured with
// BKA-SVM on 300 CSR rows with d = 2,000,000 and K = 3: heap growth 45.9 MiB,
// one 45.8 MiB set, where a K×d scratch for the sums made it 91.4 MiB) and
// k-means++'s d-vector,
// per row the label, distance and sample index (3n), the labels and
// distances of Lloyd's iterations on the sample (2s), and the distances of
// one chunk of rows to the K centroids (points.PlanChunk·K).
func (km KMeans) PlanBytes(n, d int) int64 {
	s := km.Subsample
	if s <= 0 {
		s = DefaultKMeansSubsample
	}
	s = min(s, n)
	p := d
	var sketch int64
	if km.Sketch > 0 {
		p = km.Sketch
		sketch = int64(p) * int64(d)
	}
	var sample int64
	if s < n || km.Sketch > 0 {
		sample = int64(s) * int64(p)
	}
	return 8 * (sample + sketch + int64(km.K)*int64(d) + int64(d) + 3*int64(n) + 2*int64(s) + points.PlanChunk*int64(km.K))
}

// PlanFor is PlanBytes for the data x itself: dense X (anything but CSR
// rows, which Fit reads as they are) adds what the assignment of rows to
// their nearest centroids allocates beyond PlanBytes's chunk of distances
// (assignBytes: each worker's block of X's rows copied or sketched, its
// distances, and the engine's packing buffers for the block's products
// with the centroids). Fit checks it against MaxBytes.
func (km KMeans) PlanFor(x mat.Matrix) int64 {
	n, d := x.Dims()
	_, sparse := x.(kernel.Sparse)
	return km.planFor(n, d, !sparse)
}

// planFor is PlanFor on n×d data, dense or CSR.
func (km KMeans) planFor(n, d int, dense bool) int64 {
	plan := km.PlanBytes(n, d)
	if !dense {
		return plan
	}
	p := d
	if km.Sketch > 0 {
		p = km.Sketch
	}
	return plan + max(0, assignBytes(km.K, p)-8*points.PlanChunk*int64(km.K))
}

// assignBytes is what one assignment pass over dense rows (kmNearest)
// allocates with K centroids of dc values (d, or the sketch's p): the
// centroids' norms, and per worker (GOMAXPROCS) a block of assignRows rows
// copied from X or sketched (8·assignRows·dc), its distances to the
// centroids (8·assignRows·K) and kernel.Dense's packing buffers for their
// product. Before, the plans counted only a chunk of distances
// (points.PlanChunk·K values): at n = 1,500, d = 400, K = 100 a pass
// allocates 4.4 MB on two workers against 1.6 MB planned
// (TestAssignPlanned), and the k-means sampler's heap peaked at 6.0 MB
// (sampled, GOGC = 10) against a plan of 2.0 MB, 4.8 MB now.
func assignBytes(k, dc int) int64 {
	w, r := int64(parallel.Workers(0)), int64(assignRows)
	return 8*int64(k) + w*(8*r*int64(k+dc)+kernel.Dense{Workers: 1}.PackBytes(assignRows, k, dc))
}
