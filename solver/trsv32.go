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
// of the n×n l) and x in float64: the same blocks, tasks and sums, each
// piece of the factor a task reads widened to float64 in a per-worker
// buffer first (exact), so the result is bit for bit fewSolveL's on the
// widened factor, whatever the number of workers, while the factor streams
// from memory in half the bytes. Diagonal triangles are widened and solved
// by gonum's trsm.
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
	wl := max(fewRows*n, fewBlock*min(fewCols, n), fewBlock*fewBlock)
	bufs := make([]*[]float64, workers)
	for w := range bufs {
		bufs[w] = widenBuf(wl)
		defer widenPool.Put(bufs[w])
	}
	diag := func(k, b int) {
		d := (*bufs[0])[:b*b]
		for i := 0; i < b; i++ {
			widen(d[i*b:i*b+i+1], l.Data[(k+i)*l.Stride+k:])
			clear(d[i*b+i+1 : i*b+b])
		}
		blas64.Trsm(blas.Left, bt(trans), 1, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d},
			blas64.General{Rows: b, Cols: t, Stride: x.Stride, Data: x.Data[k*x.Stride:]})
	}
	var pbuf []float64 // the packed solved rows of x (t > 1), reused block to block
	if t > 1 {
		pbuf = make([]float64, kernel.PanelsLen(n, t))
	}
	if !trans {
		for k := 0; k < n; k += fewBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			b := min(fewBlock, n-k)
			if k > 0 {
				var solved kernel.Panels
				if t > 1 {
					solved = kernel.PackPanels(blas64.General{Rows: k, Cols: t, Stride: x.Stride, Data: x.Data}, pbuf)
				}
				tasks := (b + fewRows - 1) / fewRows
				err := parallel.For(ctx, tasks, workers, func(w, task int) {
					i0, i1 := k+task*fewRows, min(k+b, k+(task+1)*fewRows)
					wb := (*bufs[w])[:(i1-i0)*k]
					for i := i0; i < i1; i++ {
						widen(wb[(i-i0)*k:(i-i0+1)*k], l.Data[i*l.Stride:])
					}
					if t > 1 {
						solved.SubMul(blas64.General{Rows: i1 - i0, Cols: t, Stride: x.Stride, Data: x.Data[i0*x.Stride:]},
							blas64.General{Rows: i1 - i0, Cols: k, Stride: k, Data: wb})
						return
					}
					for i := i0; i < i1; i++ {
						x.Data[i*x.Stride] -= dotStrided(wb[(i-i0)*k:(i-i0+1)*k], x.Data, x.Stride)
					}
				})
				if err != nil {
					return err
				}
			}
			diag(k, b)
		}
		return nil
	}
	for k1 := n; k1 > 0; k1 -= fewBlock {
		k := max(0, k1-fewBlock)
		if err := ctx.Err(); err != nil {
			return err
		}
		diag(k, k1-k)
		if k == 0 {
			break
		}
		var block kernel.Panels
		if t > 1 {
			block = kernel.PackPanels(blas64.General{Rows: k1 - k, Cols: t, Stride: x.Stride, Data: x.Data[k*x.Stride:]}, pbuf)
		}
		tasks := (k + fewCols - 1) / fewCols
		err := parallel.For(ctx, tasks, workers, func(w, task int) {
			c0, c1 := task*fewCols, min(k, (task+1)*fewCols)
			cw := c1 - c0
			wb := (*bufs[w])[:(k1-k)*cw]
			for j := k; j < k1; j++ {
				widen(wb[(j-k)*cw:(j-k+1)*cw], l.Data[j*l.Stride+c0:])
			}
			if t > 1 {
				block.SubMulT(blas64.General{Rows: cw, Cols: t, Stride: x.Stride, Data: x.Data[c0*x.Stride:]},
					blas64.General{Rows: k1 - k, Cols: cw, Stride: cw, Data: wb})
				return
			}
			for j := k; j < k1; j++ {
				if v := x.Data[j*x.Stride]; v != 0 {
					axpyStrided(-v, wb[(j-k)*cw:(j-k+1)*cw], x.Data[c0*x.Stride:], x.Stride)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

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
