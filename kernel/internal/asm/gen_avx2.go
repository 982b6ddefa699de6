package main

import (
	"fmt"
	"math"
	"math/big"
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

// gemmDenseAVX2 emits gemm6x8AVX2, kernel.Dense's AVX2 tile: one 6×8 piece
// of 12 accumulators over panels of 6 rows of a and 8 columns of b.
func gemmDenseAVX2() {
	gemmTilesAVX2("gemm6x8AVX2", tileF64, 6, 8, []subTile{{0, 6, 0, 2}},
		"gemm6x8AVX2 sets (or, when add, increments) the 6×8 tile at c (row stride ldc elements) to",
		"Σ_p a[p][0:6] ⊗ b[p][0:8] over p < k, for packed a ([k][6]) and b ([k][8]), its block of c prefetched first.")
}

// The AVX2 float64 exp of expRowAVX2 / expRowDotAVX2. AVX2 has neither
// VSCALEFPD nor a 16-entry VPERMI2PD, so the AVX-512 scheme (gen_avx512.go)
// is rebuilt from what it has. y = t·(ng·log2e) (e^x = 2^y); adding
// M = 1.5·2^50 + 4096 (its last mantissa bit is worth 1/4) rounds y to q, a
// multiple of 1/4, and leaves L = 4q + 4·4096 in the low bits of the sum
// a = y + M; q = a − M and f = y − q ∈ [−1/8, 1/8] are exact. With
// j = L mod 4, e^x = 2^y = 2^⌊q⌋ · 2^(j/4) · (1 + p(f)), where
//   - 2^(j/4) comes from a 4-entry table read by VPERMD, which permutes
//     32-bit lanes across the register (the index pair 2j, 2j+1 selects the
//     float64 entry j; AVX2 has no variable 64-bit permute), the pair built
//     from the bits of a by VPADDQ, VPSHUFD and VPOR;
//   - T = 2^⌊q⌋·2^(j/4) is made by one integer add to the entry's bits:
//     a << 50 is (4⌊q⌋ + j) << 50 modulo 2^64 (4096 is a multiple of 2^12,
//     so the bias leaves the shift), i.e. ⌊q⌋ in the exponent field plus
//     j << 50, which the table entries have subtracted beforehand; no 64-bit
//     arithmetic shift, integer max or VSCALEFPD is needed;
//   - p is the degree-9 Taylor polynomial of e^u − 1 in u = f·ln2 (remainder
//     |u|^10/10! ≤ 6.5e-18 for |u| ≤ ln2/8) with its f^9 term replaced by the
//     degree-7 Chebyshev economization of f^9 on [−1/8, 1/8], whose error is
//     (1/8)^9/2^8 times that term's coefficient ln2^9/9!: 2.9e-18. With
//     the 8 coefficients rounded to float64, |p − (e^u − 1)| ≤ 1.4e-17
//     (measured in 200-bit arithmetic on a grid of [−1/8, 1/8]), an eighth
//     of an ulp of e^u (1.1e-16);
//   - the result is T·p + T, one FMA.
//
// T is normal when ⌊q⌋ ≥ −1022, which holds when y ≥ −1022: then the FMA
// rounds the result once, also when it is subnormal. A step whose smallest y
// is below −1022 (a kernel value under 2.2e-308) takes the other branch: y
// clamped at −1076 (where 2^y rounds to zero), the entries of a second table
// scaled by 2^54 so that T·2^54 stays normal, and the FMA's result
// multiplied by 2^−54, which rounds once in the subnormal range (the role of
// VSCALEFPD in the AVX-512 kernel).
//
// Per 4 values the FMA units run 12 operations (xx + cc − 2·row as one
// FNMADD with the row as its memory operand, as on AVX-512, the product
// s·t, 7 Horner steps, p·f, T·p + T and the dot product's FMA), against 22
// for the Cody–Waite version with a degree-13 polynomial used before. The
// FNMADD replaced a load, VADDPD (2·row) and VSUBPD, the same bits:
// BenchmarkExpRow/avx2 0.91–0.97 → 0.86–0.92 CPU-ns a value (three
// interleaved pairs, one core of a Zen 4 EPYC, load ≈ 9, 2026-11-26).
const (
	// expAVX2Prefetch is how far ahead in row (bytes) each step of
	// expRowAVX2 prefetches. In the engine the row map reads a block of K
	// (256 rows × M = 2,000 at d = 784: 4 MB) that the tiles have just
	// written and that has left L2, a row at a time; the hardware
	// prefetcher alone left it at about twice its in-cache time. Fused pass
	// at d = 784, the row map and Kᵀ(K v) alone on 256-row blocks, one
	// core of a Zen 4 EPYC, variants interleaved in one process, load 7–9:
	// 0.70 → 0.51 ms a block with 2 KiB (best of 40; medians 0.71–0.74 →
	// 0.53–0.54; 1, 4 and 8 KiB between the two), about 1.2% of the pass.
	expAVX2Prefetch = 2048
	expAVX2Degree   = 8
	expAVX2Bias     = 4096              // a multiple of 2^12 above the largest −⌊q⌋, 1076
	expAVX2Slow     = 1022              // a step whose smallest y is below −1022 takes the subnormal branch
	expAVX2Two      = 6 + expAVX2Degree // index of the constant 2 in expAVX2Consts
)

// expAVX2Consts returns the replicated constants of expRowAVX2: ng's factor
// log2e, the clamp of y, the rounding shift M, the 32-bit lane pattern
// (0, 1) of the VPERMD index pairs, 1022 (the branch test), 2^−54, the
// polynomial's coefficients for f^8 … f^1, then 2 (at index expAVX2Two).
func expAVX2Consts() []uint64 {
	vals := []uint64{math.Float64bits(log2e), math.Float64bits(exp16Clamp), math.Float64bits(0x1.8p50 + expAVX2Bias), 1 << 32,
		math.Float64bits(expAVX2Slow), math.Float64bits(0x1p-54)}
	c := expAVX2Poly()
	for i := expAVX2Degree; i >= 1; i-- {
		vals = append(vals, math.Float64bits(c[i]))
	}
	return append(vals, math.Float64bits(2)) // expAVX2Two
}

// expAVX2Poly returns the coefficients c[1…8] of p(f) ≈ e^(f·ln2) − 1 on
// |f| ≤ 1/8: the Taylor coefficients ln2^i/i! up to i = 9, with f^9 replaced
// by its economization h^9·(576s^7 − 432s^5 + 120s^3 − 9s)/256, s = f/h,
// h = 1/8 (f^9 = h^9·(T9(s) + 576s^7 − 432s^5 + 120s^3 − 9s)/256 and
// |T9(s)| ≤ 1 on the interval).
func expAVX2Poly() [expAVX2Degree + 1]float64 {
	var t [10]float64
	for i := 1; i <= 9; i++ {
		t[i] = math.Pow(math.Ln2, float64(i)) / factorial(i)
	}
	const h = 1.0 / 8
	var c [expAVX2Degree + 1]float64
	copy(c[:], t[:9])
	a9 := t[9] / 256
	c[7] += a9 * 576 * math.Pow(h, 2)
	c[5] -= a9 * 432 * math.Pow(h, 4)
	c[3] += a9 * 120 * math.Pow(h, 6)
	c[1] -= a9 * 9 * math.Pow(h, 8)
	return c
}

// expAVX2Table returns the two tables of expRowAVX2 as bit patterns: the
// bits of 2^(j/4) (correctly rounded: 2^(1/4) and 2^(3/4) from square roots
// in 128-bit precision) minus j << 50, for j = 0 … 3, and the same with
// 54 added to the exponent field (the entries times 2^54).
func expAVX2Table() (fast, slow [4]uint64) {
	const prec = 128
	two := new(big.Float).SetPrec(prec).SetInt64(2)
	r2 := new(big.Float).SetPrec(prec).Sqrt(two)    // 2^(1/2)
	r4 := new(big.Float).SetPrec(prec).Sqrt(r2)     // 2^(1/4)
	r34 := new(big.Float).SetPrec(prec).Mul(r2, r4) // 2^(3/4)
	for j, v := range []*big.Float{new(big.Float).SetPrec(prec).SetInt64(1), r4, r2, r34} {
		f, _ := v.Float64()
		fast[j] = math.Float64bits(f) - uint64(j)<<50
		slow[j] = fast[j] + 54<<52
	}
	return fast, slow
}

// expRowAVX2 emits the AVX2 Gaussian row map (n a multiple of 8): four
// vectors a step, their instructions interleaved so that four dependency
// chains are in flight, then one step of two vectors when n is not a
// multiple of 16. Measured (BenchmarkExpRow on Zen 4, one core): with
// 512 values in L1, 0.76 ns a value at four vectors a step, 0.86 at three,
// 0.93 at two; reducing 4y with VROUNDPD (a shorter chain, two registers a
// vector) and parking T in row to run five or six vectors a step was no
// faster. The pieces are methods of expAVX2 (registers: expVecs).
//
// Each step prefetches the lines expAVX2Prefetch bytes ahead of it in row.
func expRowAVX2(name string, withDot bool) {
	e := expAVX2{withDot: withDot, row: RSI, cc: RDI, v: R8, n: RCX, mask: RAX, tmp: Y15, pf: expAVX2Prefetch}
	e.consts, e.tabs = expAVX2Data(name)
	e.prologue(name)
	// n/4 is even: steps of four vectors, then one of two if n/4 is not a
	// multiple of 4.
	Label("loop")
	CMPQ(e.n, U8(4))
	JB(LabelRef("tail"))
	e.step(4)
	SUBQ(U8(4), e.n)
	JMP(LabelRef("loop"))
	Label("tail")
	TESTQ(e.n, e.n)
	JE(LabelRef("done"))
	e.step(2)
	Label("done")
	if withDot {
		e.returnDot()
	}
	VZEROUPPER()
	RET()
}

// expAVX2 is what the pieces of one expRowAVX2 kernel share: its data,
// its argument registers and the stack address of xx. Y12 holds zero, Y13
// s = ng·log2e, Y14 the dot product's sum and tmp (Y15) the constant in use.
type expAVX2 struct {
	withDot             bool
	pf                  int // PREFETCHT0 of row this many bytes ahead
	consts, tabs        Mem
	xx                  Mem
	row, cc, v, n, mask GPPhysical
	tmp                 VecPhysical
}

// expAVX2Data emits the constants (expAVX2Consts, each replicated four
// times: AVX2 has no embedded broadcast) and the two tables
// (expAVX2Table) of the kernel name.
func expAVX2Data(name string) (consts, tabs Mem) {
	consts = GLOBL(name+"consts", RODATA|NOPTR)
	for i, v := range expAVX2Consts() {
		for l := 0; l < 4; l++ {
			DATA(32*i+8*l, U64(v))
		}
	}
	fast, slow := expAVX2Table()
	tabs = GLOBL(name+"tab", RODATA|NOPTR)
	for j, b := range append(fast[:], slow[:]...) {
		DATA(8*j, U64(b))
	}
	return consts, tabs
}

// cst is the i-th constant of expAVX2Consts.
func (e *expAVX2) cst(i int) Mem { return e.consts.Offset(32 * i) }

// shared loads the i-th constant into tmp for the vectors of a step.
func (e *expAVX2) shared(i int) VecPhysical {
	VMOVUPD(e.cst(i), e.tmp)
	return e.tmp
}

// expVecs emits f for the nv vectors of a step, each with its registers:
// ymm[3h] t, y, f, then the table entry and T; ymm[3h+1] a (y + M); ymm[3h+2]
// q, then the polynomial and the result.
func expVecs(nv int, f func(t, a, p VecPhysical, h int)) {
	for h := 0; h < nv; h++ {
		f(ymm[3*h], ymm[3*h+1], ymm[3*h+2], h)
	}
}

// prologue emits the function header, loads the arguments, sets Y13 =
// ng·log2e, zeroes Y12 and Y14 and turns n into a count of vectors.
func (e *expAVX2) prologue(name string) {
	sig := "func(row, cc *float64, n int, xx, ng float64)"
	if e.withDot {
		sig = "func(row, cc, v *float64, n int, xx, ng float64) float64"
	}
	TEXT(name, NOSPLIT, sig)
	Doc(name+" is the AVX2+FMA version of "+strings.Replace(name, "AVX2", "AVX512", 1)+" (n a multiple of 8;",
		"a 4-entry table and a degree-8 polynomial, see gen_avx2.go).")
	Load(Param("row"), e.row)
	Load(Param("cc"), e.cc)
	if e.withDot {
		Load(Param("v"), e.v)
	}
	Load(Param("n"), e.n)
	xx, err := Param("xx").Resolve()
	if err != nil {
		panic(err)
	}
	e.xx = xx.Addr
	Load(Param("ng"), X13)
	VBROADCASTSD(X13, Y13)
	VMULPD(e.cst(0), Y13, Y13) // s = ng·log2e
	VXORPD(Y12, Y12, Y12)
	VXORPD(Y14, Y14, Y14)
	SHRQ(Imm(2), e.n) // vectors of 4 values
}

// step emits one step of nv vectors: the argument y, the branch to the
// subnormal version, e^y by either version, the stores and the dot product.
func (e *expAVX2) step(nv int) {
	e.argument(nv)
	slowL, next := fmt.Sprintf("slow%d", nv), fmt.Sprintf("next%d", nv)
	e.branchIfSubnormal(nv, slowL)
	e.exp(nv, false)
	JMP(LabelRef(next))
	Label(slowL)
	e.exp(nv, true)
	Label(next)
	e.store(nv)
}

// argument sets t = y = s·max(0, xx + cc − 2·row) for nv vectors.
func (e *expAVX2) argument(nv int) {
	expVecs(nv, func(t, a, p VecPhysical, h int) { VBROADCASTSD(e.xx, t) })
	expVecs(nv, func(t, a, p VecPhysical, h int) { VADDPD(Mem{Base: e.cc, Disp: 32 * h}, t, t) }) // xx + cc
	two := e.shared(expAVX2Two)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VFNMADD231PD(Mem{Base: e.row, Disp: 32 * h}, two, t) }) // t −= 2·row (exact product), as on AVX-512
	expVecs(nv, func(t, a, p VecPhysical, h int) { VMAXPD(t, Y12, t) })                                    // t ≥ 0 (NaN stays NaN)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VMULPD(Y13, t, t) })                                    // y = s·t ≤ 0
}

