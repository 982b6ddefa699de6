package solver

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/internal/scratch"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Triangular solves with few right-hand sides (t < solveMinRHS: FALKON's
// preconditioner applies four of them per CG iteration, t the number of
// outputs) cost n²/2 multiply-adds per column and are bound by reading the
// factor from memory, so gonum's one-goroutine trsm leaves the other cores
// idle. fewSolveL streams the factor's rows once with the reads split over
// the workers, each task reading contiguous pieces of rows, several rows at
// a time:
//
//   - L x = b, by blocks of fewBlock rows top to bottom: the block's rows
//     first subtract their dot products with the solved part (L[i, :k]·x[:k],
//     one task per fewRows rows), then the block's diagonal triangle is
//     solved. One column runs on kernel.RowDots (fewOne: four rows against
//     x at a time); several on kernel.PanelDots (fewPanelN: x held in rows
//     of 16 for the whole solve, read in place, eight rows of the factor
//     at a time on the AVX-512 tile, each row of the factor read once for
//     all columns).
//   - Lᵀ x = b, by blocks bottom to top: the diagonal triangle is solved,
//     then x[:k] −= L[k:k1, :k]ᵀ x[k:k1], one task per piece of x[:k],
//     streaming four or eight rows of the block at a time (their pieces over the
//     task's columns) into the task's contiguous piece of x: one column on
//     kernel.RowAxpys (fewOne), several on kernel.PanelAxpys with x held
//     in rows of 16 (fewPanelT). Before, the tasks read the block's rows
//     eight columns at a time (a strided walk) or one row per pass over x,
//     2–4× slower than L x = b.
//
// A float32 factor (fewSolveL32) is widened in registers by the kernels
// (RowDots32, RowAxpys32, PanelAxpys32), or for L⁻¹x with several columns
// into a buffer first. Every entry of x is updated by one task with its
// terms in a fixed order, so the result does not depend on the number of
// workers.
const (
	fewBlock = 256
	fewRows  = 16
)

// fewSolveMin is the order from which solves with fewer than solveMinRHS
// right-hand sides run on fewSolveL; smaller factors stay in cache and go to
// gonum's trsm.
const fewSolveMin = 1024

// fewSolveL overwrites x (n×t) with L⁻¹x, or with L⁻ᵀx when trans is true,
// for the lower-triangular non-unit l.
func fewSolveL(ctx context.Context, l blas64.Triangular, x blas64.General, trans bool) error {
	n, t := l.N, x.Cols
	if n == 0 || t == 0 {
		return ctx.Err()
	}
	tri := func(k, b int) blas64.Triangular {
		return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: l.Stride, Data: l.Data[k*l.Stride+k:]}
	}
	if t == 1 {
		one := fewOne[float64]{a: l.Data, lda: l.Stride, dots: kernel.RowDots, axpys: kernel.RowAxpys,
			diag: func(v []float64, k, b int) {
				blas64.Trsv(bt(trans), tri(k, b), blas64.Vector{N: b, Inc: 1, Data: v[k:]})
			}}
		if kernel.Accel() == "portable" {
			one.dots, one.axpys = dotsPlain[float64], axpysPlain[float64]
		}
		return one.solve(ctx, n, x, trans)
	}
	diag := func(xp blas64.General, k int) { blas64.Trsm(blas.Left, bt(trans), 1, tri(k, xp.Rows), xp) }
	return fewSlabs(x, func(xs blas64.General) error {
		if trans {
			return fewPanelT(ctx, l.Data, l.Stride, n, xs, kernel.PanelAxpys, diag)
		}
		return fewPanelN(ctx, l.Data, l.Stride, n, xs, kernel.PanelDots, diag)
	})
}

// fewSlabs runs solve on x's columns in slabs of at most
// kernel.PanelWidth (fewPanelT's panels), in order.
func fewSlabs(x blas64.General, solve func(blas64.General) error) error {
	for c0 := 0; c0 < x.Cols; c0 += kernel.PanelWidth {
		xs := x
		xs.Cols = min(kernel.PanelWidth, x.Cols-c0)
		xs.Data = x.Data[c0:]
		if err := solve(xs); err != nil {
			return err
		}
	}
	return nil
}

