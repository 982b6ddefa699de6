package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// BLESS is Rudi, Calandriello, Carratino & Rosasco's bottom-up leverage score
// sampler (Algorithm 1, sampling with replacement). It walks a decreasing
// path λ₀ > λ₁ > … > λ_H = λ with λ_h = λ_{h−1}/Q. At step h it draws
// R_h = ⌈Q1·min(κ²/λ_h, n)⌉ candidates uniformly with replacement, estimates
// their leverage scores at λ_h by eq. 3 from the previous step's landmarks,
//
//	ℓ̃(i, λ) = (λn)⁻¹ (K_ii − K_Jiᵀ (K_JJ + λn A)⁻¹ K_Ji),
//
// estimates d_h = (n/R_h) Σ_U ℓ̃, and draws M_h = ⌈Q2·d_h⌉ landmarks from the
// candidates with probabilities p ∝ ℓ̃, with A_h = (R_h M_h / n) diag(p). Each
// step costs O(R_h·M_{h−1}²) time and R_h·M_{h−1} kernel evaluations, which
// does not grow with n once κ²/λ < n: the paper's near-constant time in n.
//
// λ follows the project's convention (model/doc.go and the paper): it is
// multiplied by n, scores are those of K(K + λnI)⁻¹. κ² = max_i k(x_i, x_i).
//
// Landmarks drawn several times are merged: a point drawn c times with
// A-entry a appears once with a/c, which leaves K_nJ(K_JJ + λnA)⁻¹K_Jn
// unchanged. The zero value is ready to use.
//
// The candidates' scores are needed up to a constant factor only (Theorem
// 1 bounds ℓ̃/ℓ within [1/(1+t), 1+t]), so once a step's dictionary has 256
// landmarks or more the triangular solve behind eq. 3, nearly all of the
// path's arithmetic, runs in float32 at twice the float64 rate, and any candidate whose float32 score could be off by more
// than about 0.3% (cancellation in K_ii − k_Jᵢᵀ(…)⁻¹k_Jᵢ) is scored again
// in float64: measured within 3.2e-4 of float64 scores on every candidate
// of issue 25's ijcnn1 case (docs/performance.md, "BLESS beside the
// uniform fit"). PathStep.Scores stays in float64.
type BLESS struct {
	// Lambda is the final λ of Sample (K + λnI). Zero means fixed-size mode:
	// Sample walks the path down until Q2·d_h reaches m.
	Lambda float64
	// Lambda0 is the starting λ₀; 0 means κ², where d_eff ≤ 1 and an empty
	// dictionary already gives over-estimates (ℓ̃ = K_ii/(λ₀n)).
	Lambda0 float64
	// Q is the step q > 1 between consecutive λ_h; 0 means 2.
	Q float64
	// Q1 scales the candidate sets (R_h = Q1·min(κ²/λ_h, n) for BLESS; the
	// candidate probability β_h = min(Q1·κ²/(λ_h n), 1) for BLESS-R); 0 means
	// 2·Q2 for BLESS (Theorem 1 asks q1 ≥ 5κ²q2/(q(1+t)), 1.25·q2 at q = 2,
	// t = 1) and Q2 for BLESS-R (Alg. 2 line 4 uses q2).
	Q1 float64
	// Q2 is the over-sampling of landmarks (M_h = Q2·d_h for BLESS; for
	// BLESS-R the inclusion probability pᵢ = min(Q2·ℓ̃ᵢ, 1), Alg. 2 line 10,
	// a candidate being kept with probability pᵢ/β_h); 0 means 3. The
	// paper's theory asks for constants of order log(n/δ); 3 already gives
	// R-ACC within [0.5, 2] in practice (see the tests and docs/performance.md).
	Q2 float64
	// Workers bounds the goroutines of score estimation; 0 means GOMAXPROCS.
	// Results do not depend on it.
	Workers int
	// Progress, when set, is called after each step of the path with the
	// number of steps done and the planned total (fixed-size mode: 0).
	Progress func(done, total int)
}

