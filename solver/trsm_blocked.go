package solver

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
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
// contribution from the rows still to be solved. L⁻¹x on kernel.Dense with
// AVX-512 goes to rowsSolveL (same blocks, the factor read in place).
func blockedSolveL(ctx context.Context, l blas64.Triangular, x *mat.Dense, trans bool, p Products, w widths) error {
	if workers, ok := rowsPath(p); ok && !trans {
		return rowsSolveL(ctx, l, x.RawMatrix(), widths{w.outer, min(w.inner, rowsInner)}, workers)
	}
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

// Widths of rowsSolveL besides the outer block width: the diagonal blocks
// are solved by column groups of rowsGroup right-hand sides (four 16-column
// panels: a group's 512 rows, 256 KiB in float64, stay in L2 while its
// inner blocks are solved), in inner blocks of at most rowsInner rows (the
// inverses' extra flops, 2·w·t per row for w-row blocks against t·row for
// the rest of the block, and their trtri shrink with w; A/B against 128 at
// M = 10,000: 2.047 vs 2.091 CPU-s per float64 solve, 1.044 vs 1.069
// float32, medians of 6, loaded machine), and the updates by tasks of
// rowsTask rows (a task's 32 rows of the factor, 128 KiB, stay in L2 for
// all column groups; smaller tasks than 64 leave less idle time at the end
// of each block's update, same CPU time).
const (
	rowsGroup = 64
	rowsInner = 64
	rowsTask  = 32
)

// groupWidth is the column group of rowsSolveL for t right-hand sides:
// rowsGroup, or one panel (16 float64 or 32 float32 columns) when t <
// 4·rowsGroup, so that a few dozen right-hand sides still make several
// tasks of the diagonal blocks' solves. The groups do not change a bit of
// the result (each element's sums are the same in any group).
func groupWidth(t, panel int) int {
	if t >= 4*rowsGroup {
		return rowsGroup
	}
	return panel
}

// rowsPath says whether L⁻¹X with products p runs on rowsSolveL: p is
// kernel.Dense on the AVX-512 tiles (the register tile of kernel.RowPanels
// reads the factor in place; elsewhere p's packed products are faster).
func rowsPath(p Products) (workers int, ok bool) {
	d, ok := p.(kernel.Dense)
	if !ok || d.Portable || kernel.Accel() != "avx512" {
		return 0, false
	}
	return d.Workers, true
}

// rowsSolveL overwrites x (n×t) with L⁻¹x, right-looking by blocks of
// w.outer rows, on kernel.RowPanels (the factor read in place, the solved
// rows packed): for each block,
//
//  1. the block's rows of x solved by column groups (groupWidth; one task
//     each): each inner block of w.inner rows X_j gets X_j −= L[j, :j]·X[:j]
//     from the block's solved rows before it, then X_j = L_jj⁻¹·X_j, and is
//     packed (the group's panels of the block's solved rows);
//  2. the rows below, X[rest] −= L[rest, block]·X[block], by tasks of
//     rowsTask rows, each reading its rows of the factor once for all
//     column groups; the inverses L_jj⁻¹ of the next block (trtri, one task
//     each) are the first tasks of this step, so that they need no step of
//     their own.
//
// Each element of x gets the same sums in the same order whatever the
// number of workers (the groups and the sums over p are fixed; tasks only
// split rows and columns), so the result does not depend on it. Memory:
// w.outer·t (the packed block) + 2·w.outer·w.inner (inverses) + a w.inner ×
// group panel per worker.
func rowsSolveL(ctx context.Context, l blas64.Triangular, x blas64.General, w widths, workers int) error {
	n, t := l.N, x.Cols
	nb, ni := min(w.outer, n), min(w.inner, w.outer, n)
	gw := groupWidth(t, 16)
	ng := (t + gw - 1) / gw
	glen := kernel.RowPanelsLen(nb, gw)
	packed := make([]float64, ng*glen)
	groups := make([]kernel.RowPanels, ng)
	invLen := (nb + ni - 1) / ni * ni * ni
	invs := [2][]float64{make([]float64, invLen), make([]float64, invLen)}
	nw := parallel.Workers(workers)
	tmps := make([][]float64, nw)
	for i := range tmps {
		tmps[i] = make([]float64, kernel.RowPanelsLen(ni, gw))
	}
	// invert sets inverse j of the block at k (rows k+j·ni…) in inv.
	invert := func(inv []float64, k, j int) error {
		bj := min(ni, n-k-j*ni, nb-j*ni)
		if !invertLower(mat.NewDense(bj, bj, inv[j*ni*ni:j*ni*ni+bj*bj]), l, k+j*ni) {
			return fmt.Errorf("%w: zero on the diagonal of a triangular factor", ErrNotPD)
		}
		return nil
	}
	inverses := func(k int) int { return (min(nb, n-k) + ni - 1) / ni }
	if err := parallel.ForErr(ctx, inverses(0), workers, func(_, j int) error { return invert(invs[0], 0, j) }); err != nil {
		return err
	}
	for blk, k := 0, 0; k < n; blk, k = blk+1, k+nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := min(nb, n-k)
		inv := invs[blk%2]
		if err := parallel.For(ctx, ng, workers, func(wk, g int) {
			c0, c1 := g*gw, min(t, (g+1)*gw)
			pg := kernel.NewRowPanels(b, c1-c0, packed[g*glen:(g+1)*glen])
			groups[g] = pg
			for j0 := 0; j0 < b; j0 += ni {
				bj := min(ni, b-j0)
				xj := blas64.General{Rows: bj, Cols: c1 - c0, Stride: x.Stride, Data: x.Data[(k+j0)*x.Stride+c0:]}
				if j0 > 0 {
					lj := blas64.General{Rows: bj, Cols: j0, Stride: l.Stride, Data: l.Data[(k+j0)*l.Stride+k:]}
					pg.Rows(0, j0).MulRows(xj, lj, true)
				}
				tj := kernel.PackRowPanels(xj, tmps[wk])
				tj.MulRows(xj, blas64.General{Rows: bj, Cols: bj, Stride: bj, Data: inv[j0*ni:]}, false)
				pg.Rows(j0, j0+bj).Pack(xj)
			}
		}); err != nil {
			return err
		}
		rest := n - k - b
		if rest == 0 {
			break
		}
		next, nInv := invs[(blk+1)%2], inverses(k+b)
		if err := parallel.ForErr(ctx, nInv+(rest+rowsTask-1)/rowsTask, workers, func(_, task int) error {
			if task < nInv {
				return invert(next, k+b, task)
			}
			i0 := k + b + (task-nInv)*rowsTask
			i1 := min(n, i0+rowsTask)
			lr := blas64.General{Rows: i1 - i0, Cols: b, Stride: l.Stride, Data: l.Data[i0*l.Stride+k:]}
			for g, pg := range groups {
				c0, c1 := g*gw, min(t, (g+1)*gw)
				pg.MulRows(blas64.General{Rows: i1 - i0, Cols: c1 - c0, Stride: x.Stride, Data: x.Data[i0*x.Stride+c0:]}, lr, true)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}
