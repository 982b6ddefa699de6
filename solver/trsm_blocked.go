package solver

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/internal/scratch"
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
	t := x.RawMatrix().Cols
	// One packing buffer for all the products, the largest first: without
	// it, each product larger than the last allocated another (L⁻ᵀX of an
	// 1,100×1,100 factor with 16 columns: 2.93 MB against the largest's
	// 2.49).
	if r, ok := p.(reserver); ok {
		m, k := max(n-nb, nb-w.inner), nb
		if n <= nb {
			m, k = max(n-w.inner, w.inner), w.inner
		}
		defer r.Reserve(max(m, 1), t, min(k, n))()
	}
	if n <= nb {
		return solveInner(ctx, l, x, trans, p, w.inner)
	}
	inv, tmp, release := solveScratch(w.inner, t)
	defer release()
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
	inv, tmp, release := solveScratch(nb, x.RawMatrix().Cols)
	defer release()
	return solveInnerWith(ctx, l, x, trans, p, nb, inv, tmp)
}

// solveScratch returns the nb×nb inverse and nb×t product buffers of
// solveInner for t right-hand sides (nil below solveInvRHS, where the
// diagonal blocks go to gonum's trsm), on innerScratch's buffer of
// innerScratchLen(nb, t) values, and release, which gives it back: the
// caller calls it once it no longer uses inv and tmp.
func solveScratch(nb, t int) (inv, tmp *mat.Dense, release func()) {
	if t < solveInvRHS {
		return nil, nil, func() {}
	}
	sb := innerScratch.Get(innerScratchLen(nb, t))
	buf := *sb
	return mat.NewDense(nb, nb, buf[:nb*nb]), mat.NewDense(nb, t, buf[nb*nb:nb*nb+nb*t]), func() { innerScratch.Put(sb) }
}

// innerScratchLen is the length of solveScratch's buffer for nb-row
// blocks and t right-hand sides: 0 below solveInvRHS.
func innerScratchLen(nb, t int) int {
	if t < solveInvRHS {
		return 0
	}
	return nb*nb + nb*t
}

// innerScratch and rowsScratch64 (rowsSolveL's, and rowsSolveL32's
// widened inverses) and rowsScratch32 (rowsSolveL32's) keep the blocked
// solves' scratch between solves (one buffer each, see package scratch),
// so that a sequence of solves of one size allocates it once and a plan
// (SolveScratchBytes) counts it once. Before, each L⁻¹X of an 1,100×1,100
// factor with 16 columns on AVX-512 allocated its 680 KB again.
var (
	innerScratch, rowsScratch64 scratch.Slot[float64]
	rowsScratch32               scratch.Slot[float32]
)

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
	invert := func(_ int, inv []float64, k0, bj int) error {
		if !invertLower(mat.NewDense(bj, bj, inv), l, k0) {
			return fmt.Errorf("%w: zero on the diagonal of a triangular factor", ErrNotPD)
		}
		return nil
	}
	return rowsSolve[float64, panels64](ctx, dense[float64]{rows: l.N, cols: l.N, stride: l.Stride, data: l.Data},
		dense[float64]{rows: x.Rows, cols: x.Cols, stride: x.Stride, data: x.Data}, w, workers, 16, &rowsScratch64, invert)
}

// rowsScratchLen is the length of rowsSolve's buffer for an n×n factor,
// t right-hand sides, widths w (the inner one already capped at
// rowsInner), workers workers and panels of panel columns whose buffer
// for k rows and t columns holds length(k, t) values: the packed block
// (one panel of min(w.outer, n) rows per column group), two sets of
// inverses of its inner blocks, and each worker's packed inner block.
func rowsScratchLen(n, t int, w widths, workers, panel int, length func(k, t int) int) int {
	nb, ni := min(w.outer, n), min(w.inner, w.outer, n)
	gw := groupWidth(t, panel)
	ng := (t + gw - 1) / gw
	invLen := (nb + ni - 1) / ni * ni * ni
	return ng*length(nb, gw) + 2*invLen + parallel.Workers(workers)*length(ni, gw)
}

