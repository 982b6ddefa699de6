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
	"github.com/landmark-ml/landmark/solver"
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

// scoreEstimator computes the Lemma 6 / BLESS eq. 3 estimates
//
//	ℓ̃ᵢ = (k(xᵢ,xᵢ) − k_Jᵢᵀ (K_JJ + diag(r))⁻¹ k_Jᵢ) / μ
//
// for many points from one landmark set J with regularizers r > 0. Musco &
// Musco use r_j = λ·p_j, μ = λ (their S has columns e_j/√p_j); BLESS uses
// r_j = λn·A_jj, μ = λn. The s×s system is solved stably through the Cholesky
// factor L of R^{-1/2} K_JJ R^{-1/2} + I (eigenvalues ≥ 1), so that
// k_Jᵢᵀ(K_JJ + R)⁻¹k_Jᵢ = ‖L⁻¹R^{-1/2}k_Jᵢ‖².
//
// Cost. Scoring R points takes R·s kernel evaluations and R·s²/2
// multiply-adds, the paper's O(R·M²) (BLESS Section 2.2); nearly all of it is
// the forward substitution L⁻¹b for every point. That substitution runs in
// row chunks of estChunk points and column panels of estPanel landmarks, as
// matrix products on the kernel engine's micro-kernels (kernel.Dense): for panel
// p, Y_p = (B_p − Y_{<p} L_{p,<p}ᵀ) L_pp⁻ᵀ, solved with the inverses of its
// estSub-wide diagonal blocks, formed once (see forward). A point-by-point triangular solve (gonum's Dtrsm) ran 30×
// slower and was 94% of a BLESS run at m = 3,000 (40,000 × 8 covtype rows;
// docs/performance.md, "Leverage-score samplers"). K_JJ and its factor also use the engine (blocked
// Cholesky on kernel.Dense products). Memory: the factor (s² floats)
// plus one chunk's kernel block (estChunk·s floats).
type scoreEstimator struct {
	k       kernel.Kernel
	pts     mat.Matrix   // landmark points (s×d, dense or CSR); nil when s = 0
	invSqrt []float64    // r_j^{-1/2}
	l       *mat.Dense   // lower triangle: L
	dinv    []*mat.Dense // inverses of the estSub-wide diagonal blocks of L
	mu      float64
	opt     kernel.Options
	prod    kernel.Dense
}

// estChunk is the number of points scored per pass; estPanel the width of the
// landmark panels of the forward substitution, estSub the width of the
// sub-panels each panel is solved in (see forward).
const (
	estChunk = 2048
	estPanel = 256
	estSub   = 64
)

// newScoreEstimator factors the landmark system. pts may have zero rows.
func newScoreEstimator(k kernel.Kernel, pts mat.Matrix, r []float64, mu float64, workers int) (*scoreEstimator, error) {
	e := &scoreEstimator{k: k, mu: mu, opt: kernel.Options{Workers: workers}, prod: kernel.Dense{Workers: workers}}
	s := len(r)
	if s == 0 {
		return e, nil
	}
	ctx := context.Background()
	e.pts = pts
	e.invSqrt = make([]float64, s)
	for j, v := range r {
		e.invSqrt[j] = 1 / math.Sqrt(v)
	}
	a := mat.NewDense(s, s, nil)
	if err := kernel.NewOp(k, pts, pts, e.opt).Block(ctx, a); err != nil {
		return nil, err
	}
	raw := a.RawMatrix()
	for i := 0; i < s; i++ {
		for j := 0; j < s; j++ {
			raw.Data[i*raw.Stride+j] *= e.invSqrt[i] * e.invSqrt[j]
		}
		raw.Data[i*raw.Stride+i]++
	}
	levSymmetrize(a)
	ch, err := solver.CholeskyBlocked(ctx, a, solver.CholOptions{}, e.prod)
	if err != nil || ch.Jitter != 0 {
		// Cannot happen in exact arithmetic (the matrix is I plus a PSD
		// matrix); report rather than guess.
		return nil, fmt.Errorf("approx: leverage estimate: Cholesky of the %d×%d landmark system failed", s, s)
	}
	e.l = a
	for p0 := 0; p0 < s; p0 += estSub {
		p1 := min(p0+estSub, s)
		d := mat.NewDense(p1-p0, p1-p0, nil)
		for i := p0; i < p1; i++ {
			copy(d.RawRowView(i - p0)[:i-p0+1], raw.Data[i*raw.Stride+p0:i*raw.Stride+i+1])
		}
		dr := d.RawMatrix()
		if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: p1 - p0, Stride: dr.Stride, Data: dr.Data}) {
			return nil, fmt.Errorf("approx: leverage estimate: singular Cholesky factor")
		}
		e.dinv = append(e.dinv, d)
	}
	return e, nil
}

