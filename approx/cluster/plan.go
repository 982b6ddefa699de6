package cluster

import "github.com/landmark-ml/landmark/approx/internal/points"

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
