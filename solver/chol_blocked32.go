package solver

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/scratch"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// Products32 are Products for float32 matrices (BLAS's sgemm and ssyrk),
// beta 0 or 1 only: the products of the float32 blocked factorizations
// (Landmark's kernel.DenseF32). nil means gonum's blas32.
type Products32 interface {
	// Gemm sets c = alpha·op(a)·op(b) + beta·c, op(x) = x or (trans) xᵀ.
	Gemm(ctx context.Context, transA, transB bool, alpha float32, a, b blas32.General, beta float32, c blas32.General) error
	// SyrkLower sets the lower triangle of c to alpha·op(a)·op(a)ᵀ + beta·c,
	// leaving the strict upper triangle alone.
	SyrkLower(ctx context.Context, trans bool, alpha float32, a blas32.General, beta float32, c blas32.General) error
}

// gonumProducts32 is Products32 on gonum's blas32 (one goroutine).
type gonumProducts32 struct{}

func (gonumProducts32) Gemm(ctx context.Context, transA, transB bool, alpha float32, a, b blas32.General, beta float32, c blas32.General) error {
	blas32.Gemm(bt(transA), bt(transB), alpha, a, b, beta, c)
	return ctx.Err()
}

func (gonumProducts32) SyrkLower(ctx context.Context, trans bool, alpha float32, a blas32.General, beta float32, c blas32.General) error {
	blas32.Syrk(bt(trans), alpha, a, beta, blas32.Symmetric{Uplo: blas.Lower, N: c.Rows, Stride: c.Stride, Data: c.Data})
	return ctx.Err()
}

// jitter32Floor is the smallest relative jitter a float32 factorization
// tries: 16 units in the last place of float32 (2⁻²⁴ each). A smaller one
// (CholOptions' default first jitter is 1e-10) is lost when added to a
// diagonal of the mean's size, and the attempt would repeat the one before.
const jitter32Floor = 16 * 0x1p-24

// Chol32 is the Cholesky factor L (lower triangular) of A + Jitter·I = LLᵀ
// held in float32: half the memory of Chol, and half the bytes streamed by
// each triangular solve. Solves take and return float64 vectors and compute
// in float64 with the float32 entries of L (exactly as Chol would with the
// factor widened to float64).
type Chol32 struct {
	l blas32.General // lower triangle: L; strict upper: the matrix factored
	p Products32     // SolveL32's products
	// Jitter is the absolute amount added to the diagonal: 0 when A itself
	// could be factored.
	Jitter float64
	// Attempts is the number of factorizations tried (1 when no jitter was needed).
	Attempts int
}

// CholeskyBlocked32 is CholeskyBlocked in float32: it factors the
// symmetric n×n matrix a (both triangles set) in place by the same
// right-looking algorithm blocked at two levels, with the products on p
// (nil: gonum's blas32). The diagonal blocks of cholInner columns are
// factored and inverted in float64 (gonum's potrf and trtri on the block
// widened from float32; the factor rounded back, and its inverse computed
// from the rounded factor), so float32 rounding enters through the products
// only, as in LAPACK's spotrf. The jitter policy is CholeskyInPlace's, except
// that the first jitter is at least jitter32Floor relative to the mean
// diagonal (smaller ones vanish in float32 rounding); the strict upper
// triangle of a restores the matrix between attempts, and the returned
// Chol32 shares a's memory.
func CholeskyBlocked32(ctx context.Context, a blas32.General, opt CholOptions, p Products32) (*Chol32, error) {
	if err := nilContext(ctx, "cholesky"); err != nil {
		return nil, err
	}
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if a.Rows != a.Cols || a.Rows == 0 || len(a.Data) < (a.Rows-1)*a.Stride+a.Cols {
		return nil, fmt.Errorf("%w: cholesky of a %d×%d matrix", ErrShape, a.Rows, a.Cols)
	}
	if p == nil {
		p = gonumProducts32{}
	}
	first := min(max(opt.Jitter, jitter32Floor), opt.MaxJitter)
	var upErr error
	jitter, attempts, err := factorJitter(a.Data, a.Rows, a.Stride, opt, first, func() bool {
		ok, err := blockedPotrf32(ctx, a, p, defaultWidths)
		if err != nil {
			upErr = err
			return true
		}
		return ok
	})
	if upErr != nil {
		return nil, upErr
	}
	if err != nil {
		return nil, err
	}
	return &Chol32{l: a, p: p, Jitter: jitter, Attempts: attempts}, nil
}

