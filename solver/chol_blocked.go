package solver

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/scratch"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Products are the two matrix products the blocked factorizations spend
// nearly all their flops in (BLAS's dgemm and dsyrk), with beta 0 or 1 only.
// A caller passes the fastest it has (Landmark's kernel.Dense, on the kernel
// engine's micro-kernels), and nil means gonum's BLAS. (The triangular
// solves also use the kernel package's row panels directly when Products
// is a kernel.Dense: trsm_blocked.go.)
type Products interface {
	// Gemm sets c = alpha·op(a)·op(b) + beta·c, op(x) = x or (trans) xᵀ.
	Gemm(ctx context.Context, transA, transB bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense) error
	// SyrkLower sets the lower triangle of c to alpha·op(a)·op(a)ᵀ + beta·c,
	// leaving the strict upper triangle alone.
	SyrkLower(ctx context.Context, trans bool, alpha float64, a *mat.Dense, beta float64, c *mat.Dense) error
}

// gonumProducts is Products on gonum's BLAS (one goroutine).
type gonumProducts struct{}

var _ Products = gonumProducts{}

func bt(trans bool) blas.Transpose {
	if trans {
		return blas.Trans
	}
	return blas.NoTrans
}

func (gonumProducts) Gemm(ctx context.Context, transA, transB bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense) error {
	blas64.Gemm(bt(transA), bt(transB), alpha, a.RawMatrix(), b.RawMatrix(), beta, c.RawMatrix())
	return ctx.Err()
}

func (gonumProducts) SyrkLower(ctx context.Context, trans bool, alpha float64, a *mat.Dense, beta float64, c *mat.Dense) error {
	rc := c.RawMatrix()
	blas64.Syrk(bt(trans), alpha, a.RawMatrix(), beta, blas64.Symmetric{Uplo: blas.Lower, N: rc.Rows, Stride: rc.Stride, Data: rc.Data})
	return ctx.Err()
}

// Block widths of the blocked factorizations and solves, which block at
// two levels:
//
//   - cholBlock, the outer width, is the k of the large products (the
//     trailing SyrkLower of potrf, lauum's SyrkLower and TᵀR products, the
//     solves' trailing Gemm): each of them reads and writes its M×M (or
//     M×t) result once per cholBlock columns, so the memory traffic of the
//     result, ≈ 8·M³/(3·cholBlock) bytes for potrf, falls as the width grows
//     (10 GB at M = 10,000 and 256), while the packed operands of a product
//     (M·cholBlock doubles on AVX-512, 2·M·cholBlock otherwise, see
//     kernel.Dense.SyrkPackBytes) grow with it;
//   - cholInner, the inner width, is the width of the diagonal blocks
//     factored and inverted by gonum's LAPACK (potrf, trtri: one goroutine,
//     a few GFLOP/s; 2·cholInner²·M/3 flops in all) and of the column
//     blocks of the panel solves, which multiply by those inverses.
const (
	cholBlock = 512
	cholInner = 128
)

// BlockedWidth is the k of the largest products CholeskyBlocked and Lauum
// run (their outer block width): a caller planning memory adds its
// Products' buffers for an n×n matrix with k-blocks of min(n,
// BlockedWidth) (kernel.Dense.SyrkPackBytes) to BlockedScratchBytes(n).
const BlockedWidth = cholBlock

// BlockedScratchBytes returns the most memory CholeskyBlocked and Lauum
// allocate for an n×n matrix beside it and their products' buffers: their
// panels and the inverses of diagonal blocks (CholeskyBlocked's,
// cholInner·(n + min(n, cholBlock)) doubles; Lauum's, min(n, cholBlock)·n,
// the larger from n = 2·cholInner). With products that have LauumRows
// (kernel.Dense) Lauum allocates none: CholeskyScratchBytes(n) then bounds
// both.
func BlockedScratchBytes(n int) int64 {
	if n <= 0 {
		return 0
	}
	nb := min(cholBlock, n)
	lauum := nb * n
	return 8 * int64(max(potrfScratchLen(n), lauum))
}

// potrfScratchLen bounds the length of blockedPotrfT's scratch for an n×n
// matrix with the default widths, in values of either precision: the
// inverses of an outer diagonal block's inner blocks and either a panel's
// column block (n·cholInner) or, on the row tiles (panelRowsT), the
// transposed inverse and the packed factor blocks (panelRowsLen, 32-column
// panels, at least the 16-column ones' length).
// Matrices of at most 2·cholInner rows, factored in one piece, need none
// of the row tiles' panels.
func potrfScratchLen(n int) int {
	nb, ni := min(cholBlock, n), cholInner
	if n <= 2*ni {
		return nb*ni + n*ni
	}
	return max(nb*ni+n*ni, nb*ni+ni*ni+panelRowsLen(nb, ni, 32))
}

