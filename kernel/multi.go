package kernel

//go:generate go run ./internal/asmmulti -out multi_amd64.s -stubs multi_stub_amd64.go -pkg kernel

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The multi-output products (K_B·V, K_Bᵀ·U and K_Bᵀ(K_B·V) with V of t > 1
// columns: multi-class FALKON, Nyström feature maps, validation and
// predictions) on AVX-512 or AVX2 with dense C and dense (or dense-expanded) X read each block of K where the
// engine formed it, row-major with the padded stride mp, with register
// tiles (kernel/internal/asmmulti): on AVX-512 two 8×16 tiles,
// rowsPanel8x16AVX512 for eight rows of K times a panel of 16 columns of V,
// colsPanel8x16AVX512 for eight columns of K (centers) times a panel of 16
// columns of K_B·V; on AVX2 6×8 tiles (12 of the 16 ymm registers
// accumulate; 4×8 and 2×8 at the edges) on each half of a panel, which give
// the same bits as the AVX-512 tiles (same FMA chain per element). V is packed
// once per call as ⌈t/16⌉ panels [mp][16] (zero-padded), and the sums are
// kept in the same layout. The generic path (gemmBlock) packed each block of
// K twice, once transposed: on mnist (60,000 × 784, M = 5,000, t = 10) the
// packing took two thirds of the products' time and the products 15% of
// the fit. Every element is summed in a fixed order (p ascending within a
// tile, blocks within a segment, segments in order), so results do not
// depend on the number of workers.

// multiPanel is the number of right-hand sides one tile covers.
const multiPanel = 16

// panelsFor reports whether the Op's products with t right-hand sides run
// on the panel tiles: those of plan.panels, and any t ≥ 1 once blocks of K
// are kept (Keep32, Keep64), which only the panel path reads.
func (o *Op) panelsFor(p *plan, t int) bool {
	return p.panels(t) || o.kept.rows > 0 && t >= 1
}

// panels reports whether products with t right-hand sides run on the
// panel tiles: t > 1, AVX-512 or AVX2, dense C, and X dense or sparse with
// its row blocks expanded to dense (so that a fit on CSR does the dense
// fit's arithmetic there, as it does for one right-hand side).
func (p *plan) panels(t int) bool {
	return t > 1 && useAccel != accelPortable && (p.sp == nil || p.sp.dense) && p.sc == nil && p.m > 0
}

// panelKVCols is the width per row of the per-worker K·V scratch (w.kv,
// b·panelKVCols values) that holds one panel of a block of b rows rounded
// up to the tile height: ⌈roundUp(b, 8)·16 / b⌉.
func panelKVCols(b int) int {
	return (roundUp(b, panelRows)*multiPanel + b - 1) / b
}

// panelBytes is what the panel path allocates per call besides the works:
// the packed V (⌈t/16⌉·16·mp values) and the partial sums in the same
// layout, one per segment.
func panelBytes(seg, mp int64, t int) int64 {
	tp := int64(roundUp(t, multiPanel))
	return 8 * (seg + 1) * mp * tp
}

// panelScratchBytes is ScratchBytes when products with t right-hand sides
// run on the panel tiles (ok): the norms and packed C, the packed V and
// the panel-shaped partial sums, one work per worker with its K·V panel,
// and no packing buffers.
func (o *Op) panelScratchBytes(t int) (int64, bool) {
	sh := o.shape()
	if !sh.panels(t) {
		return 0, false
	}
	n, _ := o.Dims()
	b := o.BlockRows()
	mp, d := int64(sh.mp), int64(sh.d)
	seg := int64(segments((n+b-1)/b, int(mp)*roundUp(t, multiPanel)))
	s := 8*(mp*(d+2)+int64(n)) + panelBytes(seg, mp, t) + o.scratchWorkers()*sh.workBytes(useAccel, b, panelKVCols(b)) + callBytes
	if t <= keptMaxT(useAccel) && sh.keepable() {
		// With blocks kept, products with few right-hand sides run on
		// the kept float32 values instead (multi_kept.go).
		s = max(s, o.keptScratchBytes(t))
	}
	return s, true
}

// packPanels returns the M×t matrix v as ⌈t/16⌉ panels [mp][16], zero past
// row M and column t.
func (p *plan) packPanels(v blas64.General) []float64 {
	np := (v.Cols + multiPanel - 1) / multiPanel
	out := make([]float64, np*p.mp*multiPanel)
	for i := range p.m {
		for c, x := range v.Data[i*v.Stride : i*v.Stride+v.Cols] {
			out[(c/multiPanel)*p.mp*multiPanel+i*multiPanel+c%multiPanel] = x
		}
	}
	return out
}

// rowsTimesPanel sets kv[i·16+s] = Σ_j blk[i·mp+j]·vq[j·16+s] for the rows
// i of the block rounded up to the tile height (the block's padding rows of
// K are finite, their results unused).
func (p *plan) rowsTimesPanel(blk []float64, rows int, vq, kv []float64) {
	if useAccel == accelAVX2 {
		p.rowsTimesPanelAVX2(blk, roundUp(rows, panelRows), vq, kv)
		return
	}
	for ip := 0; ip < rows; ip += panelRows {
		rowsPanel8x16AVX512(p.mp, &blk[ip*p.mp], p.mp, &vq[0], &kv[ip*multiPanel])
	}
}

// rowsTimesPanelAVX2 is rowsTimesPanel on the AVX2 tiles: six rows at a
// time (then four or two: rows is a multiple of 8), each row group times
// both halves of the panel while its rows of K are in cache.
func (p *plan) rowsTimesPanelAVX2(blk []float64, rows int, vq, kv []float64) {
	for i := 0; i < rows; {
		tile := rowsPanel6x8AVX2
		n := min(6, rows-i)
		switch n {
		case 4:
			tile = rowsPanel4x8AVX2
		case 2:
			tile = rowsPanel2x8AVX2
		}
		for h := 0; h < multiPanel; h += multiPanel / 2 {
			tile(p.mp, &blk[i*p.mp], p.mp, &vq[h], &kv[i*multiPanel+h])
		}
		i += n
	}
}

// colsTimesPanel adds Σ_i blk[i·mp+j]·u[i·16+s] over the block's rows to
// acc[j·16+s], for j < mp.
func (p *plan) colsTimesPanel(blk []float64, rows int, u, acc []float64) {
	if useAccel == accelAVX2 {
		p.colsTimesPanelAVX2(blk, rows, u, acc)
		return
	}
	for jp := 0; jp < p.mp; jp += panelRows {
		colsPanel8x16AVX512(rows, &blk[jp], p.mp, &u[0], &acc[jp*multiPanel])
	}
}

// colsTimesPanelAVX2 is colsTimesPanel on the AVX2 tiles: six centers at a
// time (then four or two: mp is a multiple of 16), each center group times
// both halves of the panel.
func (p *plan) colsTimesPanelAVX2(blk []float64, rows int, u, acc []float64) {
	for j := 0; j < p.mp; {
		tile := colsPanel6x8AVX2
		n := min(6, p.mp-j)
		switch n {
		case 4:
			tile = colsPanel4x8AVX2
		case 2:
			tile = colsPanel2x8AVX2
		}
		for h := 0; h < multiPanel; h += multiPanel / 2 {
			tile(rows, &blk[j], p.mp, &u[h], &acc[j*multiPanel+h])
		}
		j += n
	}
}

// weighPanel multiplies row i < rows of the panel product kv ([rows][16])
// by wt[r0+i]; nothing for nil wt.
func weighPanel(kv, wt []float64, r0, rows int) {
	if wt == nil {
		return
	}
	for i := range rows {
		scaleBy(kv[i*multiPanel:(i+1)*multiPanel], wt[r0+i])
	}
}

// gatherPanels sets dst (M×t) to the sum, in segment order, of the partials
// held as panels [mp][16].
func (p *plan) gatherPanels(dst *mat.Dense, partial [][]float64) {
	rd := dst.RawMatrix()
	for i := range p.m {
		row := rd.Data[i*rd.Stride : i*rd.Stride+rd.Cols]
		clear(row)
		for _, s := range partial {
			for c := range row {
				row[c] += s[(c/multiPanel)*p.mp*multiPanel+i*multiPanel+c%multiPanel]
			}
		}
	}
}

// keptBlocks is the blocks of K an Op keeps, in float32 (Keep32, data) or
// float64 (Keep64, data64): the first rows rows of X (a whole number of
// blocks, or all of X), block after block, each (r1−r0)×mp row-major with
// the padding columns. data64 holds panelRows rows of zeros more, which
// the row tiles read past a last block of fewer rows (rowsTimesPanel reads
// its rows rounded up to the tile height).
type keptBlocks struct {
	rows   int
	data   []float32
	data64 []float64
}

// keepable reports whether the Op can keep blocks of K: the panel tiles'
// conditions (AVX-512 or AVX2, dense C, dense or dense-expanded X).
func (p *plan) keepable() bool { return p.panels(2) }

// KeepRows returns how many rows of K(X, C) Keep32 would keep within
// maxBytes (a whole number of blocks, 4·mp bytes a row, mp = M rounded up
// to the panel width), 0 when the Op cannot keep blocks (it needs
// AVX-512 or AVX2, dense centers and dense or dense-expanded X).
func (o *Op) KeepRows(maxBytes int64) int { return o.keepRows(maxBytes, 4) }

// KeepRows64 is KeepRows for Keep64 (8·mp bytes a row, and 8·mp·panelRows
// for its padding).
func (o *Op) KeepRows64(maxBytes int64) int {
	return o.keepRows(maxBytes-o.keepBytes(panelRows, 8), 8)
}

// keepRows is KeepRows with size bytes a value (maxBytes net of any
// padding).
func (o *Op) keepRows(maxBytes int64, size int) int {
	sh := o.shape()
	if !sh.keepable() || maxBytes <= 0 {
		return 0
	}
	n, _ := o.Dims()
	if maxBytes >= o.keepBytes(n, size) {
		return n
	}
	b := o.BlockRows()
	blocks := maxBytes / (int64(size) * int64(sh.mp) * int64(b))
	return int(min(int64(n), blocks*int64(b)))
}

// KeepBytes is the memory Keep32 takes to keep the first rows rows.
func (o *Op) KeepBytes(rows int) int64 { return o.keepBytes(rows, 4) }

// KeepBytes64 is the memory Keep64 takes to keep the first rows rows (with
// its rows of padding).
func (o *Op) KeepBytes64(rows int) int64 { return o.keepBytes(rows+panelRows, 8) }

// keepBytes is size·mp bytes for each of rows rows.
func (o *Op) keepBytes(rows, size int) int64 {
	return int64(size) * int64(rows) * int64(o.shape().mp)
}

// Keep32 forms the blocks of K(X, C) for the first KeepRows(maxBytes) rows
// once and keeps them in float32; every later product (Mul, MulT, MulTMul,
// any number of right-hand sides) reads those blocks, widened to float64
// (in registers, four rows at a time, with up to 8 right-hand sides, 10 on
// AVX2; else block by block for the panel tiles), instead of forming them
// again, and forms the other rows' as usual. It
// returns the rows kept (0: nothing kept, the Op unchanged). The kept
// values are the formed ones rounded to float32 (relative error ≤ 2^−24),
// so products differ from the recomputing Op's by about that; the sums
// are in float64 and in the same fixed order whatever the workers. Call
// it once, before the products (not concurrently with them). With blocks
// kept, products with t right-hand sides take at most ScratchBytes(max(t, 2)).
func (o *Op) Keep32(ctx context.Context, maxBytes int64) (int, error) {
	rows, data, err := keepBlocks[float32](ctx, o, "Keep32", o.KeepRows(maxBytes), 0)
	if err != nil || rows == 0 {
		return 0, err
	}
	o.kept = keptBlocks{rows: rows, data: data}
	return rows, nil
}

// Keep64 is Keep32 in float64: the first KeepRows64(maxBytes) rows of K
// are kept as formed. Later products with up to kept64MaxT (6) right-hand
// sides read the kept rows four at a time, as Keep32's do (keptRows64);
// with more they run on the panel tiles over them, and then K·V is the
// recomputing Op's bit for bit, and so are Kᵀ·U and Kᵀ(K·V) while a block
// is no larger than one sub-block (keptSubBytes); a larger block's column
// sums are added sub-block by sub-block, which changes their rounding, and
// few right-hand sides differ from the recomputing Op by round-off too. The sums are in a
// fixed order whatever the workers. Forming a block costs about 2d flops an element, reading a
// kept one 8 bytes: at mnist's d = 784 a fit's passes were several times
// faster kept (docs/performance.md, "Falkon's K_nM kept in float64").
func (o *Op) Keep64(ctx context.Context, maxBytes int64) (int, error) {
	rows, data, err := keepBlocks[float64](ctx, o, "Keep64", o.KeepRows64(maxBytes), panelRows)
	if err != nil || rows == 0 {
		return 0, err
	}
	o.kept = keptBlocks{rows: rows, data64: data}
	return rows, nil
}

// keepBlocks forms the blocks of K for the first rows rows (none for 0),
// each stored at its rows' place in a slice of rows+pad rows of mp values
// (the pad rows zero), for Keep32 or Keep64 (named op in errors).
func keepBlocks[T float32 | float64](ctx context.Context, o *Op, op string, rows, pad int) (int, []T, error) {
	if err := o.ready(ctx, op); err != nil {
		return 0, nil, err
	}
	if rows == 0 {
		return 0, nil, nil
	}
	p := o.prepare()
	b := o.BlockRows()
	data := make([]T, (rows+pad)*p.mp)
	nb := (rows + b - 1) / b
	ws := make([]*work, parallel.Workers(o.opt.Workers))
	defer putWorks(ws)
	err := parallel.For(ctx, nb, len(ws), func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, rows)
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, 0)
		}
		kb := p.kernelBlock(ws[worker], r0, r1)
		for i, v := range kb.Data[:(r1-r0)*p.mp] {
			data[r0*p.mp+i] = T(v)
		}
	})
	if err != nil {
		return 0, nil, err
	}
	return rows, data, nil
}