// CholeskyBlocked32Rows is CholeskyBlocked32 for a matrix held in a's
// lower triangle only (on and below the diagonal, set on entry): before
// each retry, refill sets that lower triangle to the matrix again, and the
// jitter is added to the diagonal taken on entry (the jitter policy is
// CholeskyBlocked32's). The strict upper triangle of a is neither read nor
// written, so a may share its storage with the caller's data there:
// FALKON's float32 T and A live in the lower triangle of the float64
// K_MM's storage, whose upper triangle MulKMM keeps reading. The returned
// Chol32's L has an undefined strict upper triangle.
func CholeskyBlocked32Rows(ctx context.Context, a blas32.General, refill func() error, opt CholOptions, p Products32) (*Chol32, error) {
	if err := nilContext(ctx, "cholesky"); err != nil {
		return nil, err
	}
	opt, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	n := a.Rows
	if a.Rows != a.Cols || n == 0 || len(a.Data) < (n-1)*a.Stride+n || refill == nil {
		return nil, fmt.Errorf("%w: cholesky of a %d×%d matrix", ErrShape, a.Rows, a.Cols)
	}
	if p == nil {
		p = gonumProducts32{}
	}
	diag, err := diagonal(a.Data, n, a.Stride)
	if err != nil {
		return nil, err
	}
	first := min(max(opt.Jitter, jitter32Floor), opt.MaxJitter)
	jitter, attempts, err := jitterAttempts(diag, opt, first, func(jitter float64) error {
		if err := refill(); err != nil {
			return err
		}
		for i := range n {
			a.Data[i*a.Stride+i] = float32(diag[i] + jitter)
		}
		return nil
	}, func() (bool, error) { return blockedPotrf32(ctx, a, p, defaultWidths) })
	if err != nil {
		return nil, err
	}
	return &Chol32{l: a, p: p, Jitter: jitter, Attempts: attempts}, nil
}

// Size returns n.
func (c *Chol32) Size() int { return c.l.Rows }

// L returns the factor's storage (not a copy): L in the lower triangle,
// the strict upper triangle holding the matrix factored.
func (c *Chol32) L() blas32.General { return c.l }

// SolveL overwrites b (n×t, float64) with L⁻¹b, or with L⁻ᵀb when trans
// is true, streaming the factor's rows over the workers (fewSolveL32).
func (c *Chol32) SolveL(ctx context.Context, b blas64.General, trans bool) error {
	if err := nilContext(ctx, "solve"); err != nil {
		return err
	}
	if b.Rows != c.l.Rows {
		return fmt.Errorf("%w: right-hand side has %d rows, factor is %d×%d", ErrShape, b.Rows, c.l.Rows, c.l.Rows)
	}
	return fewSolveL32(ctx, c.l, b, trans)
}

// view32 is the r×c sub-matrix of s at (i, j), sharing memory.
func view32(s blas32.General, i, j, r, c int) blas32.General {
	if r == 0 || c == 0 {
		return blas32.General{Rows: r, Cols: c, Stride: max(1, c)}
	}
	return blas32.General{Rows: r, Cols: c, Stride: s.Stride, Data: s.Data[i*s.Stride+j : (i+r-1)*s.Stride+j+c]}
}

// factorScratch32 is factorScratch for float32 panels.
var factorScratch32 scratch.Slot[float32]

// copy32 copies src into dst (same shape), rows split over the workers.
func copy32(ctx context.Context, dst, src blas32.General) error {
	return copyT(ctx, dense32Of(dst), dense32Of(src))
}

