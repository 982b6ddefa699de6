package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// RecursiveRLS is Musco & Musco's Recursive RLS-Nyström sampler (Algorithm 2):
// the data are halved uniformly and recursively; going back up, the landmarks
// of the smaller set give Lemma 6 estimates of the ridge leverage scores of the
// larger one, using only kernel columns of the landmarks and diag K, and the
// larger set is sampled by those scores with weights 1/√pᵢ that the next level
// uses. Each level costs O(n_level·s) kernel evaluations and O(n_level·s²)
// time, O(ns) and O(ns²) in all.
//
// It has two modes.
//   - Sample(…, m, …) is the practical fixed-sample-size variant (their
//     Appendix D): at each level the ridge is set so that the effective
//     dimension of the level, estimated from the landmarks of the level
//     below, is m/ln m (see fixedSizeDeff), and then exactly m points are
//     drawn with probabilities
//     pᵢ = min(1, c·ℓ̃ᵢ), c fitted so that Σpᵢ = m (systematic sampling, so
//     the inclusion probabilities are exact). Delta and Oversample are not
//     used.
//   - SampleRidge(…, ridge, …) is Algorithm 2 as analysed, for a given
//     absolute ridge λ (K + λI): each level keeps every point of the level
//     above independently with probability 1/2 (line 4), base case
//     192·log(1/δ) points (line 1), scores
//     (3/(2λ))·(K − K S(SᵀKS + λI)⁻¹SᵀK)ᵢᵢ, probabilities
//     pᵢ = min(1, ℓ̃ᵢ·Oversample·log(Σℓ̃/δ)), δ divided by 3 at each level down.
//     With the paper's constant 16 the sample is large (≈ 16·d_eff·log); the
//     guarantee ‖K − K̃‖₂ ≤ λ holds with probability 1 − 3δ.
//
// The zero value is ready to use.
type RecursiveRLS struct {
	// Delta is the failure probability δ of SampleRidge, 0 < δ < 1/32 as
	// Algorithm 2 requires; 0 means 0.03.
	Delta float64
	// Oversample is the constant c of SampleRidge's pᵢ = min(1, ℓ̃ᵢ·c·log(Σℓ̃/δ));
	// 0 means the paper's 16. Values near 1–2 give samples of a few times
	// d_eff that are accurate in practice.
	Oversample float64
	// Accelerated under-samples the intermediate levels of Sample (their
	// Appendix G): every level but the last draws max(⌈m/ln m⌉, 100) points
	// instead of m, which divides the O(n m²) cost of the top level's score
	// pass by up to ln² m; the final draw is still exactly m. Below 100
	// landmarks per level the score estimates got visibly worse (on the
	// unbalanced-cluster test problem, m = 40 with 11 landmarks per level
	// had 5× the spectral error), hence the floor: for m ≤ 100 it changes
	// nothing.
	Accelerated bool
	// Workers bounds the goroutines used for score estimation; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Workers int
	// Progress, when set, is called after each level with the number of
	// levels done and the total.
	Progress func(done, total int)
}

var _ Sampler = RecursiveRLS{}

// minAcceleratedLevel is the smallest intermediate sample of the accelerated
// variant.
const minAcceleratedLevel = 100

// levelSizes returns n, ⌈n/2⌉, … down to the first size ≤ base (at least one
// element).
func levelSizes(n int, base func(depth int) int) []int {
	sizes := []int{n}
	for sizes[len(sizes)-1] > base(len(sizes)-1) && sizes[len(sizes)-1] > 1 {
		sizes = append(sizes, (sizes[len(sizes)-1]+1)/2)
	}
	return sizes
}

// Sample draws exactly m landmarks by the fixed-sample-size variant; see
// RecursiveRLS. Weights are 1/√pᵢ.
func (r RecursiveRLS) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: recursive rls: %w", err)
	}
	return r.sampleFixed(ctx, points.Data(xIn), k, m, rng, nil)
}

