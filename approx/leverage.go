package approx

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Ridge conventions used in this file and the samplers built on it.
//
// Musco & Musco write ridge leverage scores with an absolute ridge,
// ℓᵢ(λ) = (K(K + λI)⁻¹)ᵢᵢ; fields and parameters holding such a value are
// named Ridge. Rudi et al. (BLESS) and the rest of Landmark (model/doc.go)
// multiply λ by n: ℓᵢ(λ) = (K(K + λnI)⁻¹)ᵢᵢ; fields holding such a value are
// named Lambda. The two describe the same scores when Ridge = Lambda·n.

// MaxExactPoints bounds n for the exact O(n³) computations (ExactLeverage,
// ExactSpectrum, ExactRLS): the dense n×n kernel takes 8n² bytes, 800 MB at
// this size.
const MaxExactPoints = 10000

// ErrTooLarge is returned (wrapped) when an exact computation is asked for more
// points than MaxExactPoints.
var ErrTooLarge = errors.New("approx: problem too large for an exact computation")

// exactKernelMatrix forms K(X, X) with the block engine, symmetrized.
func exactKernelMatrix(ctx context.Context, x *mat.Dense, k kernel.Kernel) (*mat.Dense, error) {
	if err := levCheckXK(x, k); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	if n > MaxExactPoints {
		return nil, fmt.Errorf("%w: n = %d > %d", ErrTooLarge, n, MaxExactPoints)
	}
	kk := mat.NewDense(n, n, nil)
	if err := kernel.NewOp(k, x, x, kernel.Options{}).Block(ctx, kk); err != nil {
		return nil, err
	}
	levSymmetrize(kk)
	return kk, nil
}

// ExactLeverage returns the exact ridge leverage scores ℓᵢ(ridge) =
// (K(K + ridge·I)⁻¹)ᵢᵢ and their sum d_eff(ridge) = Tr(K(K + ridge·I)⁻¹), in
// O(n³) time and O(n²) memory (n ≤ MaxExactPoints). ridge is absolute: pass
// λ·n for the project's λ.
//
// It uses ℓᵢ = 1 − ridge·[(K + ridge·I)⁻¹]ᵢᵢ with the diagonal of the
// inverse taken as squared column norms of L⁻¹ (K + ridge·I = LLᵀ). The
// subtraction is benign: ℓᵢ ≥ Kᵢᵢ/(‖K‖₂ + ridge) (about 1/n for a kernel
// with unit diagonal) while the absolute error is O(ε·‖K‖₂/ridge), so the
// relative error stays near n·ε·‖K‖₂/ridge (checked against a direct
// computation in the tests). Negative round-off results are set to zero.
func ExactLeverage(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, ridge float64) (scores []float64, deff float64, err error) {
	x := kernel.DenseOf(xIn)
	if err := check.Positive("ridge", ridge); err != nil {
		return nil, 0, fmt.Errorf("approx: exact leverage: %w", err)
	}
	kk, err := exactKernelMatrix(ctx, x, k)
	if err != nil {
		return nil, 0, fmt.Errorf("approx: exact leverage: %w", err)
	}
	n, _ := kk.Dims()
	raw := kk.RawMatrix()
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] += ridge
	}
	sym := blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: raw.Stride, Data: raw.Data}
	l, ok := lapack64.Potrf(sym)
	if !ok {
		return nil, 0, fmt.Errorf("approx: exact leverage: Cholesky of K + %g·I failed (K is not positive semi-definite to working precision)", ridge)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if !lapack64.Trtri(l) {
		return nil, 0, fmt.Errorf("approx: exact leverage: Cholesky factor is singular")
	}
	// Row r of L⁻¹ holds entries 0…r (the lower triangle); column sums of
	// squares give diag((K + ridge·I)⁻¹) = diag(L⁻ᵀL⁻¹).
	scores = make([]float64, n)
	for r := 0; r < n; r++ {
		for c, v := range raw.Data[r*raw.Stride : r*raw.Stride+r+1] {
			scores[c] += v * v
		}
	}
	for i, d := range scores {
		scores[i] = max(1-ridge*d, 0)
		deff += scores[i]
	}
	return scores, deff, nil
}

// Spectrum holds the eigenvalues of a dense kernel matrix, from which the
// exact effective dimension follows for any ridge at O(n) cost.
type Spectrum struct {
	// Values are the eigenvalues, ascending, with negative ones (round-off in a
	// positive semi-definite K) set to zero.
	Values []float64
	// Clamped counts the eigenvalues below zero that were set to zero, and
	// MinValue is the most negative eigenvalue before clamping (0 if none):
	// the PSD fix is reported rather than hidden.
	Clamped  int
	MinValue float64
}

