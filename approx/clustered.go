package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// DefaultCompression is RandomizedClustered's default compression factor
// γ = p/d. Pourkamali-Anaraki & Becker show that the sketch dimension p needed
// for a given accuracy does not grow with d, and use small factors on
// high-dimensional data; 0.1 keeps k-means ten times cheaper per iteration.
const DefaultCompression = 0.1

// MinDefaultSketch is the smallest sketch dimension the default compression
// gives (or d itself when d is smaller): a ±1 sketch distorts distances by a
// factor of about 1 ± 1/√p, so a handful of dimensions would blur the cluster
// structure the landmarks are meant to follow.
const MinDefaultSketch = 16

// KMeansCenters is k-means Nyström (Zhang & Kwok, "Clustered Nyström Method
// for Large Scale Manifold Learning and Dimension Reduction", 2010): the m
// landmarks are the centroids of a k-means clustering of X (cluster.KMeans with K = m;
// k-means++ seeding, Lloyd iterations on a seeded subsample). The landmarks are
// not data points, so Indices is nil. Zero values mean cluster.KMeans's defaults.
type KMeansCenters struct {
	MaxIter   int     // see cluster.KMeans.MaxIter
	Subsample int     // see cluster.KMeans.Subsample
	Tol       float64 // see cluster.KMeans.Tol
	MaxBytes  int64   // see cluster.KMeans.MaxBytes: dense centroids of wide sparse X are refused above it
}

var _ Sampler = KMeansCenters{}

// Sample returns the m k-means centroids of x. The kernel is only validated:
// the clustering is in input space, as in the paper. Sparse x stays sparse
// (k-means on CSR rows with dense centroids, see cluster.KMeans.Fit).
func (s KMeansCenters) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: k-means centers: %w", err)
	}
	x := points.Data(xIn)
	if err := clusteredKernelCheck(k); err != nil {
		return nil, fmt.Errorf("approx: k-means centers: %w", err)
	}
	p, err := cluster.KMeans{K: m, MaxIter: s.MaxIter, Subsample: s.Subsample, Tol: s.Tol, MaxBytes: s.MaxBytes}.Fit(ctx, x, rng)
	if err != nil {
		return nil, fmt.Errorf("approx: k-means centers: %w", err)
	}
	return &Landmarks{Points: p.Centroids}, nil
}

// RandomizedClustered is Randomized Clustered Nyström (Pourkamali-Anaraki &
// Becker, Alg. 3): sketch the data as Y = XRᵀ with a random ±1 matrix R of p
// rows (compression factor γ = p/d), run k-means (k-means++ and Lloyd) on the
// sketch, then recompute each centroid in the original space as the mean of
// its cluster — two passes over X. The landmarks are those centroids. Zero
// values mean defaults.
type RandomizedClustered struct {
	// Dim is the sketch dimension p; 0 derives it from Compression.
	Dim int
	// Compression is γ = p/d in (0, 1], used when Dim is 0: p = ⌈γ·d⌉.
	// 0 means DefaultCompression with p at least min(d, MinDefaultSketch).
	Compression float64
	MaxIter     int     // see cluster.KMeans.MaxIter
	Subsample   int     // see cluster.KMeans.Subsample
	Tol         float64 // see cluster.KMeans.Tol
	MaxBytes    int64   // see cluster.KMeans.MaxBytes: dense centroids (and the p×d sketch) are refused above it
}

var _ Sampler = RandomizedClustered{}

// SketchDim returns the sketch dimension p used for d input dimensions.
func (s RandomizedClustered) SketchDim(d int) int {
	if s.Dim > 0 {
		return s.Dim
	}
	if s.Compression == 0 {
		return max(int(math.Ceil(DefaultCompression*float64(d))), min(d, MinDefaultSketch))
	}
	return max(1, int(math.Ceil(s.Compression*float64(d))))
}

// Sample returns m centroids found by k-means on the sketch, recomputed in
// the original space. Sparse x stays sparse: the sketch XRᵀ is formed from
// the non-zeros and the centroids are means of CSR rows.
func (s RandomizedClustered) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: randomized clustered: %w", err)
	}
	x := points.Data(xIn)
	if err := clusteredKernelCheck(k); err != nil {
		return nil, fmt.Errorf("approx: randomized clustered: %w", err)
	}
	if s.Dim < 0 {
		return nil, fmt.Errorf("approx: randomized clustered: %w: Dim = %d < 0", check.ErrInput, s.Dim)
	}
	if !(s.Compression >= 0 && s.Compression <= 1) {
		return nil, fmt.Errorf("approx: randomized clustered: %w: Compression = %g, want in (0, 1]", check.ErrInput, s.Compression)
	}
	if err := points.Check(x); err != nil {
		return nil, fmt.Errorf("approx: randomized clustered: %w", err)
	}
	_, d := x.Dims()
	km := cluster.KMeans{K: m, MaxIter: s.MaxIter, Subsample: s.Subsample, Tol: s.Tol, Sketch: s.SketchDim(d), MaxBytes: s.MaxBytes}
	p, err := km.Fit(ctx, x, rng)
	if err != nil {
		return nil, fmt.Errorf("approx: randomized clustered: %w", err)
	}
	return &Landmarks{Points: p.Centroids}, nil
}

// clusteredKernelCheck accepts a nil kernel (samplers that do not evaluate it) and
// validates any other.
func clusteredKernelCheck(k kernel.Kernel) error {
	if k == nil {
		return nil
	}
	if err := k.Validate(); err != nil {
		return err
	}
	return nil
}
