package approx

import (
	"slices"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Memory plans of the samplers. Each PlanBytes(n, d, m) estimates, before
// sampling, the peak bytes Sample allocates for m landmarks of an n×d data
// set, from the algorithm's largest arrays and the kernel engine's scratch
// (the data itself is not counted: the caller holds it; a copy a sampler
// makes of it is, in PlanSample, which sees X). Estimators add it to their own plans and refuse a fit
// whose plan exceeds their MemoryLimit (model.ErrMemory, which is ErrMemory).

// planChunk is the number of rows the score estimators and the kernel engine
// work on at once, as counted by the plans (the engine's blocks are smaller).
const planChunk = points.PlanChunk

// PlanBytes is the landmark copy and the index draw: 8md + 16n.
func (u Uniform) PlanBytes(n, d, m int) int64 { return u.planBytes(n, m, denseLandmarkBytes(d, m)) }

func (Uniform) planBytes(n, m int, lm int64) int64 { return lm + 16*int64(n) }

// denseLandmarkBytes is 8md, m dense landmarks of d features.
func denseLandmarkBytes(d, m int) int64 { return 8 * int64(m) * int64(d) }

// LandmarkBytes bounds the memory of m landmarks drawn from distinct rows
// of x: 8md for dense x; for sparse x the CSR copy of the m rows with the
// most non-zeros (12 bytes a non-zero, 8 a row), or 8md when those rows
// are dense enough for points.Landmarks to hold them dense
// (kernel.PreferDenseCenters).
func LandmarkBytes(x mat.Matrix, m int) int64 {
	n, d := x.Dims()
	s, ok := x.(kernel.Sparse)
	if !ok || m <= 0 {
		return denseLandmarkBytes(d, max(m, 0))
	}
	nnz := topRowNonzeros(s, min(m, n))
	if float64(nnz) >= 0.25*float64(m)*float64(d) {
		return denseLandmarkBytes(d, m)
	}
	return kernel.CSRBytes(m, nnz)
}

// topRowNonzeros is the number of non-zeros of the m longest rows of x.
func topRowNonzeros(x kernel.Sparse, m int) int64 {
	indptr, _, _ := x.CSR()
	n := len(indptr) - 1
	lens := make([]int, n)
	for i := range lens {
		lens[i] = indptr[i+1] - indptr[i]
	}
	slices.Sort(lens)
	var s int64
	for _, l := range lens[n-min(m, n):] {
		s += int64(l)
	}
	return s
}

// PlanSample is s's PlanBytes for m landmarks of the data x, with the
// landmarks of the row samplers (Uniform, ExactRLS, RecursiveRLS, BLESS,
// BLESSR) counted by LandmarkBytes, so that landmarks of sparse x are
// planned as the CSR rows they are. ok is false when s has no plan.
func PlanSample(s Sampler, x mat.Matrix, m int) (bytes int64, ok bool) {
	n, d := x.Dims()
	lm := LandmarkBytes(x, m)
	switch v := s.(type) {
	case Uniform:
		return v.planBytes(n, m, lm), true
	case *Uniform:
		return v.planBytes(n, m, lm), true
	case ExactRLS:
		return v.planBytes(n, d, denseCopyBytes(x), lm), true
	case *ExactRLS:
		return v.planBytes(n, d, denseCopyBytes(x), lm), true
	case RecursiveRLS, *RecursiveRLS, BLESS, *BLESS, BLESSR, *BLESSR:
		_, sparse := x.(kernel.Sparse)
		return levelPlan(n, m, lm) + dataCopyBytes(x) + chunkPlan(n, d, m, sparse), true
	}
	switch v := s.(type) {
	case KMeansCenters:
		return cluster.KMeans{K: m, Subsample: v.Subsample}.PlanFor(x), true
	case RandomizedClustered:
		return cluster.KMeans{K: m, Subsample: v.Subsample, Sketch: v.SketchDim(d)}.PlanFor(x), true
	}
	if p, ok := s.(interface{ PlanBytes(n, d, m int) int64 }); ok {
		return p.PlanBytes(n, d, m), true
	}
	return 0, false
}

// PlanBytes plans Sample on dense X (a *mat.Dense, which Sample reads in
// place; PlanSample adds the copy other X gets): the kernel matrix formed
// by the block engine on (X, X), whose scratch is live beside it
// (engineBlockBytes: the engine packs X itself as its centers, as many
// bytes as X, plus the norms and each worker's block of K and packed block
// of X), then the copy the eigensolver of the fixed-size ridge works on
// and its workspace (ExactLeverage's Cholesky then reuses one), three n×n
// matrices; the larger of the two phases, plus the scores and the
// landmarks: 8·(4n) + md + max(8·3n², 8n² + engine). X itself is the
// caller's and not counted. Before, the engine's scratch was left out:
// at n = 300, d = 5,000 it is 30 MB against a plan of 2.2 MB
// (TestExactRLSPlanCountsEngine). Measured on n = 4000, d = 5
// (plan_test.go): a peak of 370 MiB against a plan of 366 MiB.
func (e ExactRLS) PlanBytes(n, d, m int) int64 { return e.planBytes(n, d, 0, denseLandmarkBytes(d, m)) }

// planBytes is ExactRLS's plan with copyX bytes of a dense copy of X held
// through Sample (kernel.DenseOf of X that is not a *mat.Dense: 8nd) and lm
// bytes of landmarks.
func (ExactRLS) planBytes(n, d int, copyX, lm int64) int64 {
	nn := int64(n)
	return copyX + 8*4*nn + lm + max(8*3*nn*nn, 8*nn*nn+engineBlockBytes(n, n, d, kernel.Options{}))
}

// engineBlockBytes is what the block engine allocates forming an n×m
// kernel matrix from dense n×d and m×d operands (kernel.Op.ScratchBytes(0)
// on matrices of those shapes) for the Gaussian kernel, the largest of the
// kernels' (the only one of them that keeps the norms of both operands):
// the packed copy of the centers, the norms, each worker's block of K and
// packed block of X.
func engineBlockBytes(n, m, d int, opt kernel.Options) int64 {
	return kernel.NewOp(kernel.Gaussian{Gamma: 1}, shapeOnly(n, d), shapeOnly(m, d), opt).ScratchBytes(0)
}

// shapeOnly is an r×c matrix without values, for sizing the engine's
// scratch (ScratchBytes reads shapes only).
func shapeOnly(r, c int) *mat.Dense {
	var x mat.Dense
	x.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: c})
	return &x
}