// ExactSpectrum forms K(X, X) with the block engine and computes its
// eigenvalues: O(n²) memory, O(n³) time, n ≤ MaxExactPoints.
func ExactSpectrum(ctx context.Context, xIn mat.Matrix, k kernel.Kernel) (*Spectrum, error) {
	x := kernel.DenseOf(xIn)
	kk, err := exactKernelMatrix(ctx, x, k)
	if err != nil {
		return nil, fmt.Errorf("approx: exact spectrum: %w", err)
	}
	n, _ := kk.Dims()
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(n, kk.RawMatrix().Data), false) {
		return nil, fmt.Errorf("approx: exact spectrum: eigendecomposition did not converge")
	}
	s := &Spectrum{Values: eig.Values(nil)}
	for i, v := range s.Values {
		if v < 0 {
			s.Clamped++
			s.MinValue = min(s.MinValue, v)
			s.Values[i] = 0
		}
	}
	return s, nil
}

// EffectiveDimension returns d_eff = Tr(K(K + ridge·I)⁻¹) = Σⱼ σⱼ/(σⱼ + ridge),
// which equals the sum of the leverage scores. ridge is absolute.
func (s *Spectrum) EffectiveDimension(ridge float64) float64 {
	var d float64
	for _, v := range s.Values {
		d += v / (v + ridge)
	}
	return d
}

// RidgeFor returns the absolute ridge at which d_eff equals target, found by
// bisection on log(ridge); target must lie in (0, rank). d_eff decreases in
// the ridge, so the answer is unique.
func (s *Spectrum) RidgeFor(target float64) (float64, error) {
	return ridgeForDeff(s.Values, target)
}

func ridgeForDeff(values []float64, target float64) (float64, error) {
	var rank int
	var top float64
	for _, v := range values {
		if v > 0 {
			rank++
			top = max(top, v)
		}
	}
	if !(target > 0) || target >= float64(rank) {
		return 0, fmt.Errorf("%w: effective dimension %g outside (0, %d)", check.ErrInput, target, rank)
	}
	deff := func(r float64) float64 {
		var d float64
		for _, v := range values {
			if v > 0 {
				d += v / (v + r)
			}
		}
		return d
	}
	// d_eff(top·n/target) ≤ n·top/(top·n/target) = target, and d_eff → rank as
	// the ridge → 0, so the root lies between a tiny ridge and hi.
	lo, hi := top*1e-16, top*float64(len(values))/target
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if deff(mid) > target {
			lo = mid
		} else {
			hi = mid
		}
		if hi/lo < 1+1e-12 {
			break
		}
	}
	return math.Sqrt(lo * hi), nil
}

// ExactRLS samples landmarks by exact ridge leverage scores (O(n³), for
// n ≤ MaxExactPoints): the reference every approximate leverage-score method
// is measured against.
//
// Sample draws exactly m distinct points with inclusion probabilities
// pᵢ = min(1, c·ℓᵢ), c chosen so that Σpᵢ = m, by systematic sampling in a
// random order (so each point's inclusion probability is exactly pᵢ), and
// returns Weights 1/√pᵢ, the column scaling of Musco & Musco's sampling
// matrix S.
type ExactRLS struct {
	// Ridge is the absolute ridge λ in K + λI (the project's λ times n). Zero
	// means: choose it so that d_eff = m/ln m, the same rule as
	// RecursiveRLS's fixed-size mode.
	Ridge float64
}

var _ Sampler = ExactRLS{}

// Sample draws m landmarks; see ExactRLS.
func (e ExactRLS) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: exact rls: %w", err)
	}
	x := kernel.DenseOf(xIn)
	if err := levCheckSample(x, k, m, rng); err != nil {
		return nil, fmt.Errorf("approx: exact rls: %w", err)
	}
	if e.Ridge < 0 || math.IsNaN(e.Ridge) || math.IsInf(e.Ridge, 0) {
		return nil, fmt.Errorf("approx: exact rls: %w: ridge = %g", check.ErrInput, e.Ridge)
	}
	ridge := e.Ridge
	if ridge == 0 {
		s, err := ExactSpectrum(ctx, x, k)
		if err != nil {
			return nil, err
		}
		ridge, err = s.RidgeFor(fixedSizeDeff(m))
		if err != nil {
			return nil, fmt.Errorf("approx: exact rls: m = %d: %w", m, err)
		}
	}
	scores, _, err := ExactLeverage(ctx, x, k, ridge)
	if err != nil {
		return nil, err
	}
	p := levCalibrate(scores, m)
	idx := systematicSample(p, m, rng)
	return weightedLandmarks(points.Data(xIn), idx, p), nil // rows of sparse X stay CSR
}

