package solver

import (
	"context"
	"sync"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// fewSolveL32 is fewSolveL with the factor in float32 (the lower triangle
// of the n×n l) and x in float64: the same blocks, tasks and sums, the
// factor widened to float64 (exactly) in registers by the kernels (one
// column, and L⁻ᵀX) or, for L⁻¹X with several columns, fewChunk rows at a
// time in a per-worker buffer, so the result is bit for bit fewSolveL's on
// the widened factor, whatever the number of workers, while the factor
// streams from memory in half the bytes. Diagonal triangles are widened
// and solved by gonum's trsm.
func fewSolveL32(ctx context.Context, l blas32.General, x blas64.General, trans bool) error {
	n, t := l.Rows, x.Cols
	if n == 0 || t == 0 {
		return ctx.Err()
	}
	workers := parallel.Workers(0)
	if t == 1 {
		wb := widenBuf(fewBlock * fewBlock)
		defer widenPool.Put(wb)
		one := fewOne[float32]{a: l.Data, lda: l.Stride, dots: kernel.RowDots32, axpys: kernel.RowAxpys32,
			diag: func(v []float64, k, b int) {
				d := (*wb)[:b*b]
				for i := 0; i < b; i++ {
					widen(d[i*b:i*b+i+1], l.Data[(k+i)*l.Stride+k:])
					clear(d[i*b+i+1 : i*b+b])
				}
				blas64.Trsv(bt(trans), blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d},
					blas64.Vector{N: b, Inc: 1, Data: v[k:]})
			}}
		return one.solve(ctx, n, x, trans)
	}
	if trans {
		wb := widenBuf(fewBlock * fewBlock)
		defer widenPool.Put(wb)
		return fewSlabs(x, func(xs blas64.General) error {
			return fewPanelT(ctx, l.Data, l.Stride, n, xs, kernel.PanelAxpys32, func(xp blas64.General, k int) {
				b := xp.Rows
				d := (*wb)[:b*b]
				for i := 0; i < b; i++ {
					widen(d[i*b:i*b+i+1], l.Data[(k+i)*l.Stride+k:])
					clear(d[i*b+i+1 : i*b+b])
				}
				blas64.Trsm(blas.Left, blas.Trans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d}, xp)
			})
		})
	}
	// L⁻¹x with several columns: each task widens its rows fewChunk at a
	// time (in L2) and runs them on the panel tiles, which sum each row
	// alone: fewSolveL's sums.
	bufs := make([]*[]float64, workers)
	for w := range bufs {
		bufs[w] = widenBuf(max(fewChunk*n, fewBlock*fewBlock))
		defer widenPool.Put(bufs[w])
	}
	pbuf := make([]float64, kernel.PanelsLen(n, t)) // the packed solved rows of x, reused block to block
	for k := 0; k < n; k += fewBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		b := min(fewBlock, n-k)
		if k > 0 {
			solved := kernel.PackPanels(blas64.General{Rows: k, Cols: t, Stride: x.Stride, Data: x.Data}, pbuf)
			tasks := (b + fewRows - 1) / fewRows
			err := parallel.For(ctx, tasks, workers, func(w, task int) {
				for i0 := k + task*fewRows; i0 < min(k+b, k+(task+1)*fewRows); i0 += fewChunk {
					i1 := min(i0+fewChunk, k+b, k+(task+1)*fewRows)
					wb := (*bufs[w])[:(i1-i0)*k]
					for i := i0; i < i1; i++ {
						widen(wb[(i-i0)*k:(i-i0+1)*k], l.Data[i*l.Stride:])
					}
					solved.SubMul(blas64.General{Rows: i1 - i0, Cols: t, Stride: x.Stride, Data: x.Data[i0*x.Stride:]},
						blas64.General{Rows: i1 - i0, Cols: k, Stride: k, Data: wb})
				}
			})
			if err != nil {
				return err
			}
		}
		d := (*bufs[0])[:b*b]
		for i := 0; i < b; i++ {
			widen(d[i*b:i*b+i+1], l.Data[(k+i)*l.Stride+k:])
			clear(d[i*b+i+1 : i*b+b])
		}
		blas64.Trsm(blas.Left, blas.NoTrans, 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d},
			blas64.General{Rows: b, Cols: t, Stride: x.Stride, Data: x.Data[k*x.Stride:]})
	}
	return nil
}

// fewChunk is the rows of the factor fewSolveL32's L⁻¹X widens at a time:
// the AVX-512 tile's eight (640 KB at n = 10,000, within L2).
const fewChunk = 8

// widen sets dst[j] = float64(src[j]) for j < len(dst) (kernel.Widen: in
// SIMD registers where available).
func widen(dst []float64, src []float32) { kernel.Widen(dst, src) }

// widenPool recycles fewSolveL32's per-worker buffers (*[]float64): a
// preconditioner applies four solves per CG iteration.
var widenPool sync.Pool

// widenBuf returns a buffer of n float64 values (contents undefined).
func widenBuf(n int) *[]float64 {
	if b, ok := widenPool.Get().(*[]float64); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]float64, n)
	return &b
}