// rowsSolve is rowsSolveL and rowsSolveL32 in either precision: panels P
// of panel columns (kernel.RowPanels, 16; RowPanels32, 32); invert sets
// inv (bj×bj) to the inverse of the diagonal block of l at k0, with the
// scratch of worker wk.
func rowsSolve[T float32 | float64, P panelsOf[T, P]](ctx context.Context, l, x dense[T], w widths, workers, panel int, slot *scratch.Slot[T], invert func(wk int, inv []T, k0, bj int) error) error {
	n, t := l.rows, x.cols
	nb, ni := min(w.outer, n), min(w.inner, w.outer, n)
	gw := groupWidth(t, panel)
	ng := (t + gw - 1) / gw
	var zero P
	glen := zero.length(nb, gw)
	invLen := (nb + ni - 1) / ni * ni * ni
	nw := parallel.Workers(workers)
	tlen := zero.length(ni, gw)
	sb := slot.Get(rowsScratchLen(n, t, w, workers, panel, zero.length))
	defer slot.Put(sb)
	buf := *sb
	packed, buf := buf[:ng*glen], buf[ng*glen:]
	invs := [2][]T{buf[:invLen], buf[invLen : 2*invLen]}
	buf = buf[2*invLen:]
	tmps := make([][]T, nw)
	for i := range tmps {
		tmps[i] = buf[i*tlen : (i+1)*tlen]
	}
	groups := make([]P, ng)
	// inverse sets inverse j of the block at k (rows k+j·ni…) in inv.
	inverse := func(wk int, inv []T, k, j int) error {
		k0, bj := k+j*ni, min(ni, n-k-j*ni, nb-j*ni)
		return invert(wk, inv[j*ni*ni:j*ni*ni+bj*bj], k0, bj)
	}
	inverses := func(k int) int { return (min(nb, n-k) + ni - 1) / ni }
	if err := parallel.ForErr(ctx, inverses(0), workers, func(wk, j int) error { return inverse(wk, invs[0], 0, j) }); err != nil {
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
			pg := zero.make(b, c1-c0, packed[g*glen:(g+1)*glen])
			groups[g] = pg
			for j0 := 0; j0 < b; j0 += ni {
				bj := min(ni, b-j0)
				xj := x.view(k+j0, c0, bj, c1-c0)
				if j0 > 0 {
					pg.rowsOf(0, j0).mulRows(xj, l.view(k+j0, k, bj, j0), true)
				}
				tj := zero.make(bj, c1-c0, tmps[wk])
				tj.pack(xj)
				tj.mulRows(xj, dense[T]{rows: bj, cols: bj, stride: bj, data: inv[j0*ni:]}, false)
				pg.rowsOf(j0, j0+bj).pack(xj)
			}
		}); err != nil {
			return err
		}
		rest := n - k - b
		if rest == 0 {
			break
		}
		next, nInv := invs[(blk+1)%2], inverses(k+b)
		if err := parallel.ForErr(ctx, nInv+(rest+rowsTask-1)/rowsTask, workers, func(wk, task int) error {
			if task < nInv {
				return inverse(wk, next, k+b, task)
			}
			i0 := k + b + (task-nInv)*rowsTask
			i1 := min(n, i0+rowsTask)
			lr := l.view(i0, k, i1-i0, b)
			for g, pg := range groups {
				c0, c1 := g*gw, min(t, (g+1)*gw)
				pg.mulRows(x.view(i0, c0, i1-i0, c1-c0), lr, true)
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// panelsOf is what rowsSolve needs of kernel.RowPanels (panels64) or
// RowPanels32 (panels32), on dense[T] blocks: make and length are called
// on the zero value.
type panelsOf[T float32 | float64, P any] interface {
	make(k, t int, buf []T) P
	length(k, t int) int
	rowsOf(r0, r1 int) P
	pack(b dense[T])
	mulRows(y, a dense[T], sub bool)
}

type panels64 struct{ kernel.RowPanels }

func (panels64) make(k, t int, buf []float64) panels64 {
	return panels64{kernel.NewRowPanels(k, t, buf)}
}
func (panels64) length(k, t int) int                     { return kernel.RowPanelsLen(k, t) }
func (p panels64) rowsOf(r0, r1 int) panels64            { return panels64{p.Rows(r0, r1)} }
func (p panels64) pack(b dense[float64])                 { p.Pack(b.g64()) }
func (p panels64) mulRows(y, a dense[float64], sub bool) { p.MulRows(y.g64(), a.g64(), sub) }

type panels32 struct{ kernel.RowPanels32 }

func (panels32) make(k, t int, buf []float32) panels32 {
	return panels32{kernel.NewRowPanels32(k, t, buf)}
}
func (panels32) length(k, t int) int                     { return kernel.RowPanels32Len(k, t) }
func (p panels32) rowsOf(r0, r1 int) panels32            { return panels32{p.Rows(r0, r1)} }
func (p panels32) pack(b dense[float32])                 { p.Pack(b.g32()) }
func (p panels32) mulRows(y, a dense[float32], sub bool) { p.MulRows(y.g32(), a.g32(), sub) }

// g64 is d as a blas64.General sharing its memory.
func (d dense[T]) g64() blas64.General {
	return blas64.General{Rows: d.rows, Cols: d.cols, Stride: d.stride, Data: any(d.data).([]float64)}
}