// branchIfSubnormal jumps to slowL when the smallest y of the step plus
// 1022 is negative.
func (e *expAVX2) branchIfSubnormal(nv int, slowL string) {
	VMINPD(ymm[0], ymm[3*(nv-1)], e.tmp)
	for h := 1; h < nv-1; h++ {
		VMINPD(ymm[3*h], e.tmp, e.tmp)
	}
	VADDPD(e.cst(4), e.tmp, e.tmp)
	VMOVMSKPD(e.tmp, e.mask.As32())
	TESTL(e.mask.As32(), e.mask.As32())
	JNE(LabelRef(slowL))
}

// exp sets p = e^y for nv vectors: y rounded to q (a multiple of 1/4),
// the polynomial of f = y − q, and the scaling by T = 2^⌊q⌋·2^(j/4). The
// subnormal version (sub) clamps y first, reads the table scaled by 2^54
// and scales the result by 2^−54 (rounding once).
func (e *expAVX2) exp(nv int, sub bool) {
	if sub {
		VMOVUPD(e.cst(1), e.tmp)
		expVecs(nv, func(t, a, p VecPhysical, h int) { VMAXPD(t, e.tmp, t) }) // y ≥ −1076 (NaN stays NaN)
	}
	e.reduce(nv)
	e.polynomial(nv)
	e.scale(nv, sub)
}

