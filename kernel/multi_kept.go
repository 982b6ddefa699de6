package kernel

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Products with one right-hand side on kept float32 blocks of K (Keep32).
// The panel tiles would run them on V padded with 15 zero columns, 16
// times the arithmetic; a kept product with t = 1 reads 4 bytes of K per
// element and does 2 FMAs for K_B·v and 2 for K_Bᵀ·u, so it is bound by
// memory. Here each kept block is read as float32 four rows at a time
// (keptDot4*: the four dots with v; keptAxpy4*: acc += Σ_r kv_r·K_r, while
// the four rows are in cache), widened in registers. Blocks that are not
// kept are formed and use the same row dots and axpys in float64. Each
// block's sums are in a fixed order (lanes, then rows in fours), and the
// blocks are summed by reduce's segments, so the results do not depend on
// the number of workers.

// keptOne reports whether a product with t right-hand sides runs here.
func (o *Op) keptOne(t int) bool { return t == 1 && o.kept.rows > 0 }

// keptDots sets out[i·stride] = Σ_j float64(a[i·mp+j])·v[j] for i < rows,
// j < mp (v padded with zeros to mp, a multiple of 16).
func keptDots(acc accel, a []float32, rows, mp int, v []float64, out []float64, stride int) {
	if acc == accelPortable {
		for i := range rows {
			var s float64
			for j, x := range a[i*mp : (i+1)*mp] {
				s += float64(x) * v[j]
			}
			out[i*stride] = s
		}
		return
	}
	dot4, lanes := keptDot4AVX512, 8
	if acc == accelAVX2 {
		dot4, lanes = keptDot4AVX2, 4
	}
	var l [32]float64
	for i := 0; i < rows; {
		n, lda := 4, mp
		if rows-i < 4 {
			// The last rows one at a time (lda 0: the row four times).
			n, lda = 1, 0
		}
		dot4(mp, &a[i*mp], lda, &v[0], &l[0])
		for r := range n {
			var s float64
			for _, x := range l[8*r : 8*r+lanes] {
				s += x
			}
			out[(i+r)*stride] = s
		}
		i += n
	}
}

// keptAxpys adds Σ_i s[i]·float64(a[i·mp:(i+1)·mp]) to y (length mp, a
// multiple of 16), rows in order four at a time.
func keptAxpys(acc accel, a []float32, mp int, s []float64, y []float64) {
	rows := len(s)
	if acc == accelPortable {
		for i, c := range s {
			for j, x := range a[i*mp : (i+1)*mp] {
				y[j] += c * float64(x)
			}
		}
		return
	}
	axpy4 := keptAxpy4AVX512
	if acc == accelAVX2 {
		axpy4 = keptAxpy4AVX2
	}
	i := 0
	for ; i+4 <= rows; i += 4 {
		axpy4(mp, (*[4]float64)(s[i:i+4]), &a[i*mp], mp, &y[0])
	}
	for ; i < rows; i++ {
		// One row: the other three coefficients zero (fma(0, x, y) = y).
		c := [4]float64{s[i]}
		axpy4(mp, &c, &a[i*mp], 0, &y[0])
	}
}

// keptBlock returns the kept float32 rows [r0, r1) of K, nil when they are
// not kept.
func (o *Op) keptBlock(p *plan, r0, r1 int) []float32 {
	if r1 > o.kept.rows {
		return nil
	}
	return o.kept.data[r0*p.mp : r1*p.mp]
}

// blockDots sets out[i·stride] = K(x_{r0+i}, C)·vp for the block's rows, from
// the kept float32 values, or from the block formed in w, which it returns
// (nil when the block is kept).
func (o *Op) blockDots(p *plan, w *work, r0, r1 int, vp, out []float64, stride int) []float64 {
	if a := o.keptBlock(p, r0, r1); a != nil {
		keptDots(w.acc, a, r1-r0, p.mp, vp, out, stride)
		return nil
	}
	kb := p.kernelBlock(w, r0, r1)
	for i := range r1 - r0 {
		out[i*stride] = dot(kb.Data[i*p.mp:(i+1)*p.mp], vp)
	}
	return kb.Data
}

// blockAxpys adds Σ_i kv[i]·K(x_{r0+i}, C) to acc (length mp), from the kept
// float32 values, or from formed (the block formed by blockDots; nil: form
// it here).
func (o *Op) blockAxpys(p *plan, w *work, r0, r1 int, kv, acc, formed []float64) {
	if a := o.keptBlock(p, r0, r1); a != nil {
		keptAxpys(w.acc, a, p.mp, kv, acc)
		return
	}
	if formed == nil {
		formed = p.kernelBlock(w, r0, r1).Data
	}
	p.accumulateRows(w, formed, kv, acc)
}

// mulTMulKept is MulTMul with one right-hand side on an Op with kept blocks.
func (o *Op) mulTMulKept(ctx context.Context, dst *mat.Dense, v blas64.General) error {
	p := o.prepare()
	vp, _ := p.padded(v)
	return o.reduce(ctx, dst, 1, 1, func(w *work, r0, r1 int, acc blas64.General) {
		kv := w.kv[:r1-r0]
		formed := o.blockDots(p, w, r0, r1, vp, kv, 1)
		o.blockAxpys(p, w, r0, r1, kv, acc.Data, formed)
	})
}

// mulTKept is MulT with one right-hand side on an Op with kept blocks.
func (o *Op) mulTKept(ctx context.Context, dst *mat.Dense, u blas64.General) error {
	p := o.prepare()
	return o.reduce(ctx, dst, 1, 1, func(w *work, r0, r1 int, acc blas64.General) {
		kv := w.kv[:r1-r0]
		for i := range kv {
			kv[i] = u.Data[(r0+i)*u.Stride]
		}
		o.blockAxpys(p, w, r0, r1, kv, acc.Data, nil)
	})
}

// mulKept is Mul with one right-hand side on an Op with kept blocks.
func (o *Op) mulKept(ctx context.Context, dst *mat.Dense, v blas64.General) error {
	p := o.prepare()
	vp, _ := p.padded(v)
	n, _ := o.Dims()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	ws := make([]*work, parallel.Workers(o.opt.Workers))
	defer putWorks(ws)
	rd := dst.RawMatrix()
	return parallel.For(ctx, nb, len(ws), func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, 1)
		}
		o.blockDots(p, ws[worker], r0, r1, vp, rd.Data[r0*rd.Stride:], rd.Stride)
	})
}
