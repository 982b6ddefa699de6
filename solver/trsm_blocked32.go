package solver

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// SolveL32 overwrites the float32 b (n×t) with L⁻¹b, or with L⁻ᵀb when
// trans is true, in float32 throughout (LAPACK's strsm), by blocks on the
// factorization's products (many right-hand sides: 2n²t flops in all, all
// but the diagonal blocks' inversions in products): by blocks of cholBlock
// rows, each diagonal block solved by blocks of cholInner rows whose
// inverses (gonum's trtri in float64 on the widened block, rounded) are
// applied as products, then the block's contribution subtracted from the
// rows still to be solved. L⁻¹b on kernel.DenseF32 with AVX-512 runs on
// kernel.RowPanels32, the factor read in place (rowsSolveL32); otherwise
// every product is a Gemm of the Products32 (k = cholBlock for the
// subtraction).
func (c *Chol32) SolveL32(ctx context.Context, b blas32.General, trans bool) error {
	if err := nilContext(ctx, "solve"); err != nil {
		return err
	}
	if b.Rows != c.l.Rows || len(b.Data) < (b.Rows-1)*b.Stride+b.Cols {
		return fmt.Errorf("%w: right-hand side has %d rows, factor is %d×%d", ErrShape, b.Rows, c.l.Rows, c.l.Rows)
	}
	if b.Cols == 0 {
		return ctx.Err()
	}
	return blockedSolveL32(ctx, c.l, b, trans, c.p, defaultWidths)
}

// blockedSolveL32 is SolveL32 with block widths w.
func blockedSolveL32(ctx context.Context, l, x blas32.General, trans bool, p Products32, w widths) error {
	if workers, ok := rowsPath32(p); ok && !trans {
		return rowsSolveL32(ctx, l, x, widths{w.outer, min(w.inner, rowsInner)}, workers)
	}
	t, ni := x.Cols, w.inner
	// The inverses and their products from rowsScratch32, the widened block
	// from rowsScratch64 (kept between solves, as rowsSolve's: before,
	// 2·ni² + ni·t values allocated on every solve), and one packing
	// buffer for all the products, the largest first (as blockedSolveL).
	sb := rowsScratch32.Get(ni*ni + ni*t)
	defer rowsScratch32.Put(sb)
	wb := rowsScratch64.Get(ni * ni)
	defer rowsScratch64.Put(wb)
	inv, tmp, d := (*sb)[:ni*ni], (*sb)[ni*ni:ni*ni+ni*t], (*wb)[:ni*ni]
	if r, ok := p.(reserver); ok {
		n, nb := l.Rows, w.outer
		defer r.Reserve(max(n-nb, nb-ni, ni, 1), t, min(n, nb))()
	}
	diag := func(k, b int) error {
		for i := 0; i < b; i++ {
			widen(d[i*b:i*b+i+1], l.Data[(k+i)*l.Stride+k:])
			clear(d[i*b+i+1 : i*b+b])
		}
		if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b, Stride: b, Data: d}) {
			return fmt.Errorf("%w: zero on the diagonal of a triangular factor", ErrNotPD)
		}
		for i, v := range d[:b*b] {
			inv[i] = float32(v)
		}
		xk := view32(x, k, 0, b, t)
		tk := blas32.General{Rows: b, Cols: t, Stride: t, Data: tmp[:b*t]}
		if err := p.Gemm(ctx, trans, false, 1, blas32.General{Rows: b, Cols: b, Stride: b, Data: inv[:b*b]}, xk, 0, tk); err != nil {
			return err
		}
		return copy32(ctx, xk, tk)
	}
	return blockSweep32(ctx, l, x, trans, p, w.outer, func(k, b int) error {
		return blockSweep32(ctx, view32(l, k, k, b, b), view32(x, k, 0, b, t), trans, p, ni, func(k2, b2 int) error {
			return diag(k+k2, b2)
		})
	})
}

// blockSweep32 is blockSweep in float32: it solves L X = X (Lᵀ X = X when
// trans) by blocks of nb rows of the lower-triangular l, solve(k, b)
// solving the diagonal block of rows k…k+b−1 in place, then one Gemm
// subtracting its contribution from the rows still to be solved.
func blockSweep32(ctx context.Context, l, x blas32.General, trans bool, p Products32, nb int, solve func(k, b int) error) error {
	n, t := l.Rows, x.Cols
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
				if err := p.Gemm(ctx, false, false, -1, view32(l, k+b, k, rest, b), view32(x, k, 0, b, t), 1, view32(x, k+b, 0, rest, t)); err != nil {
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
			if err := p.Gemm(ctx, true, false, -1, view32(l, k, 0, k1-k, k), view32(x, k, 0, k1-k, t), 1, view32(x, 0, 0, k, t)); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowsPath32 is rowsPath for Products32: kernel.DenseF32 on the AVX-512
// tiles.
func rowsPath32(p Products32) (workers int, ok bool) {
	d, ok := p.(kernel.DenseF32)
	if !ok || d.Portable || kernel.Accel() != "avx512" {
		return 0, false
	}
	return d.Workers, true
}

// rowsSolveL32 is rowsSolveL in float32 (kernel.RowPanels32, 32-column
// panels), the inverses of the diagonal blocks computed in float64 on the
// widened block and rounded (as blockedSolveL32's).
func rowsSolveL32(ctx context.Context, l, x blas32.General, w widths, workers int) error {
	ni := min(w.inner, w.outer, l.Rows)
	nw := parallel.Workers(workers)
	wb := rowsScratch64.Get(nw * ni * ni)
	defer rowsScratch64.Put(wb)
	wide := make([][]float64, nw)
	for i := range wide {
		wide[i] = (*wb)[i*ni*ni : (i+1)*ni*ni]
	}
	invert := func(wk int, inv []float32, k0, bj int) error {
		d := wide[wk][:bj*bj]
		for i := range bj {
			widen(d[i*bj:i*bj+i+1], l.Data[(k0+i)*l.Stride+k0:])
			clear(d[i*bj+i+1 : i*bj+bj])
		}
		if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: bj, Stride: bj, Data: d}) {
			return fmt.Errorf("%w: zero on the diagonal of a triangular factor", ErrNotPD)
		}
		for i, v := range d {
			inv[i] = float32(v)
		}
		return nil
	}
	return rowsSolve[float32, panels32](ctx, dense[float32]{rows: l.Rows, cols: l.Cols, stride: l.Stride, data: l.Data},
		dense[float32]{rows: x.Rows, cols: x.Cols, stride: x.Stride, data: x.Data}, w, workers, 32, &rowsScratch32, invert)
}