// block returns K(X[r0:r1], C) (stride mp): the kept float64 values
// themselves, or widened into w.blk from the kept float32 ones, when the
// block is kept; formed in w.blk otherwise.
func (o *Op) block(p *plan, w *work, r0, r1 int) blas64.General {
	switch {
	case r1 > o.kept.rows:
		return p.kernelBlock(w, r0, r1)
	case o.kept.data64 != nil:
		return blas64.General{Rows: r1 - r0, Cols: p.m, Stride: p.mp, Data: o.kept.data64[r0*p.mp:]}
	}
	widen32(w.blk, o.kept.data[r0*p.mp:r1*p.mp])
	return blas64.General{Rows: r1 - r0, Cols: p.m, Stride: p.mp, Data: w.blk}
}

// keptSubBytes is the size of the sub-blocks the panel products run a block
// kept in float64 in (keptStep), so that it stays in L2 (or close by) while
// the row tiles and then the column tiles read it: a kept block is as large
// as the engine forms, about 8 MiB at d = 784. mnist's FALKON fit (60,000
// × 780, M = 1,225, 10 outputs, K_nM kept; machine F, AVX2 EPYC, one or
// two runs each) took 10.5 s in whole blocks, 7.5–8.3 s in sub-blocks of 256 KiB to
// 1 MiB (no trend within the noise), 8.1 s at 64 KiB, 8.3 s at 2 MiB. A
// variable so that tests can make sub-blocks of one tile.
var keptSubBytes = 512 << 10

