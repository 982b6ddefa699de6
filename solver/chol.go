package solver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// ErrNotPD is returned when a matrix is not positive definite even after the
// largest jitter allowed was added to its diagonal.
var ErrNotPD = errors.New("solver: matrix is not positive definite")

// ErrShape is wrapped by errors about matrices of the wrong size. It wraps
// model.ErrInput (check.ErrInput).
var ErrShape = check.Sentinel("solver: dimension mismatch", check.ErrInput)

// CholOptions controls the jitter Cholesky adds when a factorization fails.
// The zero value means the defaults below. Values outside 0 < Jitter ≤
// MaxJitter < ∞ (after defaults) are an error wrapping model.ErrInput
// (check.ErrInput).
type CholOptions struct {
	// Jitter is the first jitter tried after the plain factorization failed,
	// relative to the mean of the diagonal. 0 means 1e-10.
	Jitter float64 `yaml:"jitter,omitempty" json:"jitter,omitempty"`
	// MaxJitter is the largest relative jitter tried before giving up with
	// ErrNotPD. 0 means 1e-2.
	MaxJitter float64 `yaml:"max_jitter,omitempty" json:"max_jitter,omitempty"`
}

const (
	defaultJitter    = 1e-10
	defaultMaxJitter = 1e-2
)

func (o CholOptions) resolve() (CholOptions, error) {
	if o.Jitter == 0 {
		o.Jitter = defaultJitter
	}
	if o.MaxJitter == 0 {
		o.MaxJitter = defaultMaxJitter
	}
	if !(o.Jitter > 0) || math.IsInf(o.Jitter, 0) || !(o.MaxJitter >= o.Jitter) || math.IsInf(o.MaxJitter, 0) {
		return o, fmt.Errorf("solver: cholesky: %w: want 0 < jitter (%g) ≤ max jitter (%g), finite", check.ErrInput, o.Jitter, o.MaxJitter)
	}
	return o, nil
}

// Chol is the Cholesky factor L (lower triangular) of A + Jitter·I = LLᵀ.
type Chol struct {
	l blas64.Triangular
	p Products // solves with ≥ solveMinRHS columns run on it (nil: gonum)
	// Jitter is the absolute amount added to the diagonal: 0 when A itself
	// could be factored.
	Jitter float64
	// Attempts is the number of factorizations tried (1 when no jitter was needed).
	Attempts int
}

// Cholesky factors the symmetric matrix a (which it does not modify), adding
// jitter to the diagonal when needed as described in the package
// documentation. It allocates n² floats.
func Cholesky(a mat.Symmetric, opt CholOptions) (*Chol, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	n := a.SymmetricDim()
	full := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			full.Set(i, j, a.At(i, j))
		}
	}
	return CholeskyInPlace(full, opt)
}

// CholeskyInPlace factors the symmetric n×n matrix stored in a (both
// triangles must be set). It overwrites the lower triangle of a with L and
// keeps the strict upper triangle, which it uses to restore the matrix between
// jitter attempts; the returned Chol shares a's memory, so a must not be
// modified while the Chol is in use. No n² memory beyond a is allocated.
func CholeskyInPlace(a *mat.Dense, opt CholOptions) (*Chol, error) {
	return choleskyInPlace(a, opt, func(sym blas64.Symmetric) (blas64.Triangular, bool) { return lapack64.Potrf(sym) })
}

// choleskyInPlace is CholeskyInPlace with the factorization of the lower
// triangle given by factor.
func choleskyInPlace(a *mat.Dense, opt CholOptions, factor func(blas64.Symmetric) (blas64.Triangular, bool)) (*Chol, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	r, c := a.Dims()
	if r != c || r == 0 {
		return nil, fmt.Errorf("%w: cholesky of a %d×%d matrix", ErrShape, r, c)
	}
	raw := a.RawMatrix()
	sym := blas64.Symmetric{Uplo: blas.Lower, N: r, Stride: raw.Stride, Data: raw.Data}
	var l blas64.Triangular
	jitter, attempts, err := factorJitter(raw.Data, r, raw.Stride, opt, opt.Jitter, func() bool {
		t, ok := factor(sym)
		l = t
		return ok
	})
	if err != nil {
		return nil, err
	}
	return &Chol{l: l, Jitter: jitter, Attempts: attempts}, nil
}

// factorJitter runs factor on the n×n symmetric matrix in data (row
// stride stride; both triangles set, factor overwrites the lower one) until
// it succeeds, adding jitter to the diagonal as the package documentation
// says: first first·s (s the mean absolute diagonal, 1 when that is 0),
// then ten times more each attempt up to opt.MaxJitter·s, restoring the
// lower triangle from the untouched upper one between attempts. It returns
// the absolute jitter of the successful attempt and the number of attempts.
func factorJitter[T float32 | float64](data []T, n, stride int, opt CholOptions, first float64, factor func() bool) (jitter float64, attempts int, err error) {
	diag, err := diagonal(data, n, stride)
	if err != nil {
		return 0, 0, err
	}
	return jitterAttempts(diag, opt, first, func(jitter float64) error {
		// Restore the lower triangle from the untouched upper one.
		for i := 0; i < n; i++ {
			row := data[i*stride:]
			for j := 0; j < i; j++ {
				row[j] = data[j*stride+i]
			}
			row[i] = T(diag[i] + jitter)
		}
		return nil
	}, func() (bool, error) { return factor(), nil })
}