// reduce sets a = y + M, q = a − M (y rounded to a multiple of 1/4) and
// t = f = y − q (exact).
func (e *expAVX2) reduce(nv int) {
	m := e.shared(2)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VADDPD(m, t, a) }) // a = y + M
	expVecs(nv, func(t, a, p VecPhysical, h int) { VSUBPD(m, a, p) }) // q = a − M
	expVecs(nv, func(t, a, p VecPhysical, h int) { VSUBPD(p, t, t) }) // f = y − q, exact
}

// polynomial sets p = p(f) ≈ e^(f·ln2) − 1 by Horner's rule.
func (e *expAVX2) polynomial(nv int) {
	c := e.shared(6)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VMOVAPD(c, p) }) // p = c8
	for i := 1; i < expAVX2Degree; i++ {
		c := e.shared(6 + i)
		expVecs(nv, func(t, a, p VecPhysical, h int) { VFMADD213PD(c, t, p) }) // p = p·f + next coefficient
	}
	expVecs(nv, func(t, a, p VecPhysical, h int) { VMULPD(t, p, p) }) // p(f) ≈ e^u − 1
}

// scale builds T from the table entry j and ⌊q⌋ held in the low bits of a
// and sets p = T·p + T (times 2^−54 in the subnormal version).
func (e *expAVX2) scale(nv int, sub bool) {
	expVecs(nv, func(t, a, p VecPhysical, h int) { VPADDQ(a, a, t) })          // low 32 bits 2L: bits 1–2 are j
	expVecs(nv, func(t, a, p VecPhysical, h int) { VPSHUFD(Imm(0xa0), t, t) }) // (2L, 2L) in each 64-bit lane
	c := e.shared(3)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VPOR(c, t, t) }) // (2j, 2j+1) in the low 3 bits
	tab := e.tabs.Offset(0)
	if sub {
		tab = e.tabs.Offset(32)
	}
	VMOVUPD(tab, e.tmp)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VPERMD(e.tmp, t, t) })   // the entry
	expVecs(nv, func(t, a, p VecPhysical, h int) { VPSLLQ(Imm(50), a, a) }) // (4⌊q⌋ + j) << 50
	expVecs(nv, func(t, a, p VecPhysical, h int) { VPADDQ(a, t, t) })       // T = 2^⌊q⌋·2^(j/4) (·2^54 if sub)
	expVecs(nv, func(t, a, p VecPhysical, h int) { VFMADD213PD(t, t, p) })  // T·p + T
	if sub {
		c = e.shared(5)
		expVecs(nv, func(t, a, p VecPhysical, h int) { VMULPD(c, p, p) }) // ·2^−54, rounding once
	}
}

// store writes the step's values over row, adds their products with v to
// Y14 (withDot) and advances the pointers.
func (e *expAVX2) store(nv int) {
	expVecs(nv, func(t, a, p VecPhysical, h int) { VMOVUPD(p, Mem{Base: e.row, Disp: 32 * h}) })
	for off := 0; e.pf > 0 && off < 32*nv; off += 64 {
		PREFETCHT0(Mem{Base: e.row, Disp: e.pf + off})
	}
	if e.withDot {
		expVecs(nv, func(t, a, p VecPhysical, h int) { VFMADD231PD(Mem{Base: e.v, Disp: 32 * h}, p, Y14) })
	}
	for _, r := range []Register{e.row, e.cc} {
		ADDQ(U32(32*nv), r)
	}
	if e.withDot {
		ADDQ(U32(32*nv), e.v)
	}
}

// returnDot adds the four lanes of Y14 and returns the sum.
func (e *expAVX2) returnDot() {
	VEXTRACTF128(Imm(1), Y14, X1)
	VADDPD(X1, X14, X1)
	VPERMILPD(Imm(1), X1, X2)
	VADDSD(X2, X1, X1)
	Store(X1, ReturnIndex(0))
}
