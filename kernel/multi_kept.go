package kernel

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Products with few right-hand sides (t ≤ keptMaxT: 8 or 10) on kept float32 blocks
// of K (Keep32). The panel tiles would run them on V padded to 16 columns,
// 16/t times the arithmetic, and widen each block to float64 first; a kept
// product with t = 1 reads 4 bytes of K per element and does 2 FMAs for
// K_B·v and 2 for K_Bᵀ·u, so it is bound by memory. Here each kept block is
// read as float32 four rows at a time, widened in registers: keptDot4* the
// four rows' dots with a column of V, keptAxpy4* acc += Σ_r kv_r·K_r for a
// column, all t columns while the four rows are in cache. Blocks that are
// not kept are formed and run on the panel tiles as before. Each block's sums
// are in a fixed order (lanes, then rows in fours), and the blocks are
// summed in segments (segmentSums), so the results do not depend on the
// number of workers. Blocks kept in float64 (Keep64) take the same path
// for t ≤ kept64MaxT, their rows read as they are (keptRows64).

// keptMaxT is the most right-hand sides the kept products take here rather
// than on the panel tiles, for the SIMD path acc. On the EPYC Zen 4
// (BenchmarkMulTMulKept, M = 2,000, CPU ms per product, loaded machine)
// the tiles took 33 (AVX-512) and 36–39 (AVX2) for any t ≤ 16; here t = 1
// took 8, t = 8 27 (AVX-512) and 24 (AVX2), t = 10 35 (AVX-512) and 30
// (AVX2), t = 12 37 (AVX2): docs/performance.md.
func keptMaxT(acc accel) int {
	if acc == accelAVX2 {
		return 10
	}
	return 8
}

// kept64MaxT is the most right-hand sides the kept products take here on
// blocks kept in float64 (Keep64) rather than on the panel tiles, which pad
// V to 16 columns; a variable so that BenchmarkMulTMulKept64 can compare
// the two.
var kept64MaxT = 6

// keptSmall reports whether a product with t right-hand sides runs here:
// t ≤ keptMaxT on blocks kept in float32, t ≤ kept64MaxT on blocks kept
// in float64.
func (o *Op) keptSmall(t int) bool {
	switch {
	case t < 1 || o.kept.rows == 0:
		return false
	case o.kept.data != nil:
		return t <= keptMaxT(useAccel)
	}
	return o.kept.data64 != nil && t <= min(kept64MaxT, keptMaxT(useAccel))
}

// keptRowsAt runs keptRows (or keptRows64) on the kept rows [r0, r1).
func (o *Op) keptRowsAt(acc accel, mp, r0, r1, t int, vc, kv, y, wt []float64) {
	if o.kept.data64 != nil {
		keptRows64(o.kept.data64[r0*mp:r1*mp], r1-r0, mp, t, vc, kv, y, wt)
		return
	}
	keptRows(acc, o.kept.data[r0*mp:r1*mp], r1-r0, mp, t, vc, kv, y, wt)
}

// keptRows64 is keptRows on rows kept in float64: four rows at a time, for
// each column their dots with V (RowDots's kernels) and then, while they
// are in cache, their sum into y (RowAxpys's), in a fixed order. A last
// group of fewer than four rows takes RowAxpys's Go loop.
func keptRows64(a []float64, rows, mp, t int, vc, kv, y, wt []float64) {
	for i := 0; i < rows; i += 4 {
		n := min(4, rows-i)
		blk := a[i*mp : (i+n)*mp]
		for c := range t {
			out := kv[c*rows+i : c*rows+i+n]
			if vc != nil {
				RowDots(out, blk, mp, vc[c*mp:(c+1)*mp])
			}
			if y != nil {
				var s [4]float64
				copy(s[:n], out)
				if wt != nil {
					for r := range n {
						s[r] *= wt[i+r]
					}
				}
				RowAxpys(y[c*mp:(c+1)*mp], s[:n], blk, mp)
			}
		}
	}
}

// keptScratchBytes is what a product with t right-hand sides here allocates
// at most (ScratchBytes counts it whenever it could run here, blocks kept or
// not): the norms and packed C, V column-major and as a panel, the partial
// sums of segmentSums (t columns and a panel each: the count of segments
// times their size only grows with the size) and one work per worker with
// its K·V scratch.
func (o *Op) keptScratchBytes(t int) int64 {
	sh := o.shape()
	n, _ := o.Dims()
	b := o.BlockRows()
	mp, d := int64(sh.mp), int64(sh.d)
	size := int64(t+multiPanel) * mp
	seg := int64(segments((n+b-1)/b, int(size)))
	return 8*(mp*(d+2)+int64(n)) + 8*(int64(t)*mp+seg*size) + panelBytes(0, mp, 1) +
		o.scratchWorkers()*sh.workBytes(useAccel, b, t+panelKVCols(b)) + callBytes
}

