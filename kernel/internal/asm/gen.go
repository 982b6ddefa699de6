// Command asm generates the AVX-512 micro-kernels of package kernel
// (kernel/simd_amd64.s and kernel/simd_stub_amd64.go) with avo.
//
// Run it through "go generate ./kernel" (see kernel/simd.go). The kernels are:
//
//   - gemm8x16AVX512: an 8×16 register-blocked tile of A·Bᵀ from packed
//     panels (A as [k][8], B as [k][16]), 16 zmm accumulators, the inner loop
//     issuing 2 loads, 8 broadcasts and 16 FMAs per step of k.
//   - expRowAVX512 / expRowDotAVX512: the Gaussian map of one row of dot
//     products, k_j = exp(ng·max(0, xx + cc_j − 2·row_j)), with exp computed
//     from y = x·log2e and q = y rounded to a multiple of 1/16 as 2^⌊q⌋
//     (VSCALEFPD, which also rounds subnormals once) · 2^((16q mod 16)/16)
//     (a 16-entry table, VPERMI2PD) · (1 + p(y − q)), p a degree-7
//     polynomial; four vectors interleaved per step. The Dot variant also returns Σ_j k_j·v_j.
//   - expRowAVX2 / expRowDotAVX2: the same map with Cody–Waite reduction and a
//     degree-13 Taylor polynomial (AVX2 has no 16-entry permute).
//   - axpyAVX512 / axpy4AVX512: y += a·x, and y += a0·x0 + a1·x1 + a2·x2 +
//     a3·x3 as four FMAs in that order (bit-identical to four axpy calls).
//   - axpyRoundAVX512 / axpyRoundAVX2: y += a·x with the product rounded
//     before the add (VMULPD, VADDPD: no FMA), the bits of the scalar
//     y[j] += a*x[j] on amd64, so that a dense row can stand in for scattered
//     scalar updates without changing a result.
//   - cpuid / xgetbv for the run-time feature check.
package main

