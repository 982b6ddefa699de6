package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The AVX2 float32 exp of expRowDotF32AVX2. AVX2 has no VSCALEFPS and its
// VPERMPS indexes 8 entries, so with z = x·8·log2e (e^x = 2^(z/8)) and
// k = z rounded to an integer (VROUNDPS), f = z − k ∈ [−1/2, 1/2] (exact):
// e^x = 2^⌊k/8⌋ · 2^((k mod 8)/8) · (1 + p(f)), the middle factor from an
// 8-entry table (VPERMPS uses the low 3 bits of k as an integer), p the
// degree-4 Taylor polynomial of e^u − 1 in u = f·ln2/8 (|u| ≤ 0.0434:
// remainder |u|^5/5! ≈ 1.3e-9, below half an ulp of float32, 3e-8), and
// 2^⌊k/8⌋ (k/8 by an arithmetic shift) built from its bits in two factors
// as in expRowAVX2, 2^max(e, −125) (the product with it stays normal, so is
// exact) and 2^(e − max(e, −125)) (rounding once into the subnormal range).
const (
	exp32AVX2Degree = 4
	exp32AVX2Clamp  = -151 * 8 // 2^(z/8) rounds to zero below 2^−150 in float32
)

// f32AVX2Consts returns the replicated constants of expRowDotF32AVX2, each
// eight times (32 bytes): 8·log2e, the clamp, 2, −125 and 127 (as int32),
// then the polynomial's coefficients (ln2/8)^i/i! for i = 4 … 1.
func f32AVX2Consts() []uint32 {
	vals := []uint32{math.Float32bits(8 * log2e), math.Float32bits(exp32AVX2Clamp), math.Float32bits(2), uint32(0xffffffff - 124), 127}
	u := math.Ln2 / 8
	for i := exp32AVX2Degree; i >= 1; i-- {
		vals = append(vals, math.Float32bits(float32(math.Pow(u, float64(i))/factorial(i))))
	}
	return vals
}

