package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// FeatureMapper builds a feature map φ with K(x, y) ≈ φ(x)·φ(y) from the
// training data (a Nyström map from sampled landmarks, random Fourier
// features, …).
type FeatureMapper interface {
	FitMap(ctx context.Context, x mat.Matrix, k kernel.Kernel, rng *rand.Rand) (approx.FeatureMap, error)
}

// FeatureRidge is the KRR backend of the "linearized" kernel machine: ridge
// regression on r features,
//
//	(ΦᵀΦ + λn I) w = Φᵀy,   f(x) = φ(x)·w,
//
// which is exact KRR with the approximate kernel K̃ = ΦΦᵀ. Φ is formed in row
// chunks and never held whole: O(nr² + r³) time, O(r² + chunk·r) memory
// besides the data. scikit-learn's Ridge(alpha=λn, fit_intercept=False) on
// the same features solves the same system.
//
// The zero value is a working backend: Nyström features on min(n, ⌈5√n⌉)
// uniform landmarks (NystromFeatures{}), the same centers NystromKRR{} uses.
type FeatureRidge struct {
	// Features builds the map; nil means NystromFeatures{}.
	Features FeatureMapper `yaml:"features"`
}

var _ KRRApprox = FeatureRidge{}

// FitKRR implements KRRApprox.
func (b FeatureRidge) FitKRR(ctx context.Context, p KRRProblem) (KRRPredictor, KRRInfo, error) {
	if err := checkContext(ctx, "feature ridge"); err != nil {
		return nil, KRRInfo{}, err
	}
	return b.fit(ctx, p, p.X)
}

// fit is FitKRR on x, dense or sparse (validated by the caller; p.X unused):
// the feature map reads sparse x as it is.
func (b FeatureRidge) fit(ctx context.Context, p KRRProblem, x mat.Matrix) (KRRPredictor, KRRInfo, error) {
	n, d := x.Dims()
	xBytes := inputBytes(x)
	_, t := p.Y.Dims()
	info := KRRInfo{Backend: "features", Penalty: p.Lambda * float64(n)}
	feats := b.Features
	if feats == nil {
		feats = NystromFeatures{}
	}
	if mp, ok := feats.(mapPlanner); ok {
		mapBytes, r := mp.PlanBytes(n, d)
		if dp, ok := feats.(interface {
			planFor(mat.Matrix) (int64, int)
		}); ok {
			mapBytes, r = dp.planFor(x) // landmarks of sparse x as CSR
		}
		need := max(mapBytes, featureRidgeBytes(n, xBytes, t, r))
		if err := checkMemory(fmt.Sprintf("feature map %T and ridge (n=%d, r ≤ %d)", feats, n, r), need, p.MemoryLimit); err != nil {
			return nil, info, fmt.Errorf("model: krr: feature ridge: %w", err)
		}
	}
	phi, err := feats.FitMap(ctx, x, p.Kernel, p.Rng)
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: feature ridge: %w", err)
	}
	r := phi.Dim()
	if r < 1 {
		return nil, info, fmt.Errorf("model: krr: feature ridge: feature map has dimension %d", r)
	}
	info.Rank = r
	chunk := krrChunkRows(n, r)
	steps := (n+chunk-1)/chunk + 2 // the map, the chunks of Φ, the solve
	if err := p.report(1, steps); err != nil {
		return nil, info, err
	}
	info.MemoryBytes = featureRidgeBytes(n, xBytes, t, r)
	if err := checkMemory(fmt.Sprintf("feature ridge (n=%d, r=%d)", n, r), info.MemoryBytes, p.MemoryLimit); err != nil {
		return nil, info, err
	}
	g := mat.NewDense(r, r, nil)
	c := mat.NewDense(r, t, nil)
	buf := make([]float64, chunk*r)
	gram := kernel.Dense{Workers: p.Workers}
	sw := p.rootWeights()
	for r0 := 0; r0 < n; r0 += chunk {
		r1 := min(n, r0+chunk)
		fb := mat.NewDense(r1-r0, r, buf[:(r1-r0)*r])
		if err := phi.Transform(ctx, fb, rowRange(x, r0, r1)); err != nil {
			return nil, info, fmt.Errorf("model: krr: feature ridge: %w", err)
		}
		yb := p.Y.Slice(r0, r1, 0, t).(*mat.Dense)
		if sw != nil { // ΦᵀWΦ and ΦᵀWY from the rows scaled by √w
			scaleRows(fb, sw[r0:r1])
			yb = mat.DenseCopyOf(yb)
			scaleRows(yb, sw[r0:r1])
		}
		// G += Φ_bᵀΦ_b (lower triangle) and C += Φ_bᵀY_b on the engine's
		// packed micro-kernels.
		if err := gram.SyrkLower(ctx, true, 1, fb, 1, g); err != nil {
			return nil, info, err
		}
		if err := gram.Gemm(ctx, true, false, 1, fb, yb, 1, c); err != nil {
			return nil, info, err
		}
		if err := p.report(2+r0/chunk, steps); err != nil {
			return nil, info, err
		}
	}
	krrSymmetrize(g)
	for i := 0; i < r; i++ {
		g.Set(i, i, g.At(i, i)+info.Penalty)
	}
	chol, err := solver.CholeskyInPlace(g, p.Cholesky)
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: feature ridge: %w", err)
	}
	info.Jitter, info.CholAttempts = chol.Jitter, chol.Attempts
	if err := chol.Solve(c); err != nil {
		return nil, info, err
	}
	if err := p.report(steps, steps); err != nil {
		return nil, info, err
	}
	return &LinearFeatures{Map: phi, Weights: c}, info, nil
}