// keptStep returns the rows of the sub-blocks in which the panel products
// run the block ending at row r1: a whole block (r1 − r0 ≤ BlockRows)
// unless it is kept in float64, then keptSubBytes of it (a multiple of the
// tile height).
func (o *Op) keptStep(p *plan, r1 int) int {
	if o.kept.data64 == nil || r1 > o.kept.rows {
		return o.BlockRows()
	}
	return max(panelRows, keptSubBytes/(8*p.mp)/panelRows*panelRows)
}

// widen32 sets dst[i] = float64(src[i]) (exact) for i < len(src), sixteen
// values at a time on the SIMD paths: the Go loop took 0.53 ns a value on
// a kept block of 128 × 5,008, as much as the tiles' products with ten
// right-hand sides over it.
func widen32(dst []float64, src []float32) {
	n := len(src) &^ 15
	switch {
	case n == 0:
	case useAccel == accelAVX512:
		widenAVX512(&dst[0], &src[0], n)
	case useAccel == accelAVX2:
		widenAVX2(&dst[0], &src[0], n)
	default:
		n = 0
	}
	dst = dst[:len(src)]
	for i := n; i < len(src); i++ {
		dst[i] = float64(src[i])
	}
}

// mulTMulPanels is MulTMul on the panel tiles, with the row weights wt
// (nil: none) applied to K_B·V's rows between the two products.
func (o *Op) mulTMulPanels(ctx context.Context, dst *mat.Dense, v blas64.General, wt []float64) error {
	if o.keptSmall(v.Cols) {
		return o.mulTMulKept(ctx, dst, v, wt)
	}
	p := o.prepare()
	vp := p.packPanels(v)
	width := len(vp)
	partial, sums, err := o.segmentSums(ctx, width, panelKVCols(o.BlockRows()), func(w *work, r0, r1 int, acc []float64) {
		kb := o.block(p, w, r0, r1)
		step := o.keptStep(p, r1)
		for s0 := 0; s0 < r1-r0; s0 += step {
			rows := min(step, r1-r0-s0)
			sub := kb.Data[s0*p.mp:]
			kv := w.kv[:roundUp(rows, panelRows)*multiPanel]
			for q := 0; q < width; q += p.mp * multiPanel {
				p.rowsTimesPanel(sub, rows, vp[q:], kv)
				weighPanel(kv, wt, r0+s0, rows)
				p.colsTimesPanel(sub, rows, kv, acc[q:])
			}
		}
	})
	defer sumsSlot.Put(sums)
	if err != nil {
		return err
	}
	p.gatherPanels(dst, partial)
	return nil
}