// BLESSR is BLESS-R (Algorithm 2, sampling without replacement): at step h
// every point is a candidate with probability β_h = min(Q1·κ²/(λ_h n), 1)
// (line 4, Q1 = Q2 by default), and a candidate k is kept with probability
// p_k/β_h where p_k = min(Q2·ℓ̃_k, 1) and ℓ̃_k is the eq. 3 estimate at
// λ_{h−1} from (J_{h−1}, A_{h−1}) (line 10), so its overall inclusion
// probability is p_k; A_h = diag(p). Fields as for BLESS.
type BLESSR BLESS

var (
	_ Sampler = BLESS{}
	_ Sampler = BLESSR{}
)

// PathStep is one step (λ_h, J_h, A_h) of a BLESS path.
type PathStep struct {
	// Lambda is λ_h (K + λ_h nI).
	Lambda float64
	// Indices are the distinct landmark rows J_h, ascending.
	Indices []int
	// Weights hold the diagonal of A_h, one entry per index (merged over
	// repeated draws).
	Weights []float64
	// Candidates is the number of candidates |U_h| scored at this step.
	Candidates int
	// Draws is M_h for BLESS (draws with replacement) and |J_h| for BLESS-R.
	Draws int
	// DEff is the step's estimate d_h of d_eff(λ_h) (BLESS-R: of
	// d_eff(λ_{h−1}), the λ its scores are computed at).
	DEff float64
}

// Path runs BLESS down to lambda (K + λnI) and returns every step.
func (b BLESS) Path(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, lambda float64, rng *rand.Rand) ([]PathStep, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: bless: %w", err)
	}
	x := points.Data(xIn)
	if err := check.Positive("lambda", lambda); err != nil {
		return nil, fmt.Errorf("approx: bless: %w", err)
	}
	if err := blessCheckXK(x, k); err != nil {
		return nil, fmt.Errorf("approx: bless: %w", err)
	}
	return blessRun(ctx, b, false, x, k, lambda, 0, rng)
}

// Sample returns the last step of the path as landmarks, Weights = diag(A_H).
// With Lambda > 0 the path ends at Lambda and m caps the final draw
// (M_H = min(⌈Q2·d_H⌉, m)); with Lambda = 0 the path stops at the first step
// where ⌈Q2·d_h⌉ ≥ m and draws M_H = m there. Draws are with replacement, so
// the number of distinct landmarks can be below m.
func (b BLESS) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: bless: %w", err)
	}
	x := points.Data(xIn)
	return blessSample(ctx, b, false, x, k, m, rng)
}

// Path runs BLESS-R down to lambda (K + λnI) and returns every step.
func (b BLESSR) Path(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, lambda float64, rng *rand.Rand) ([]PathStep, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: bless-r: %w", err)
	}
	x := points.Data(xIn)
	if err := check.Positive("lambda", lambda); err != nil {
		return nil, fmt.Errorf("approx: bless-r: %w", err)
	}
	if err := blessCheckXK(x, k); err != nil {
		return nil, fmt.Errorf("approx: bless-r: %w", err)
	}
	return blessRun(ctx, BLESS(b), true, x, k, lambda, 0, rng)
}

// Sample returns the last step of the BLESS-R path as landmarks, Weights =
// diag(A_H). With Lambda > 0 the path ends at Lambda, and when the final step
// would keep more than m points it instead keeps exactly m of its candidates
// (inclusion probabilities min(1, c·ℓ̃) with Σ = m, systematic sampling;
// A = β_H times them). With Lambda = 0 the path stops at the first step where
// the expected size reaches m and keeps exactly m points there the same way.
func (b BLESSR) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: bless-r: %w", err)
	}
	x := points.Data(xIn)
	return blessSample(ctx, BLESS(b), true, x, k, m, rng)
}