// CholeskyScratchBytes returns the most memory CholeskyBlocked allocates
// for an n×n matrix beside it and its products' buffers: the inverses of
// an outer diagonal block's inner blocks and a panel, cholInner·(n +
// min(n, cholBlock)) doubles, or on kernel.Dense's AVX-512 row tiles the
// transposed blocks of the diagonal block they multiply the panel by
// (about 2.5·cholInner·min(n, cholBlock) more, so the larger below
// n ≈ 1,400). It bounds Lauum's too on products with LauumRows
// (kernel.Dense), which packs each block row straight from the matrix
// instead of copying it to a panel.
func CholeskyScratchBytes(n int) int64 {
	if n <= 0 {
		return 0
	}
	return 8 * int64(potrfScratchLen(n))
}

// widths are the outer and inner block widths of the blocked algorithms
// (cholBlock and cholInner by default; tests use small ones).
type widths struct{ outer, inner int }

var defaultWidths = widths{cholBlock, cholInner}

// CholeskyBlocked is CholeskyInPlace (same contract, same jitter policy)
// computed by a right-looking blocked algorithm on the products p (nil:
// gonum's BLAS), blocked at two levels (see cholBlock): for each block of
// cholBlock columns, the diagonal block L11 is factored by the same
// algorithm with cholInner columns (gonum's potrf and trtri on its
// cholInner-wide diagonal blocks, whose inverses are kept), the panel below
// it is set to A21·L11⁻ᵀ one cholInner-wide column block at a time (a Gemm
// subtracting the blocks to its left, then a Gemm by the block's inverse;
// on kernel.Dense's AVX-512 tiles the same sums on the row tiles of
// kernel.RowPanels, which read the panel in place: panelRowsT),
// and A21·A21ᵀ is subtracted from the trailing lower triangle with one
// SyrkLower of k = cholBlock. Matrices of at most 2·cholInner rows go
// straight to gonum's potrf. All but ≈ 2·cholInner/n of the n³/3 flops are
// in p. Besides a it allocates at most CholeskyScratchBytes(n).
// The returned Chol solves with many right-hand sides on p too.
func CholeskyBlocked(ctx context.Context, a *mat.Dense, opt CholOptions, p Products) (*Chol, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("solver: cholesky: %w", err)
	}
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	if p == nil {
		p = gonumProducts{}
	}
	var upErr error
	factor := func(sym blas64.Symmetric) (blas64.Triangular, bool) {
		ok, err := blockedPotrf(ctx, sym, p, defaultWidths)
		if err != nil {
			// Cancellation or a failed product is not a pivot failure: report
			// success to end the jitter loop and return the error below.
			upErr = err
			return blas64.Triangular{}, true
		}
		return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: sym.N, Stride: sym.Stride, Data: sym.Data}, ok
	}
	c, err := choleskyInPlace(a, opt, factor)
	if upErr != nil {
		return nil, upErr
	}
	if c != nil {
		c.p = p
	}
	return c, err
}

// reserver is implemented by Products that can ready and hold their
// workspace for a sequence of products up to op(a) m×k by op(b) k×n until
// release is called (kernel.Dense.Reserve), so that the growing or
// shrinking products of a blocked factorization share one buffer.
type reserver interface {
	Reserve(m, n, k int) (release func())
}

// syrkReserver is implemented by Products that can ready and hold the
// workspace of a blocked factorization's products on an n×n matrix with
// k-blocks of k (kernel.Dense.ReserveSyrk: SyrkLower with alpha = ±1,
// LauumRows, the panel's Gemms).
type syrkReserver interface {
	ReserveSyrk(n, k int) (release func())
}

// reserve calls p.ReserveSyrk(n, k), or p.Reserve(n, n, k), when p has it
// and returns its release (a no-op otherwise).
func reserve(p any, n, k int) (release func()) {
	if r, ok := p.(syrkReserver); ok {
		return r.ReserveSyrk(n, k)
	}
	if r, ok := p.(reserver); ok {
		return r.Reserve(n, n, k)
	}
	return func() {}
}

