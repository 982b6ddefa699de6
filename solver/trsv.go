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
// tiles where available; one column runs on kernel.RowDots and RowAxpys
// (fewOne: four rows of the factor streamed at a time against x, a float32
// factor widened in registers). Every entry of x is updated by one task
// with its terms in a fixed order, so the result does not depend on the
// number of workers.
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
	if t == 1 && n > 0 {
		one := fewOne[float64]{a: l.Data, lda: l.Stride, dots: kernel.RowDots, axpys: kernel.RowAxpys,
			diag: func(v []float64, k, b int) {
				d := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: l.Stride, Data: l.Data[k*l.Stride+k:]}
				blas64.Trsv(bt(trans), d, blas64.Vector{N: b, Inc: 1, Data: v[k:]})
			}}
		return one.solve(ctx, n, x, trans)
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

// fewOne is fewSolveL and fewSolveL32 with one right-hand side, on the
// factor's rows a (row stride lda, float64 or float32) and x copied to a
// contiguous vector v when its stride is not 1. L⁻¹x: each task takes
// fewRows rows of a block and subtracts from v[i] the dot of row i with the
// solved v[:k] (dots: kernel.RowDots or RowDots32, four rows at a time
// against v); L⁻ᵀx: each task takes oneCols entries of v[:k] and adds to
// them the block's rows times −v[k:k1] (axpys: kernel.RowAxpys or
// RowAxpys32, four rows streamed at a time into the task's contiguous piece
// of v). Each entry is a fixed sequence of operations whatever the split
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

// oneCols is the entries of v[:k] one task of fewOne's L⁻ᵀx takes: 4 KB
// of v in L1, four row pieces of 2 or 4 KB streamed at a time.
const oneCols = 512

func (f fewOne[T]) solve(ctx context.Context, n int, x blas64.General, trans bool) error {
	v := x.Data[:n]
	if x.Stride != 1 {
		v = make([]float64, n)
		for i := range v {
			v[i] = x.Data[i*x.Stride]
		}
		defer func() {
			for i, e := range v {
				x.Data[i*x.Stride] = e
			}
		}()
	}
	buf := make([]float64, fewBlock) // the block's dots (L⁻¹x) or −v[k:k1] (L⁻ᵀx)
	if !trans {
		for k := 0; k < n; k += fewBlock {
			if err := ctx.Err(); err != nil {
				return err
			}
			b := min(fewBlock, n-k)
			if k > 0 {
				err := parallel.For(ctx, (b+fewRows-1)/fewRows, 0, func(_, task int) {
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
		err := parallel.For(ctx, (k+oneCols-1)/oneCols, 0, func(_, task int) {
			c0, c1 := task*oneCols, min(k, (task+1)*oneCols)
			f.axpys(v[c0:c1], s, f.a[k*f.lda+c0:], f.lda)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
