package solver

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// solveMinRHS is the number of right-hand sides from which Chol's solves
// use the blocked algorithm on its products; fewer go to gonum's trsm, whose
// cost (n² per column) is then memory-bound either way.
const solveMinRHS = 16

// solveInvRHS is the number of right-hand sides from which the diagonal
// blocks of the blocked solves are inverted (trtri, nb³/3 flops) and applied
// with Gemm (2·nb²·t flops at matrix-product speed) instead of solved with
// gonum's trsm (nb²·t flops at a few GFLOP/s).
const solveInvRHS = 64

// blockedSolveL overwrites x (n×t) with L⁻¹x, or with L⁻ᵀx when trans, by
// blocks of w.outer rows: the diagonal block's solve (by blocks of w.inner
// rows, solveInner) and one Gemm of k = w.outer that subtracts its
// contribution from the rows still to be solved.
func blockedSolveL(ctx context.Context, l blas64.Triangular, x *mat.Dense, trans bool, p Products, w widths) error {
	n := l.N
	nb := w.outer
	if n <= nb {
		return solveInner(ctx, l, x, trans, p, w.inner)
	}
	t := x.RawMatrix().Cols
	inv, tmp := solveScratch(w.inner, t)
	diag := func(k, b int) error {
		d := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: l.Stride, Data: l.Data[k*l.Stride+k:]}
		return solveInnerWith(ctx, d, x.Slice(k, k+b, 0, t).(*mat.Dense), trans, p, w.inner, inv, tmp)
	}
	return blockSweep(ctx, l, x, trans, p, nb, diag)
}

// solveInner is blockedSolveL with one level of blocks of nb rows: each
// diagonal block solved by gonum's trsm, or, from solveInvRHS right-hand
// sides, inverted and applied with a Gemm, then a Gemm subtracting its
// contribution from the rows still to be solved.
func solveInner(ctx context.Context, l blas64.Triangular, x *mat.Dense, trans bool, p Products, nb int) error {
	inv, tmp := solveScratch(nb, x.RawMatrix().Cols)
	return solveInnerWith(ctx, l, x, trans, p, nb, inv, tmp)
}

// solveScratch returns the nb×nb inverse and nb×t product buffers of
// solveInner for t right-hand sides (nil below solveInvRHS, where the
// diagonal blocks go to gonum's trsm).
func solveScratch(nb, t int) (inv, tmp *mat.Dense) {
	if t < solveInvRHS {
		return nil, nil
	}
	return mat.NewDense(nb, nb, nil), mat.NewDense(nb, t, nil)
}

// solveInnerWith is solveInner with its buffers from solveScratch, so that
// blockedSolveL allocates them once for all its diagonal blocks.
func solveInnerWith(ctx context.Context, l blas64.Triangular, x *mat.Dense, trans bool, p Products, nb int, inv, tmp *mat.Dense) error {
	xr := x.RawMatrix()
	t := xr.Cols
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
		return copyPar(ctx, xk, tk)
	}
	return blockSweep(ctx, l, x, trans, p, nb, solve)
}

// blockSweep solves L X = X (Lᵀ X = X when trans) by blocks of nb rows of
// the n×n lower-triangular l: solve(k, b) solves the diagonal block of rows
// k…k+b−1 in place, then one Gemm subtracts its contribution from the rows
// still to be solved (below it, or above it when trans).
func blockSweep(ctx context.Context, l blas64.Triangular, x *mat.Dense, trans bool, p Products, nb int, solve func(k, b int) error) error {
	n := l.N
	g := blas64.General{Rows: n, Cols: n, Stride: l.Stride, Data: l.Data}
	t := x.RawMatrix().Cols
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
