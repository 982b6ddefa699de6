package model

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// MEKAKRR is the KRR backend on the MEKA approximation K ≈ W L Wᵀ
// (Si, Hsieh & Dhillon, JMLR 2017, Sections 6.3 and 7): it fits MEKA on the
// training set, solves (W L Wᵀ + λnI)α = y by the Woodbury identity (default)
// or by conjugate gradient, and predicts through MEKA's out-of-sample
// extension, f(x) = w(x)ᵀ(L Wᵀα)_s for x in cluster s.
//
// The zero value is a working backend: MEKA's defaults, which grow with n
// (meka.ScaledDefaults: on 3,000 rows 3 clusters of rank 128, holding less
// memory than NystromKRR{}'s 274 centers), the Woodbury solve and the PSD
// fix.
// The MEKA-PSD fix (negative eigenvalues of L set to zero) is applied unless
// SkipPSD is set: without it W L Wᵀ + λnI can be indefinite and the ridge
// problem ill-posed.
type MEKAKRR struct {
	// Options configures the approximation (rank k, clusters c, landmarks,
	// ρ, ε, rank strategy, k-means, a given Partition, BasisSolver…); zero
	// fields mean meka's defaults. Options.PSD is not read (SkipPSD decides);
	// the estimator's Resources, when set, take the place of MaxBytes and
	// Workers. Saved with a model: Rank, Clusters, Landmarks, Rho, Epsilon
	// and Strategy; KMeans, Partition, Progress and BasisSolver are fitting
	// inputs a reloaded model does not keep (its refit runs k-means with
	// defaults, locally).
	meka.Options `yaml:",inline"`
	// SkipPSD keeps L as fitted, without the MEKA-PSD fix.
	SkipPSD bool `yaml:"skip_psd"`
	// Solver is "woodbury" (default, direct) or "cg".
	Solver string `yaml:"solver"`
	// CG tunes the CG solver (tolerance, iterations).
	CG meka.CG `yaml:"-"`
}

var _ KRRApprox = MEKAKRR{}

// options returns the meka.Options of a fit with the estimator's memory
// limit and workers (0: Options' own).
func (b MEKAKRR) options(memoryLimit int64, workers int) meka.Options {
	o := b.Options
	o.PSD = !b.SkipPSD
	if memoryLimit > 0 {
		o.MaxBytes = memoryLimit
	}
	if workers > 0 {
		o.Workers = workers
	}
	return o
}

// MEKAFeatures is the FeatureMapper of MEKA for FeatureRidge and the other
// linearized estimators: φ(x) = (V₊Λ₊^(1/2))_sᵀ w(x) for x in cluster s, the
// features of the PSD-fixed approximation (meka.Map.Transform), of
// dimension at most c·k. Ridge on these features gives the same predictions
// as MEKAKRR (up to round-off), at O(n(ck)²) instead of O(nk + (ck)³).
type MEKAFeatures struct {
	// MEKA holds the approximation's settings (BasisSolver included);
	// Solver, CG and SkipPSD are ignored (features always come from the
	// PSD-fixed L).
	MEKA MEKAKRR `yaml:"meka"`
}

var _ FeatureMapper = MEKAFeatures{}

// FitMap fits MEKA with the PSD fix and returns it as a feature map.
func (f MEKAFeatures) FitMap(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, rng *rand.Rand) (approx.FeatureMap, error) {
	if err := checkContext(ctx, "meka features"); err != nil {
		return nil, err
	}
	x := kernel.DenseOf(xIn)
	opt := f.MEKA.options(0, 0)
	opt.PSD = true
	return meka.Fit(ctx, x, k, opt, rng)
}

// FitKRR implements KRRApprox.
func (b MEKAKRR) FitKRR(ctx context.Context, p KRRProblem) (KRRPredictor, KRRInfo, error) {
	if err := checkContext(ctx, "meka krr"); err != nil {
		return nil, KRRInfo{}, err
	}
	return b.fitKRR(ctx, p, p.X)
}