// mulTPanels is MulT on the panel tiles: each block's rows of U are copied
// into the worker's panel scratch, 16 columns at a time.
func (o *Op) mulTPanels(ctx context.Context, dst *mat.Dense, u blas64.General) error {
	if o.keptSmall(u.Cols) {
		return o.mulTKept(ctx, dst, u)
	}
	p := o.prepare()
	np := (u.Cols + multiPanel - 1) / multiPanel
	partial, sums, err := o.segmentSums(ctx, np*p.mp*multiPanel, panelKVCols(o.BlockRows()), func(w *work, r0, r1 int, acc []float64) {
		kb := o.block(p, w, r0, r1)
		step := o.keptStep(p, r1)
		for s0 := 0; s0 < r1-r0; s0 += step {
			rows, i0 := min(step, r1-r0-s0), r0+s0
			up := w.kv[:rows*multiPanel]
			for q := range np {
				c0, c1 := q*multiPanel, min((q+1)*multiPanel, u.Cols)
				clear(up)
				for i := range rows {
					copy(up[i*multiPanel:], u.Data[(i0+i)*u.Stride+c0:(i0+i)*u.Stride+c1])
				}
				p.colsTimesPanel(kb.Data[s0*p.mp:], rows, up, acc[q*p.mp*multiPanel:])
			}
		}
	})
	defer sumsSlot.Put(sums)
	if err != nil {
		return err
	}
	p.gatherPanels(dst, partial)
	return nil
}

