package solver

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/internal/scratch"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// The blocked Cholesky factorization and lauum are written once for both
// precisions (blockedPotrfT, lauumT) over dense[T] and the small interface
// blockedOps[T]; CholeskyBlocked and Lauum run them on float64 (ops64, the
// Products), CholeskyBlocked32 and Lauum32 on float32 (ops32, Products32,
// diagonal blocks factored in float64).

// dense is a row-major matrix of either precision sharing the memory of a
// *mat.Dense, blas64.General or blas32.General.
type dense[T float32 | float64] struct {
	rows, cols, stride int
	data               []T
}

// view is the r×c sub-matrix at (i, j), sharing memory.
func (d dense[T]) view(i, j, r, c int) dense[T] {
	if r == 0 || c == 0 {
		return dense[T]{rows: r, cols: c, stride: max(1, c)}
	}
	return dense[T]{rows: r, cols: c, stride: d.stride, data: d.data[i*d.stride+j : (i+r-1)*d.stride+j+c]}
}

// blockedOps is what the blocked algorithms need of a precision: its two
// products (beta 0 or 1), the reservation of their buffers (for an n×n
// matrix with k-blocks of k), and the
// factorization of a diagonal block.
type blockedOps[T float32 | float64] interface {
	gemm(ctx context.Context, transA, transB bool, alpha T, a, b dense[T], beta T, c dense[T]) error
	syrkLower(ctx context.Context, trans bool, alpha T, a dense[T], beta T, c dense[T]) error
	reserve(n, k int) (release func())
	// potrfDiag factors the b×b lower-triangular diagonal block of g at
	// (k, k) in place and, when inv is not nil, sets inv (b×b, row stride
	// b) to the inverse of the factor, zeros above its diagonal; false when
	// the block is not positive definite (or its factor is singular).
	potrfDiag(g dense[T], k, b int, inv []T) bool
	// lauumRows is the products' in-place step of lauum
	// (kernel.Dense.LauumRows: rows [k0, k1) of g's lower triangle consumed
	// and their WᵀW added to its leading k1×k1 block), nil when they have
	// none.
	lauumRows() func(ctx context.Context, g dense[T], k0, k1 int) error
	// gemmInPlace reports whether gemm may write its result over a
	// (c = a·op(b), the same view, k ≤ 1,024: kernel.Dense and DenseF32
	// pack all of op(a)'s rows before storing any of them).
	gemmInPlace() bool
	// panelRows returns potrf's panel solve on the products' row tiles
	// (panelRowsT: kernel.Dense or DenseF32 on AVX-512), nil when they
	// have none.
	panelRows() panelSolver[T]
}

// panelSolver sets the rest×b panel of g below its diagonal block at
// (k, k) to A21·L11⁻ᵀ (see panelRowsT); buf holds panelRowsLen values.
type panelSolver[T float32 | float64] func(ctx context.Context, g dense[T], k, b, ni int, invs, buf []T) error

// rowsLauum is the in-place lauum step of kernel.Dense (LauumRows).
type rowsLauum interface {
	LauumRows(ctx context.Context, w *mat.Dense, k0, k1 int) error
}

// rowsLauum32 is the in-place lauum step of kernel.DenseF32 (LauumRows).
type rowsLauum32 interface {
	LauumRows(ctx context.Context, w blas32.General, k0, k1 int) error
}

// ops64 runs the blocked algorithms in float64 on the Products p, the
// diagonal blocks on gonum's potrf and trtri.
type ops64 struct{ p Products }

func (o ops64) gemm(ctx context.Context, transA, transB bool, alpha float64, a, b dense[float64], beta float64, c dense[float64]) error {
	return o.p.Gemm(ctx, transA, transB, alpha, a.mat(), b.mat(), beta, c.mat())
}

func (o ops64) syrkLower(ctx context.Context, trans bool, alpha float64, a dense[float64], beta float64, c dense[float64]) error {
	return o.p.SyrkLower(ctx, trans, alpha, a.mat(), beta, c.mat())
}

func (o ops64) reserve(n, k int) func() { return reserve(o.p, n, k) }

func (o ops64) gemmInPlace() bool { _, ok := o.p.(kernel.Dense); return ok }

func (o ops64) panelRows() panelSolver[float64] {
	workers, ok := rowsPath(o.p)
	if !ok {
		return nil
	}
	return func(ctx context.Context, g dense[float64], k, b, ni int, invs, buf []float64) error {
		return panelRowsT[float64, panels64](ctx, g, k, b, ni, invs, buf, workers)
	}
}