func expRowF32AVX2() {
	consts := GLOBL("exp32avx2consts", RODATA|NOPTR)
	for i, v := range f32AVX2Consts() {
		for l := 0; l < 8; l++ {
			DATA(32*i+4*l, U32(v))
		}
	}
	cst := func(i int) Mem { return consts.Offset(32 * i) }
	tab := GLOBL("exp32avx2tab", RODATA|NOPTR)
	for j := 0; j < 8; j++ {
		DATA(4*j, U32(math.Float32bits(float32(math.Exp2(float64(j)/8)))))
	}

	TEXT("expRowDotF32AVX2", NOSPLIT, "func(row, cc, v *float32, n int, xx, ng float32) float32")
	Doc("expRowDotF32AVX2 is the AVX2+FMA version of expRowDotF32AVX512 (an 8-entry table and a degree-4",
		"polynomial; n a multiple of 16).")
	row, cc, v, n := RSI, RDI, R8, RCX
	Load(Param("row"), row)
	Load(Param("cc"), cc)
	Load(Param("v"), v)
	Load(Param("n"), n)
	SHRQ(Imm(4), n) // steps of 16 values (two vectors)
	// Y8 xx, Y9 s = ng·8·log2e, Y10 2, Y11 zero, Y12 clamp, Y13 table, Y14/Y15 dot partials.
	Load(Param("xx"), X0)
	VBROADCASTSS(X0, Y8)
	Load(Param("ng"), X0)
	VBROADCASTSS(X0, Y9)
	VMULPS(cst(0), Y9, Y9)
	VMOVUPS(cst(2), Y10)
	VXORPS(Y11, Y11, Y11)
	VMOVUPS(cst(1), Y12)
	VMOVUPS(tab.Offset(0), Y13)
	VXORPS(Y14, Y14, Y14)
	VXORPS(Y15, Y15, Y15)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	const nv = 2
	each := func(f func(h int)) {
		for h := 0; h < nv; h++ {
			f(h)
		}
	}
	y := func(h, k int) VecPhysical { return ymm[4*h+k] }                          // per vector: z/f, k, T, p
	each(func(h int) { VADDPS(Mem{Base: cc, Disp: 32 * h}, Y8, y(h, 0)) })         // t = xx + cc
	each(func(h int) { VFNMADD231PS(Mem{Base: row, Disp: 32 * h}, Y10, y(h, 0)) }) // t −= 2·row
	each(func(h int) { VMAXPS(y(h, 0), Y11, y(h, 0)) })                            // t ≥ 0 (NaN stays NaN)
	each(func(h int) { VMULPS(Y9, y(h, 0), y(h, 0)) })                             // z = s·t ≤ 0
	each(func(h int) { VMAXPS(y(h, 0), Y12, y(h, 0)) })                            // z ≥ clamp (NaN stays NaN)
	each(func(h int) { VROUNDPS(Imm(0), y(h, 0), y(h, 1)) })                       // k = round(z)
	each(func(h int) { VSUBPS(y(h, 1), y(h, 0), y(h, 0)) })                        // f = z − k, exact
	each(func(h int) { VCVTPS2DQ(y(h, 1), y(h, 1)) })                              // k as int32
	each(func(h int) { VPERMPS(Y13, y(h, 1), y(h, 2)) })                           // T = 2^((k mod 8)/8)
	each(func(h int) { VMOVUPS(cst(5), y(h, 3)) })                                 // p = c4
	for i := 1; i < exp32AVX2Degree; i++ {
		each(func(h int) { VFMADD213PS(cst(5+i), y(h, 0), y(h, 3)) }) // p = p·f + next coefficient
	}
	each(func(h int) { VMULPS(y(h, 0), y(h, 3), y(h, 3)) })      // p(f) = e^u − 1
	each(func(h int) { VFMADD213PS(y(h, 2), y(h, 2), y(h, 3)) }) // T·p + T
	each(func(h int) { VPSRAD(Imm(3), y(h, 1), y(h, 1)) })       // e = ⌊k/8⌋
	each(func(h int) { VPMAXSD(cst(3), y(h, 1), y(h, 2)) })      // e1 = max(e, −125)
	each(func(h int) { VPSUBD(y(h, 2), y(h, 1), y(h, 1)) })      // e2 = e − e1 ∈ [−26, 0]
	for _, k := range []int{2, 1} {
		each(func(h int) { VPADDD(cst(4), y(h, k), y(h, k)) })
		each(func(h int) { VPSLLD(Imm(23), y(h, k), y(h, k)) }) // 2^e1, then 2^e2
		each(func(h int) { VMULPS(y(h, k), y(h, 3), y(h, 3)) })
	}
	each(func(h int) { VMOVUPS(y(h, 3), Mem{Base: row, Disp: 32 * h}) })
	each(func(h int) { VFMADD231PS(Mem{Base: v, Disp: 32 * h}, y(h, 3), ymm[14+h]) })
	for _, p := range []Register{row, cc, v} {
		ADDQ(Imm(32*nv), p)
	}
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VADDPS(Y15, Y14, Y14)
	VEXTRACTF128(Imm(1), Y14, X1)
	VADDPS(X1, X14, X1)
	VMOVHLPS(X1, X1, X2)
	VADDPS(X2, X1, X1)
	VMOVSHDUP(X1, X2)
	VADDSS(X2, X1, X1)
	Store(X1, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// flush32AVX2 emits flush32AVX512 for AVX2: dst[j] += float64(src[j]);
// src[j] = 0 for j < n (n a multiple of 32).
func flush32AVX2() {
	TEXT("flush32AVX2", NOSPLIT, "func(n int, src *float32, dst *float64)")
	Doc("flush32AVX2 is the AVX2 version of flush32AVX512 (same bits).")
	n, src, dst := RCX, RSI, RDI
	Load(Param("n"), n)
	Load(Param("src"), src)
	Load(Param("dst"), dst)
	SHRQ(Imm(5), n)
	VXORPS(Y15, Y15, Y15)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < 8; h++ {
		VCVTPS2PD(Mem{Base: src, Disp: 16 * h}, ymm[h])
	}
	for h := 0; h < 8; h++ {
		VADDPD(Mem{Base: dst, Disp: 32 * h}, ymm[h], ymm[h])
	}
	for h := 0; h < 8; h++ {
		VMOVUPD(ymm[h], Mem{Base: dst, Disp: 32 * h})
	}
	for h := 0; h < 4; h++ {
		VMOVUPS(Y15, Mem{Base: src, Disp: 32 * h})
	}
	ADDQ(Imm(128), src)
	ADDQ(U32(256), dst)
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}