func blessSample(ctx context.Context, b BLESS, noRepl bool, x mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	name := blessName(noRepl)
	if err := blessCheckXK(x, k); err != nil {
		return nil, fmt.Errorf("approx: %s: %w", name, err)
	}
	if rng == nil {
		return nil, fmt.Errorf("approx: %s: %w: nil random source", name, check.ErrInput)
	}
	if n, _ := x.Dims(); m < 1 || m > n {
		return nil, fmt.Errorf("approx: %s: %w: m = %d landmarks, want 1 ≤ m ≤ n = %d", name, check.ErrInput, m, n)
	}
	if b.Lambda < 0 || math.IsNaN(b.Lambda) || math.IsInf(b.Lambda, 0) {
		return nil, fmt.Errorf("approx: %s: %w: lambda = %g", name, check.ErrInput, b.Lambda)
	}
	steps, err := blessRun(ctx, b, noRepl, x, k, b.Lambda, m, rng)
	if err != nil {
		return nil, err
	}
	last := steps[len(steps)-1]
	return &Landmarks{Points: points.Landmarks(x, last.Indices), Indices: last.Indices, Weights: last.Weights, Lambda: last.Lambda}, nil
}

func blessName(noRepl bool) string {
	if noRepl {
		return "bless-r"
	}
	return "bless"
}

// blessParams holds resolved constants.
type blessParams struct {
	lambda0, q, q1, q2 float64
}

func (b BLESS) resolve(kappa2 float64, noRepl bool) (blessParams, error) {
	p := blessParams{lambda0: b.Lambda0, q: b.Q, q1: b.Q1, q2: b.Q2}
	if p.lambda0 == 0 {
		p.lambda0 = kappa2
	}
	if p.q == 0 {
		p.q = 2
	}
	if p.q2 == 0 {
		p.q2 = 3
	}
	if p.q1 == 0 {
		p.q1 = 2 * p.q2
		if noRepl {
			p.q1 = p.q2 // Alg. 2 line 4: β_h = min(q2·κ²/(λ_h n), 1)
		}
	}
	if err := check.Positive("lambda0", p.lambda0); err != nil {
		return p, err
	}
	if !(p.q > 1) || math.IsInf(p.q, 0) {
		return p, fmt.Errorf("%w: q = %g, want > 1", check.ErrInput, p.q)
	}
	if err := check.Positive("q1", p.q1); err != nil {
		return p, err
	}
	if err := check.Positive("q2", p.q2); err != nil {
		return p, err
	}
	return p, nil
}

// singleMinLandmarks is the dictionary size from which a step scores its
// candidates in float32 (useSingle). Below it the forward substitution is
// one estPanel-wide panel and the step's float64 cost, R_h·s²/2
// multiply-adds, is small (all steps with s < 256 together: under 0.03 CPU-s
// of the 6.3 of issue 25's ijcnn1 case), so small problems keep the float64
// scores, and the centers and weights, of earlier versions bit for bit.
const singleMinLandmarks = estPanel

// minLambdaRatio stops a fixed-size path that cannot reach m landmarks
// (λ_h < κ²·minLambdaRatio): at that point K + λnI is numerically K.
const minLambdaRatio = 1e-14

