package main

import (
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func gemmAVX2() {
	TEXT("gemm4x8AVX2", NOSPLIT, "func(k int, a, b, c *float64, ldc int, add bool)")
	Doc("gemm4x8AVX2 sets (or, when add, increments) the 4×8 tile at c (row stride ldc elements) to",
		"Σ_p a[8p:8p+4] ⊗ b[16p:16p+8] over p < k: one quarter of an 8×16 tile of the packed panels.")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	for i := 0; i < 8; i++ {
		VXORPD(ymm[i], ymm[i], ymm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	VMOVUPD(Mem{Base: b}, Y8)
	VMOVUPD(Mem{Base: b, Disp: 32}, Y9)
	for r := 0; r < 4; r++ {
		t := ymm[10+r]
		VBROADCASTSD(Mem{Base: a, Disp: 8 * r}, t)
		VFMADD231PD(Y8, t, ymm[2*r])
		VFMADD231PD(Y9, t, ymm[2*r+1])
	}
	ADDQ(Imm(64), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("loop"))
	Label("store")
	add := RAX
	Load(Param("add"), add)
	TESTB(add.As8(), add.As8())
	JE(LabelRef("overwrite"))
	for r := 0; r < 4; r++ {
		VADDPD(Mem{Base: c}, ymm[2*r], ymm[2*r])
		VADDPD(Mem{Base: c, Disp: 32}, ymm[2*r+1], ymm[2*r+1])
		VMOVUPD(ymm[2*r], Mem{Base: c})
		VMOVUPD(ymm[2*r+1], Mem{Base: c, Disp: 32})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
	Label("overwrite")
	for r := 0; r < 4; r++ {
		VMOVUPD(ymm[2*r], Mem{Base: c})
		VMOVUPD(ymm[2*r+1], Mem{Base: c, Disp: 32})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}

// expRowAVX2 is expRow for AVX2+FMA: no VSCALEFPD, so 2^k is built from its
// bits in two factors, 2^max(k,−1022) (exact) and 2^(k−max(k,−1022)), the
// second product rounding once into the subnormal range.
func expRowAVX2(name string, withDot bool, cst func(int) Mem) {
	sig := "func(row, cc *float64, n int, xx, ng float64)"
	if withDot {
		sig = "func(row, cc, v *float64, n int, xx, ng float64) float64"
	}
	TEXT(name, NOSPLIT, sig)
	Doc(name + " is the AVX2+FMA version of " + strings.Replace(name, "AVX2", "AVX512", 1) + ".")
	row, cc, v, n := RSI, RDI, R8, RCX
	Load(Param("row"), row)
	Load(Param("cc"), cc)
	if withDot {
		Load(Param("v"), v)
	}
	Load(Param("n"), n)
	SHRQ(Imm(3), n)
	// Y8 xx, Y9 ng, Y10 2, Y11 zero, Y12 log2e, Y13 clamp, Y14/Y15 dot partials.
	Load(Param("xx"), X0)
	VBROADCASTSD(X0, Y8)
	Load(Param("ng"), X0)
	VBROADCASTSD(X0, Y9)
	VMOVUPD(cst(4), Y10)
	VXORPD(Y11, Y11, Y11)
	VMOVUPD(cst(0), Y12)
	VMOVUPD(cst(3), Y13)
	VXORPD(Y14, Y14, Y14)
	VXORPD(Y15, Y15, Y15)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	// Two vectors per step, each instruction issued for both before the
	// next, so that two independent dependency chains are in flight.
	each := func(f func(x, kf, p VecPhysical, h int)) {
		for h := 0; h < 2; h++ {
			f(ymm[4*h], ymm[4*h+1], ymm[4*h+2], h)
		}
	}
	each(func(x, kf, p VecPhysical, h int) { VADDPD(Mem{Base: cc, Disp: 32 * h}, Y8, x) })
	each(func(x, kf, p VecPhysical, h int) { VFNMADD231PD(Mem{Base: row, Disp: 32 * h}, Y10, x) })
	each(func(x, kf, p VecPhysical, h int) { VMAXPD(x, Y11, x) })
	each(func(x, kf, p VecPhysical, h int) { VMULPD(Y9, x, x) })
	each(func(x, kf, p VecPhysical, h int) { VMAXPD(x, Y13, x) })
	each(func(x, kf, p VecPhysical, h int) { VMULPD(Y12, x, kf) })
	each(func(x, kf, p VecPhysical, h int) { VROUNDPD(Imm(0), kf, kf) })
	each(func(x, kf, p VecPhysical, h int) { VFNMADD231PD(cst(1), kf, x) })
	each(func(x, kf, p VecPhysical, h int) { VFNMADD231PD(cst(2), kf, x) })
	each(func(x, kf, p VecPhysical, h int) { VMOVUPD(cst(8), p) })
	for i := 1; i <= expPolyDegree; i++ {
		each(func(x, kf, p VecPhysical, h int) { VFMADD213PD(cst(8+i), x, p) })
	}
	each(func(x, kf, p VecPhysical, h int) { VMAXPD(cst(7), kf, x) }) // k1 = max(k, −1022)
	each(func(x, kf, p VecPhysical, h int) { VSUBPD(x, kf, kf) })     // k2 = k − k1
	for i := 0; i < 2; i++ {
		s := func(x, kf VecPhysical) VecPhysical { return []VecPhysical{x, kf}[i] }
		each(func(x, kf, p VecPhysical, h int) { VADDPD(cst(5), s(x, kf), s(x, kf)) })
		each(func(x, kf, p VecPhysical, h int) { VPADDQ(cst(6), s(x, kf), s(x, kf)) })
		each(func(x, kf, p VecPhysical, h int) { VPSLLQ(Imm(52), s(x, kf), s(x, kf)) })
		each(func(x, kf, p VecPhysical, h int) { VMULPD(s(x, kf), p, p) })
	}
	each(func(x, kf, p VecPhysical, h int) { VMOVUPD(p, Mem{Base: row, Disp: 32 * h}) })
	if withDot {
		each(func(x, kf, p VecPhysical, h int) { VFMADD231PD(Mem{Base: v, Disp: 32 * h}, p, ymm[14+h]) })
	}
	ADDQ(Imm(64), row)
	ADDQ(Imm(64), cc)
	if withDot {
		ADDQ(Imm(64), v)
	}
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	if withDot {
		VADDPD(Y15, Y14, Y14)
		VEXTRACTF128(Imm(1), Y14, X1)
		VADDPD(X1, X14, X1)
		VPERMILPD(Imm(1), X1, X2)
		VADDSD(X2, X1, X1)
		Store(X1, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}
