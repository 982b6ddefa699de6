package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func gemm32() {
	TEXT("gemm8x32F32AVX512", NOSPLIT, "func(k int, a, b *float32, c *float64, ldc int, add bool)")
	Doc("gemm8x32F32AVX512 is the float32 mode of gemm8x16AVX512: it sums Σ_p a[p][0:8] ⊗ b[p][0:32]",
		"over p < k in float32 (packed a [k][8], b [k][32]) and sets or increments the 8×32 float64 tile at c",
		"(prefetched first: the engine's blocks of K do not stay in cache).")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	prefetchRows(c, ldc, RAX, 8, 256)
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	VMOVUPS(Mem{Base: b}, Z16)
	VMOVUPS(Mem{Base: b, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		t := zmm[18+r%4]
		VBROADCASTSS(Mem{Base: a, Disp: 4 * r}, t)
		VFMADD231PS(Z16, t, zmm[2*r])
		VFMADD231PS(Z17, t, zmm[2*r+1])
	}
	ADDQ(Imm(32), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("loop"))
	Label("store")
	add := RAX
	Load(Param("add"), add)
	for r := 0; r < 8; r++ {
		for h := 0; h < 2; h++ {
			acc := zmm[2*r+h]
			lo, hi := Z24, Z25
			VCVTPS2PD(acc.AsY(), lo)
			VEXTRACTF64X4(Imm(1), acc, Y26)
			VCVTPS2PD(Y26, hi)
			TESTB(add.As8(), add.As8())
			JE(LabelRef(fmt.Sprintf("st%d_%d", r, h)))
			VADDPD(Mem{Base: c, Disp: 128 * h}, lo, lo)
			VADDPD(Mem{Base: c, Disp: 128*h + 64}, hi, hi)
			Label(fmt.Sprintf("st%d_%d", r, h))
			VMOVUPD(lo, Mem{Base: c, Disp: 128 * h})
			VMOVUPD(hi, Mem{Base: c, Disp: 128*h + 64})
		}
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}

// gemm32to32 emits the float32 tile kernel whose result stays in float32:
// the K block of the float32 passes (d ≤ 256, one k-block, so no add).
func gemm32to32() {
	zmmTile{name: "gemm8x32F32to32AVX512", f32: true, doc: []string{
		"gemm8x32F32to32AVX512 sets the 8×32 float32 tile at c (row stride ldc elements) to",
		"Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 (packed a [k][8], b [k][32])."}}.emit()
}

func expRow32() {
	consts := GLOBL("exp32consts", RODATA|NOPTR)
	vals := []float32{16 * log2e, exp32Clamp, 0x1.8p23, 1.0 / 16, 2}
	u := math.Ln2 / 16
	for i := exp32Degree; i >= 1; i-- {
		vals = append(vals, float32(math.Pow(u, float64(i))/factorial(i)))
	}
	for i, v := range vals {
		DATA(4*i, U32(math.Float32bits(v)))
	}
	cst := func(i int) Mem { return consts.Offset(4 * i) }
	tab := GLOBL("exp32tab", RODATA|NOPTR)
	for j := 0; j < 16; j++ {
		DATA(4*j, U32(math.Float32bits(float32(math.Exp2(float64(j)/16)))))
	}

	TEXT("expRowDotF32AVX512", NOSPLIT, "func(row, cc, v *float32, n int, xx, ng float32) float32")
	Doc("expRowDotF32AVX512 replaces row[j] (a float32 dot product x·c_j) by exp(ng·max(0, xx + cc[j] − 2·row[j]))",
		"in float32 for j < n (n a multiple of 32) and returns Σ_j row[j]·v[j] summed in float32 lanes.")
	row, cc, v, n := RSI, RDI, R8, RCX
	Load(Param("row"), row)
	Load(Param("cc"), cc)
	Load(Param("v"), v)
	Load(Param("n"), n)
	SHRQ(Imm(5), n) // steps of 32 values (two vectors)
	// Z18 table, Z20/Z21 dot partials, Z22 1/16, Z23 1.5·2^23, Z24 xx,
	// Z25 s = ng·16·log2e, Z26 clamp, Z27 2, Z28 c3, Z31 zero.
	Load(Param("xx"), X0)
	VBROADCASTSS(X0, Z24)
	Load(Param("ng"), X0)
	VBROADCASTSS(X0, Z25)
	VMULPS_BCST(cst(0), Z25, Z25)
	VBROADCASTSS(cst(1), Z26)
	VBROADCASTSS(cst(2), Z23)
	VBROADCASTSS(cst(3), Z22)
	VBROADCASTSS(cst(4), Z27)
	VBROADCASTSS(cst(5), Z28)
	VMOVUPS(tab.Offset(0), Z18)
	VPXORQ(Z31, Z31, Z31)
	VPXORQ(Z20, Z20, Z20)
	VPXORQ(Z21, Z21, Z21)
	step := func(nv int) { expStep(expPS, nv, 0, true, row, cc, v, cst, 0) }
	tail := R9
	MOVQ(n, tail)
	SHRQ(Imm(1), n) // steps of 64 values
	ANDQ(Imm(1), tail)
	TESTQ(n, n)
	JE(LabelRef("tail"))
	Label("loop")
	step(4)
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("tail")
	TESTQ(tail, tail)
	JE(LabelRef("done"))
	step(2)
	Label("done")
	VADDPS(Z21, Z20, Z20)
	VEXTRACTF32X8(Imm(1), Z20, Y1)
	VADDPS(Y1, Y20, Y1)
	VEXTRACTF128(Imm(1), Y1, X2)
	VADDPS(X2, X1, X1)
	VMOVHLPS(X1, X1, X2)
	VADDPS(X2, X1, X1)
	VMOVSHDUP(X1, X2)
	VADDSS(X2, X1, X1)
	Store(X1, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// flush32 emits dst[j] += float64(src[j]); src[j] = 0 for j < n (n a
// multiple of 32): a float32 partial sum moved into its float64 total.
func flush32() {
	TEXT("flush32AVX512", NOSPLIT, "func(n int, src *float32, dst *float64)")
	Doc("flush32AVX512 sets dst[j] += float64(src[j]) and src[j] = 0 for j < n (n a multiple of 32).")
	n, src, dst := RCX, RSI, RDI
	Load(Param("n"), n)
	Load(Param("src"), src)
	Load(Param("dst"), dst)
	SHRQ(Imm(5), n)
	VPXORQ(Z31, Z31, Z31)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < 4; h++ {
		VCVTPS2PD(Mem{Base: src, Disp: 32 * h}, zmm[h])
	}
	for h := 0; h < 4; h++ {
		VADDPD(Mem{Base: dst, Disp: 64 * h}, zmm[h], zmm[h])
	}
	for h := 0; h < 4; h++ {
		VMOVUPD(zmm[h], Mem{Base: dst, Disp: 64 * h})
	}
	VMOVUPS(Z31, Mem{Base: src})
	VMOVUPS(Z31, Mem{Base: src, Disp: 64})
	ADDQ(Imm(128), src)
	ADDQ(U32(256), dst)
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}