// keptRows does, for the rows < rows of a (stride mp, a multiple of 16) and
// the columns c < t: when vc is not nil, kv[c·rows+i] = Σ_j
// float64(a[i·mp+j])·vc[c·mp+j] (V column-major, padded to mp); when y is
// not nil, y[c·mp+j] += Σ_i kv[c·rows+i]·wt[i]·float64(a[i·mp+j]) (wt nil:
// weights 1; kv keeps the unweighted values). Four rows at a time, all
// columns while they are in cache, in a fixed order.
func keptRows(acc accel, a []float32, rows, mp, t int, vc, kv, y, wt []float64) {
	if acc == accelPortable {
		for i := range rows {
			row := a[i*mp : (i+1)*mp]
			for c := range t {
				if vc != nil {
					var s float64
					for j, x := range row {
						s += float64(x) * vc[c*mp+j]
					}
					kv[c*rows+i] = s
				}
				if y != nil {
					s, yc := kv[c*rows+i], y[c*mp:(c+1)*mp]
					if wt != nil {
						s *= wt[i]
					}
					for j, x := range row {
						yc[j] += s * float64(x)
					}
				}
			}
		}
		return
	}
	lanes := 8
	if acc == accelAVX2 {
		lanes = 4
	}
	var l [32]float64
	for i := 0; i < rows; {
		n, lda := 4, mp
		if rows-i < 4 {
			// The last rows one at a time (lda 0: the row four times).
			n, lda = 1, 0
		}
		for c := range t {
			if vc != nil {
				keptDot4(acc, mp, &a[i*mp], lda, &vc[c*mp], &l[0])
				for r := range n {
					var s float64
					for _, x := range l[8*r : 8*r+lanes] {
						s += x
					}
					kv[c*rows+i+r] = s
				}
			}
			if y != nil {
				var s [4]float64 // one row: the other coefficients zero, fma(0, x, y) = y
				copy(s[:n], kv[c*rows+i:])
				if wt != nil {
					for r := range n {
						s[r] *= wt[i+r]
					}
				}
				keptAxpy4(acc, mp, &s, &a[i*mp], lda, &y[c*mp])
			}
		}
		i += n
	}
}

// keptDot4 and keptAxpy4 call the kernel of the SIMD path acc directly
// (not through a func value), so that its //go:noescape keeps the caller's
// lanes and coefficients on the stack: a product allocated 32 bytes for
// every four rows before (2,669 allocations a product at n = 10,000, t = 1).
func keptDot4(acc accel, k int, a *float32, lda int, v, out *float64) {
	if acc == accelAVX2 {
		keptDot4AVX2(k, a, lda, v, out)
		return
	}
	keptDot4AVX512(k, a, lda, v, out)
}

func keptAxpy4(acc accel, k int, s *[4]float64, a *float32, lda int, y *float64) {
	if acc == accelAVX2 {
		keptAxpy4AVX2(k, s, a, lda, y)
		return
	}
	keptAxpy4AVX512(k, s, a, lda, y)
}

// keptCall is the state of one product on an Op with kept blocks and
// t ≤ keptMaxT right-hand sides. The blocks not kept (formed: some are)
// run as on the panel tiles, on V packed as one panel; the partial sums of
// a segment are then the kept blocks' t columns (column-major, t·mp) and
// the formed blocks' panel ([mp][16]).
type keptCall struct {
	p      *plan
	t      int
	formed bool
	vc, vp []float64 // V column-major (padded to mp) and as one panel; nil for MulT
}

func (o *Op) keptCall(v *blas64.General, t int) *keptCall {
	p := o.prepare()
	n, _ := o.Dims()
	k := &keptCall{p: p, t: t, formed: o.kept.rows < n}
	if v != nil {
		k.vc = p.columns(*v)
		if k.formed {
			k.vp = p.packPanels(*v)
		}
	}
	return k
}

// size is the length of a segment's partial sums and kvCols the width of
// the per-worker K·V scratch: t columns, and a panel's for formed blocks.
func (k *keptCall) size() int {
	if k.formed {
		return (k.t + multiPanel) * k.p.mp
	}
	return k.t * k.p.mp
}

func (k *keptCall) kvCols(b int) int {
	if k.formed {
		return k.t + panelKVCols(b)
	}
	return k.t
}

// dots sets kv[c·rows+i] = (K·V)[r0+i][c] for the block [r0, r1): from the
// kept values, or (formed) the panel tiles' K_B·V in the panel scratch
// after kv, which it returns (nil for a kept block).
func (k *keptCall) dots(o *Op, w *work, r0, r1 int) (kv, kb, kvp []float64) {
	p, rows := k.p, r1-r0
	kv = w.kv[:rows*k.t]
	if r1 <= o.kept.rows {
		o.keptRowsAt(w.acc, p.mp, r0, r1, k.t, k.vc, kv, nil, nil)
		return kv, nil, nil
	}
	kb = p.kernelBlock(w, r0, r1).Data
	kvp = w.kv[rows*k.t : rows*k.t+roundUp(rows, panelRows)*multiPanel]
	p.rowsTimesPanel(kb, rows, k.vp, kvp)
	return kv, kb, kvp
}

