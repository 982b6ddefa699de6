package approx

// Memory plans of the samplers. Each PlanBytes(n, d, m) estimates, before
// sampling, the peak bytes Sample allocates for m landmarks of an n×d data
// set, from the algorithm's largest arrays (the data itself is not counted:
// the caller holds it). Estimators add it to their own plans and refuse a fit
// whose plan exceeds their MemoryLimit (model.ErrMemory, which is ErrMemory).

// planChunk is the number of rows the score estimators and the kernel engine
// work on at once, as counted by the plans (the engine's blocks are smaller).
const planChunk = 2048

// PlanBytes is the landmark copy and the index draw: 8md + 16n.
func (Uniform) PlanBytes(n, d, m int) int64 {
	return 8 * (int64(m)*int64(d) + 2*int64(n))
}

// PlanBytes is dominated by three n×n matrices: the kernel matrix, the copy
// the eigensolver of the fixed-size ridge works on and its workspace
// (ExactLeverage's Cholesky then reuses one), plus the scores and the
// landmarks: 8·(3n² + 4n + md). Measured on n = 4000 (plan_test.go): a
// peak of 370 MiB against a plan of 366 MiB.
func (ExactRLS) PlanBytes(n, d, m int) int64 {
	nn := int64(n)
	return 8 * (3*nn*nn + 4*nn + int64(m)*int64(d))
}

// PlanBytes counts the top level: the m×m systems of the ridge search and
// the score estimator (three m×m matrices), the kernel rows of the level
// against the m landmarks and their triangular solves (2nm), the level's
// permutation and scores (3n) and the landmarks (md).
func (RecursiveRLS) PlanBytes(n, d, m int) int64 {
	mm := int64(m)
	return 8 * (3*mm*mm + 2*int64(n)*mm + 3*int64(n) + mm*int64(d))
}

// PlanBytes counts the last step (the largest), with M = m: the M×M systems
// of the score estimator (three), the kernel rows of the candidates (at most
// n) against the M previous points and their solves (2nM), candidate lists,
// diagonal and scores (3n), and the landmarks (Md).
func (BLESS) PlanBytes(n, d, m int) int64 {
	mm := int64(m)
	return 8 * (3*mm*mm + 2*int64(n)*mm + 3*int64(n) + mm*int64(d))
}

// PlanBytes is BLESS's plan.
func (b BLESSR) PlanBytes(n, d, m int) int64 { return BLESS(b).PlanBytes(n, d, m) }

// PlanBytes is the k-means plan with K = m (KMeans.PlanBytes).
func (s KMeansCenters) PlanBytes(n, d, m int) int64 {
	return KMeans{K: m, Subsample: s.Subsample}.PlanBytes(n, d)
}

// PlanBytes is the k-means plan on the sketch (KMeans.PlanBytes).
func (s RandomizedClustered) PlanBytes(n, d, m int) int64 {
	return KMeans{K: m, Subsample: s.Subsample, Sketch: s.SketchDim(d)}.PlanBytes(n, d)
}

// PlanBytes estimates the peak bytes of Fit on n×d data: the clustered
// sample (s×p with s = min(Subsample, n) and p the sketch or d, copied when
// subsampled or sketched; for CSR input an upper bound, the copy being CSR
// rows), the sketch matrix (pd, only with a sketch), three K×d centroid sets
// (Lloyd's iteration holds the centroids, the sums of their members and the
// next centroids; measured on 300 CSR rows with d = 2,000,000 and K = 3:
// 137.4 MiB, three sets and a d-vector) and k-means++'s d-vector,
// per row the label, distance and sample index (3n), the labels and
// distances of Lloyd's iterations on the sample (2s), and the distances of
// one chunk of rows to the K centroids (planChunk·K).
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
	return 8 * (sample + sketch + 3*int64(km.K)*int64(d) + int64(d) + 3*int64(n) + 2*int64(s) + planChunk*int64(km.K))
}