// fewOne is fewSolveL and fewSolveL32 with one right-hand side, on the
// factor's rows a (row stride lda, float64 or float32) and x copied to a
// contiguous vector v when its stride is not 1. L⁻¹x: each task takes
// fewRows rows of a block and subtracts from v[i] the dot of row i with the
// solved v[:k] (dots: kernel.RowDots or RowDots32, four rows at a time
// against v; dotsPlain on the portable path); L⁻ᵀx: each task takes up to
// fewCols entries of v[:k] and adds to them the block's rows times
// −v[k:k1] (axpys: kernel.RowAxpys or RowAxpys32, eight (AVX-512) or four
// rows streamed at a time into the task's contiguous piece of v;
// axpysPlain on the portable path). Each entry is a fixed sequence of operations whatever the split
// into tasks (the kernels' sums do not depend on where a row or a piece of
// v starts), so the result depends neither on the number of workers nor on
// the precision of the factor beyond its values. diag solves the diagonal
// triangle of the block [k, k+b) in place in v.
type fewOne[T float32 | float64] struct {
	a     []T
	lda   int
	dots  func(out []float64, a []T, lda int, x []float64)
	axpys func(y, s []float64, a []T, lda int)
	diag  func(v []float64, k, b int)
}

// dotsPlain and axpysPlain are fewOne's dots and axpys (kernel.RowDots,
// RowAxpys and their float32 twins) when the kernel engine has no SIMD
// kernels (kernel.Accel() "portable": LANDMARK_SIMD=portable, CPUs without
// AVX2, non-amd64 builds). The kernels' Go fallbacks chain FMAs, and on
// amd64 below GOAMD64=v3 every math.FMA tests for the instruction: float64
// L⁻¹x at M = 10,000 read the factor at 6.5–7.2 GB per CPU-second there,
// against 8.9–9.1 for gonum's SSE2 dot, which the solves used before the
// row kernels. These loops round each product and add it (no FMA: the
// explicit conversions keep any compiler from fusing them, so the bits are
// the same on every architecture): at gonum's speed, and a
// float32 factor gives the float64 solve's bits on its widened values, as
// on the SIMD paths (docs/performance.md). The result is another fixed
// order of the same terms than the SIMD paths', within the same bounds.
//
// dotsPlain sets out[r] to the dot of row r of a (row stride lda) with x:
// four sums P[l] of the rounded products over j < 8·⌊k/8⌋, j ≡ l (mod 4),
// in j order from zero, s = (P[0]+P[2]) + (P[1]+P[3]), then the tail's
// products added in order. (Eight sums read no faster: the loop then
// spills one to the stack.)
func dotsPlain[T float32 | float64](out []float64, a []T, lda int, x []float64) {
	k := len(x)
	k8 := k &^ 7
	for r := range out {
		row := a[r*lda : r*lda+k]
		var s0, s1, s2, s3 float64
		for j := 0; j < k8; j += 8 {
			ar := (*[8]T)(row[j : j+8])
			xr := (*[8]float64)(x[j : j+8])
			s0 += float64(float64(ar[0]) * xr[0])
			s1 += float64(float64(ar[1]) * xr[1])
			s2 += float64(float64(ar[2]) * xr[2])
			s3 += float64(float64(ar[3]) * xr[3])
			s0 += float64(float64(ar[4]) * xr[4])
			s1 += float64(float64(ar[5]) * xr[5])
			s2 += float64(float64(ar[6]) * xr[6])
			s3 += float64(float64(ar[7]) * xr[7])
		}
		s := (s0 + s2) + (s1 + s3)
		for j := k8; j < k; j++ {
			s += float64(float64(row[j]) * x[j])
		}
		out[r] = s
	}
}

