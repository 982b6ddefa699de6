package kernel

import "gonum.org/v1/gonum/blas/blas64"

// gemmSumAVX2 and gemmHalvesSumAVX2 hold the AVX2 tiles with a summing
// store by height, as gemmAVX2 and gemmHalvesAVX2: c = src + Σ and, when t
// is not nil, u = c + t (kernel/internal/asm, gen_strassen.go).
var (
	gemmSumAVX2 = [avx2TileRows + 1]func(k int, a, b, c *float64, ldc int, src, t *float64, ldt int, u *float64){
		nil, gemm1x16SumAVX2, gemm2x16SumAVX2, gemm3x16SumAVX2, gemm4x16SumAVX2, gemm5x16SumAVX2, gemm6x16SumAVX2,
	}
	gemmHalvesSumAVX2 = [avx2TileRows + 1]func(k int, a, b, c *float64, ldc, boff int, src, t *float64, ldt int, u *float64){
		nil, gemm1x16HSumAVX2, gemm2x16HSumAVX2, gemm3x16HSumAVX2, gemm4x16HSumAVX2, gemm5x16HSumAVX2, gemm6x16HSumAVX2,
	}
)

// tilesSum is tiles with add, its sums finished by the tiles' summing
// store: c = src + a·bᵀ over the feature blocks kBlocks(k), src read
// instead of c by each tile's first feature block (src may be c; c and src
// of row stride ldc), and, when t is not nil, u = c + t (u of stride ldc,
// t of stride ldt) stored by each tile's last feature block from the
// values it has just stored in c. Every addition is the one tiles with add
// makes after a copy of src into c, and the one a pass setting u = c + t
// makes after it: the same bits, without the passes over the block that
// copy src and read c back (strassenDots' quadrants, 1 MB each at d = 784,
// M = 2,000). acc is AVX-512 or AVX2.
func tilesSum(acc accel, half bool, a, b []float64, h, cols, k int, c, src []float64, ldc int, t []float64, ldt int, u []float64, th int) {
	// ends returns the tile's starting values (src's on the first feature
	// block, c's after) and the second store's t and u (on the last one).
	ends := func(ci, ti, k0, kl int) (s, tp, up *float64) {
		s = &c[ci]
		if k0 == 0 {
			s = &src[ci]
		}
		if t != nil && k0+kl == k {
			tp, up = &t[ti], &u[ci]
		}
		return s, tp, up
	}
	switch {
	case acc == accelAVX512:
		tileLoop(h, cols, k, panelRows, panelCols, b, false, func(ip, jp, _, k0, kl int) {
			ci := ip*ldc + jp
			s, tp, up := ends(ci, ip*ldt+jp, k0, kl)
			gemm8x16SumPfAVX512(kl, &a[ip*k+k0*panelRows], &b[jp*k+k0*panelCols], &c[ci], ldc, s, tp, ldt, up)
		})
	case half:
		const hw = panelCols / 2
		tileLoop(h, cols, k, th, panelCols, b, true, func(ip, jp, ph, k0, kl int) {
			ci := ip*ldc + jp
			s, tp, up := ends(ci, ip*ldt+jp, k0, kl)
			gemmHalvesSumAVX2[ph](kl, &a[ip*k+k0*ph], &b[jp*k+k0*hw], &c[ci], ldc, hw*k, s, tp, ldt, up)
		})
	default:
		tileLoop(h, cols, k, th, panelCols, b, true, func(ip, jp, ph, k0, kl int) {
			ci := ip*ldc + jp
			s, tp, up := ends(ci, ip*ldt+jp, k0, kl)
			gemmSumAVX2[ph](kl, &a[ip*k+k0*ph], &b[jp*k+k0*panelCols], &c[ci], ldc, s, tp, ldt, up)
		})
	}
}

// packSumsOn selects packSumsSIMD over packQuads (tests and benchmarks
// change it).
var packSumsOn = true

// packSumsStep is the number of features packSumsSIMD's kernel takes a
// step on the inner kernels acc: dh must be a multiple of it.
func packSumsStep(acc accel) int {
	if acc == accelAVX2 {
		return 4
	}
	return 8
}

// packSumsSIMD is packQuads in one pass over x: the eight operands (A11,
// A12, A21, A22, S1 … S4, operand o at st[o·sz:], sz = h·dh) packed as
// panels of th rows by packSumsAVX512 (th = panelRows) or packSumsAVX2 (th =
// avx2TileRows; a last panel of fewer rows by packSums), each sum formed
// once in a register from the quadrants' values, with packQuads' bits. d
// = 2·dh, dh a multiple of packSumsStep(acc).
func packSumsSIMD(st []float64, sz int, x blas64.General, r0, h, dh, th int, acc accel) {
	kern := packSumsAVX512
	if acc == accelAVX2 {
		kern = packSumsAVX2
	}
	ip := 0
	for ; ip+th <= h; ip += th {
		kern(&st[ip*dh], sz, &x.Data[(r0+ip)*x.Stride], x.Stride, h*x.Stride, dh)
	}
	if ip < h {
		var q [8][]float64
		for i := range q {
			q[i] = st[i*sz : (i+1)*sz : (i+1)*sz]
		}
		packSums(&q, x, r0, h, dh, 2*dh, th, ip)
	}
}