// mulPanels is Mul on the panel tiles: each block's rows of K·V are formed
// 16 columns at a time and copied into dst.
func (o *Op) mulPanels(ctx context.Context, dst *mat.Dense, v blas64.General) error {
	if o.keptSmall(v.Cols) {
		return o.mulKept(ctx, dst, v)
	}
	p := o.prepare()
	vp := p.packPanels(v)
	n, _ := o.Dims()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	ws := make([]*work, parallel.Workers(o.opt.Workers))
	defer putWorks(ws)
	rd := dst.RawMatrix()
	return parallel.For(ctx, nb, len(ws), func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, panelKVCols(b))
		}
		w := ws[worker]
		kb := o.block(p, w, r0, r1)
		rows := r1 - r0
		kv := w.kv[:roundUp(rows, panelRows)*multiPanel]
		for c0 := 0; c0 < v.Cols; c0 += multiPanel {
			p.rowsTimesPanel(kb.Data, rows, vp[(c0/multiPanel)*p.mp*multiPanel:], kv)
			c1 := min(c0+multiPanel, v.Cols)
			for i := range rows {
				copy(rd.Data[(r0+i)*rd.Stride+c0:(r0+i)*rd.Stride+c1], kv[i*multiPanel:i*multiPanel+c1-c0])
			}
		}
	})
}
