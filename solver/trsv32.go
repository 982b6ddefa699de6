package solver

import (
	"context"

	"github.com/landmark-ml/landmark/internal/scratch"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// fewSolveL32 is fewSolveL with the factor in float32 (the lower triangle
// of the n×n l) and x in float64: the same blocks, tasks and sums, the
// factor widened to float64 (exactly) in registers by the kernels' float32
// twins, so the result is bit for bit fewSolveL's on the widened factor,
// whatever the number of workers, while the factor streams from memory in
// half the bytes. Diagonal triangles are widened and solved by gonum's
// trsm/trsv.
func fewSolveL32(ctx context.Context, l blas32.General, x blas64.General, trans bool) error {
	n, t := l.Rows, x.Cols
	if n == 0 || t == 0 {
		return ctx.Err()
	}
	nb := min(n, fewBlock)
	wb := widenScratch.Get(nb * nb) // a diagonal triangle widened
	defer widenScratch.Put(wb)
	tri := func(k, b int) blas64.Triangular {
		d := (*wb)[:b*b]
		for i := 0; i < b; i++ {
			widen(d[i*b:i*b+i+1], l.Data[(k+i)*l.Stride+k:])
			clear(d[i*b+i+1 : i*b+b])
		}
		return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d}
	}
	if t == 1 {
		one := fewOne[float32]{a: l.Data, lda: l.Stride, dots: kernel.RowDots32, axpys: kernel.RowAxpys32,
			diag: func(v []float64, k, b int) {
				blas64.Trsv(bt(trans), tri(k, b), blas64.Vector{N: b, Inc: 1, Data: v[k:]})
			}}
		if kernel.Accel() == "portable" { // as fewSolveL's: the same sums
			one.dots, one.axpys = dotsPlain[float32], axpysPlain[float32]
		}
		return one.solve(ctx, n, x, trans)
	}
	diag := func(xp blas64.General, k int) { blas64.Trsm(blas.Left, bt(trans), 1, tri(k, xp.Rows), xp) }
	return fewSlabs(x, func(xs blas64.General) error {
		if trans {
			return fewPanelT(ctx, l.Data, l.Stride, n, xs, kernel.PanelAxpys32, diag)
		}
		return fewPanelN(ctx, l.Data, l.Stride, n, xs, kernel.PanelDots32, diag)
	})
}

// widen sets dst[j] = float64(src[j]) for j < len(dst) (kernel.Widen: in
// SIMD registers where available).
func widen(dst []float64, src []float32) { kernel.Widen(dst, src) }

// widenScratch keeps fewSolveL32's widened diagonal block between solves
// (see package scratch): a preconditioner applies four solves per CG
// iteration.
var widenScratch scratch.Slot[float64]