// blessRun computes the path; x and k have been checked by the caller. lambda > 0: end at lambda, cap the final
// step at m when m > 0. lambda = 0: fixed-size mode, stop when the step's
// size reaches m.
func blessRun(ctx context.Context, b BLESS, noRepl bool, x mat.Matrix, k kernel.Kernel, lambda float64, m int, rng *rand.Rand) ([]PathStep, error) {
	name := blessName(noRepl)
	if rng == nil {
		return nil, fmt.Errorf("approx: %s: %w: nil random source", name, check.ErrInput)
	}
	if b.Workers < 0 {
		return nil, fmt.Errorf("approx: %s: %w: Workers = %d, want ≥ 0 (0 means GOMAXPROCS)", name, check.ErrInput, b.Workers)
	}
	n, _ := x.Dims()
	// κ² = max_i k(x_i, x_i): one row suffices for a shift-invariant kernel,
	// keeping the path's only O(n·d) work the input check (Fig. 2: time
	// flat in n).
	rows := x
	if k.ShiftInvariant() {
		rows = firstRow(x)
	}
	r, _ := rows.Dims()
	diag := make([]float64, r)
	diagOf(k, diag, rows)
	kappa2 := slices.Max(diag)
	if !(kappa2 > 0) {
		return nil, fmt.Errorf("approx: %s: %w: the kernel diagonal is zero on X", name, check.ErrInput)
	}
	par, err := b.resolve(kappa2, noRepl)
	if err != nil {
		return nil, fmt.Errorf("approx: %s: %w", name, err)
	}
	fixed := lambda == 0
	total := 0
	if !fixed {
		total = max(1, int(math.Ceil(math.Log(par.lambda0/lambda)/math.Log(par.q)-1e-9)))
	}
	nf := float64(n)
	var steps []PathStep
	var prevPts mat.Matrix
	var prevIdx []int
	var prevA []float64
	lam := par.lambda0
	for h := 1; ; h++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		prevLam := lam
		lam /= par.q
		last := false
		if !fixed && h >= total {
			lam, last = lambda, true
		}
		if fixed && lam < kappa2*minLambdaRatio {
			last = true
		}
		cand, beta := blessCandidates(noRepl, par.q1, kappa2, lam, n, rng)
		// Scores from the previous dictionary (eq. 3): at λ_h for BLESS
		// (Alg. 1 line 6), at λ_{h−1}, where (J_{h−1}, A_{h−1}) were built,
		// for BLESS-R (Alg. 2 line 10).
		slam := lam
		if noRepl {
			slam = prevLam
		}
		scores, err := blessScores(ctx, k, x, cand, prevPts, prevA, slam*nf, b.Workers)
		if err != nil {
			return nil, fmt.Errorf("approx: %s: step %d: %w", name, h, err)
		}
		var sum float64
		for _, s := range scores {
			sum += s
		}
		var step PathStep
		if noRepl {
			var exact bool
			step, exact = blessRStep(cand, scores, beta, par.q2, m, fixed, last, rng)
			step.DEff = sum / beta
			if fixed && exact {
				last = true
			}
		} else {
			dh := nf / float64(len(cand)) * sum
			mh := max(1, int(math.Ceil(par.q2*dh)))
			switch {
			case fixed && (mh >= m || last):
				last, mh = true, m
			case last && m > 0:
				mh = min(mh, m)
			}
			step = blessStep(cand, scores, sum, mh, nf, rng)
			step.DEff = dh
		}
		step.Lambda = lam
		step.Candidates = len(cand)
		steps = append(steps, step)
		if b.Progress != nil {
			b.Progress(h, total)
		}
		if last {
			return steps, nil
		}
		prevIdx, prevA = step.Indices, step.Weights
		prevPts = points.Landmarks(x, prevIdx)
	}
}

// blessCandidates draws a step's candidates at λ = lam: for BLESS
// R = ⌈q1·min(κ²/λ, n)⌉ indices uniformly with replacement (Alg. 1 lines
// 4–5), for BLESS-R each index with probability β = min(q1·κ²/(λn), 1)
// (Alg. 2 line 4, where q1 is q2), β returned (0 for BLESS).
func blessCandidates(noRepl bool, q1, kappa2, lam float64, n int, rng *rand.Rand) (cand []int, beta float64) {
	nf := float64(n)
	if noRepl {
		beta = min(q1*kappa2/(lam*nf), 1)
		return bernoulliSubset(n, beta, rng), beta
	}
	cand = make([]int, int(math.Ceil(q1*min(kappa2/lam, nf))))
	for i := range cand {
		cand[i] = rng.IntN(n)
	}
	return cand, 0
}