// denseCopyBytes is the copy kernel.DenseOf makes of x when x is not a
// *mat.Dense (8nd, sparse X included), 0 otherwise.
func denseCopyBytes(x mat.Matrix) int64 {
	if _, ok := x.(*mat.Dense); ok {
		return 0
	}
	n, d := x.Dims()
	return 8 * int64(n) * int64(d)
}

// PlanBytes counts the top level, for dense X (a *mat.Dense; PlanSample
// adds the copy other X gets): the m×m systems of the ridge search and the
// score estimator (three m×m matrices), the kernel rows of the level
// against the m landmarks and their triangular solves (2nm), the level's
// permutation and scores (3n) and the landmarks (md), and the score
// estimator's chunk of X's rows with the engine's scratch for its kernel
// rows (chunkPlan).
func (RecursiveRLS) PlanBytes(n, d, m int) int64 {
	return levelPlan(n, m, denseLandmarkBytes(d, m)) + chunkPlan(n, d, m, false)
}

// chunkPlan is what the score estimator takes beside levelPlan's arrays
// while it scores rows chunk by chunk (newEstScratch, planChunk rows at
// most): the chunk's kernel rows against the m landmarks with their row
// stride rounded up to 16, the forward solve's panel (at most estPanel
// columns), both again in float32 for the single-precision estimate, three
// c-vectors; for dense X the chunk's rows gathered (c×d, a copy of X itself
// when n ≤ planChunk) and the block engine's scratch forming the kernel
// rows, or the landmarks' own kernel matrix before, whichever is larger
// (engineBlockBytes: the packed landmarks, the norms and each worker's
// blocks, up to 8 MiB of packed X a worker at large d). Sparse X is
// scored from CSR rows (its engine scratch is not counted here). Before,
// RecursiveRLS's top level on 1,500 × 2,000 dense rows with m = 50
// allocated 46 MB against a plan of 2.1 MB (TestLevelPlanCountsChunk).
func chunkPlan(n, d, m int, sparse bool) int64 {
	c := int64(min(planChunk, n))
	mp, tp := int64((m+15)&^15), int64(min(estPanel, m))
	b := 12*c*(mp+tp) + 24*c
	if !sparse {
		b += 8*c*int64(d) + max(engineBlockBytes(int(c), m, d, kernel.Options{}), engineBlockBytes(m, m, d, kernel.Options{}))
	}
	return b
}

// levelPlan is the plan of RecursiveRLS and BLESS with lm bytes of landmarks.
func levelPlan(n, m int, lm int64) int64 {
	mm := int64(m)
	return 8*(3*mm*mm+2*int64(n)*mm+3*int64(n)) + lm
}

// PlanBytes counts the last step (the largest), with M = m: the M×M systems
// of the score estimator (three), the kernel rows of the candidates (at most
// n) against the M previous points and their solves (2nM), candidate lists,
// diagonal and scores (3n), the landmarks (Md), and the estimator's chunk
// of X's rows with the engine's scratch (chunkPlan), for dense X (a
// *mat.Dense; PlanSample adds the copy other X gets).
func (BLESS) PlanBytes(n, d, m int) int64 {
	return levelPlan(n, m, denseLandmarkBytes(d, m)) + chunkPlan(n, d, m, false)
}

// PlanBytes is BLESS's plan.
func (b BLESSR) PlanBytes(n, d, m int) int64 { return BLESS(b).PlanBytes(n, d, m) }

// PlanBytes is the k-means plan with K = m (cluster.KMeans.PlanBytes).
func (s KMeansCenters) PlanBytes(n, d, m int) int64 {
	return cluster.KMeans{K: m, Subsample: s.Subsample}.PlanBytes(n, d)
}

// PlanBytes is the k-means plan on the sketch (cluster.KMeans.PlanBytes).
func (s RandomizedClustered) PlanBytes(n, d, m int) int64 {
	return cluster.KMeans{K: m, Subsample: s.Subsample, Sketch: s.SketchDim(d)}.PlanBytes(n, d)
}