// dense32Of is g as a dense[float32] sharing its memory.
func dense32Of(g blas32.General) dense[float32] {
	return dense[float32]{rows: g.Rows, cols: g.Cols, stride: g.Stride, data: g.Data}
}

// potrfDiag32 factors the b×b lower-triangular diagonal block of g at
// (k, k) in float64 (widened, gonum's potrf, rounded back in place) and,
// when inv is not nil, sets inv (b×b, row stride b) to the inverse of the
// rounded factor (gonum's trtri in float64, rounded), zero above the
// diagonal; false when the block is not positive definite. d is a scratch
// of at least b² float64 values.
func potrfDiag32(g blas32.General, k, b int, inv []float32, d []float64) bool {
	for i := 0; i < b; i++ {
		row := g.Data[(k+i)*g.Stride+k : (k+i)*g.Stride+k+i+1]
		dr := d[i*b : i*b+b]
		for j, v := range row {
			dr[j] = float64(v)
		}
		clear(dr[i+1:])
	}
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: b, Stride: b, Data: d}); !ok {
		return false
	}
	for i := 0; i < b; i++ {
		row := g.Data[(k+i)*g.Stride+k : (k+i)*g.Stride+k+i+1]
		dr := d[i*b : i*b+i+1]
		for j, v := range dr {
			row[j] = float32(v)
			dr[j] = float64(row[j])
		}
	}
	if inv == nil {
		return true
	}
	if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d}) {
		return false
	}
	for i := 0; i < b; i++ {
		out := inv[i*b : i*b+b]
		for j := 0; j <= i; j++ {
			out[j] = float32(d[i*b+j])
		}
		clear(out[i+1:])
	}
	return true
}

// blockedPotrf32 is blockedPotrf in float32 (see CholeskyBlocked32).
func blockedPotrf32(ctx context.Context, g blas32.General, p Products32, w widths) (ok bool, err error) {
	return blockedPotrfT(ctx, dense32Of(g), &ops32{p: p}, w)
}

// Lauum32 is Lauum in float32: it overwrites the lower triangle of the
// lower-triangular n×n w (strict upper triangle ignored and left alone)
// with the lower triangle of WᵀW, in n³/3 flops on the products p (nil:
// gonum's blas32), by the same algorithm (one SyrkLower a block of
// cholBlock rows, whose zeros kernel.DenseF32 skips). Memory:
// min(n, cholBlock)·n float32 values, none with kernel.DenseF32 (its
// LauumRows, as Lauum).
func Lauum32(ctx context.Context, w blas32.General, p Products32) error {
	if err := nilContext(ctx, "lauum"); err != nil {
		return err
	}
	if w.Rows != w.Cols || len(w.Data) < (w.Rows-1)*w.Stride+w.Cols {
		return fmt.Errorf("%w: lauum of a %d×%d matrix", ErrShape, w.Rows, w.Cols)
	}
	if p == nil {
		p = gonumProducts32{}
	}
	return lauum32(ctx, w, p, defaultWidths)
}

func lauum32(ctx context.Context, g blas32.General, p Products32, wd widths) error {
	return lauumT(ctx, dense32Of(g), &ops32{p: p}, wd)
}

// CholeskyScratchBytes32 is CholeskyScratchBytes for CholeskyBlocked32
// (and Lauum32 on kernel.DenseF32): its float32 panel and inverses (half
// CholeskyScratchBytes) plus the float64 scratch of one inner diagonal
// block.
func CholeskyScratchBytes32(n int) int64 {
	if n <= 0 {
		return 0
	}
	d := min(n, 2*cholInner)
	return CholeskyScratchBytes(n)/2 + 8*int64(d*d)
}

// BlockedScratchBytes32 is BlockedScratchBytes for CholeskyBlocked32 and
// Lauum32: their float32 panels (half BlockedScratchBytes) plus the float64
// scratch of one inner diagonal block.
func BlockedScratchBytes32(n int) int64 {
	if n <= 0 {
		return 0
	}
	d := min(n, 2*cholInner)
	return BlockedScratchBytes(n)/2 + 8*int64(d*d)
}