// diagonal returns the diagonal of the n×n matrix in data (row stride
// stride), or ErrNotPD if an element is not finite.
func diagonal[T float32 | float64](data []T, n, stride int) ([]float64, error) {
	diag := make([]float64, n)
	for i := range diag {
		v := float64(data[i*stride+i])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: diagonal element %d is %v", ErrNotPD, i, v)
		}
		diag[i] = v
	}
	return diag, nil
}

// jitterAttempts is the jitter policy: factor, and while it fails,
// restore(jitter) (the matrix with jitter added to its diagonal diag) and
// factor again, the jitter first·s (s the mean absolute diagonal, 1 when
// that is 0), then ten times more each attempt up to opt.MaxJitter·s.
func jitterAttempts(diag []float64, opt CholOptions, first float64, restore func(jitter float64) error, factor func() (bool, error)) (jitter float64, attempts int, err error) {
	var mean float64
	for _, v := range diag {
		mean += math.Abs(v)
	}
	mean /= float64(len(diag))
	if mean == 0 {
		mean = 1
	}
	for attempt := 1; ; attempt++ {
		if attempt > 1 {
			if err := restore(jitter); err != nil {
				return 0, attempt, err
			}
		}
		ok, err := factor()
		if err != nil {
			return 0, attempt, err
		}
		if ok {
			return jitter, attempt, nil
		}
		switch {
		case jitter == 0:
			jitter = first * mean
		case jitter*10 <= opt.MaxJitter*mean*(1+1e-12):
			jitter *= 10
		default:
			return 0, attempt, fmt.Errorf("%w: factorization failed with jitter %g (%g × mean diagonal) after %d attempts",
				ErrNotPD, jitter, jitter/mean, attempt)
		}
	}
}

// Size returns n.
func (c *Chol) Size() int { return c.l.N }

// L returns the lower-triangular factor as a view (not a copy).
func (c *Chol) L() *mat.TriDense {
	var t mat.TriDense
	t.SetRawTriangular(c.l)
	return &t
}

// Solve overwrites b (n×t) with (A + Jitter·I)⁻¹ b.
func (c *Chol) Solve(b *mat.Dense) error {
	if err := c.checkRHS(b); err != nil {
		return err
	}
	if c.blocked(b) {
		if err := blockedSolveL(context.Background(), c.l, b, false, c.p, defaultWidths); err != nil {
			return err
		}
		return blockedSolveL(context.Background(), c.l, b, true, c.p, defaultWidths)
	}
	if c.few(b) {
		if err := fewSolveL(context.Background(), c.l, b.RawMatrix(), false); err != nil {
			return err
		}
		return fewSolveL(context.Background(), c.l, b.RawMatrix(), true)
	}
	lapack64.Potrs(c.l, b.RawMatrix())
	return nil
}

// blocked says whether solves with b run on the products of CholeskyBlocked.
func (c *Chol) blocked(b *mat.Dense) bool {
	_, t := b.Dims()
	return c.p != nil && t >= solveMinRHS && c.l.N > cholInner
}

// few says whether solves with b (fewer than solveMinRHS columns) stream
// the factor on all workers (fewSolveL) instead of gonum's trsm.
func (c *Chol) few(b *mat.Dense) bool {
	_, t := b.Dims()
	return t < solveMinRHS && c.l.N >= fewSolveMin
}

// SolveL overwrites b with L⁻¹b, or with L⁻ᵀb when trans is true.
func (c *Chol) SolveL(b *mat.Dense, trans bool) error {
	if err := c.checkRHS(b); err != nil {
		return err
	}
	if c.blocked(b) {
		return blockedSolveL(context.Background(), c.l, b, trans, c.p, defaultWidths)
	}
	if c.few(b) {
		return fewSolveL(context.Background(), c.l, b.RawMatrix(), trans)
	}
	blas64.Trsm(blas.Left, bt(trans), 1, c.l, b.RawMatrix())
	return nil
}

// MulL overwrites b with L·b, or with Lᵀ·b when trans is true.
func (c *Chol) MulL(b *mat.Dense, trans bool) error {
	if err := c.checkRHS(b); err != nil {
		return err
	}
	t := blas.NoTrans
	if trans {
		t = blas.Trans
	}
	blas64.Trmm(blas.Left, t, 1, c.l, b.RawMatrix())
	return nil
}

func (c *Chol) checkRHS(b *mat.Dense) error {
	if b == nil {
		return fmt.Errorf("%w: nil right-hand side", ErrShape)
	}
	if r, _ := b.Dims(); r != c.l.N {
		return fmt.Errorf("%w: right-hand side has %d rows, factor is %d×%d", ErrShape, r, c.l.N, c.l.N)
	}
	return nil
}