func (o ops64) lauumRows() func(ctx context.Context, g dense[float64], k0, k1 int) error {
	r, ok := o.p.(rowsLauum)
	if !ok {
		return nil
	}
	return func(ctx context.Context, g dense[float64], k0, k1 int) error {
		return r.LauumRows(ctx, g.mat(), k0, k1)
	}
}

func (ops64) potrfDiag(g dense[float64], k, b int, inv []float64) bool {
	if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Lower, N: b, Stride: g.stride, Data: g.data[k*g.stride+k:]}); !ok {
		return false
	}
	return inv == nil || invertLower(mat.NewDense(b, b, inv[:b*b]), blas64.Triangular{Stride: g.stride, Data: g.data}, k)
}

// mat is d as a *mat.Dense sharing its memory (d not empty).
func (d dense[T]) mat() *mat.Dense {
	var m mat.Dense
	m.SetRawMatrix(blas64.General{Rows: d.rows, Cols: d.cols, Stride: d.stride, Data: any(d.data).([]float64)})
	return &m
}

// ops32 runs the blocked algorithms in float32 on the Products32 p, the
// diagonal blocks factored and inverted in float64 (potrfDiag32; d is its
// scratch, grown as needed).
type ops32 struct {
	p Products32
	d []float64
}

func (o *ops32) gemm(ctx context.Context, transA, transB bool, alpha float32, a, b dense[float32], beta float32, c dense[float32]) error {
	return o.p.Gemm(ctx, transA, transB, alpha, a.g32(), b.g32(), beta, c.g32())
}

func (o *ops32) syrkLower(ctx context.Context, trans bool, alpha float32, a dense[float32], beta float32, c dense[float32]) error {
	return o.p.SyrkLower(ctx, trans, alpha, a.g32(), beta, c.g32())
}

func (o *ops32) reserve(n, k int) func() { return reserve(o.p, n, k) }

func (o *ops32) gemmInPlace() bool { _, ok := o.p.(kernel.DenseF32); return ok }

func (o *ops32) panelRows() panelSolver[float32] {
	workers, ok := rowsPath32(o.p)
	if !ok {
		return nil
	}
	return func(ctx context.Context, g dense[float32], k, b, ni int, invs, buf []float32) error {
		return panelRowsT[float32, panels32](ctx, g, k, b, ni, invs, buf, workers)
	}
}

func (o *ops32) lauumRows() func(ctx context.Context, g dense[float32], k0, k1 int) error {
	r, ok := o.p.(rowsLauum32)
	if !ok {
		return nil
	}
	return func(ctx context.Context, g dense[float32], k0, k1 int) error {
		return r.LauumRows(ctx, g.g32(), k0, k1)
	}
}

func (o *ops32) potrfDiag(g dense[float32], k, b int, inv []float32) bool {
	if len(o.d) < b*b {
		o.d = make([]float64, b*b)
	}
	if inv != nil {
		inv = inv[:b*b]
	}
	return potrfDiag32(g.g32(), k, b, inv, o.d)
}

// g32 is d as a blas32.General sharing its memory.
func (d dense[T]) g32() blas32.General {
	return blas32.General{Rows: d.rows, Cols: d.cols, Stride: d.stride, Data: any(d.data).([]float32)}
}

// scratchT returns n zeros of type T from factorScratch (float64) or
// factorScratch32 (float32), or newly allocated; the caller puts them
// back with putScratch.
func scratchT[T float32 | float64](n int) *[]T {
	b := slotOf[T]().Get(n)
	clear(*b)
	return b
}

// putScratch returns b to its slot.
func putScratch[T float32 | float64](b *[]T) { slotOf[T]().Put(b) }

func slotOf[T float32 | float64]() *scratch.Slot[T] {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return any(&factorScratch32).(*scratch.Slot[T])
	}
	return any(&factorScratch).(*scratch.Slot[T])
}

// copyT copies src into dst (same shape), rows split over the workers.
func copyT[T float32 | float64](ctx context.Context, dst, src dense[T]) error {
	r, c := src.rows, src.cols
	if r*c < 1<<16 {
		for i := 0; i < r; i++ {
			copy(dst.data[i*dst.stride:i*dst.stride+c], src.data[i*src.stride:i*src.stride+c])
		}
		return ctx.Err()
	}
	const rows = 64
	return parallel.For(ctx, (r+rows-1)/rows, 0, func(_, task int) {
		for i := task * rows; i < min(r, (task+1)*rows); i++ {
			copy(dst.data[i*dst.stride:i*dst.stride+c], src.data[i*src.stride:i*src.stride+c])
		}
	})
}