// fitKRR is FitKRR on data x, dense or sparse (p.X is not used).
func (b MEKAKRR) fitKRR(ctx context.Context, p KRRProblem, x mat.Matrix) (KRRPredictor, KRRInfo, error) {
	solverName := b.Solver
	switch solverName {
	case "":
		solverName = "woodbury"
	case "woodbury", "cg":
	default:
		return nil, KRRInfo{}, fmt.Errorf("%w: MEKA solver %q, want woodbury or cg", ErrInput, b.Solver)
	}
	opt := b.options(p.MemoryLimit, p.Workers)
	nx, _ := x.Dims()
	info := KRRInfo{Backend: "meka-" + solverName, Penalty: p.Lambda * float64(nx)}
	if p.MemoryLimit > 0 {
		// The solve works beside the approximation: MEKA must fit in what
		// it leaves (see mekaSolveBytes).
		n := nx
		_, t := p.Y.Dims()
		c, k := mekaShape(n, opt)
		solve := mekaSolveBytes(n, t, c, k)
		if err := checkMemory(fmt.Sprintf("MEKA KRR solve (n=%d, rank ≤ %d)", n, min(n, c*k)), solve+1, p.MemoryLimit); err != nil {
			return nil, info, err
		}
		opt.MaxBytes = p.MemoryLimit - solve
	}
	m, err := meka.Fit(ctx, x, p.Kernel, opt, p.Rng)
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: meka: %w", err)
	}
	info.Rank = m.Rank()
	var sol *meka.Solution
	if solverName == "cg" {
		sol, err = m.SolveCG(ctx, p.Lambda, p.Y, b.CG)
	} else {
		sol, err = m.Solve(ctx, p.Lambda, p.Y)
	}
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: meka: %w", err)
	}
	if sol.Indefinite {
		return nil, info, fmt.Errorf("model: krr: meka: W L Wᵀ + λnI is not positive definite (smallest eigenvalue of L %g, λn = %g); do not set SkipPSD",
			m.Stats().MinEigenvalue, info.Penalty)
	}
	beta, err := m.Coefficients(sol.Alpha)
	if err != nil {
		return nil, info, err
	}
	info.MemoryBytes = m.Bytes()
	pred := &MEKAExpansion{MEKA: m, Beta: beta, Solution: sol}
	return pred, info, nil
}

// MEKAExpansion is the predictor of KRR on MEKA: f(x) = w(x)ᵀ β_s for x in
// cluster s, with β = L Wᵀα.
type MEKAExpansion struct {
	// MEKA is the fitted approximation (its bases extend to new points).
	MEKA *meka.Map
	// Beta is L Wᵀα, (Σk_s)×t.
	Beta *mat.Dense
	// Solution reports the solve (method, CG iterations, residuals).
	Solution *meka.Solution
}

var _ KRRPredictor = (*MEKAExpansion)(nil)

// Outputs returns the number of columns of Beta.
func (e *MEKAExpansion) Outputs() int {
	_, t := e.Beta.Dims()
	return t
}

// Decision writes w(x_i)ᵀβ_s for every row of x into dst.
func (e *MEKAExpansion) Decision(ctx context.Context, dst, x *mat.Dense) error {
	return e.MEKA.Expand(ctx, dst, x, e.Beta)
}

// mekaSolveBytes plans the Woodbury (or CG) solve of KRR on a MEKA of c
// clusters of rank k on n points with t outputs, on top of the approximation
// itself: the eigendecomposition of the r×r link matrix (a copy and the
// eigenvectors) and one more r×r product, r = min(n, c·k), and the n×t
// coefficients and residuals: 8·(3r² + 2nt) (c and k as mekaShape
// resolves them). On 3000 points with c = 8, k = 128 the measured peak of the whole
// fit was 39.8 MiB against a plan of MEKA's 16.3 MiB plus 24 MiB here
// (memory_peak_test.go).
func mekaSolveBytes(n, t, c, k int) int64 {
	r := int64(min(n, c*k))
	return bytesF64(3*r*r + 2*int64(n)*int64(t))
}

// mekaShape returns the clusters c and rank per cluster k a MEKA fit of o
// on n points uses: o's, or meka.ScaledDefaults' for those left zero (c
// from o.Partition when one is given).
func mekaShape(n int, o meka.Options) (c, k int) {
	c, k = o.Clusters, o.Rank
	if o.Partition != nil && o.Partition.Centroids != nil {
		c, _ = o.Partition.Centroids.Dims()
	}
	if c == 0 || k == 0 {
		dc, dk := meka.ScaledDefaults(n, c)
		if c == 0 {
			c = dc
		}
		if k == 0 {
			k = dk
		}
	}
	return c, k
}