// fixedSizeDeff is the effective dimension targeted when only a sample size s
// is given: s/ln s, so that s = d_eff·ln s, Section 5's s = Θ(d_eff·log d_eff)
// with constant 1 (Musco & Musco, §5: "λ is automatically determined such
// that s = Θ(d_eff log(d_eff/δ))"). Smaller ridges (d_eff near s/2 or more)
// leave s ≈ 2·d_eff, without the log factor: on 3,000 cadata rows exact
// ridge leverage sampling at m = 100 had spectral error 0.083 at s/ln s,
// 0.090 at s/2 and 0.112 at 3s/4, against 0.068 for uniform (10 seeds).
// Larger ridges make the scores flatter and the sample closer to uniform.
func fixedSizeDeff(s int) float64 {
	return float64(s) / max(math.Log(float64(s)), 1)
}

// SampleByScores is Musco & Musco's Algorithm 1 (RLS-Nyström sampling): given
// over-estimates ℓ̃ᵢ ≥ ℓᵢ(λ) of the ridge leverage scores of the rows of x, it
// keeps row i independently with probability pᵢ = min(1, ℓ̃ᵢ·c·log(Σℓ̃/δ)) and
// returns the kept rows with Weights 1/√pᵢ. delta is the failure probability
// δ ∈ (0, 1/8) as Algorithm 1 requires (0 means 0.1) and oversample the
// constant c (0 means the paper's
// 16). The sample size is random, about c·d_eff·log(d_eff/δ).
func SampleByScores(xIn mat.Matrix, scores []float64, delta, oversample float64, rng *rand.Rand) (*Landmarks, error) {
	x := points.Data(xIn) // sparse X stays sparse: its kept rows are CSR landmarks
	if err := points.Check(x); err != nil {
		return nil, fmt.Errorf("approx: rls sampling: %w", err)
	}
	n, _ := x.Dims()
	if err := check.Vector("scores", scores, n); err != nil {
		return nil, fmt.Errorf("approx: rls sampling: %w", err)
	}
	for i, s := range scores {
		if s < 0 {
			return nil, fmt.Errorf("approx: rls sampling: %w: scores[%d] = %g < 0", check.ErrInput, i, s)
		}
	}
	if rng == nil {
		return nil, fmt.Errorf("approx: rls sampling: %w: nil random source", check.ErrInput)
	}
	delta, oversample, err := resolveDeltaOversample(delta, oversample, 0.1, 1.0/8)
	if err != nil {
		return nil, fmt.Errorf("approx: rls sampling: %w", err)
	}
	p := bernoulliProbs(scores, delta, oversample)
	idx := bernoulliSample(p, rng)
	return weightedLandmarks(x, idx, p), nil
}

// resolveDeltaOversample resolves δ (0: def) and c (0: 16) and checks
// 0 < δ < maxDelta, the paper's range for the algorithm.
func resolveDeltaOversample(delta, oversample, def, maxDelta float64) (float64, float64, error) {
	if delta == 0 {
		delta = def
	}
	if oversample == 0 {
		oversample = 16
	}
	if !(delta > 0 && delta < maxDelta) {
		return 0, 0, fmt.Errorf("%w: delta = %g, want 0 < δ < %g", check.ErrInput, delta, maxDelta)
	}
	if err := check.Positive("oversample", oversample); err != nil {
		return 0, 0, err
	}
	return delta, oversample, nil
}

// bernoulliProbs returns pᵢ = min(1, ℓ̃ᵢ·c·log(Σℓ̃/δ)), with the log factor
// floored at zero (when Σℓ̃ < δ nothing needs sampling).
func bernoulliProbs(scores []float64, delta, c float64) []float64 {
	f := c * max(math.Log(floats.Sum(scores)/delta), 0)
	p := make([]float64, len(scores))
	for i, s := range scores {
		p[i] = min(1, s*f)
	}
	return p
}

// bernoulliSample keeps i with probability p[i], independently, drawing one
// uniform per index in order.
func bernoulliSample(p []float64, rng *rand.Rand) []int {
	var idx []int
	for i, pi := range p {
		if u := rng.Float64(); u < pi {
			idx = append(idx, i)
		}
	}
	return idx
}