import (
	"fmt"
	"math"
	"strings"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// expPolyDegree is the degree of the Taylor polynomial for e^r on
// |r| ≤ ln2/2: the remainder (ln2/2)^14/14! ≈ 4e-18 is far below half an ulp.
const expPolyDegree = 13

// The constants below must match kernel/exp.go.
const (
	log2e = 1.4426950408889634073599246810018921374266459541530
	ln2Hi = 6.93147180369123816490e-01 // Go's math.Ln2Hi: 32 significant bits, so k·ln2Hi is exact
	ln2Lo = 1.90821492927058770002e-10
	clamp = -746.0 // below −745.13…, e^x rounds to zero
)

var zmm = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

func main() {
	Package("github.com/landmark-ml/landmark/kernel")
	ConstraintExpr("amd64")

	gemm()
	gemm32()
	expRow16("expRowAVX512", false)
	expRow16("expRowDotAVX512", true)
	axpyKernel("axpyAVX512", true, true, "axpyAVX512 sets y[j] += a·x[j] (one FMA each) for j < n, n a multiple of 16.")
	axpyKernel("axpyRoundAVX512", true, false, "axpyRoundAVX512 sets y[j] += a·x[j] with the product rounded first (no FMA: the bits of the",
		"scalar y[j] += a*x[j]) for j < n, n a multiple of 16.")
	axpy4()
	gemm32to32()
	expRow32()
	axpy4F32()
	flush32()

	c2 := GLOBL("avx2consts", RODATA|NOPTR)
	vals2 := []uint64{
		math.Float64bits(log2e), math.Float64bits(ln2Hi), math.Float64bits(ln2Lo), math.Float64bits(clamp),
		math.Float64bits(2), math.Float64bits(0x1.8p52), 1023 - math.Float64bits(0x1.8p52), math.Float64bits(-1022),
	}
	for i := expPolyDegree; i >= 0; i-- {
		vals2 = append(vals2, math.Float64bits(1/factorial(i)))
	}
	for i, v := range vals2 {
		for l := 0; l < 4; l++ { // replicated: AVX2 has no embedded broadcast
			DATA(32*i+8*l, U64(v))
		}
	}
	cst2 := func(i int) Mem { return c2.Offset(32 * i) }
	gemmAVX2()
	expRowAVX2("expRowAVX2", false, cst2)
	expRowAVX2("expRowDotAVX2", true, cst2)
	axpyKernel("axpyAVX2", false, true, "axpyAVX2 sets y[j] += a·x[j] (one FMA each) for j < n, n a multiple of 16.")
	axpyKernel("axpyRoundAVX2", false, false, "axpyRoundAVX2 is the AVX2 version of axpyRoundAVX512 (no FMA, same bits).")
	axpy4AVX2()
	cpu()
	Generate()
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

func gemm() {
	TEXT("gemm8x16AVX512", NOSPLIT, "func(k int, a, b, c *float64, ldc int, add bool)")
	Doc("gemm8x16AVX512 sets (or, when add, increments) the 8×16 tile at c (row stride ldc",
		"elements) to Σ_p a[p][0:8] ⊗ b[p][0:16] over p < k, for packed a ([k][8]) and b ([k][16]).")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	VMOVUPD(Mem{Base: b}, Z16)
	VMOVUPD(Mem{Base: b, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		t := zmm[18+r%4]
		VBROADCASTSD(Mem{Base: a, Disp: 8 * r}, t)
		VFMADD231PD(Z16, t, zmm[2*r])
		VFMADD231PD(Z17, t, zmm[2*r+1])
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
	for r := 0; r < 8; r++ {
		VADDPD(Mem{Base: c}, zmm[2*r], zmm[2*r])
		VADDPD(Mem{Base: c, Disp: 64}, zmm[2*r+1], zmm[2*r+1])
		VMOVUPD(zmm[2*r], Mem{Base: c})
		VMOVUPD(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
	Label("overwrite")
	for r := 0; r < 8; r++ {
		VMOVUPD(zmm[2*r], Mem{Base: c})
		VMOVUPD(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}

func gemm32() {
	TEXT("gemm8x32F32AVX512", NOSPLIT, "func(k int, a, b *float32, c *float64, ldc int, add bool)")
	Doc("gemm8x32F32AVX512 is the float32 mode of gemm8x16AVX512: it sums Σ_p a[p][0:8] ⊗ b[p][0:32]",
		"over p < k in float32 (packed a [k][8], b [k][32]) and sets or increments the 8×32 float64 tile at c.")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
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

// Constants of the table-driven exponential of expRow16. y = t·(ng·log2e)
// is e^x in powers of two: e^x = 2^y. VRNDSCALEPD rounds y to the nearest
// multiple of 1/16, q = k/16 (its immediate keeps 4 fraction bits), and
// f = y − q ∈ [−1/32, 1/32] is exact; then e^x = 2^⌊q⌋ · 2^((k mod 16)/16) ·
// 2^f: the first factor by VSCALEFPD (which floors its exponent operand
// itself), the second from a 16-entry table held in two registers
// (VPERMI2PD uses the low 4 bits of q + 1.5·2^48, whose last mantissa bit is
// worth 1/16, i.e. k mod 16), the third as 1 + p(f) with p the degree-7
// Taylor polynomial of e^u − 1, u = f·ln2, |u| ≤ 0.0217: its remainder
// |u|^8/8! ≈ 1.2e-18 is far below half an ulp (1.1e-16).
const (
	exp16Degree = 7
	exp16Clamp  = -1076 // 2^y rounds to zero below 2^−1075: clamping here keeps −Inf out of f
)

// exp16Consts returns, in order: log2e, the clamp, 1.5·2^48, (unused), 2,
// then the polynomial's coefficients ln2^i/i! for i = 7 … 1.
func exp16Consts() []float64 {
	vals := []float64{log2e, exp16Clamp, 0x1.8p48, 0, 2}
	for i := exp16Degree; i >= 1; i-- {
		vals = append(vals, math.Pow(math.Ln2, float64(i))/factorial(i))
	}
	return vals
}

// expRow16 emits the AVX-512 Gaussian row map with the table-driven exp
// above: 12 FMA-unit operations per 8 values (the degree-13 Taylor version
// needed 20).
func expRow16(name string, withDot bool) {
	consts := GLOBL(name+"consts", RODATA|NOPTR)
	for i, v := range exp16Consts() {
		DATA(8*i, U64(math.Float64bits(v)))
	}
	cst := func(i int) Mem { return consts.Offset(8 * i) }
	tab := GLOBL(name+"tab", RODATA|NOPTR)
	for j := 0; j < 16; j++ {
		DATA(8*j, U64(math.Float64bits(math.Exp2(float64(j)/16))))
	}

	sig := "func(row, cc *float64, n int, xx, ng float64)"
	if withDot {
		sig = "func(row, cc, v *float64, n int, xx, ng float64) float64"
	}
	TEXT(name, NOSPLIT, sig)
	if withDot {
		Doc(name+" replaces row[j] (a dot product x·c_j) by exp(ng·max(0, xx + cc[j] − 2·row[j]))",
			"for j < n (n a multiple of 16) and returns Σ_j row[j]·v[j] (two 8-lane partial sums).")
	} else {
		Doc(name+" replaces row[j] (a dot product x·c_j) by exp(ng·max(0, xx + cc[j] − 2·row[j]))",
			"for j < n (n a multiple of 16).")
	}
	row, cc, v, n := RSI, RDI, R8, RCX
	Load(Param("row"), row)
	Load(Param("cc"), cc)
	if withDot {
		Load(Param("v"), v)
	}
	Load(Param("n"), n)
	SHRQ(Imm(4), n)
	// Z18 table 0–7, Z19 table 8–15, Z20/Z21 dot partials,
	// Z23 1.5·2^48, Z24 xx, Z25 s = ng·log2e, Z26 clamp, Z27 2, Z28 c7, Z31 zero.
	Load(Param("xx"), X0)
	VBROADCASTSD(X0, Z24)
	Load(Param("ng"), X0)
	VBROADCASTSD(X0, Z25)
	VMULPD_BCST(cst(0), Z25, Z25)
	VBROADCASTSD(cst(1), Z26)
	VBROADCASTSD(cst(2), Z23)
	VBROADCASTSD(cst(4), Z27)
	VBROADCASTSD(cst(5), Z28)
	VMOVUPD(tab.Offset(0), Z18)
	VMOVUPD(tab.Offset(64), Z19)
	VPXORQ(Z31, Z31, Z31)
	VPXORQ(Z20, Z20, Z20)
	VPXORQ(Z21, Z21, Z21)
	// Four vectors (32 values) per step, their instructions interleaved so
	// that four independent dependency chains are in flight (one chain's
	// latency, not the FMA units, otherwise bounds the loop); then one step
	// of two vectors for the remaining 16 values when n is not a multiple of 32.
	step := func(nv int) {
		for h := 0; h < nv; h++ {
			VADDPD(Mem{Base: cc, Disp: 64 * h}, Z24, zmm[4*h]) // t = xx + cc
		}
		for h := 0; h < nv; h++ {
			VFNMADD231PD(Mem{Base: row, Disp: 64 * h}, Z27, zmm[4*h]) // t −= 2·row (2·row is exact)
		}
		for h := 0; h < nv; h++ {
			VMAXPD(zmm[4*h], Z31, zmm[4*h]) // clamp round-off at 0 (NaN stays NaN)
		}
		for h := 0; h < nv; h++ {
			VMULPD(Z25, zmm[4*h], zmm[4*h]) // y = s·t ≤ 0
		}
		for h := 0; h < nv; h++ {
			VMAXPD(zmm[4*h], Z26, zmm[4*h]) // y ≥ clamp (NaN stays NaN)
		}
		for h := 0; h < nv; h++ {
			VRNDSCALEPD(Imm(0x40), zmm[4*h], zmm[4*h+1]) // q = round(16y)/16
		}
		for h := 0; h < nv; h++ {
			VSUBPD(zmm[4*h+1], zmm[4*h], zmm[4*h]) // f = y − q, exact, |f| ≤ 1/32
		}
		for h := 0; h < nv; h++ {
			VADDPD(Z23, zmm[4*h+1], zmm[4*h+2]) // 16q mod 16 in the low bits
		}
		for h := 0; h < nv; h++ {
			VPERMI2PD(Z19, Z18, zmm[4*h+2]) // T = 2^((16q mod 16)/16)
		}
		for h := 0; h < nv; h++ {
			VMOVAPD(Z28, zmm[4*h+3]) // q = c7
		}
		for i := 1; i < exp16Degree; i++ {
			for h := 0; h < nv; h++ {
				VFMADD213PD_BCST(cst(5+i), zmm[4*h], zmm[4*h+3]) // q = q·f + c_(7−i)
			}
		}
		for h := 0; h < nv; h++ {
			VMULPD(zmm[4*h], zmm[4*h+3], zmm[4*h+3]) // p(f) = e^u − 1
		}
		for h := 0; h < nv; h++ {
			VFMADD213PD(zmm[4*h+2], zmm[4*h+2], zmm[4*h+3]) // T·q + T
		}
		for h := 0; h < nv; h++ {
			VSCALEFPD(zmm[4*h+1], zmm[4*h+3], zmm[4*h+3]) // ·2^⌊q⌋
		}
		for h := 0; h < nv; h++ {
			VMOVUPD(zmm[4*h+3], Mem{Base: row, Disp: 64 * h})
		}
		if withDot {
			for h := 0; h < nv; h++ {
				VFMADD231PD(Mem{Base: v, Disp: 64 * h}, zmm[4*h+3], zmm[20+h%2])
			}
		}
		for _, p := range []Register{row, cc} {
			ADDQ(U32(64*nv), p)
		}
		if withDot {
			ADDQ(U32(64*nv), v)
		}
	}
	tail := R9
	MOVQ(n, tail)
	SHRQ(Imm(1), n) // steps of 32 values
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
	if withDot {
		VADDPD(Z21, Z20, Z20)
		VEXTRACTF64X4(Imm(1), Z20, Y1)
		VADDPD(Y1, Y20, Y1)
		VEXTRACTF128(Imm(1), Y1, X2)
		VADDPD(X2, X1, X1)
		VPERMILPD(Imm(1), X1, X2)
		VADDSD(X2, X1, X1)
		Store(X1, ReturnIndex(0))
	}
	VZEROUPPER()
	RET()
}

func axpy4() {
	TEXT("axpy4AVX512", NOSPLIT, "func(n int, a *[4]float64, x *float64, stride int, y *float64)")
	Doc("axpy4AVX512 sets y[j] = fma(a[3], x3[j], fma(a[2], x2[j], fma(a[1], x1[j], fma(a[0], x0[j], y[j]))))",
		"for j < n (n a multiple of 16), where xi = x + i·stride: the same bits as four axpy calls.")
	n, ap, x, st, y := RCX, RAX, RSI, RDX, RDI
	Load(Param("n"), n)
	Load(Param("a"), ap)
	Load(Param("x"), x)
	Load(Param("stride"), st)
	Load(Param("y"), y)
	SHLQ(Imm(3), st)
	SHRQ(Imm(4), n)
	for i := 0; i < 4; i++ {
		VBROADCASTSD(Mem{Base: ap, Disp: 8 * i}, zmm[16+i])
	}
	x1, x2, x3 := R8, R9, R10
	LEAQ(Mem{Base: x, Index: st, Scale: 1}, x1)
	LEAQ(Mem{Base: x1, Index: st, Scale: 1}, x2)
	LEAQ(Mem{Base: x2, Index: st, Scale: 1}, x3)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < 2; h++ {
		acc := zmm[h]
		VMOVUPD(Mem{Base: y, Disp: 64 * h}, acc)
		for i, xp := range []Register{x, x1, x2, x3} {
			VFMADD231PD(Mem{Base: xp, Disp: 64 * h}, zmm[16+i], acc)
		}
		VMOVUPD(acc, Mem{Base: y, Disp: 64 * h})
	}
	for _, p := range []Register{x, x1, x2, x3, y} {
		ADDQ(Imm(128), p)
	}
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

var ymm = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

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
	for h := 0; h < 2; h++ {
		x, kf, p := ymm[4*h], ymm[4*h+1], ymm[4*h+2]
		VADDPD(Mem{Base: cc, Disp: 32 * h}, Y8, x)
		VFNMADD231PD(Mem{Base: row, Disp: 32 * h}, Y10, x)
		VMAXPD(x, Y11, x)
		VMULPD(Y9, x, x)
		VMAXPD(x, Y13, x)
		VMULPD(Y12, x, kf)
		VROUNDPD(Imm(0), kf, kf)
		VFNMADD231PD(cst(1), kf, x)
		VFNMADD231PD(cst(2), kf, x)
		VMOVUPD(cst(8), p)
		for i := 1; i <= expPolyDegree; i++ {
			VFMADD213PD(cst(8+i), x, p)
		}
		VMAXPD(cst(7), kf, x) // k1 = max(k, −1022)
		VSUBPD(x, kf, kf)     // k2 = k − k1
		for _, s := range []VecPhysical{x, kf} {
			VADDPD(cst(5), s, s)
			VPADDQ(cst(6), s, s)
			VPSLLQ(Imm(52), s, s)
			VMULPD(s, p, p)
		}
		VMOVUPD(p, Mem{Base: row, Disp: 32 * h})
		if withDot {
			VFMADD231PD(Mem{Base: v, Disp: 32 * h}, p, ymm[14+h])
		}
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

func axpy4AVX2() {
	TEXT("axpy4AVX2", NOSPLIT, "func(n int, a *[4]float64, x *float64, stride int, y *float64)")
	Doc("axpy4AVX2 is the AVX2+FMA version of axpy4AVX512 (same FMA order, same bits).")
	n, ap, x, st, y := RCX, RAX, RSI, RDX, RDI
	Load(Param("n"), n)
	Load(Param("a"), ap)
	Load(Param("x"), x)
	Load(Param("stride"), st)
	Load(Param("y"), y)
	SHLQ(Imm(3), st)
	SHRQ(Imm(4), n)
	for i := 0; i < 4; i++ {
		VBROADCASTSD(Mem{Base: ap, Disp: 8 * i}, ymm[12+i])
	}
	x1, x2, x3 := R8, R9, R10
	LEAQ(Mem{Base: x, Index: st, Scale: 1}, x1)
	LEAQ(Mem{Base: x1, Index: st, Scale: 1}, x2)
	LEAQ(Mem{Base: x2, Index: st, Scale: 1}, x3)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < 4; h++ {
		acc := ymm[h]
		VMOVUPD(Mem{Base: y, Disp: 32 * h}, acc)
		for i, xp := range []Register{x, x1, x2, x3} {
			VFMADD231PD(Mem{Base: xp, Disp: 32 * h}, ymm[12+i], acc)
		}
		VMOVUPD(acc, Mem{Base: y, Disp: 32 * h})
	}
	for _, p := range []Register{x, x1, x2, x3, y} {
		ADDQ(Imm(128), p)
	}
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

func cpu() {
	TEXT("cpuid", NOSPLIT, "func(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)")
	Doc("cpuid executes CPUID with the given EAX and ECX.")
	Load(Param("eaxArg"), EAX)
	Load(Param("ecxArg"), ECX)
	CPUID()
	Store(EAX, Return("eax"))
	Store(EBX, Return("ebx"))
	Store(ECX, Return("ecx"))
	Store(EDX, Return("edx"))
	RET()

	TEXT("xgetbv", NOSPLIT, "func() (eax, edx uint32)")
	Doc("xgetbv reads XCR0 (call only when CPUID reports OSXSAVE).")
	XORL(ECX, ECX)
	XGETBV()
	Store(EAX, Return("eax"))
	Store(EDX, Return("edx"))
	RET()
}

// gemm32to32 emits the float32 tile kernel whose result stays in float32:
// the K block of the float32 passes (d ≤ 256, one k-block, so no add).
func gemm32to32() {
	TEXT("gemm8x32F32to32AVX512", NOSPLIT, "func(k int, a, b, c *float32, ldc int)")
	Doc("gemm8x32F32to32AVX512 sets the 8×32 float32 tile at c (row stride ldc elements) to",
		"Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 (packed a [k][8], b [k][32]).")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(2), ldc)
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
	for r := 0; r < 8; r++ {
		VMOVUPS(zmm[2*r], Mem{Base: c})
		VMOVUPS(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}

// Float32 exp: the scheme of expRow16 in single precision, 16 lanes, with
// the degree-3 Taylor polynomial of e^u − 1 (|u| ≤ ln2/32: remainder
// |u|^4/4! ≈ 9e-9, below half an ulp of float32, 3e-8).
const (
	exp32Degree = 3
	exp32Clamp  = -152 * 16 // 2^(z/16) rounds to zero below 2^−150 in float32
)

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
	step := func(nv int) {
		for h := 0; h < nv; h++ {
			VADDPS(Mem{Base: cc, Disp: 64 * h}, Z24, zmm[4*h])
		}
		for h := 0; h < nv; h++ {
			VFNMADD231PS(Mem{Base: row, Disp: 64 * h}, Z27, zmm[4*h])
		}
		for h := 0; h < nv; h++ {
			VMAXPS(zmm[4*h], Z31, zmm[4*h])
		}
		for h := 0; h < nv; h++ {
			VMULPS(Z25, zmm[4*h], zmm[4*h])
		}
		for h := 0; h < nv; h++ {
			VMAXPS(zmm[4*h], Z26, zmm[4*h])
		}
		for h := 0; h < nv; h++ {
			VRNDSCALEPS(Imm(0), zmm[4*h], zmm[4*h+1])
		}
		for h := 0; h < nv; h++ {
			VSUBPS(zmm[4*h+1], zmm[4*h], zmm[4*h])
		}
		for h := 0; h < nv; h++ {
			VADDPS(Z23, zmm[4*h+1], zmm[4*h+2])
		}
		for h := 0; h < nv; h++ {
			VPERMPS(Z18, zmm[4*h+2], zmm[4*h+2]) // T = 2^((k mod 16)/16)
		}
		for h := 0; h < nv; h++ {
			VMULPS(Z22, zmm[4*h+1], zmm[4*h+1])
		}
		for h := 0; h < nv; h++ {
			VMOVAPS(Z28, zmm[4*h+3])
		}
		for i := 1; i < exp32Degree; i++ {
			for h := 0; h < nv; h++ {
				VFMADD213PS_BCST(cst(5+i), zmm[4*h], zmm[4*h+3])
			}
		}
		for h := 0; h < nv; h++ {
			VMULPS(zmm[4*h], zmm[4*h+3], zmm[4*h+3])
		}
		for h := 0; h < nv; h++ {
			VFMADD213PS(zmm[4*h+2], zmm[4*h+2], zmm[4*h+3])
		}
		for h := 0; h < nv; h++ {
			VSCALEFPS(zmm[4*h+1], zmm[4*h+3], zmm[4*h+3])
		}
		for h := 0; h < nv; h++ {
			VMOVUPS(zmm[4*h+3], Mem{Base: row, Disp: 64 * h})
		}
		for h := 0; h < nv; h++ {
			VFMADD231PS(Mem{Base: v, Disp: 64 * h}, zmm[4*h+3], zmm[20+h%2])
		}
		for _, p := range []Register{row, cc, v} {
			ADDQ(U32(64*nv), p)
		}
	}
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

// axpy4F32 emits the float32 axpy4: y += a0·x0 + a1·x1 + a2·x2 + a3·x3 in that
// FMA order, 32 values per step.
func axpy4F32() {
	TEXT("axpy4F32AVX512", NOSPLIT, "func(n int, a *[4]float32, x *float32, stride int, y *float32)")
	Doc("axpy4F32AVX512 sets y[j] = fma(a[3], x3[j], fma(a[2], x2[j], fma(a[1], x1[j], fma(a[0], x0[j], y[j]))))",
		"in float32 for j < n (n a multiple of 32), where xi = x + i·stride.")
	n, ap, x, st, y := RCX, RAX, RSI, RDX, RDI
	Load(Param("n"), n)
	Load(Param("a"), ap)
	Load(Param("x"), x)
	Load(Param("stride"), st)
	Load(Param("y"), y)
	SHLQ(Imm(2), st)
	SHRQ(Imm(5), n)
	for i := 0; i < 4; i++ {
		VBROADCASTSS(Mem{Base: ap, Disp: 4 * i}, zmm[16+i])
	}
	x1, x2, x3 := R8, R9, R10
	LEAQ(Mem{Base: x, Index: st, Scale: 1}, x1)
	LEAQ(Mem{Base: x1, Index: st, Scale: 1}, x2)
	LEAQ(Mem{Base: x2, Index: st, Scale: 1}, x3)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < 2; h++ {
		acc := zmm[h]
		VMOVUPS(Mem{Base: y, Disp: 64 * h}, acc)
		for i, xp := range []Register{x, x1, x2, x3} {
			VFMADD231PS(Mem{Base: xp, Disp: 64 * h}, zmm[16+i], acc)
		}
		VMOVUPS(acc, Mem{Base: y, Disp: 64 * h})
	}
	for _, p := range []Register{x, x1, x2, x3, y} {
		ADDQ(Imm(128), p)
	}
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
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

// axpyKernel emits y[j] += a·x[j] for j < n (n a multiple of 16), 128 bytes
// a loop: two ZMM registers with avx512, else four YMM. fused uses one FMA
// a lane; otherwise the product is rounded first (VMULPD, then VADDPD), the
// bits of the scalar y[j] += a*x[j].
func axpyKernel(name string, avx512, fused bool, doc ...string) {
	TEXT(name, NOSPLIT, "func(n int, a float64, x, y *float64)")
	Doc(doc...)
	n, x, y := RCX, RSI, RDI
	Load(Param("n"), n)
	Load(Param("x"), x)
	Load(Param("y"), y)
	SHRQ(Imm(4), n)
	Load(Param("a"), X0)
	regs, av, width := ymm, VecPhysical(Y8), 32
	if avx512 {
		regs, av, width = zmm, Z16, 64
	}
	parts := 128 / width
	VBROADCASTSD(X0, av)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < parts; h++ {
		acc, at := regs[h], width*h
		if fused {
			VMOVUPD(Mem{Base: y, Disp: at}, acc)
			VFMADD231PD(Mem{Base: x, Disp: at}, av, acc)
		} else {
			VMULPD(Mem{Base: x, Disp: at}, av, regs[parts+h])
			VADDPD(Mem{Base: y, Disp: at}, regs[parts+h], acc)
		}
		VMOVUPD(acc, Mem{Base: y, Disp: at})
	}
	ADDQ(Imm(128), x)
	ADDQ(Imm(128), y)
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}