// gather sets dst (M×t) to the sum, in segment order, of the partials.
func (k *keptCall) gather(dst *mat.Dense, partial [][]float64) {
	p, t := k.p, k.t
	rd := dst.RawMatrix()
	for j := range p.m {
		row := rd.Data[j*rd.Stride : j*rd.Stride+t]
		clear(row)
		for _, s := range partial {
			for c := range row {
				row[c] += s[c*p.mp+j]
			}
			if k.formed {
				for c := range row {
					row[c] += s[t*p.mp+j*multiPanel+c]
				}
			}
		}
	}
}

// columns returns the M×t matrix v column-major, each column padded with
// zeros to mp.
func (p *plan) columns(v blas64.General) []float64 {
	vc := make([]float64, v.Cols*p.mp)
	for j := range p.m {
		for c, x := range v.Data[j*v.Stride : j*v.Stride+v.Cols] {
			vc[c*p.mp+j] = x
		}
	}
	return vc
}

// mulTMulKept is MulTMul with t ≤ keptMaxT(useAccel) right-hand sides on an
// Op with kept blocks, with the row weights wt (nil: none) applied to K·V's
// rows between the two products.
func (o *Op) mulTMulKept(ctx context.Context, dst *mat.Dense, v blas64.General, wt []float64) error {
	k := o.keptCall(&v, v.Cols)
	p, t := k.p, k.t
	partial, sums, err := o.segmentSums(ctx, k.size(), k.kvCols(o.BlockRows()), func(w *work, r0, r1 int, acc []float64) {
		rows := r1 - r0
		if r1 <= o.kept.rows {
			kv := w.kv[:rows*t]
			var wb []float64
			if wt != nil {
				wb = wt[r0:r1]
			}
			o.keptRowsAt(w.acc, p.mp, r0, r1, t, k.vc, kv, acc[:t*p.mp], wb)
			return
		}
		_, kb, kvp := k.dots(o, w, r0, r1)
		weighPanel(kvp, wt, r0, rows)
		p.colsTimesPanel(kb, rows, kvp, acc[t*p.mp:])
	})
	defer sumsSlot.Put(sums)
	if err != nil {
		return err
	}
	k.gather(dst, partial)
	return nil
}

// mulTKept is MulT with t ≤ keptMaxT(useAccel) right-hand sides on an Op
// with kept blocks.
func (o *Op) mulTKept(ctx context.Context, dst *mat.Dense, u blas64.General) error {
	k := o.keptCall(nil, u.Cols)
	p, t := k.p, k.t
	partial, sums, err := o.segmentSums(ctx, k.size(), k.kvCols(o.BlockRows()), func(w *work, r0, r1 int, acc []float64) {
		rows := r1 - r0
		if r1 <= o.kept.rows {
			kv := w.kv[:rows*t]
			for i := range rows {
				for c, x := range u.Data[(r0+i)*u.Stride : (r0+i)*u.Stride+t] {
					kv[c*rows+i] = x
				}
			}
			o.keptRowsAt(w.acc, p.mp, r0, r1, t, nil, kv, acc[:t*p.mp], nil)
			return
		}
		kb := p.kernelBlock(w, r0, r1).Data
		up := w.kv[rows*t : rows*t+rows*multiPanel]
		clear(up)
		for i := range rows {
			copy(up[i*multiPanel:], u.Data[(r0+i)*u.Stride:(r0+i)*u.Stride+t])
		}
		p.colsTimesPanel(kb, rows, up, acc[t*p.mp:])
	})
	defer sumsSlot.Put(sums)
	if err != nil {
		return err
	}
	k.gather(dst, partial)
	return nil
}

// mulKept is Mul with t ≤ keptMaxT(useAccel) right-hand sides on an Op with
// kept blocks.
func (o *Op) mulKept(ctx context.Context, dst *mat.Dense, v blas64.General) error {
	k := o.keptCall(&v, v.Cols)
	p, t := k.p, k.t
	n, _ := o.Dims()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	ws := make([]*work, parallel.Workers(o.opt.Workers))
	defer putWorks(ws)
	rd := dst.RawMatrix()
	return parallel.For(ctx, nb, len(ws), func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, k.kvCols(b))
		}
		rows := r1 - r0
		kv, _, kvp := k.dots(o, ws[worker], r0, r1)
		for i := range rows {
			out := rd.Data[(r0+i)*rd.Stride : (r0+i)*rd.Stride+t]
			if kvp != nil {
				copy(out, kvp[i*multiPanel:])
				continue
			}
			for c := range out {
				out[c] = kv[c*rows+i]
			}
		}
	})
}
