package kernel

import "gonum.org/v1/gonum/blas/blas64"

// The fused passes of the Gaussian kernel over one block of rows: the
// block's distance products, the row map through exp (with K_B·v in the
// same pass, or u_B given), and K_Bᵀ(K_B v) accumulated four rows at a
// time, in float64 (fusedGaussian) or in float32 blocks (fusedGaussian32,
// gaussianMulT32). Op's MulTMul, MulT and Mul call them (engine.go).

// dots32to32 writes x_i·c_j in float32 into w.blk32 (stride mp) for the rows
// i of X[r0:r1] and j < mp (blocks32 only: one k-block).
func (p *plan) dots32to32(w *work, r0, r1 int) {
	if w.acc == accelAVX2 {
		p.dots32to32AVX2(w, r0, r1)
		return
	}
	rows, d, mp := r1-r0, p.d, p.mp
	rp := roundUp(rows, panelRows)
	p.packX32(w.a32, r0, rows)
	for jp := 0; jp < mp; jp += panelCols32 {
		b := &p.cp32[jp*d]
		for ip := 0; ip < rp; ip += panelRows {
			gemm8x32F32to32AVX512(d, &w.a32[ip*d], b, &w.blk32[ip*mp+jp], mp)
		}
	}
}

// fusedGaussian32 is fusedGaussian on the blocks32 path: K_B and K_B v in
// float32 (vp32 is v rounded to float32, padded with zeros to mp), the
// block's K_Bᵀ(K_B v) summed in float32 and then added to acc in float64.
// With row weights wt (nil: none), K_B v's row i is multiplied by wt[r0+i]
// before it is rounded to float32.
func (p *plan) fusedGaussian32(w *work, r0, r1 int, vp32 []float32, acc, wt []float64) {
	rows, mp := r1-r0, p.mp
	p.dots32to32(w, r0, r1)
	kv := w.kv32[:rows]
	for i := range kv {
		s := p.expRowDot32(w.acc, w.blk32[i*mp:(i+1)*mp], vp32, p.xn[r0+i])
		if wt != nil {
			s *= wt[r0+i]
		}
		kv[i] = float32(s)
	}
	p.accumulate32(w, kv, acc)
}

// gaussianMulT32 adds K_Bᵀu_B to acc (length mp) for the block B = X[r0:r1]
// of the Gaussian kernel in float32 blocks, u being column 0 of the n×1 u
// (rounded to float32, as K_B·v is in fusedGaussian32): the same pass
// without the dot product, whose result is dropped (zero32 is mp zeros).
// Before it, K_nMᵀy formed float64 blocks (kernelBlock) and took about two
// CG passes' time (covtype, 150,000 rows, M = 5,000: 1.22 CPU-s against
// 0.57 for a pass).
func (p *plan) gaussianMulT32(w *work, r0, r1 int, u blas64.General, zero32 []float32, acc []float64) {
	rows, mp := r1-r0, p.mp
	p.dots32to32(w, r0, r1)
	kv := w.kv32[:rows]
	expRowDot, ng := passKernels32(w.acc).expRowDot, float32(p.ng)
	for i := range kv {
		expRowDot(&w.blk32[i*mp], &p.cn32[0], &zero32[0], mp, float32(p.xn[r0+i]), ng)
		kv[i] = float32(u.Data[(r0+i)*u.Stride])
	}
	p.accumulate32(w, kv, acc)
}

// accumulate32 adds Σ_i kv[i]·blk32[i] to acc (length mp) for the rows of
// w's float32 block: sums of at most sum32Rows rows in float32, four rows at
// a time, each flushed into the float64 acc.
func (p *plan) accumulate32(w *work, kv []float32, acc []float64) {
	rows, mp := len(kv), p.mp
	k := passKernels32(w.acc)
	a := w.acc32 // zero between calls: the flush clears it
	for g := 0; g < rows; g += sum32Rows {
		i := g
		for ; i+4 <= min(g+sum32Rows, rows); i += 4 {
			k.axpy4(mp, (*[4]float32)(kv[i:i+4]), &w.blk32[i*mp], mp, &a[0])
		}
		if i < min(g+sum32Rows, rows) {
			var k4 [4]float32
			copy(k4[:], kv[i:rows])
			// The missing rows' coefficients are zero; their rows of blk32
			// are the tile padding, finite (exp of a clamped argument).
			k.axpy4(mp, &k4, &w.blk32[i*mp], mp, &a[0])
		}
		k.flush(mp, &a[0], &acc[0])
	}
}

// sum32Rows and sum32Cols bound the float32 sums of the blocks32 path: at
// most 32 rows of a block are summed in float32 before being added to the
// float64 Kᵀ(K v), and K·v is summed in float32 over 256 centers at a time
// (32 lanes of 8 terms) before the pieces are added in float64, so that a
// float32 sum has at most 32 terms (relative error ≲ 32·2^−24 ≈ 2e-6 at
// worst) whatever n and M. Measured on TestFalkonFloat32's problem, float32
// sums over all rows of a block (up to 1,024) moved the predictions twice as
// much as these bounds do.
const (
	sum32Rows = 32
	sum32Cols = 256
)