// estimate writes ℓ̃ for the rows idx of x into dst (len(idx)), clamping the
// (round-off) negative numerators at zero. Chunks are processed in order and
// every product runs on the engine with its fixed summation order, so the
// result does not depend on the number of workers.
//
// Sparse x stays sparse: each chunk's rows are gathered as CSR, and the
// kernel block and diagonal come from the sparse paths (its values were
// checked when the sampler validated X).
func (e *scoreEstimator) estimate(ctx context.Context, dst []float64, xIn mat.Matrix, idx []int) error {
	xs, sparse := xIn.(kernel.Sparse)
	x, _ := xIn.(*mat.Dense)
	_, d := xIn.Dims()
	s := len(e.invSqrt)
	n := len(idx)
	c := min(estChunk, n)
	if c == 0 {
		return nil
	}
	var xb *mat.Dense
	if !sparse {
		xb = mat.NewDense(c, d, nil)
	}
	diag := make([]float64, c)
	var kb, tmp *mat.Dense
	var q []float64
	if s > 0 {
		// A row stride rounded up to 16 lets the engine form each kernel
		// block in place (kernel.Op.Block writes its 8×16 tiles straight
		// into dst when the strides agree), instead of forming it in its
		// own buffer and copying: 2% of a BLESS run at m = 3,000.
		kb = mat.NewDense(c, (s+15)&^15, nil)
		tmp = mat.NewDense(c, min(estPanel, s), nil)
		q = make([]float64, c)
	}
	for r0 := 0; r0 < n; r0 += c {
		if err := ctx.Err(); err != nil {
			return err
		}
		r1 := min(r0+c, n)
		rows := r1 - r0
		dg := diag[:rows]
		var xr mat.Matrix
		if sparse {
			sub := kernel.SubsetRows(xs, idx[r0:r1])
			kernel.SparseDiag(e.k, dg, sub)
			xr = sub
		} else {
			xd := xb.Slice(0, rows, 0, d).(*mat.Dense)
			if err := gatherChecked(xd, x, idx[r0:r1]); err != nil {
				return err
			}
			e.k.Diag(dg, xd)
			xr = xd
		}
		if s == 0 {
			for i := range rows {
				dst[r0+i] = max(dg[i], 0) / e.mu
			}
			continue
		}
		kr := kb.Slice(0, rows, 0, s).(*mat.Dense)
		if err := kernel.NewOp(e.k, xr, e.pts, e.opt).Block(ctx, kr); err != nil {
			return err
		}
		raw := kr.RawMatrix()
		for i := 0; i < rows; i++ {
			row := raw.Data[i*raw.Stride : i*raw.Stride+s]
			for j := range row {
				row[j] *= e.invSqrt[j]
			}
		}
		qr := q[:rows]
		if err := e.forward(ctx, kr, tmp, qr); err != nil {
			return err
		}
		for i, v := range qr {
			dst[r0+i] = max(dg[i]-v, 0) / e.mu
		}
	}
	return nil
}

// gatherChecked copies the rows idx of x into dst, checking that every
// value is finite.
func gatherChecked(dst, x *mat.Dense, idx []int) error {
	for i, r := range idx {
		row := x.RawRowView(r)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: X[%d,%d] is %v", check.ErrInput, r, j, v)
			}
		}
		dst.SetRow(i, row)
	}
	return nil
}

// forward sets q[i] = ‖L⁻¹bᵢ‖² for the rows bᵢ of y (rows×s), which it
// overwrites. It solves panel by panel, right-looking: once panel p (estPanel
// columns) has received every update, it is solved and the solution Y_p is
// written to tmp (rows×estPanel scratch), q gains its rows' squared norms,
// and Y_{>p} −= Y_p L_{>p,p}ᵀ, a rank-estPanel update with Y_p packed once.
// Only the norms are wanted, so the solved panel never goes back to y.
//
// Within a panel, each estSub-wide sub-panel a is solved with the explicit
// inverse of its diagonal block, Y_a = Z_a·L_aa⁻ᵀ, and then updates the rest
// of the panel, Z_{>a} −= Y_a·L_{>a,a}ᵀ. Per point that is s²/2 + s·estSub/2
// multiply-adds (the triangular solve's s²/2, plus the zeros of the
// estSub-wide inverses), where one product with the inverse of the whole
// estPanel-wide block per panel took s²/2 + s·estPanel/2: at s = 1,503 and
// 2,182 landmarks, the last two steps of BLESS on ijcnn1 at m = 3,000,
// 11% and 8% fewer. The left-looking order (Y_p −= Y_{<p}L_{p,<p}ᵀ)
// packed the solved prefix again for every panel, s/(2·estPanel) times each
// value, and spent 18% of that run packing (docs/performance.md, "BLESS
// beside the uniform fit"). All orders compute the same L⁻¹b up to the order
// of the floating-point sums; each sum has one fixed order, whatever the
// number of workers.
func (e *scoreEstimator) forward(ctx context.Context, y, tmp *mat.Dense, q []float64) error {
	rows, s := y.Dims()
	clear(q)
	for p0 := 0; p0 < s; p0 += estPanel {
		p1 := min(p0+estPanel, s)
		for a0 := p0; a0 < p1; a0 += estSub {
			a1 := min(a0+estSub, p1)
			ya := tmp.Slice(0, rows, a0-p0, a1-p0).(*mat.Dense)
			if err := e.prod.Gemm(ctx, false, true, 1, y.Slice(0, rows, a0, a1).(*mat.Dense), e.dinv[a0/estSub], 0, ya); err != nil {
				return err
			}
			if a1 < p1 {
				la := e.l.Slice(a1, p1, a0, a1).(*mat.Dense)
				if err := e.prod.Gemm(ctx, false, true, -1, ya, la, 1, y.Slice(0, rows, a1, p1).(*mat.Dense)); err != nil {
					return err
				}
			}
		}
		yp := tmp.Slice(0, rows, 0, p1-p0).(*mat.Dense)
		for i := range rows {
			row := yp.RawRowView(i)
			q[i] += floats.Dot(row, row)
		}
		if p1 < s {
			lp := e.l.Slice(p1, s, p0, p1).(*mat.Dense)
			if err := e.prod.Gemm(ctx, false, true, -1, yp, lp, 1, y.Slice(0, rows, p1, s).(*mat.Dense)); err != nil {
				return err
			}
		}
	}
	return nil
}
