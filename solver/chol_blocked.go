package solver

import (
	"context"
	"fmt"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Products are the two matrix products the blocked factorizations spend
// nearly all their flops in (BLAS's dgemm and dsyrk), with beta 0 or 1 only.
// A caller passes the fastest it has (Landmark's kernel.Dense, on the kernel
// engine's micro-kernels); solver itself depends on no other Landmark
// package, and nil means gonum's BLAS.
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

// cholBlock is the block width of the blocked factorizations: the k of their
// products, wide enough that those run at matrix-product speed (it is the
// kernel engine's k-block), narrow enough that the diagonal blocks, factored
// and inverted by gonum's LAPACK, stay a small share (≈ 3·256/n of the flops).
const cholBlock = 256

// CholeskyBlocked is CholeskyInPlace (same contract, same jitter policy)
// computed by the right-looking blocked algorithm on the products p (nil:
// gonum's BLAS): for each block of cholBlock columns, factor the diagonal
// block L11 (LAPACK potrf) and invert it (trtri, b³/3 flops), set the panel
// below it to A21·L11⁻ᵀ with one Gemm, and subtract A21·A21ᵀ from the
// trailing lower triangle with one SyrkLower (matrices of at most
// 2·cholBlock rows go straight to gonum's potrf). All but ≈ 3·cholBlock/n of the
// n³/3 flops are in p. Besides a it allocates an n×cholBlock panel.
// The returned Chol solves with many right-hand sides on p too.
func CholeskyBlocked(ctx context.Context, a *mat.Dense, opt CholOptions, p Products) (*Chol, error) {
	if a == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	if p == nil {
		p = gonumProducts{}
	}
	var upErr error
	factor := func(sym blas64.Symmetric) (blas64.Triangular, bool) {
		ok, err := blockedPotrf(ctx, sym, p, cholBlock)
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

// reserve calls p.Reserve when p has it and returns its release (a no-op
// otherwise).
func reserve(p Products, m, n, k int) (release func()) {
	if r, ok := p.(reserver); ok {
		return r.Reserve(m, n, k)
	}
	return func() {}
}

// scratchPool recycles the n×cholBlock panels of blockedPotrf and lauum
// (*[]float64): FALKON's preconditioner runs two factorizations and one
// lauum in a row, and a fresh panel each time (2 MB at n = 1,000) was
// garbage the Go heap grew by until its next collection.
var scratchPool sync.Pool

// scratch returns n zeros from scratchPool, or newly allocated; the caller
// puts them back.
func scratch(n int) *[]float64 {
	for range 4 { // look at a few pooled panels, dropping those too small
		b, ok := scratchPool.Get().(*[]float64)
		if !ok {
			break
		}
		if cap(*b) >= n {
			*b = (*b)[:n]
			clear(*b)
			return b
		}
	}
	b := make([]float64, n)
	return &b
}

// view is the r×c sub-matrix (r, c > 0) of s's storage at (i, j), sharing memory.
func view(s blas64.General, i, j, r, c int) *mat.Dense {
	var d mat.Dense
	d.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: s.Stride, Data: s.Data[i*s.Stride+j : (i+r-1)*s.Stride+j+c]})
	return &d
}

// blockedPotrf factors the lower triangle of s in place with blocks of nb
// columns; ok is false when a pivot is not positive.
func blockedPotrf(ctx context.Context, s blas64.Symmetric, p Products, nb int) (ok bool, err error) {
	n := s.N
	if n <= 2*nb {
		// One or two blocks: the products would be too small to pay.
		_, ok := lapack64.Potrf(s)
		return ok, ctx.Err()
	}
	g := blas64.General{Rows: n, Cols: n, Stride: s.Stride, Data: s.Data}
	defer reserve(p, n-nb, n-nb, nb)() // the first SyrkLower is the largest product
	sb := scratch(n * nb)
	defer scratchPool.Put(sb)
	inv := mat.NewDense(nb, nb, (*sb)[:nb*nb])
	tmp := (*sb)[nb*nb : n*nb]
	for k := 0; k < n; k += nb {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		b := min(nb, n-k)
		diag := blas64.Symmetric{Uplo: blas.Lower, N: b, Stride: s.Stride, Data: s.Data[k*s.Stride+k:]}
		if _, ok := lapack64.Potrf(diag); !ok {
			return false, nil
		}
		rest := n - k - b
		if rest == 0 {
			break
		}
		iv := inv.Slice(0, b, 0, b).(*mat.Dense)
		if !invertLower(iv, blas64.Triangular{Stride: s.Stride, Data: s.Data}, k) {
			return false, nil
		}
		// A21 ← A21·L11⁻ᵀ through tmp (Gemm does not work in place).
		a21 := view(g, k+b, k, rest, b)
		t := mat.NewDense(rest, b, tmp[:rest*b])
		if err := p.Gemm(ctx, false, true, 1, a21, iv, 0, t); err != nil {
			return false, err
		}
		a21.Copy(t)
		if err := p.SyrkLower(ctx, false, -1, a21, 1, view(g, k+b, k+b, rest, rest)); err != nil {
			return false, err
		}
	}
	return true, nil
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
// gonum's BLAS). WᵀW = Σ_k W_kᵀW_k over blocks of cholBlock rows W_k =
// W[k0:k1, 0:k1]; block k touches only the leading k1×k1 block, whose rows
// below k0 already hold the partial sum, and its rows [k0, k1) are copied
// out before they are reused for the sum. Memory: one cholBlock×n panel.
func Lauum(ctx context.Context, w *mat.Dense, p Products) error {
	if w == nil {
		return fmt.Errorf("%w: nil matrix", ErrShape)
	}
	return lauum(ctx, w, p, cholBlock)
}

func lauum(ctx context.Context, w *mat.Dense, p Products, nb int) error {
	n, c := w.Dims()
	if n != c {
		return fmt.Errorf("%w: lauum of a %d×%d matrix", ErrShape, n, c)
	}
	if p == nil {
		p = gonumProducts{}
	}
	g := w.RawMatrix()
	defer reserve(p, n, n, min(nb, n))() // the last SyrkLower is the largest product
	sb := scratch(min(nb, n) * n)
	defer scratchPool.Put(sb)
	panel := *sb
	for k0 := 0; k0 < n; k0 += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		k1 := min(k0+nb, n)
		b := k1 - k0
		pw := mat.NewDense(b, k1, panel[:b*k1])
		pr := pw.RawMatrix()
		for r := 0; r < b; r++ {
			row := g.Data[(k0+r)*g.Stride : (k0+r)*g.Stride+k0+r+1]
			dst := pr.Data[r*pr.Stride : r*pr.Stride+k1]
			copy(dst, row)
			clear(dst[len(row):]) // zero above W's diagonal
			clear(row)            // this row is consumed; it starts accumulating WᵀW
		}
		if err := p.SyrkLower(ctx, true, 1, pw, 1, view(g, 0, 0, k1, k1)); err != nil {
			return err
		}
	}
	return nil
}

// solveMinRHS is the number of right-hand sides from which Chol's solves
// use the blocked algorithm on its products; fewer go to gonum's trsm, whose
// cost (n² per column) is then memory-bound either way.
const solveMinRHS = 16

// solveInvRHS is the number of right-hand sides from which the diagonal
// blocks of the blocked solves are inverted (trtri, nb³/3 flops) and applied
// with Gemm (2·nb²·t flops at matrix-product speed) instead of solved with
// gonum's trsm (nb²·t flops at a few GFLOP/s).
const solveInvRHS = 64

// blockedSolveL overwrites x (n×t) with L⁻¹x, or with L⁻ᵀx when trans:
// block by block, the diagonal block's solve (see solveInvRHS) and a Gemm
// that subtracts its contribution from the blocks still to be solved.
func blockedSolveL(ctx context.Context, l blas64.Triangular, x *mat.Dense, trans bool, p Products, nb int) error {
	n := l.N
	g := blas64.General{Rows: n, Cols: n, Stride: l.Stride, Data: l.Data}
	xr := x.RawMatrix()
	t := xr.Cols
	var inv, tmp *mat.Dense
	if t >= solveInvRHS {
		inv, tmp = mat.NewDense(nb, nb, nil), mat.NewDense(nb, t, nil)
	}
	solve := func(k, b int) error {
		if inv == nil {
			d := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: l.Stride, Data: l.Data[k*l.Stride+k:]}
			blas64.Trsm(blas.Left, bt(trans), 1, d, blas64.General{Rows: b, Cols: t, Stride: xr.Stride, Data: xr.Data[k*xr.Stride:]})
			return nil
		}
		iv := inv.Slice(0, b, 0, b).(*mat.Dense)
		if !invertLower(iv, l, k) {
			return fmt.Errorf("%w: zero on the diagonal of a triangular factor", ErrNotPD)
		}
		xk := x.Slice(k, k+b, 0, t).(*mat.Dense)
		tk := tmp.Slice(0, b, 0, t).(*mat.Dense)
		if err := p.Gemm(ctx, trans, false, 1, iv, xk, 0, tk); err != nil {
			return err
		}
		xk.Copy(tk)
		return nil
	}
	if !trans {
		for k := 0; k < n; k += nb {
			if err := ctx.Err(); err != nil {
				return err
			}
			b := min(nb, n-k)
			if err := solve(k, b); err != nil {
				return err
			}
			if rest := n - k - b; rest > 0 {
				// X[k+b:] −= L[k+b:, k:k+b]·X[k:k+b]
				if err := p.Gemm(ctx, false, false, -1, view(g, k+b, k, rest, b), x.Slice(k, k+b, 0, t).(*mat.Dense), 1, x.Slice(k+b, n, 0, t).(*mat.Dense)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for k1 := n; k1 > 0; k1 -= nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := max(0, k1-nb)
		if err := solve(k, k1-k); err != nil {
			return err
		}
		if k > 0 {
			// X[:k] −= L[k:k1, :k]ᵀ·X[k:k1]
			if err := p.Gemm(ctx, true, false, -1, view(g, k, 0, k1-k, k), x.Slice(k, k1, 0, t).(*mat.Dense), 1, x.Slice(0, k, 0, t).(*mat.Dense)); err != nil {
				return err
			}
		}
	}
	return nil
}