// axpysPlain sets y[j] += s[r]·a[r·lda+j] (the product rounded, then
// added) for r = 0, 1, … in order, two rows a pass (y read and written
// once per two rows; each y[j] still gets its terms in row order).
func axpysPlain[T float32 | float64](y, s []float64, a []T, lda int) {
	n := len(y)
	r := 0
	for ; r+2 <= len(s); r += 2 {
		c0, c1 := s[r], s[r+1]
		a0 := a[r*lda : r*lda+n]
		a1 := a[(r+1)*lda : (r+1)*lda+n]
		for j := range y {
			y[j] = (y[j] + float64(c0*float64(a0[j]))) + float64(c1*float64(a1[j]))
		}
	}
	if r < len(s) {
		c := s[r]
		for j, v := range a[r*lda : r*lda+n] {
			y[j] += float64(c * float64(v))
		}
	}
}

// fewCols is the most entries of v[:k] one task of fewOne's L⁻ᵀx takes:
// 16 KB of v in L1, four row pieces of 8 or 16 KB streamed at a time (on
// the EPYC Zen 4, BenchmarkFewSolve M = 10,000 t = 1, 2,048 read 5–15%
// faster than 512 or 1,024; noisy, shared machine). Smaller k are split in
// pieces of at least 256 so that every worker has two.
const fewCols = 2048