// LinearFeatures is the predictor f(x) = φ(x)·W of a feature-map model.
type LinearFeatures struct {
	// Map is the fitted feature map φ (r features).
	Map approx.FeatureMap
	// Weights is r×t.
	Weights *mat.Dense
}

var _ KRRPredictor = (*LinearFeatures)(nil)

// Outputs returns the number of columns of Weights.
func (l *LinearFeatures) Outputs() int {
	_, t := l.Weights.Dims()
	return t
}

// Decision sets dst = φ(x)·W, transforming x in chunks of rows.
func (l *LinearFeatures) Decision(ctx context.Context, dst, x *mat.Dense) error {
	if err := check.Matrix("X", x); err != nil {
		return err
	}
	return l.decide(ctx, dst, x)
}

var _ sparseDecider = (*LinearFeatures)(nil)

// decide is Decision for dense or sparse x (validated by the caller).
func (l *LinearFeatures) decide(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	n, _ := x.Dims()
	r := l.Map.Dim()
	chunk := krrChunkRows(n, r)
	buf := make([]float64, chunk*r)
	for r0 := 0; r0 < n; r0 += chunk {
		r1 := min(n, r0+chunk)
		fb := mat.NewDense(r1-r0, r, buf[:(r1-r0)*r])
		if err := l.Map.Transform(ctx, fb, rowRange(x, r0, r1)); err != nil {
			return err
		}
		out := dst.Slice(r0, r1, 0, l.Outputs()).(*mat.Dense)
		out.Mul(fb, l.Weights)
	}
	return nil
}

// NystromFeatures builds a Nyström feature map (standard or QR, package
// approx) on M landmarks from a sampler.
type NystromFeatures struct {
	// M is the number of landmarks; 0 means min(n, ⌈5√n⌉).
	M int `yaml:"m"`
	// Sampler picks the landmarks; nil means approx.Uniform.
	Sampler approx.Sampler `yaml:"sampler"`
	// Nystrom configures the map (rank, QR variant, eigenvalue floor).
	Nystrom approx.Nystrom `yaml:"nystrom"`
}

var _ FeatureMapper = NystromFeatures{}

// FitMap samples the landmarks and fits the Nyström map.
func (f NystromFeatures) FitMap(ctx context.Context, x mat.Matrix, k kernel.Kernel, rng *rand.Rand) (approx.FeatureMap, error) {
	if err := checkContext(ctx, "nystrom features"); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	m := f.M
	if m < 0 || m > n {
		return nil, fmt.Errorf("%w: nystrom features: M = %d, want 0 (default) or 1 ≤ M ≤ n = %d", ErrInput, m, n)
	}
	if m == 0 {
		m = min(n, int(math.Ceil(5*math.Sqrt(float64(n)))))
	}
	s := f.Sampler
	if s == nil {
		s = approx.Uniform{}
	}
	lm, err := s.Sample(ctx, x, k, m, rng)
	if err != nil {
		return nil, err
	}
	return f.Nystrom.Fit(ctx, x, k, lm)
}

// RFFFeatures builds random Fourier features (Gaussian and Laplacian kernels).
// The zero value draws D = ⌈√n·ln n⌉ features for n training rows: Rudi &
// Rosasco (NeurIPS 2017, "Generalization Properties of Learning with Random
// Features", Thm. 1) show that O(√n log n) random features give KRR's
// learning rate; 438 features on 3,000 rows.
type RFFFeatures struct {
	// RFF holds the number of features D; 0 means ⌈√n·ln n⌉ (at least 1).
	RFF approx.RFF `yaml:"rff"`
}

// dim returns the number of features drawn for n rows.
func (f RFFFeatures) dim(n int) int {
	if f.RFF.Features != 0 {
		return f.RFF.Features
	}
	nf := float64(max(n, 1))
	return max(1, int(math.Ceil(math.Sqrt(nf)*math.Log(nf))))
}

var _ FeatureMapper = RFFFeatures{}

// FitMap draws the random features.
func (f RFFFeatures) FitMap(ctx context.Context, x mat.Matrix, k kernel.Kernel, rng *rand.Rand) (approx.FeatureMap, error) {
	if err := checkContext(ctx, "rff features"); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	r := f.RFF
	r.Features = f.dim(n)
	return r.Fit(k, d, rng)
}

// FixedFeatures is an already fitted feature map, used as given.
type FixedFeatures struct {
	// Map is the fitted map.
	Map approx.FeatureMap `yaml:"-"`
}

var _ FeatureMapper = FixedFeatures{}

// FitMap returns Map.
func (f FixedFeatures) FitMap(ctx context.Context, _ mat.Matrix, _ kernel.Kernel, _ *rand.Rand) (approx.FeatureMap, error) {
	if err := checkContext(ctx, "fixed features"); err != nil {
		return nil, err
	}
	if f.Map == nil {
		return nil, fmt.Errorf("%w: fixed features without a map", ErrInput)
	}
	return f.Map, ctx.Err()
}

// featureRidgeBytes plans the ridge on r features of n rows of data taking
// xBytes (inputBytes) with t outputs: the data and targets, the r×r normal
// matrix and r×t right-hand side, one chunk of features, and the packing
// panels of the chunk products ΦᵀΦ and ΦᵀY.
func featureRidgeBytes(n int, xBytes int64, t, r int) int64 {
	chunk := min(krrChunkRows(n, r), n)
	pack := max(kernel.Dense{}.PackBytes(r, r, chunk), kernel.Dense{}.PackBytes(r, t, chunk)) // ΦᵀΦ and ΦᵀY panels
	return xBytes + bytesF64(int64(n)*int64(t)+int64(r)*int64(r+t)+int64(chunk)*int64(r)) + pack
}