// blockedPotrfT factors the lower triangle of the n×n g in place with the
// block widths w (see CholeskyBlocked); ok is false when a pivot is not
// positive.
func blockedPotrfT[T float32 | float64](ctx context.Context, g dense[T], o blockedOps[T], w widths) (ok bool, err error) {
	n, nb, ni := g.rows, w.outer, w.inner
	if n <= 2*ni {
		// One or two inner blocks: the products would be too small to pay.
		return o.potrfDiag(g, 0, n, nil), ctx.Err()
	}
	nb = min(nb, n)
	defer o.reserve(n, nb)() // the products' buffer, planned as kernel.Dense.SyrkPackBytes(n, nb)
	// Scratch: the inverses of the inner diagonal blocks of one outer
	// diagonal block (nb·ni), then one inner column block of the panel
	// (n·ni) or, when the products multiply in place, the transpose of
	// one inverse (ni·ni).
	tl := n * ni
	if o.gemmInPlace() {
		tl = ni * ni
	}
	solve := o.panelRows()
	pl := 0
	if solve != nil {
		pl = panelRowsLen(nb, ni, panelWidth[T]())
	}
	sb := scratchT[T](nb*ni + tl + pl)
	defer putScratch(sb)
	invs, tmp, pbuf := (*sb)[:nb*ni], (*sb)[nb*ni:nb*ni+tl], (*sb)[nb*ni+tl:]
	for k := 0; k < n; k += nb {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		b := min(nb, n-k)
		// The diagonal block: the same algorithm with width ni, its rows
		// below the block being the inner panels.
		if ok, err := panelPotrfT(ctx, g, k, b, o, ni, invs, tmp); !ok || err != nil {
			return ok, err
		}
		rest := n - k - b
		if rest == 0 {
			break
		}
		if solve != nil {
			if err := solve(ctx, g, k, b, ni, invs, pbuf); err != nil {
				return false, err
			}
			if err := o.syrkLower(ctx, false, -1, g.view(k+b, k, rest, b), 1, g.view(k+b, k+b, rest, rest)); err != nil {
				return false, err
			}
			continue
		}
		// A21 ← A21·L11⁻ᵀ, one ni-wide column block j at a time:
		// A21[:, j] −= X[:, :j]·L11[j, :j]ᵀ, then X[:, j] = A21[:, j]·L_jj⁻ᵀ.
		for j0 := 0; j0 < b; j0 += ni {
			bw := min(j0+ni, b) - j0
			aj := g.view(k+b, k+j0, rest, bw)
			if j0 > 0 {
				if err := o.gemm(ctx, false, true, -1, g.view(k+b, k, rest, j0), g.view(k+j0, k, bw, j0), 1, aj); err != nil {
					return false, err
				}
			}
			iv := dense[T]{rows: bw, cols: bw, stride: bw, data: invs[j0*ni : j0*ni+bw*bw]}
			if err := mulInvT(ctx, o, aj, iv, tmp); err != nil {
				return false, err
			}
		}
		if err := o.syrkLower(ctx, false, -1, g.view(k+b, k, rest, b), 1, g.view(k+b, k+b, rest, rest)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// mulInvT sets a (r×b) to a·ivᵀ for the b×b lower-triangular iv (the
// inverse of a diagonal block's factor), in place when the products can,
// tmp then holding ivᵀ (b·b values: upper triangular, read as op(b)
// without a transpose, whose trailing zeros kernel.Dense skips), else
// through tmp (r·b values) and a copy back: the same sums either way.
func mulInvT[T float32 | float64](ctx context.Context, o blockedOps[T], a, iv dense[T], tmp []T) error {
	if o.gemmInPlace() {
		b := iv.rows
		ivt := dense[T]{rows: b, cols: b, stride: b, data: tmp[:b*b]}
		for i := 0; i < b; i++ {
			for j := 0; j < b; j++ {
				ivt.data[j*b+i] = iv.data[i*iv.stride+j]
			}
		}
		return o.gemm(ctx, false, false, 1, a, ivt, 0, a)
	}
	t := dense[T]{rows: a.rows, cols: a.cols, stride: a.cols, data: tmp[:a.rows*a.cols]}
	if err := o.gemm(ctx, false, true, 1, a, iv, 0, t); err != nil {
		return err
	}
	return copyT(ctx, a, t)
}

// panelPotrfT factors the b×b diagonal block of g at (k, k) by the
// right-looking algorithm with blocks of ni columns: o.potrfDiag on each
// ni-wide diagonal block, whose inverse is stored at invs[j0·ni:] as a
// bw×bw matrix (bw = min(ni, b−j0), row stride bw) for block j0; the rest
// of its block column within the block set to A·L_jj⁻ᵀ with one Gemm
// (through tmp), and its contribution subtracted from the rest of the
// block with one SyrkLower.
func panelPotrfT[T float32 | float64](ctx context.Context, g dense[T], k, b int, o blockedOps[T], ni int, invs, tmp []T) (ok bool, err error) {
	for j0 := 0; j0 < b; j0 += ni {
		bw := min(ni, b-j0)
		if !o.potrfDiag(g, k+j0, bw, invs[j0*ni:j0*ni+bw*bw]) {
			return false, nil
		}
		rest := b - j0 - bw
		if rest == 0 {
			break
		}
		iv := dense[T]{rows: bw, cols: bw, stride: bw, data: invs[j0*ni : j0*ni+bw*bw]}
		a21 := g.view(k+j0+bw, k+j0, rest, bw)
		if err := mulInvT(ctx, o, a21, iv, tmp); err != nil {
			return false, err
		}
		if err := o.syrkLower(ctx, false, -1, a21, 1, g.view(k+j0+bw, k+j0+bw, rest, rest)); err != nil {
			return false, err
		}
	}
	return true, nil
}

// lauumT overwrites the lower triangle of the lower-triangular n×n g with
// that of GᵀG by blocks of wd.outer rows (see Lauum).
func lauumT[T float32 | float64](ctx context.Context, g dense[T], o blockedOps[T], wd widths) error {
	n := g.rows
	if n == 0 {
		return ctx.Err()
	}
	nb := min(wd.outer, n)
	defer o.reserve(n, nb)() // the last product is the largest
	if step := o.lauumRows(); step != nil {
		// The same sums without the panel: the products pack W_r straight
		// from g before overwriting its rows.
		for k0 := 0; k0 < n; k0 += nb {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := step(ctx, g, k0, min(k0+nb, n)); err != nil {
				return err
			}
		}
		return nil
	}
	sb := scratchT[T](nb * n)
	defer putScratch(sb)
	for k0 := 0; k0 < n; k0 += nb {
		if err := ctx.Err(); err != nil {
			return err
		}
		k1 := min(k0+nb, n)
		b := k1 - k0
		panel := dense[T]{rows: b, cols: k1, stride: k1, data: (*sb)[:b*k1]}
		if err := lauumPanel(ctx, g, panel, k0); err != nil {
			return err
		}
		if err := o.syrkLower(ctx, true, 1, panel, 1, g.view(0, 0, k1, k1)); err != nil {
			return err
		}
	}
	return nil
}

// lauumPanel copies W_r, rows k0… of g's lower triangle (row k0+r up to its
// diagonal, zeros after it), into panel (b×k1, k1 = k0+b) and clears those
// elements of g, which then accumulate WᵀW; rows split over the workers.
func lauumPanel[T float32 | float64](ctx context.Context, g, panel dense[T], k0 int) error {
	b, k1 := panel.rows, panel.cols
	rows := max(1, (1<<15)/k1) // ≥ 32k elements a task
	return parallel.For(ctx, (b+rows-1)/rows, 0, func(_, t int) {
		for r := t * rows; r < min(b, (t+1)*rows); r++ {
			row := g.data[(k0+r)*g.stride : (k0+r)*g.stride+k0+r+1]
			dst := panel.data[r*panel.stride : r*panel.stride+k1]
			copy(dst, row)
			clear(dst[len(row):]) // zero above W's diagonal
			clear(row)            // this row is consumed; it starts accumulating WᵀW
		}
	})
}

// panelWidth is the column width of kernel.RowPanels (16 float64) or
// RowPanels32 (32 float32).
func panelWidth[T float32 | float64]() int {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return 32
	}
	return 16
}

// panelRowsTask is the rows of one task of panelRowsT, a multiple of 8
// (the row tile's height).
const panelRowsTask = 64

// panelRowsLen is the length of panelRowsT's buffer for an outer block of
// b columns, inner blocks of ni and panels of pw columns: the packed
// L11[j, :j]ᵀ and L_jj⁻ᵀ of each inner block j.
func panelRowsLen(b, ni, pw int) int {
	n := 0
	for j0 := 0; j0 < b; j0 += ni {
		bw := min(ni, b-j0)
		q := (bw + pw - 1) / pw * pw
		n += q*j0 + q*bw
	}
	return n
}

// colPanelsOf is panelsOf with the two operations panelRowsT adds: a
// transposed pack and a view of some panels' columns.
type colPanelsOf[T float32 | float64, P any] interface {
	panelsOf[T, P]
	packTrans(b dense[T])
	colsOf(c0, c1 int) P
}

func (p panels64) packTrans(b dense[float64]) { p.PackTrans(b.g64()) }
func (p panels64) colsOf(c0, c1 int) panels64 { return panels64{p.Cols(c0, c1)} }
func (p panels32) packTrans(b dense[float32]) { p.PackTrans(b.g32()) }
func (p panels32) colsOf(c0, c1 int) panels32 { return panels32{p.Cols(c0, c1)} }

// panelRowsT is potrf's panel solve A21 ← A21·L11⁻ᵀ for the rest×b panel
// below the diagonal block of g at (k, k), on the row tiles of
// kernel.RowPanels (P: panels64, panels32), which read A21's rows in place
// (the products' Gemm packs them, once per inner block and product). It
// computes the sums of blockedPotrfT's Gemms bit for bit: for each inner
// block j of ni columns, X_j −= X[:, :j]·L11[j, :j]ᵀ (each element the sum
// over p ascending from zero, subtracted: c − Σ a·b is the Gemm's
// c + Σ (−a)·b, as round to nearest is odd), then X_j ← X_j·L_jj⁻ᵀ (the
// sum over p ascending up to the end of the element's column panel, where
// the Gemm's tiles stop at the trailing zeros of L_jj⁻ᵀ's panels: the same
// terms, the rest exact zeros, stored). On AVX-512 at M = 10,000 this took
// a third less CPU time than the Gemms, which pack A21's rows once per
// inner block and product (docs/performance.md). L11[j, :j]ᵀ and L_jj⁻ᵀ (invs, as
// panelPotrfT left them) are packed first; then each task of
// panelRowsTask rows runs every inner block on its rows, which stay in
// cache, the product by L_jj⁻ᵀ in place column panel by column panel from
// the last (panel q reads the columns up to its own, which the panels
// after it do not overwrite; each call takes a multiple of 8 rows or fewer
// than 8, so that no tile reads rows another has stored). Results do not
// depend on the workers.
func panelRowsT[T float32 | float64, P colPanelsOf[T, P]](ctx context.Context, g dense[T], k, b, ni int, invs, buf []T, workers int) error {
	rest := g.rows - k - b
	pw := panelWidth[T]()
	var zero P
	nj := (b + ni - 1) / ni
	upd, inv := make([]P, nj), make([]P, nj)
	for j := range nj {
		j0 := j * ni
		bw := min(ni, b-j0)
		if j0 > 0 {
			n := zero.length(j0, bw)
			upd[j] = zero.make(j0, bw, buf[:n])
			upd[j].packTrans(g.view(k+j0, k, bw, j0))
			buf = buf[n:]
		}
		n := zero.length(bw, bw)
		inv[j] = zero.make(bw, bw, buf[:n])
		inv[j].packTrans(dense[T]{rows: bw, cols: bw, stride: bw, data: invs[j0*ni : j0*ni+bw*bw]})
		buf = buf[n:]
	}
	return parallel.For(ctx, (rest+panelRowsTask-1)/panelRowsTask, workers, func(_, t int) {
		r0 := k + b + t*panelRowsTask
		m := min(panelRowsTask, k+b+rest-r0)
		// Row groups of each call: a multiple of 8, then the rest.
		groups := [2][2]int{{r0, m / 8 * 8}, {r0 + m/8*8, m % 8}}
		for j := range nj {
			j0 := j * ni
			bw := min(ni, b-j0)
			if j0 > 0 {
				upd[j].mulRows(g.view(r0, k+j0, m, bw), g.view(r0, k, m, j0), true)
			}
			for q := (bw+pw-1)/pw - 1; q >= 0; q-- {
				c0, c1 := q*pw, min(q*pw+pw, bw)
				pq := inv[j].colsOf(c0, c1).rowsOf(0, c1)
				for _, gr := range groups {
					if gr[1] > 0 {
						pq.mulRows(g.view(gr[0], k+j0+c0, gr[1], c1-c0), g.view(gr[0], k+j0, gr[1], c1), false)
					}
				}
			}
		}
	})
}