// blessScores estimates the scores ℓ̃ (eq. 3) of the candidates cand from
// the previous step's dictionary (landmarks pts with weights a) at the
// regularization mu = λ·n: K_JJ + mu·diag(a) factored once, each distinct
// candidate scored once. Alg. 1 line 6 and Alg. 2 line 10 need the scores
// up to a constant factor only, so once the dictionary has
// singleMinLandmarks landmarks the forward substitution runs in float32,
// guarded (scoreEstimator.useSingle).
func blessScores(ctx context.Context, k kernel.Kernel, x mat.Matrix, cand []int, pts mat.Matrix, a []float64, mu float64, workers int) ([]float64, error) {
	reg := make([]float64, len(a))
	for j, w := range a {
		reg[j] = mu * w
	}
	est, err := newScoreEstimator(k, pts, reg, mu, workers)
	if err != nil {
		return nil, err
	}
	if len(a) >= singleMinLandmarks {
		est.useSingle()
	}
	return scoreDistinct(ctx, est, x, cand)
}

// blessStep draws mh times with replacement from the candidates with
// probabilities p ∝ scores and merges repeats: A_j = (R·M/n)·p_j / count_j.
func blessStep(cand []int, scores []float64, sum float64, mh int, nf float64, rng *rand.Rand) PathStep {
	r := len(cand)
	cum := make([]float64, r)
	var acc float64
	for i, s := range scores {
		if sum > 0 {
			acc += s / sum
		} else {
			acc += 1 / float64(r)
		}
		cum[i] = acc
	}
	counts := map[int]int{}
	prob := map[int]float64{}
	for range mh {
		u := rng.Float64() * acc
		c := min(sort.SearchFloat64s(cum, u), r-1)
		// Skip zero-probability slots that a u on a boundary could land in.
		for c < r-1 && cum[c] <= u {
			c++
		}
		i := cand[c]
		counts[i]++
		if sum > 0 {
			prob[i] = scores[c] / sum
		} else {
			prob[i] = 1 / float64(r)
		}
	}
	idx := make([]int, 0, len(counts))
	for i := range counts {
		idx = append(idx, i)
	}
	slices.Sort(idx) // fixes the order: map iteration order never leaks
	w := make([]float64, len(idx))
	for t, i := range idx {
		w[t] = float64(r) * float64(mh) / nf * prob[i] / float64(counts[i])
	}
	return PathStep{Indices: idx, Weights: w, Draws: mh}
}

// blessRStep keeps candidate k with probability min(p_k/β, 1), p_k =
// min(q2·ℓ̃_k, 1), A = p (Alg. 2 lines 10–13). With the default Q1 = Q2,
// ℓ̃(·, λ_{h−1}) ≤ κ²/(λ_{h−1}n) makes p_k/β ≤ 1/q, so the cap never binds. When a fixed size is wanted (fixed-size mode once the expected size
// reaches m, or the final step above m), exactly m candidates are kept by
// systematic sampling with inclusion probabilities calibrated to Σ = m, and
// A = β times them; the second result reports that case.
func blessRStep(cand []int, scores []float64, beta, q2 float64, m int, fixed, last bool, rng *rand.Rand) (PathStep, bool) {
	p := make([]float64, len(cand))
	var expected float64
	for i, s := range scores {
		p[i] = min(q2*s, 1)
		expected += min(p[i]/beta, 1)
	}
	exact := m > 0 && len(cand) >= m && ((fixed && expected >= float64(m)) || (last && expected > float64(m)))
	var keep []int
	var a []float64
	if exact {
		pc := levCalibrate(scores, m)
		keep = systematicSample(pc, m, rng)
		a = make([]float64, len(keep))
		for t, c := range keep {
			a[t] = beta * pc[c]
		}
	} else {
		for i := range cand {
			if rng.Float64() < min(p[i]/beta, 1) {
				keep = append(keep, i)
			}
		}
		a = make([]float64, len(keep))
		for t, c := range keep {
			a[t] = p[c]
		}
	}
	idx := make([]int, len(keep))
	for t, c := range keep {
		idx[t] = cand[c]
	}
	// Candidates are distinct and ascending, so idx is too.
	return PathStep{Indices: idx, Weights: a, Draws: len(idx)}, exact
}