func (f fewOne[T]) solve(ctx context.Context, n int, x blas64.General, trans bool) error {
	sb := fewOneScratch.Get(fewOneLen(n))
	defer fewOneScratch.Put(sb)
	nb := min(n, fewBlock)
	buf := (*sb)[:nb] // the block's dots (L⁻¹x) or −v[k:k1] (L⁻ᵀx)
	v := x.Data[:n]
	if x.Stride != 1 {
		v = (*sb)[nb : nb+n]
		for i := range v {
			v[i] = x.Data[i*x.Stride]
		}
		defer func() {
			for i, e := range v {
				x.Data[i*x.Stride] = e
			}
		}()
	}
	workers := parallel.Workers(0)
	if !trans {
		for k := 0; k < n; k += fewBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			b := min(fewBlock, n-k)
			if k > 0 {
				err := parallel.For(ctx, (b+fewRows-1)/fewRows, workers, func(_, task int) {
					i0, i1 := k+task*fewRows, min(k+b, k+(task+1)*fewRows)
					d := buf[i0-k : i1-k]
					f.dots(d, f.a[i0*f.lda:], f.lda, v[:k])
					for i, s := range d {
						v[i0+i] -= s
					}
				})
				if err != nil {
					return err
				}
			}
			f.diag(v, k, b)
		}
		return nil
	}
	for k1 := n; k1 > 0; k1 -= fewBlock {
		k := max(0, k1-fewBlock)
		if err := ctx.Err(); err != nil {
			return err
		}
		f.diag(v, k, k1-k)
		if k == 0 {
			break
		}
		s := buf[:k1-k]
		for j := range s {
			s[j] = -v[k+j]
		}
		cols := min(fewCols, max(256, (k+2*workers-1)/(2*workers)+15)&^15)
		err := parallel.For(ctx, (k+cols-1)/cols, workers, func(_, task int) {
			c0, c1 := task*cols, min(k, (task+1)*cols)
			f.axpys(v[c0:c1], s, f.a[k*f.lda+c0:], f.lda)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// fewPanelN is fewSolveL's and fewSolveL32's L⁻¹x with 1 < t ≤ 16
// right-hand sides, on the factor's rows a (row stride lda): x is copied
// into xp, rows of 16 values (zero past t), the blocks of fewBlock rows are
// taken top to bottom, their rows first reduced by their products with the
// solved xp[:k] (one task per fewRows rows: dots, kernel.PanelDots or
// PanelDots32, eight rows of the factor at a time on the AVX-512 tile,
// sums in column order from zero, then subtracted), then the diagonal
// triangle solved (diag, in place in xp's rows k, k+1, …). The solved rows
// are the tiles' panel as they stand (no packing per block).
func fewPanelN[T float32 | float64](ctx context.Context, a []T, lda, n int, x blas64.General,
	dots func(out, b []float64, a []T, lda int), diag func(xp blas64.General, k int)) error {
	const w = kernel.PanelWidth
	t := x.Cols
	sb := fewPanelScratch.Get(fewPanelLen(n))
	defer fewPanelScratch.Put(sb)
	xp, out := (*sb)[:n*w], (*sb)[n*w:(n+min(n, fewBlock))*w]
	for i := range n {
		copy(xp[i*w:i*w+t], x.Data[i*x.Stride:i*x.Stride+t])
		clear(xp[i*w+t : i*w+w])
	}
	for k := 0; k < n; k += fewBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := min(fewBlock, n-k)
		if k > 0 {
			err := parallel.For(ctx, (b+fewRows-1)/fewRows, 0, func(_, task int) {
				i0, i1 := k+task*fewRows, min(k+b, k+(task+1)*fewRows)
				o := out[(i0-k)*w : (i1-k)*w]
				dots(o, xp[:k*w], a[i0*lda:], lda)
				for j, v := range o {
					xp[i0*w+j] -= v
				}
			})
			if err != nil {
				return err
			}
		}
		diag(blas64.General{Rows: b, Cols: t, Stride: w, Data: xp[k*w : (k+b)*w]}, k)
	}
	for i := range n {
		copy(x.Data[i*x.Stride:i*x.Stride+t], xp[i*w:i*w+t])
	}
	return nil
}

// fewPanelT is fewSolveL's and fewSolveL32's L⁻ᵀx with 1 < t ≤ 16
// right-hand sides, on the factor's rows a (row stride lda): x is copied
// into xp, rows of 16 values (zero past t), the blocks of fewBlock rows
// are taken bottom to top, each solved on its diagonal triangle (diag, in
// place in xp's rows k, k+1, …) and then subtracted from xp[:k] as
// xp[c0:c1] += L[k:k1, c0:c1]ᵀ·(−xp[k:k1]) by one task per panelCols rows
// of xp (axpys: kernel.PanelAxpys or PanelAxpys32, four or eight rows of
// the factor streamed at a time into the task's contiguous piece of xp). Each entry of
// xp[:k] gets one FMA per row of the factor in row order, whatever the
// split into tasks, so the result depends neither on the number of workers
// nor on the precision of the factor beyond its values.
func fewPanelT[T float32 | float64](ctx context.Context, a []T, lda, n int, x blas64.General,
	axpys func(y, b []float64, a []T, lda int), diag func(xp blas64.General, k int)) error {
	const w = kernel.PanelWidth
	t := x.Cols
	sb := fewPanelScratch.Get(fewPanelLen(n))
	defer fewPanelScratch.Put(sb)
	xp, neg := (*sb)[:n*w], (*sb)[n*w:(n+min(n, fewBlock))*w]
	for i := range n {
		copy(xp[i*w:i*w+t], x.Data[i*x.Stride:i*x.Stride+t])
		clear(xp[i*w+t : i*w+w])
	}
	for k1 := n; k1 > 0; k1 -= fewBlock {
		k := max(0, k1-fewBlock)
		if err := ctx.Err(); err != nil {
			return err
		}
		diag(blas64.General{Rows: k1 - k, Cols: t, Stride: w, Data: xp[k*w : k1*w]}, k)
		if k == 0 {
			break
		}
		b := neg[:(k1-k)*w]
		for i, v := range xp[k*w : k1*w] {
			b[i] = -v
		}
		err := parallel.For(ctx, (k+panelCols-1)/panelCols, 0, func(_, task int) {
			c0, c1 := task*panelCols, min(k, (task+1)*panelCols)
			axpys(xp[c0*w:c1*w], b, a[k*lda+c0:], lda)
		})
		if err != nil {
			return err
		}
	}
	for i := range n {
		copy(x.Data[i*x.Stride:i*x.Stride+t], xp[i*w:i*w+t])
	}
	return nil
}

// panelCols is the rows of xp one task of fewPanelT takes: 32 KB of xp
// (L1), four or eight row pieces of 1 or 2 KB streamed at a time.
const panelCols = 256

// SolveScratchBytes returns the most memory the triangular solves of an
// n×n float64 factor (Chol) with t right-hand sides allocate beside the
// factor, x and their products' buffers, for a caller planning memory
// before the solves (SolveScratchBytes32 is a float32 factor's):
//
//   - Chol.SolveL and Solve with t < 16 columns (from n = 1,024; smaller
//     factors go to gonum's trsm, which allocates none): one column needs
//     a block's dots (and a contiguous copy of x when its stride is not
//     1); several need x copied into rows of kernel.PanelWidth values (16n
//     doubles, one slab of 16 columns at a time) and a block's dots;
//   - Chol.SolveL and Solve with t ≥ 16 columns on a factor from
//     CholeskyBlocked (n > 128): L⁻¹X on kernel.Dense with AVX-512 packs a
//     block of 512 solved rows and keeps two sets of inverses of its
//     64-row diagonal blocks and a packed 64-row block per worker
//     (GOMAXPROCS: a Dense with more Workers than that takes more);
//     otherwise, from 64 columns, a 128×128 inverse and its 128×t product.
//     Both are counted. Their products (Gemms of at most n rows by t
//     columns over k = min(n, BlockedWidth)) share one buffer of their
//     own, held for the solve (kernel.Dense.Reserve):
//     kernel.Dense.PackBytes(n, t, min(n, BlockedWidth)) bounds it.
//
// The buffers are kept between solves (one of each kind, freed by the
// garbage collector once unused), so a preconditioner's four solves per
// CG iteration allocate them once: plans count them once. From 16 columns
// the larger of the two bullets' terms is returned. (It counted a float32
// factor's widened diagonal block too, min(n, 256)² doubles: 512 KB more
// than a float64 factor's solves take from n = 256.)
func SolveScratchBytes(n, t int) int64 {
	if n <= 0 || t <= 0 {
		return 0
	}
	few := 8 * int64(fewLen(n, t))
	if t < solveMinRHS || n <= cholInner {
		return few
	}
	return max(few, blockedSolveBytes(n, t))
}

// SolveScratchBytes32 returns the most memory Chol32.SolveL (the float32
// preconditioner's solves, float64 right-hand sides) of an n×n float32
// factor with t right-hand sides allocates beside the factor and x: the few-column
// solves' buffers of SolveScratchBytes, for any t (the float32 solves take
// slabs of 16 columns whatever t), and the factor's diagonal block widened
// to float64 (min(n, 256)² doubles).
func SolveScratchBytes32(n, t int) int64 {
	if n <= 0 || t <= 0 {
		return 0
	}
	b := int64(min(n, fewBlock))
	return 8 * (int64(fewLen(n, t)) + b*b)
}

// fewLen is the float64 values of one few-column solve's scratch with t
// columns: fewOneLen for one, fewPanelLen for several.
func fewLen(n, t int) int {
	if t > 1 {
		return fewPanelLen(n)
	}
	return fewOneLen(n)
}

// blockedSolveBytes is the scratch of Chol's blocked solves (t ≥
// solveMinRHS) at the default widths: rowsSolveL's buffer and
// solveScratch's.
func blockedSolveBytes(n, t int) int64 {
	rows := rowsScratchLen(n, t, widths{cholBlock, min(cholInner, rowsInner)}, 0, kernel.PanelWidth, kernel.RowPanelsLen)
	return 8 * int64(rows+innerScratchLen(cholInner, t))
}

// fewOneLen and fewPanelLen are the float64 values one few-column solve
// of an n×n factor takes from fewOneScratch or fewPanelScratch: fewOne's block of dots and copy of
// x, or fewPanelN's and fewPanelT's panel of x (rows of
// kernel.PanelWidth values, whatever the slab's columns) and block of dots.
func fewOneLen(n int) int   { return min(n, fewBlock) + n }
func fewPanelLen(n int) int { return (n + min(n, fewBlock)) * kernel.PanelWidth }

// fewOneScratch and fewPanelScratch hold the few-column solves' scratch
// of one column and of panels between solves (one buffer each, see
// package scratch; two, so that a buffer of one size is never taken,
// found too small and dropped for the other).
var fewOneScratch, fewPanelScratch scratch.Slot[float64]
