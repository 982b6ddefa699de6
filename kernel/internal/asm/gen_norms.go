package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The squared norms of X's rows (kernel's sumNorms), eight rows a call.
// Each row's norm is the sum s = ((0 + x_0·x_0) + x_1·x_1) + … in feature
// order, every product and every sum rounded (VMULPD, then VADDPD: no
// fused multiply-add), the bits of the scalar loop; the eight rows' sums
// are the lanes of one zmm accumulator (AVX-512) or two ymm (AVX2, four
// rows each). A step loads one line (8 features, 4 on AVX2) of each row,
// squares it, transposes the block in registers so that a vector holds one
// feature of every row, and adds the features in order. The rows stream
// from memory on a new Op's first product: each step prefetches every
// row's line normsPrefetch bytes ahead, eight streams that the scalar loop
// (four rows, no prefetch) left to the hardware prefetcher.

// normsPrefetch is how far ahead of a step each row is prefetched.
const normsPrefetch = 1024

// sqNorms8 emits name(x *float64, stride, d int, dst *[8]float64): dst[i]
// = Σ_k x[i·stride + k]² over k < d for the eight rows i, in feature order.
// The last d mod vl features (vl = 8 with avx512, 4 without) take one more
// step whose loads are masked (zeros past d, and s + 0 = s: the same
// sums), so the rows need no scalar tail.
func sqNorms8(name string, avx512 bool) {
	vl := 4
	if avx512 {
		vl = 8
	}
	TEXT(name, NOSPLIT, "func(x *float64, stride, d int, dst *[8]float64)")
	Doc(name+" sets dst[i] to the squared norm of row i < 8 of x (rows stride elements apart, d features),",
		"each summed in feature order with every product and sum rounded (the bits of the scalar loop",
		"s += float64(v*v)).")
	x0, s, cnt, s3, x4, out, tail := RSI, R9, RCX, R10, R11, RDI, RDX
	Load(Param("x"), x0)
	Load(Param("stride"), s)
	Load(Param("d"), cnt)
	Load(Param("dst"), out)
	SHLQ(Imm(3), s)
	LEAQ(Mem{Base: s, Index: s, Scale: 2}, s3)
	LEAQ(Mem{Base: x0, Index: s, Scale: 4}, x4)
	MOVQ(cnt, tail)
	ANDQ(U32(vl-1), tail)
	SHRQ(Imm(map[int]uint64{8: 3, 4: 2}[vl]), cnt)
	rows := []Mem{
		{Base: x0}, {Base: x0, Index: s, Scale: 1}, {Base: x0, Index: s, Scale: 2}, {Base: x0, Index: s3, Scale: 1},
		{Base: x4}, {Base: x4, Index: s, Scale: 1}, {Base: x4, Index: s, Scale: 2}, {Base: x4, Index: s3, Scale: 1},
	}
	regs := zmm
	accs := []VecPhysical{Z16}
	mask := VecPhysical(Y14)
	if !avx512 {
		regs = ymm
		accs = []VecPhysical{Y12, Y13}
	}
	for _, a := range accs {
		VXORPD(a, a, a)
	}
	// step emits one step of vl features: the loads masked (the tail) or
	// not, each row's line normsPrefetch bytes ahead prefetched (half a
	// line a step on AVX2, where each line is prefetched twice).
	step := func(masked bool) {
		for i, m := range rows {
			switch {
			case masked && avx512:
				VMOVUPD_Z(m, K1, regs[i])
			case masked:
				VMASKMOVPD(m, mask, regs[i])
			default:
				VMOVUPD(m, regs[i])
				pm := m
				pm.Disp = normsPrefetch
				PREFETCHT0(pm)
			}
			VMULPD(regs[i], regs[i], regs[i])
		}
		if avx512 {
			transpose8x8Regs(regs[:8], regs[8:16])
			for j := 0; j < 8; j++ {
				VADDPD(regs[8+j], accs[0], accs[0])
			}
			return
		}
		// Two groups of four rows: the columns of rows 4g…4g+3 in
		// regs[4g…4g+3], regs[8…11] scratch.
		for g := 0; g < 2; g++ {
			r, t := regs[4*g:4*g+4], regs[8:12]
			VUNPCKLPD(r[1], r[0], t[0]) // r0[0] r1[0] r0[2] r1[2]
			VUNPCKHPD(r[1], r[0], t[1]) // r0[1] r1[1] r0[3] r1[3]
			VUNPCKLPD(r[3], r[2], t[2])
			VUNPCKHPD(r[3], r[2], t[3])
			VPERM2F128(Imm(0x20), t[2], t[0], r[0]) // column 0
			VPERM2F128(Imm(0x20), t[3], t[1], r[1]) // column 1
			VPERM2F128(Imm(0x31), t[2], t[0], r[2]) // column 2
			VPERM2F128(Imm(0x31), t[3], t[1], r[3]) // column 3
		}
		for j := 0; j < 4; j++ {
			VADDPD(regs[j], accs[0], accs[0])
			VADDPD(regs[4+j], accs[1], accs[1])
		}
	}
	TESTQ(cnt, cnt)
	JE(LabelRef("tail"))
	Label("loop")
	step(false)
	ADDQ(U32(8*vl), x0)
	ADDQ(U32(8*vl), x4)
	DECQ(cnt)
	JNE(LabelRef("loop"))
	Label("tail")
	TESTQ(tail, tail)
	JE(LabelRef("done"))
	if avx512 {
		// K1 = the low tail bits, 2^tail − 1 (the shift count in CL: cnt
		// is done with).
		MOVQ(tail, cnt)
		MOVL(U32(1), EAX)
		SHLL(CL, EAX)
		DECL(EAX)
		KMOVW(EAX, K1)
	} else {
		// Lanes j < tail: tail > j as 64-bit integers.
		MOVQ(tail, X15)
		VPBROADCASTQ(X15, Y15)
		VMOVDQU(normsLanes.Offset(0), mask)
		VPCMPGTQ(mask, Y15, mask)
	}
	step(true)
	Label("done")
	for i, a := range accs {
		VMOVUPD(a, Mem{Base: out, Disp: 32 * i})
	}
	VZEROUPPER()
	RET()
}

// normsLanes holds the lane indices 0, 1, 2, 3 (int64) for sqNorms8AVX2's
// tail mask.
var normsLanes Mem

// sqNormsKernels emits sqNorms8AVX512 and sqNorms8AVX2.
func sqNormsKernels() {
	normsLanes = GLOBL("normsLanes", RODATA|NOPTR)
	for j := 0; j < 4; j++ {
		DATA(8*j, U64(uint64(j)))
	}
	sqNorms8("sqNorms8AVX512", true)
	sqNorms8("sqNorms8AVX2", false)
}