// factorScratch keeps the scratch of blockedPotrf and lauum (float64;
// factorScratch32 the float32 one) between calls, one buffer each (see
// package scratch): FALKON's preconditioner runs two factorizations and
// one lauum in a row, and a fresh panel each time (2 MB at n = 1,000) was
// garbage the Go heap grew by until its next collection. A slot holds one
// buffer, of at most CholeskyScratchBytes (BlockedScratchBytes on products
// without LauumRows), which a plan counts once; the sync.Pool used before
// could hold one per P, and another after the collector moved it to its
// victim cache (TestBlockedPlannedBytes32).
var factorScratch scratch.Slot[float64]

// view is the r×c sub-matrix (r, c > 0) of s's storage at (i, j), sharing memory.
func view(s blas64.General, i, j, r, c int) *mat.Dense {
	var d mat.Dense
	d.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: s.Stride, Data: s.Data[i*s.Stride+j : (i+r-1)*s.Stride+j+c]})
	return &d
}

// copyPar copies src into dst (same shape), rows split over the workers.
func copyPar(ctx context.Context, dst, src *mat.Dense) error {
	return copyT(ctx, dense64Of(dst), dense64Of(src))
}

// dense64Of is m as a dense[float64] sharing its memory.
func dense64Of(m *mat.Dense) dense[float64] {
	r := m.RawMatrix()
	return dense[float64]{rows: r.Rows, cols: r.Cols, stride: r.Stride, data: r.Data}
}

// blockedPotrf factors the lower triangle of s in place with the block
// widths w (see CholeskyBlocked); ok is false when a pivot is not positive.
func blockedPotrf(ctx context.Context, s blas64.Symmetric, p Products, w widths) (ok bool, err error) {
	return blockedPotrfT(ctx, dense[float64]{rows: s.N, cols: s.N, stride: s.Stride, data: s.Data}, ops64{p}, w)
}

// invertLower sets the b×b inv to the inverse of the lower-triangular
// diagonal block of l at (k, k) (LAPACK trtri), with zeros above the
// diagonal; false if the block is singular.
func invertLower(inv *mat.Dense, l blas64.Triangular, k int) bool {
	ir := inv.RawMatrix()
	b := ir.Rows
	for i := 0; i < b; i++ {
		row := ir.Data[i*ir.Stride : i*ir.Stride+b]
		copy(row[:i+1], l.Data[(k+i)*l.Stride+k:(k+i)*l.Stride+k+i+1])
		clear(row[i+1:])
	}
	return lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: ir.Stride, Data: ir.Data})
}

// Lauum overwrites the lower triangle of the lower-triangular n×n w (its
// strict upper triangle is ignored and left alone) with the lower triangle
// of WᵀW, as LAPACK's dlauum does, in n³/3 flops on the products p (nil:
// gonum's BLAS), by blocks of cholBlock rows: WᵀW = Σ_r W_rᵀW_r over the
// blocks W_r = W[k0:k1, 0:k1] = [R T] (R the rows left of the diagonal
// block T, zeros above T's diagonal). Block r touches only the leading
// k1×k1 block, whose rows above k0 already hold the partial sum and whose
// rows k0…k1−1 hold W_r itself: W_r is copied out to a panel, its rows
// cleared, and W_rᵀW_r added to the leading block with one SyrkLower of k =
// cholBlock (RᵀR in the rows above k0, TᵀR and TᵀT in the others). The zeros
// of T are part of that product; kernel.Dense skips them (its leading
// zeros), so its flops are those of LᵀL; gonum's Dsyrk computes them, ≈
// cholBlock·n²/2 flops more. Memory: cholBlock·n doubles. When p has
// LauumRows (kernel.Dense), each block is one LauumRows instead, the same
// sums bit for bit without the panel (W_r packed straight from w before
// its rows are overwritten): no memory beside the products' buffers.
func Lauum(ctx context.Context, w *mat.Dense, p Products) error {
	if err := nilContext(ctx, "lauum"); err != nil {
		return err
	}
	if w == nil {
		return fmt.Errorf("%w: nil matrix", ErrShape)
	}
	return lauum(ctx, w, p, defaultWidths)
}

func lauum(ctx context.Context, w *mat.Dense, p Products, wd widths) error {
	n, c := w.Dims()
	if n != c {
		return fmt.Errorf("%w: lauum of a %d×%d matrix", ErrShape, n, c)
	}
	if n == 0 {
		return ctx.Err()
	}
	if p == nil {
		p = gonumProducts{}
	}
	return lauumT(ctx, dense64Of(w), ops64{p}, wd)
}