// expRowDot32 maps one float32 row of dot products through the Gaussian
// (expRowDotF32AVX512, or expRowDotF32AVX2 on acc = AVX2) and returns its
// dot product with vp32, the float32 partial sums of sum32Cols values added
// in float64.
func (p *plan) expRowDot32(acc accel, row, vp32 []float32, xx float64) float64 {
	expRowDot := passKernels32(acc).expRowDot
	var s float64
	ng := float32(p.ng)
	for j := 0; j < len(row); j += sum32Cols {
		n := min(sum32Cols, len(row)-j)
		s += float64(expRowDot(&row[j], &p.cn32[j], &vp32[j], n, float32(xx), ng))
	}
	return s
}

// fusedGaussian adds K_Bᵀ(K_B v) to acc (length mp) for the block B = X[r0:r1]
// of the Gaussian kernel, vp being v padded with zeros to length mp. With
// st set (MulTMul's training pass, trainStrassen) the distance products
// take one Winograd level (strassenDots) on the SIMD paths. With row
// weights wt (nil: none) it adds K_Bᵀ diag(wt[r0:r1]) (K_B v).
func (p *plan) fusedGaussian(w *work, r0, r1 int, ng float64, vp, acc []float64, st *strassenPlan, wt []float64) {
	rows, m, mp := r1-r0, p.m, p.mp
	if m == 0 {
		return
	}
	if st != nil && w.acc != accelPortable {
		p.strassenDots(w, st, r0, r1)
	} else {
		p.dots(w, r0, r1)
	}
	kv := w.kv[:rows]
	if w.acc == accelPortable {
		for i := range kv {
			row := w.blk[i*mp : i*mp+m]
			kv[i] = gaussRowDot(row, p.cn[:m], vp[:m], p.xn[r0+i], ng)
			if wt != nil {
				kv[i] *= wt[r0+i]
			}
			axpy(kv[i], row, acc[:m])
		}
		return
	}
	expRowDot, axpy1, axpy4 := expRowDotAVX512, axpyAVX512, axpy4AVX512
	if w.acc == accelAVX2 {
		expRowDot, axpy1, axpy4 = expRowDotAVX2, axpyAVX2, axpy4AVX2
	}
	// Four rows are mapped, then added to acc while they are still in L2:
	// the order of accumulateRows (groups of four from the first row, then
	// the rows left one at a time), so the same bits as mapping the whole
	// block first, which read the block (1–4 MiB) a third time from L3.
	xn := p.xn[r0:r1]
	i := 0
	for ; i+4 <= rows; i += 4 {
		for r := i; r < i+4; r++ {
			kv[r] = expRowDot(&w.blk[r*mp], &p.cn[0], &vp[0], mp, xn[r], ng)
			if wt != nil {
				kv[r] *= wt[r0+r]
			}
		}
		axpy4(mp, (*[4]float64)(kv[i:i+4]), &w.blk[i*mp], mp, &acc[0])
	}
	for ; i < rows; i++ {
		kv[i] = expRowDot(&w.blk[i*mp], &p.cn[0], &vp[0], mp, xn[i], ng)
		if wt != nil {
			kv[i] *= wt[r0+i]
		}
		axpy1(mp, kv[i], &w.blk[i*mp], &acc[0])
	}
}

// gaussianDots sets out[i·stride] = K(x_{r0+i}, C)·v for the rows of the
// block X[r0:r1] of the Gaussian kernel, vp being v padded with zeros to mp.
func (p *plan) gaussianDots(w *work, r0, r1 int, vp []float64, vp32 []float32, out []float64, stride int) {
	rows, m, mp := r1-r0, p.m, p.mp
	if m == 0 {
		for i := range rows {
			out[i*stride] = 0
		}
		return
	}
	if p.blocks32(w) {
		p.dots32to32(w, r0, r1)
		for i := range rows {
			out[i*stride] = p.expRowDot32(w.acc, w.blk32[i*mp:(i+1)*mp], vp32, p.xn[r0+i])
		}
		return
	}
	p.dots(w, r0, r1)
	for i := range rows {
		var s float64
		switch w.acc {
		case accelAVX512:
			s = expRowDotAVX512(&w.blk[i*mp], &p.cn[0], &vp[0], mp, p.xn[r0+i], p.ng)
		case accelAVX2:
			s = expRowDotAVX2(&w.blk[i*mp], &p.cn[0], &vp[0], mp, p.xn[r0+i], p.ng)
		default:
			s = gaussRowDot(w.blk[i*mp:i*mp+m], p.cn[:m], vp[:m], p.xn[r0+i], p.ng)
		}
		out[i*stride] = s
	}
}

// accumulateRows adds Σ_i kv[i]·blk[i] (rows of stride mp) to acc, four rows
// at a time in a fixed order.
func (p *plan) accumulateRows(w *work, blk, kv, acc []float64) {
	mp, m := p.mp, p.m
	if w.acc == accelPortable {
		for i, a := range kv {
			axpy(a, blk[i*mp:i*mp+m], acc[:m])
		}
		return
	}
	axpy1, axpy4 := axpyAVX512, axpy4AVX512
	if w.acc == accelAVX2 {
		axpy1, axpy4 = axpyAVX2, axpy4AVX2
	}
	rows := len(kv)
	i := 0
	for ; i+4 <= rows; i += 4 {
		axpy4(mp, (*[4]float64)(kv[i:i+4]), &blk[i*mp], mp, &acc[0])
	}
	for ; i < rows; i++ {
		axpy1(mp, kv[i], &blk[i*mp], &acc[0])
	}
}