// sampleFixed is Sample; onLevel, when set, is called at every level with
// the level's index (0 = all n points), its size and the ridge it was sampled
// with.
func (r RecursiveRLS) sampleFixed(ctx context.Context, x mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand, onLevel func(level, size int, ridge float64)) (*Landmarks, error) {
	if err := levCheckSample(x, k, m, rng); err != nil {
		return nil, fmt.Errorf("approx: recursive rls: %w", err)
	}
	if r.Workers < 0 {
		return nil, fmt.Errorf("approx: recursive rls: %w: Workers = %d, want ≥ 0 (0 means GOMAXPROCS)", check.ErrInput, r.Workers)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	inner := m
	if r.Accelerated {
		inner = max(int(math.Ceil(float64(m)/max(math.Log(float64(m)), 1))), min(m, minAcceleratedLevel))
	}
	perm := rng.Perm(n)
	sizes := levelSizes(n, func(int) int { return inner })
	bottom := sizes[len(sizes)-1]
	// The smallest level is kept whole: a uniform sample of the level above.
	j := append([]int(nil), perm[:bottom]...)
	pj := levOnes(bottom)
	total := len(sizes) - 1
	for l := len(sizes) - 2; l >= 0; l-- {
		target := inner
		if l == 0 {
			target = m
		}
		target = min(target, sizes[l])
		pts := points.Landmarks(x, j)
		// The landmarks j stand for level l+1; level l has sizes[l]/sizes[l+1]
		// (≈ 2) times as many points from the same distribution, and its
		// kernel's top eigenvalues are larger by that factor.
		growth := float64(sizes[l]) / float64(sizes[l+1])
		ridge, err := fixedSizeRidge(k, pts, pj, target, growth, rng)
		if err != nil {
			return nil, fmt.Errorf("approx: recursive rls: level %d: %w", l, err)
		}
		level := perm[:sizes[l]]
		if onLevel != nil {
			onLevel(l, sizes[l], ridge)
		}
		scores, err := r.levelScores(ctx, x, k, pts, pj, level, ridge, 1)
		if err != nil {
			return nil, err
		}
		p := levCalibrate(scores, target)
		chosen := systematicSample(p, target, rng)
		j, pj = j[:0:0], make([]float64, len(chosen))
		for t, c := range chosen {
			j = append(j, level[c])
			pj[t] = p[c]
		}
		if r.Progress != nil {
			r.Progress(total-l, total)
		}
	}
	if len(sizes) == 1 {
		// n ≤ m (so n = m): every point is a landmark.
		return weightedLandmarks(x, points.Iota(n), levOnes(n)), nil
	}
	return sortedLandmarks(x, j, pj), nil
}

// SampleRidge runs Algorithm 2 for the absolute ridge λ (K + λI; pass λ·n
// for the project's λ). The number of landmarks is random, about
// Oversample·d_eff(λ)·log(d_eff(λ)/δ). Weights are 1/√pᵢ.
func (r RecursiveRLS) SampleRidge(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, ridge float64, rng *rand.Rand) (*Landmarks, error) {
	x := points.Data(xIn)
	if err := levCheckXK(x, k); err != nil {
		return nil, fmt.Errorf("approx: recursive rls: %w", err)
	}
	if err := check.Positive("ridge", ridge); err != nil {
		return nil, fmt.Errorf("approx: recursive rls: %w", err)
	}
	if rng == nil {
		return nil, fmt.Errorf("approx: recursive rls: %w: nil random source", check.ErrInput)
	}
	if r.Workers < 0 {
		return nil, fmt.Errorf("approx: recursive rls: %w: Workers = %d, want ≥ 0 (0 means GOMAXPROCS)", check.ErrInput, r.Workers)
	}
	delta, c, err := resolveDeltaOversample(r.Delta, r.Oversample, 0.03, 1.0/32)
	if err != nil {
		return nil, fmt.Errorf("approx: recursive rls: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	deltaAt := func(depth int) float64 { return delta / math.Pow(3, float64(depth)) }
	perm := rng.Perm(n)
	sizes := bernoulliHalves(n, func(depth int) int {
		return int(math.Ceil(192 * math.Log(1/deltaAt(depth))))
	}, rng)
	bottom := sizes[len(sizes)-1]
	j := append([]int(nil), perm[:bottom]...)
	pj := levOnes(bottom)
	total := len(sizes) - 1
	for l := len(sizes) - 2; l >= 0; l-- {
		level := perm[:sizes[l]]
		pts := points.Landmarks(x, j)
		scores, err := r.levelScores(ctx, x, k, pts, pj, level, ridge, 1.5)
		if err != nil {
			return nil, err
		}
		p := bernoulliProbs(scores, deltaAt(l), c)
		chosen := bernoulliSample(p, rng)
		j, pj = j[:0:0], make([]float64, len(chosen))
		for t, ci := range chosen {
			j = append(j, level[ci])
			pj[t] = p[ci]
		}
		if r.Progress != nil {
			r.Progress(total-l, total)
		}
	}
	return sortedLandmarks(x, j, pj), nil
}

// levelScores returns factor·(K − K_{·J}(K_JJ + ridge·diag(pj))⁻¹K_{J·})ᵢᵢ/ridge
// for the rows level of x: Lemma 6 with the weighted sampling matrix whose
// columns are e_j/√p_j.
func (r RecursiveRLS) levelScores(ctx context.Context, x mat.Matrix, k kernel.Kernel, pts mat.Matrix, pj []float64, level []int, ridge, factor float64) ([]float64, error) {
	reg := make([]float64, len(pj))
	for i, p := range pj {
		reg[i] = ridge * p
	}
	est, err := newScoreEstimator(k, pts, reg, ridge/factor, r.Workers)
	if err != nil {
		return nil, err
	}
	scores := make([]float64, len(level))
	if err := est.estimate(ctx, scores, x, level); err != nil {
		return nil, err
	}
	return scores, nil
}

// fixedSizeRidge picks the ridge for one level of the fixed-size variant: the
// eigenvalues of D K_JJ D (D = diag(1/√p)) estimate the spectrum of the level
// the landmarks were drawn from; times growth (the ratio of the level being
// sampled to that one, ≈ 2) they estimate the spectrum of the level being
// sampled, and the ridge is set where its effective dimension is
// fixedSizeDeff(target). Without growth the ridge came out about half as
// large and d_eff 1.5–2× the target (TestRecursiveFixedSizeRidgeTargetsDeff). Only the ridge's rough size matters
// (the sample size is calibrated afterwards), so when there are many
// landmarks the eigenvalues come from a uniform subset of
// max(4·d_target, 400) of them, scaled by s/subset: this keeps the O(s³)
// eigenvalue computation from dominating. When the landmarks cannot reach
// the target dimension, a ridge of 1e-6 times the top eigenvalue is used.
func fixedSizeRidge(k kernel.Kernel, pts mat.Matrix, pj []float64, target int, scale float64, rng *rand.Rand) (float64, error) {
	s := len(pj)
	if s == 0 {
		return 0, fmt.Errorf("no landmarks")
	}
	deff := fixedSizeDeff(target)
	sub := points.Iota(s)
	if t := max(4*int(math.Ceil(deff)), 400); t < s {
		sub = points.Sample(s, t, rng)
	}
	t := len(sub)
	a := mat.NewDense(t, t, nil)
	if pd, ok := pts.(*mat.Dense); ok {
		k.Block(a, points.Gather(pd, sub), points.Gather(pd, sub))
	} else {
		ps := points.Landmarks(pts, sub)
		if err := kernel.NewOp(k, ps, ps, kernel.Options{}).Block(context.Background(), a); err != nil {
			return 0, err
		}
	}
	f := scale * float64(s) / float64(t)
	for i := 0; i < t; i++ {
		for j := 0; j < t; j++ {
			a.Set(i, j, f*a.At(i, j)/math.Sqrt(pj[sub[i]]*pj[sub[j]]))
		}
	}
	levSymmetrize(a)
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(t, a.RawMatrix().Data), false) {
		return 0, fmt.Errorf("eigenvalues of the %d×%d landmark kernel did not converge", t, t)
	}
	vals := eig.Values(nil)
	ridge, err := ridgeForDeff(vals, deff)
	if err == nil {
		return ridge, nil
	}
	top := vals[len(vals)-1]
	if !(top > 0) {
		return 0, fmt.Errorf("landmark kernel matrix is zero")
	}
	return 1e-6 * top, nil
}

func levOnes(n int) []float64 {
	o := make([]float64, n)
	for i := range o {
		o[i] = 1
	}
	return o
}

// sortedLandmarks returns the rows j of x with Weights 1/√pj, sorted by row.
func sortedLandmarks(x mat.Matrix, j []int, pj []float64) *Landmarks {
	n, _ := x.Dims()
	p := make([]float64, n)
	in := make([]bool, n)
	for t, i := range j {
		p[i] = pj[t]
		in[i] = true
	}
	idx := make([]int, 0, len(j))
	for i := 0; i < n; i++ {
		if in[i] {
			idx = append(idx, i)
		}
	}
	return weightedLandmarks(x, idx, p)
}

// bernoulliHalves returns the level sizes of Algorithm 2 (line 4: each point
// of a level is kept in the next independently with probability 1/2): n,
// then Binomial(size, 1/2) draws, down to the first size ≤ base(depth) (or
// ≤ 1). In a random order of the points, the first size points of each level
// are such a subset, nested as the recursion needs.
func bernoulliHalves(n int, base func(depth int) int, rng *rand.Rand) []int {
	sizes := []int{n}
	for depth := 0; ; depth++ {
		cur := sizes[len(sizes)-1]
		if cur <= base(depth) || cur <= 1 {
			return sizes
		}
		half := 0
		for range cur {
			if rng.Uint64()&1 == 1 {
				half++
			}
		}
		sizes = append(sizes, half)
	}
}
