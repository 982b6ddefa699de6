package solver

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// Triangular solves with few right-hand sides (t < solveMinRHS: FALKON's
// preconditioner applies four of them per CG iteration, t the number of
// outputs) cost n²/2 multiply-adds per column and are bound by reading the
// factor from memory, so gonum's one-goroutine trsm leaves the other cores
// idle. fewSolveL streams the factor's rows once with the reads split over
// the workers:
//
//   - L x = b, by blocks of fewBlock rows top to bottom: the block's rows
//     first subtract their dot products with the solved part (L[i, :k]·x[:k],
//     one task per fewRows rows, each row read contiguously), then the
//     block's diagonal triangle is solved;
//   - Lᵀ x = b, by blocks bottom to top: the diagonal triangle is solved,
//     then x[:k] −= L[k:k1, :k]ᵀ x[k:k1], one task per fewCols columns of
//     x[:k], each task reading its column range of the block's rows in row
//     order.
//
// With several right-hand sides the products with the solved part run on
// kernel.Panels (x's solved rows packed once per block of the factor), so
// each row of the factor is read once for all columns, on the AVX-512
// tiles where available; one column keeps the dot and axpy loops. Every
// entry of x is updated by one task with its terms in a fixed order, so
// the result does not depend on the number of workers.
const (
	fewBlock = 256
	fewRows  = 16
	fewCols  = 1024
)

// fewSolveMin is the order from which solves with fewer than solveMinRHS
// right-hand sides run on fewSolveL; smaller factors stay in cache and go to
// gonum's trsm.
const fewSolveMin = 1024

// fewSolveL overwrites x (n×t) with L⁻¹x, or with L⁻ᵀx when trans is true,
// for the lower-triangular non-unit l.
func fewSolveL(ctx context.Context, l blas64.Triangular, x blas64.General, trans bool) error {
	n, t := l.N, x.Cols
	diag := func(k, b int) {
		d := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: l.Stride, Data: l.Data[k*l.Stride+k:]}
		blas64.Trsm(blas.Left, bt(trans), 1, d, blas64.General{Rows: b, Cols: t, Stride: x.Stride, Data: x.Data[k*x.Stride:]})
	}
	var buf []float64 // the packed solved rows of x (t > 1), reused block to block
	if t > 1 {
		buf = make([]float64, kernel.PanelsLen(n, t))
	}
	if !trans {
		for k := 0; k < n; k += fewBlock {
			b := min(fewBlock, n-k)
			if k > 0 && t > 1 {
				solved := kernel.PackPanels(blas64.General{Rows: k, Cols: t, Stride: x.Stride, Data: x.Data}, buf)
				tasks := (b + fewRows - 1) / fewRows
				err := parallel.For(ctx, tasks, 0, func(_, task int) {
					i0, i1 := k+task*fewRows, min(k+b, k+(task+1)*fewRows)
					solved.SubMul(blas64.General{Rows: i1 - i0, Cols: t, Stride: x.Stride, Data: x.Data[i0*x.Stride:]},
						blas64.General{Rows: i1 - i0, Cols: k, Stride: l.Stride, Data: l.Data[i0*l.Stride:]})
				})
				if err != nil {
					return err
				}
			} else if k > 0 {
				tasks := (b + fewRows - 1) / fewRows
				err := parallel.For(ctx, tasks, 0, func(_, task int) {
					for i := k + task*fewRows; i < min(k+b, k+(task+1)*fewRows); i++ {
						row := l.Data[i*l.Stride : i*l.Stride+k]
						xi := x.Data[i*x.Stride : i*x.Stride+t]
						for c := range xi {
							xi[c] -= dotStrided(row, x.Data[c:], x.Stride)
						}
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
		tasks := (k + fewCols - 1) / fewCols
		if t > 1 {
			block := kernel.PackPanels(blas64.General{Rows: k1 - k, Cols: t, Stride: x.Stride, Data: x.Data[k*x.Stride:]}, buf)
			err := parallel.For(ctx, tasks, 0, func(_, task int) {
				c0, c1 := task*fewCols, min(k, (task+1)*fewCols)
				block.SubMulT(blas64.General{Rows: c1 - c0, Cols: t, Stride: x.Stride, Data: x.Data[c0*x.Stride:]},
					blas64.General{Rows: k1 - k, Cols: c1 - c0, Stride: l.Stride, Data: l.Data[k*l.Stride+c0:]})
			})
			if err != nil {
				return err
			}
			continue
		}
		err := parallel.For(ctx, tasks, 0, func(_, task int) {
			c0, c1 := task*fewCols, min(k, (task+1)*fewCols)
			for j := k; j < k1; j++ {
				row := l.Data[j*l.Stride+c0 : j*l.Stride+c1]
				xj := x.Data[j*x.Stride : j*x.Stride+t]
				for c, v := range xj {
					if v != 0 {
						axpyStrided(-v, row, x.Data[c0*x.Stride+c:], x.Stride)
					}
				}
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// dotStrided returns Σ_j a[j]·y[j·inc].
func dotStrided(a, y []float64, inc int) float64 {
	if inc == 1 {
		return blas64.Dot(blas64.Vector{N: len(a), Inc: 1, Data: a}, blas64.Vector{N: len(a), Inc: 1, Data: y[:len(a)]})
	}
	var s float64
	for j, v := range a {
		s += v * y[j*inc]
	}
	return s
}

// axpyStrided sets y[j·inc] += alpha·a[j].
func axpyStrided(alpha float64, a, y []float64, inc int) {
	if inc == 1 {
		blas64.Axpy(alpha, blas64.Vector{N: len(a), Inc: 1, Data: a}, blas64.Vector{N: len(a), Inc: 1, Data: y[:len(a)]})
		return
	}
	for j, v := range a {
		y[j*inc] += alpha * v
	}
}
