package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// RowApproximator gives rows of an approximation K̃ of the kernel matrix of
// the training set X it was built on. MEKA implements it directly; feature
// maps through FeatureRows.
type RowApproximator interface {
	// Rows writes rows idx of K̃ into dst (len(idx) × n).
	Rows(ctx context.Context, dst *mat.Dense, idx []int) error
}

// FeatureRows is the RowApproximator K̃ = φ(X)φ(X)ᵀ of a feature map on the
// training set, holding φ(X) (n×r).
type FeatureRows struct {
	phi *mat.Dense
}

var _ RowApproximator = (*FeatureRows)(nil)

// NewFeatureRows transforms x once with f (n×r memory) so that rows of
// K̃ = φ(X)φ(X)ᵀ can be formed at O(r·n) each. Sparse x is transformed as
// it is (the feature maps read CSR rows).
func NewFeatureRows(ctx context.Context, f FeatureMap, xIn mat.Matrix) (*FeatureRows, error) {
	x := points.Data(xIn)
	if err := points.Check(x); err != nil {
		return nil, fmt.Errorf("approx: feature rows: %w", err)
	}
	n, _ := x.Dims()
	phi := mat.NewDense(n, f.Dim(), nil)
	if err := f.Transform(ctx, phi, x); err != nil {
		return nil, fmt.Errorf("approx: feature rows: %w", err)
	}
	return &FeatureRows{phi: phi}, nil
}