// bernoulliSubset returns each of 0…n−1 independently with probability beta,
// ascending, in O(beta·n) expected time by geometric skips.
func bernoulliSubset(n int, beta float64, rng *rand.Rand) []int {
	if beta >= 1 {
		return points.Iota(n)
	}
	var out []int
	l := math.Log1p(-beta)
	for i := -1; ; {
		skip := math.Floor(math.Log(1-rng.Float64()) / l)
		if skip >= float64(n) {
			return out
		}
		i += int(skip) + 1
		if i >= n {
			return out
		}
		out = append(out, i)
	}
}

// Scores returns the eq. 3 estimates ℓ̃(i, λ_h) from (J_h, A_h) for every row of
// x, the data the path was computed on: the quantity whose ratio to the exact
// scores is BLESS's R-ACC.
func (s PathStep) Scores(ctx context.Context, xIn mat.Matrix, k kernel.Kernel) ([]float64, error) {
	x := points.Data(xIn)
	if err := levCheckXK(x, k); err != nil {
		return nil, fmt.Errorf("approx: bless scores: %w", err)
	}
	n, _ := x.Dims()
	nf := float64(n)
	reg := make([]float64, len(s.Weights))
	for j, a := range s.Weights {
		reg[j] = s.Lambda * nf * a
	}
	var pts mat.Matrix
	if len(s.Indices) > 0 {
		pts = points.Landmarks(x, s.Indices)
	}
	est, err := newScoreEstimator(k, pts, reg, s.Lambda*nf, 0)
	if err != nil {
		return nil, err
	}
	out := make([]float64, n)
	if err := est.estimate(ctx, out, x, points.Iota(n)); err != nil {
		return nil, err
	}
	return out, nil
}

// scoreDistinct returns est's scores for the candidates, scoring each distinct
// row once: BLESS draws R_h candidates with replacement, and once R_h is of
// the order of n (λ_h ≲ Q1·κ²/n) a third or more of them are repeats
// (R_h = n: a fraction 1/e). A repeat has the same ℓ̃, so this changes
// no result and saves up to that share of the step's O(R_h·M_{h−1}²) cost.
func scoreDistinct(ctx context.Context, est *scoreEstimator, x mat.Matrix, cand []int) ([]float64, error) {
	uniq := slices.Clone(cand)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	us := make([]float64, len(uniq))
	if err := est.estimate(ctx, us, x, uniq); err != nil {
		return nil, err
	}
	scores := make([]float64, len(cand))
	for i, c := range cand {
		j, _ := slices.BinarySearch(uniq, c)
		scores[i] = us[j]
	}
	return scores, nil
}

// blessCheckXK validates the kernel and X's shape, and X's values where BLESS
// reads them: every row it scores is checked as it is gathered
// (scoreEstimator.estimate), and all rows up front only when κ² needs the
// whole diagonal (kernels that are not shift-invariant). A full scan would be
// the path's only O(n·d) work and, at n = 4.6·10⁵ covtype rows, more than half
// its time (Fig. 2: time flat in n); a non-finite value in a row that is never
// read cannot reach the result.
//
// Sparse X is checked whole: the check costs O(nnz), not O(n·d).
func blessCheckXK(xIn mat.Matrix, k kernel.Kernel) error {
	if k == nil {
		return fmt.Errorf("%w: nil kernel", check.ErrInput)
	}
	if err := k.Validate(); err != nil {
		return err
	}
	if s, ok := xIn.(kernel.Sparse); ok {
		return points.CheckSparse(s, 0)
	}
	x := xIn.(*mat.Dense)
	if !k.ShiftInvariant() {
		return check.Matrix("X", x)
	}
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("%w: X is empty", check.ErrInput)
	}
	_, d := x.Dims()
	return check.Matrix("X", x.Slice(0, 1, 0, d).(*mat.Dense))
}