// weightedLandmarks gathers rows idx of x with Weights 1/√p.
func weightedLandmarks(x mat.Matrix, idx []int, p []float64) *Landmarks {
	w := make([]float64, len(idx))
	for j, i := range idx {
		w[j] = 1 / math.Sqrt(p[i])
	}
	return &Landmarks{Points: points.Landmarks(x, idx), Indices: idx, Weights: w}
}

// levCalibrate returns pᵢ = min(1, c·sᵢ) with c chosen so that Σpᵢ = m (water
// filling over the scores sorted in decreasing order). When fewer than m
// scores are positive, those get pᵢ = 1 and the remaining mass is spread
// evenly over the zero scores. It needs 1 ≤ m ≤ len(s).
func levCalibrate(s []float64, m int) []float64 {
	n := len(s)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s[order[a]] > s[order[b]] })
	p := make([]float64, n)
	pos := 0
	for _, i := range order {
		if s[i] > 0 {
			pos++
		}
	}
	if pos <= m {
		rest := 0.0
		if pos < n {
			rest = float64(m-pos) / float64(n-pos)
		}
		for i, v := range s {
			if v > 0 {
				p[i] = 1
			} else {
				p[i] = rest
			}
		}
		return p
	}
	// suffix[t] = Σ of the scores ranked t and below.
	suffix := make([]float64, n+1)
	for t := n - 1; t >= 0; t-- {
		suffix[t] = suffix[t+1] + s[order[t]]
	}
	// Cap the top t at 1; the rest share m−t in proportion: c = (m−t)/suffix[t].
	// The first t with c·s_(t) ≤ 1 is the answer (t < m since pos > m).
	t := 0
	c := float64(m) / suffix[0]
	for t < m && c*s[order[t]] > 1 {
		t++
		c = float64(m-t) / suffix[t]
	}
	for r, i := range order {
		if r < t {
			p[i] = 1
		} else {
			p[i] = min(1, c*s[i])
		}
	}
	return p
}

// systematicSample draws exactly m distinct indices with inclusion
// probabilities p (Σp = m, p ≤ 1): the indices are put in a random order,
// laid end to end as intervals of length pᵢ, and the points u, u+1, …, u+m−1
// (u uniform in [0,1)) pick the intervals they fall in. Each index is chosen
// with probability exactly pᵢ. Round-off that leaves the count off by one is
// repaired deterministically. The result is sorted.
func systematicSample(p []float64, m int, rng *rand.Rand) []int {
	order := rng.Perm(len(p))
	u := rng.Float64()
	idx := make([]int, 0, m)
	chosen := make([]bool, len(p))
	var cum float64
	next := u
	for _, i := range order {
		cum += p[i]
		if len(idx) < m && next < cum {
			idx = append(idx, i)
			chosen[i] = true
			next++
		}
	}
	// Round-off repair: add the unchosen indices of largest p.
	if len(idx) < m {
		rest := make([]int, 0, len(p))
		for _, i := range order {
			if !chosen[i] {
				rest = append(rest, i)
			}
		}
		sort.SliceStable(rest, func(a, b int) bool { return p[rest[a]] > p[rest[b]] })
		idx = append(idx, rest[:m-len(idx)]...)
	}
	slices.Sort(idx)
	return idx
}

// levCheckXK validates the data and the kernel.
func levCheckXK(x mat.Matrix, k kernel.Kernel) error {
	if err := points.Check(x); err != nil {
		return err
	}
	if k == nil {
		return fmt.Errorf("%w: nil kernel", check.ErrInput)
	}
	return k.Validate()
}

// levCheckSample validates a Sampler call.
func levCheckSample(x mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) error {
	if err := levCheckXK(x, k); err != nil {
		return err
	}
	if rng == nil {
		return fmt.Errorf("%w: nil random source", check.ErrInput)
	}
	n, _ := x.Dims()
	if m < 1 || m > n {
		return fmt.Errorf("%w: m = %d landmarks, want 1 ≤ m ≤ n = %d", check.ErrInput, m, n)
	}
	return nil
}

// levSymmetrize sets a to (a + aᵀ)/2 in place.
func levSymmetrize(a *mat.Dense) {
	n, _ := a.Dims()
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			v := (a.At(i, j) + a.At(j, i)) / 2
			a.Set(i, j, v)
			a.Set(j, i, v)
		}
	}
}