// Rows writes φ(x_i)·φ(X)ᵀ for i in idx into dst.
func (f *FeatureRows) Rows(ctx context.Context, dst *mat.Dense, idx []int) error {
	n, r := f.phi.Dims()
	if rd, cd := dst.Dims(); rd != len(idx) || cd != n {
		return fmt.Errorf("approx: feature rows: dst is %d×%d, want %d×%d", rd, cd, len(idx), n)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	a := mat.NewDense(len(idx), r, nil)
	for t, i := range idx {
		if i < 0 || i >= n {
			return fmt.Errorf("%w: row index %d outside [0, %d)", check.ErrInput, i, n)
		}
		a.SetRow(t, f.phi.RawRowView(i))
	}
	dst.Mul(a, f.phi.T())
	return nil
}

// RelFrobeniusError estimates ‖K − K̃‖_F/‖K‖_F by the MEKA protocol: rows rows
// of X are drawn uniformly without replacement (from rng), and the squared
// errors and squared entries of those full rows of K are summed. rows = 0
// means min(n, 1000); rows ≥ n uses every row and gives the exact value. Cost:
// rows·n kernel evaluations, O(points.Chunk·n) memory. Sparse x
// (kernel.Sparse) stays sparse: see points.Exact.
func RelFrobeniusError(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, a RowApproximator, rows int, rng *rand.Rand) (float64, error) {
	x := points.Data(xIn)
	if err := levCheckXK(x, k); err != nil {
		return 0, fmt.Errorf("approx: frobenius error: %w", err)
	}
	if a == nil || rng == nil || rows < 0 {
		return 0, fmt.Errorf("approx: frobenius error: %w: nil approximation or random source, or rows < 0", check.ErrInput)
	}
	n, _ := x.Dims()
	if rows == 0 {
		rows = min(n, 1000)
	}
	var idx []int
	if rows >= n {
		idx = points.Iota(n)
	} else {
		idx = points.Sample(n, rows, rng)
	}
	var num, den float64
	for c0 := 0; c0 < len(idx); c0 += points.Chunk {
		chunk := idx[c0:min(c0+points.Chunk, len(idx))]
		exact := mat.NewDense(len(chunk), n, nil)
		if err := points.Exact(ctx, k, x, chunk, exact, 0); err != nil {
			return 0, err
		}
		approx := mat.NewDense(len(chunk), n, nil)
		if err := a.Rows(ctx, approx, chunk); err != nil {
			return 0, fmt.Errorf("approx: frobenius error: %w", err)
		}
		ke, ka := exact.RawMatrix().Data, approx.RawMatrix().Data
		for i, v := range ke {
			e := v - ka[i]
			num += e * e
			den += v * v
		}
	}
	if den == 0 {
		return 0, fmt.Errorf("approx: frobenius error: the sampled rows of K are zero")
	}
	return math.Sqrt(num / den), nil
}

// Spectral is the result of SpectralError.
type Spectral struct {
	// Error is ‖K_SS − K̃_SS‖₂ on the subset S, and Norm is ‖K_SS‖₂.
	Error, Norm float64
	// Points is |S|.
	Points int
}

// SpectralError measures the spectral-norm error ‖K − K̃‖₂ restricted to a
// random subset S of subset points (Musco & Musco's protocol; subset = 0
// means min(n, 2000), subset ≥ n uses every point): the dense difference
// K_SS − K̃_SS is formed and its largest absolute eigenvalue found by Lanczos
// iteration with full reorthogonalization. Sparse x (kernel.Sparse) stays
// sparse: K_SS comes from the engine's sparse path, points.Chunk dense
// columns at a time.
func SpectralError(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, a RowApproximator, subset int, rng *rand.Rand) (Spectral, error) {
	x := points.Data(xIn)
	if err := levCheckXK(x, k); err != nil {
		return Spectral{}, fmt.Errorf("approx: spectral error: %w", err)
	}
	if a == nil || rng == nil || subset < 0 {
		return Spectral{}, fmt.Errorf("approx: spectral error: %w: nil approximation or random source, or subset < 0", check.ErrInput)
	}
	n, _ := x.Dims()
	if subset == 0 {
		subset = min(n, 2000)
	}
	var idx []int
	if subset >= n {
		idx = points.Iota(n)
	} else {
		idx = points.Sample(n, subset, rng)
	}
	q := len(idx)
	kss := mat.NewDense(q, q, nil)
	if err := points.Exact(ctx, k, gatherSubset(x, idx), points.Iota(q), kss, 0); err != nil {
		return Spectral{}, err
	}
	e := mat.DenseCopyOf(kss)
	for c0 := 0; c0 < q; c0 += points.Chunk {
		chunk := idx[c0:min(c0+points.Chunk, q)]
		rows := mat.NewDense(len(chunk), n, nil)
		if err := a.Rows(ctx, rows, chunk); err != nil {
			return Spectral{}, fmt.Errorf("approx: spectral error: %w", err)
		}
		for t := range chunk {
			r := rows.RawRowView(t)
			out := e.RawRowView(c0 + t)
			for j, c := range idx {
				out[j] -= r[c]
			}
		}
	}
	levSymmetrize(e)
	levSymmetrize(kss)
	errNorm, err := SymNorm2(ctx, e, rng)
	if err != nil {
		return Spectral{}, err
	}
	kNorm, err := SymNorm2(ctx, kss, rng)
	if err != nil {
		return Spectral{}, err
	}
	return Spectral{Error: errNorm, Norm: kNorm, Points: q}, nil
}

// SymNorm2 returns the spectral norm max|λᵢ| of the symmetric matrix a by
// Lanczos iteration with full reorthogonalization from a random start (from
// rng). It stops when the largest Ritz value changes by less than 1e-10
// relatively, at an invariant subspace, or after min(n, 300) steps. Ritz
// values approach the extreme eigenvalues from inside, so the result is never
// above the true norm (up to round-off).
func SymNorm2(ctx context.Context, a *mat.Dense, rng *rand.Rand) (float64, error) {
	if err := check.Matrix("A", a); err != nil {
		return 0, fmt.Errorf("SymNorm2: %w", err)
	}
	if rng == nil {
		return 0, fmt.Errorf("%w: SymNorm2: nil random source", check.ErrInput)
	}
	n, c := a.Dims()
	if n != c || n == 0 {
		return 0, fmt.Errorf("%w: SymNorm2 needs a non-empty square matrix, got %d×%d", check.ErrInput, n, c)
	}
	steps := min(n, 300)
	ra := a.RawMatrix()
	v := make([][]float64, 0, steps+1)
	v0 := make([]float64, n)
	for i := range v0 {
		v0[i] = rng.NormFloat64()
	}
	levScale(v0, 1/blas64.Nrm2(levVec(v0)))
	v = append(v, v0)
	alpha := make([]float64, 0, steps)
	beta := make([]float64, 0, steps)
	prev := math.Inf(1)
	var est float64
	for j := 0; j < steps; j++ {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		w := make([]float64, n)
		blas64.Gemv(blas.NoTrans, 1, ra, levVec(v[j]), 0, levVec(w))
		alpha = append(alpha, blas64.Dot(levVec(w), levVec(v[j])))
		// Full reorthogonalization, twice, against every Lanczos vector.
		for range 2 {
			for _, u := range v {
				blas64.Axpy(-blas64.Dot(levVec(w), levVec(u)), levVec(u), levVec(w))
			}
		}
		b := blas64.Nrm2(levVec(w))
		est = tridiagNorm(alpha, beta)
		if math.Abs(est-prev) <= 1e-10*est || b <= 1e-14*max(est, 1e-300) || j == steps-1 {
			break
		}
		prev = est
		beta = append(beta, b)
		levScale(w, 1/b)
		v = append(v, w)
	}
	return est, nil
}

// tridiagNorm returns max|θ| over the eigenvalues θ of the symmetric
// tridiagonal matrix with diagonal alpha and off-diagonal beta.
func tridiagNorm(alpha, beta []float64) float64 {
	k := len(alpha)
	t := mat.NewSymDense(k, nil)
	for i := 0; i < k; i++ {
		t.SetSym(i, i, alpha[i])
		if i+1 < k {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, false) {
		return math.NaN()
	}
	vals := eig.Values(nil)
	return max(math.Abs(vals[0]), math.Abs(vals[k-1]))
}

func levVec(x []float64) blas64.Vector { return blas64.Vector{N: len(x), Inc: 1, Data: x} }

func levScale(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

// ScoreRatio summarizes the accuracy of approximate leverage scores against
// exact ones: the ratios ℓ̃ᵢ/ℓᵢ (BLESS's R-ACC).
type ScoreRatio struct {
	// Mean, P5 and P95 are the mean and the 5th and 95th percentiles (linear
	// interpolation between order statistics) of the ratios; Min and Max their
	// extremes.
	Mean, P5, P95, Min, Max float64
	// Skipped counts points with an exact score of zero, left out.
	Skipped int
}

// ScoreAccuracy compares approximate scores with exact ones, point by point.
func ScoreAccuracy(approx, exact []float64) (ScoreRatio, error) {
	if len(approx) != len(exact) || len(exact) == 0 {
		return ScoreRatio{}, fmt.Errorf("%w: %d approximate and %d exact scores", check.ErrInput, len(approx), len(exact))
	}
	r := make([]float64, 0, len(exact))
	var out ScoreRatio
	for i, e := range exact {
		if math.IsNaN(approx[i]) || math.IsNaN(e) || math.IsInf(approx[i], 0) || math.IsInf(e, 0) {
			return ScoreRatio{}, fmt.Errorf("%w: score %d is not finite", check.ErrInput, i)
		}
		if e <= 0 {
			out.Skipped++
			continue
		}
		r = append(r, approx[i]/e)
	}
	if len(r) == 0 {
		return ScoreRatio{}, fmt.Errorf("%w: every exact score is zero", check.ErrInput)
	}
	slices.Sort(r)
	var sum float64
	for _, v := range r {
		sum += v
	}
	out.Mean = sum / float64(len(r))
	out.P5, out.P95 = levQuantile(r, 0.05), levQuantile(r, 0.95)
	out.Min, out.Max = r[0], r[len(r)-1]
	return out, nil
}

// levQuantile returns the q-levQuantile of sorted values by linear interpolation
// between order statistics (numpy's default).
func levQuantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(sorted)-1)
	f := pos - float64(lo)
	return sorted[lo]*(1-f) + sorted[hi]*f
}

// gatherSubset returns rows idx of x, as CSR rows when x is sparse.
func gatherSubset(x mat.Matrix, idx []int) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return kernel.SubsetRows(s, idx)
	}
	return points.Gather(x, idx)
}
