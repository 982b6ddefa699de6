package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func gemm() {
	gemm8x16("gemm8x16AVX512", false, "gemm8x16AVX512 sets (or, when add, increments) the 8×16 tile at c (row stride ldc",
		"elements) to Σ_p a[p][0:8] ⊗ b[p][0:16] over p < k, for packed a ([k][8]) and b ([k][16]).")
	prefetchLines("prefetchT1", PREFETCHT1)
}

// prefetchLines emits name(p, n): a prefetch (ins) of each 64-byte line of
// the n bytes at p (n > 0), for the tile loops to bring the next panel of
// centers into L2 while the current one is used (tileLoop). Plain SSE: it
// runs on any amd64.
func prefetchLines(name string, ins func(Op)) {
	TEXT(name, NOSPLIT, "func(p *byte, n int)")
	Doc(name + " prefetches (PREFETCHT1) every 64-byte line of the n bytes at p (n > 0).")
	p, n, end := RSI, RCX, RDX
	Load(Param("p"), p)
	Load(Param("n"), n)
	LEAQ(Mem{Base: p, Index: n, Scale: 1}, end)
	Label(name + "loop")
	ins(Mem{Base: p})
	ADDQ(Imm(64), p)
	CMPQ(p, end)
	JB(LabelRef(name + "loop"))
	RET()
}

// gemm8x16 emits the 8×16 AVX-512 tile as name; with prefetchC it first
// prefetches the tile of c (every cache line of its 8 rows) so that the
// loads of c at the end find it in cache (gen_dense.go).
func gemm8x16(name string, prefetchC bool, doc ...string) {
	zmmTile{name: name, prefetchC: prefetchC, add: true, doc: doc}.emit()
}

// zmmTile is an 8-row AVX-512 tile of two zmm registers a row (16 float64
// or 32 float32 columns, 16 accumulators): c = (or, with add, +=)
// Σ_p a[p][0:8] ⊗ b[p][0:cols] over p < k, for packed a ([k][8]) and b
// ([k][cols], 128 bytes a step). The float64 GEMM tiles, the float32 Dense
// tile and the float32 passes' K-block tile are this one loop.
type zmmTile struct {
	name string
	f32  bool // float32 elements (…PS instructions, 4-byte a) instead of float64
	// prefetchC prefetches the tile of c (its 8 rows of 128 bytes) first.
	prefetchC bool
	// add gives the kernel an add parameter (increment c instead of
	// setting it); without it the tile is stored over c.
	add bool
	// lda is the elements of a per step of k (0: 8, a packed [k][8]); 16
	// or 32 read a's 8 values from a wider panel (gen_dense.go).
	lda int
	// neg sums −a·b (VFNMADD: the bits of the sum of (−a)·b).
	neg bool
	// panels computes np tiles in one call (an np parameter after k, no
	// add): np panels of a one after the other ([k][8] each, contiguous),
	// the same panel of b, c advancing by 8 rows a tile. It also takes
	// next and chunk (bytes, > 0): before each tile it prefetches
	// (PREFETCHT1) the lines of chunk bytes of next, then advances next by
	// chunk, so that np tiles bring the np·chunk bytes at next into L2.
	panels bool
	doc    []string
}

func (z zmmTile) emit() {
	elem, size, shift := "float64", 8, uint64(3)
	load, bcast, fma, addv := VMOVUPD, VBROADCASTSD, VFMADD231PD, VADDPD
	if z.f32 {
		elem, size, shift = "float32", 4, 2
		load, bcast, fma, addv = VMOVUPS, VBROADCASTSS, VFMADD231PS, VADDPS
	}
	switch {
	case z.neg && z.f32:
		fma = VFNMADD231PS
	case z.neg:
		fma = VFNMADD231PD
	}
	lda := z.lda
	if lda == 0 {
		lda = 8
	}
	sig := "func(k int, a, b, c *" + elem + ", ldc int)"
	if z.panels {
		sig = "func(k, np int, a, b, c *" + elem + ", ldc int, next *" + elem + ", chunk int)"
	}
	if z.add {
		sig = "func(k int, a, b, c *" + elem + ", ldc int, add bool)"
	}
	TEXT(z.name, NOSPLIT, sig)
	Doc(z.doc...)
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(shift), ldc)
	np, b0, k0 := R10, R11, R12
	next, chunk, end := R13, RBX, RAX
	if z.panels {
		Load(Param("np"), np)
		Load(Param("next"), next)
		Load(Param("chunk"), chunk)
		MOVQ(b, b0)
		MOVQ(k, k0)
		Label("panel")
		MOVQ(b0, b)
		MOVQ(k0, k)
		prefetchChunk(next, chunk, end)
	}
	if z.prefetchC {
		prefetchTile(c, ldc, R8)
	}
	zmmLoop(k, a, b, lda, size, load, bcast, fma)
	if z.add {
		add := RAX
		Load(Param("add"), add)
		TESTB(add.As8(), add.As8())
		JE(LabelRef("overwrite"))
		for r := 0; r < 8; r++ {
			addv(Mem{Base: c}, zmm[2*r], zmm[2*r])
			addv(Mem{Base: c, Disp: 64}, zmm[2*r+1], zmm[2*r+1])
			load(zmm[2*r], Mem{Base: c})
			load(zmm[2*r+1], Mem{Base: c, Disp: 64})
			ADDQ(ldc, c)
		}
		VZEROUPPER()
		RET()
		Label("overwrite")
	}
	for r := 0; r < 8; r++ {
		load(zmm[2*r], Mem{Base: c})
		load(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	if z.panels {
		DECQ(np)
		JNE(LabelRef("panel"))
	}
	VZEROUPPER()
	RET()
}

// zmmLoop emits the k loop of the 8×16 tile: the 16 accumulators
// zmm[0…15] zeroed, then for each of k steps two vectors of b (Z16, Z17,
// 128 bytes) and 8 broadcasts of a (size bytes each, lda elements a step)
// multiplied into them by fma, ending at the label "store" (k = 0 jumps
// there at once). zmmTile and the summing tile of gen_strassen.go share it.
func zmmLoop(k, a, b GPPhysical, lda, size int, load, bcast, fma func(...Op)) {
	zmmLoopAt(k, a, b, lda, size, load, bcast, fma, "loop", "store")
}

// zmmLoopLabels is the float64 zmmLoop (lda 8) with labels of its own, for
// kernels that run it more than once.
func zmmLoopLabels(k, a, b GPPhysical, loop, store string) {
	zmmLoopAt(k, a, b, 8, 8, VMOVUPD, VBROADCASTSD, VFMADD231PD, loop, store)
}

// zmmLoopAt is zmmLoop with the loop's and the end's labels named.
func zmmLoopAt(k, a, b GPPhysical, lda, size int, load, bcast, fma func(...Op), loop, store string) {
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef(store))
	Label(loop)
	load(Mem{Base: b}, Z16)
	load(Mem{Base: b, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		t := zmm[18+r%4]
		bcast(Mem{Base: a, Disp: size * r}, t)
		fma(Z16, t, zmm[2*r])
		fma(Z17, t, zmm[2*r+1])
	}
	ADDQ(Imm(uint64(lda*size)), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef(loop))
	Label(store)
}

// exp16Consts returns, in order: log2e, the clamp, 1.5·2^48, (unused), 2,
// then the polynomial's coefficients (exp16Poly) for f^6 … f^1.
func exp16Consts() []float64 {
	vals := []float64{log2e, exp16Clamp, 0x1.8p48, 0, 2}
	c := exp16Poly()
	for i := exp16Degree; i >= 1; i-- {
		vals = append(vals, c[i])
	}
	return vals
}

// exp16Poly returns the coefficients c[1…6] of p(f) ≈ e^(f·ln2) − 1 on
// |f| ≤ 1/32: the Taylor coefficients ln2^i/i! up to i = 7, with f^7
// replaced by its economization h^7·(112s^5 − 56s^3 + 7s)/64, s = f/h,
// h = 1/32 (f^7 = h^7·(T7(s) + 112s^5 − 56s^3 + 7s)/64 and |T7(s)| ≤ 1 on
// the interval), as expAVX2Poly does for f^9 on AVX2.
func exp16Poly() [exp16Degree + 1]float64 {
	var t [8]float64
	for i := 1; i <= 7; i++ {
		t[i] = math.Pow(math.Ln2, float64(i)) / factorial(i)
	}
	const h = 1.0 / 32
	var c [exp16Degree + 1]float64
	copy(c[:], t[:7])
	a7 := t[7] / 64
	c[5] += a7 * 112 * math.Pow(h, 2)
	c[3] -= a7 * 56 * math.Pow(h, 4)
	c[1] += a7 * 7 * math.Pow(h, 6)
	return c
}

// expRow16 emits the AVX-512 Gaussian row map with the table-driven exp
// above: 11 FMA-unit operations per 8 values (12 with the degree-7
// polynomial used until 2026-11-27, 20 with the degree-13 Taylor version).
// Each step prefetches the lines pf bytes ahead of it in row.
func expRow16(name string, withDot bool, pf int) {
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
	// Z0–Z19 five vectors' working registers, Z20/Z21 dot partials, Z23
	// 1.5·2^48, Z24 xx, Z25 s = ng·log2e, Z26 clamp, Z27 2, Z28 c6, Z29
	// table 0–7, Z30 table 8–15, Z31 zero.
	Load(Param("xx"), X0)
	VBROADCASTSD(X0, Z24)
	Load(Param("ng"), X0)
	VBROADCASTSD(X0, Z25)
	VMULPD_BCST(cst(0), Z25, Z25)
	VBROADCASTSD(cst(1), Z26)
	VBROADCASTSD(cst(2), Z23)
	VBROADCASTSD(cst(4), Z27)
	VBROADCASTSD(cst(5), Z28)
	VMOVUPD(tab.Offset(0), Z29)
	VMOVUPD(tab.Offset(64), Z30)
	VPXORQ(Z31, Z31, Z31)
	VPXORQ(Z20, Z20, Z20)
	VPXORQ(Z21, Z21, Z21)
	// Five vectors (40 values) per step, their instructions interleaved so
	// that five independent dependency chains are in flight (the chains'
	// latency, not the FMA units, bounds the loop). Four a step, the form
	// until 2026-11-27, took 6–8% more CPU time a value on a Zen 5 core
	// (rows of 2,000 and 2,048 values in L1, the two forms alternated in
	// one process: docs/performance.md, "The fused pass at d = 54 on
	// Zen 5"). Two steps a loop, so that vector g of the row adds its
	// product with v to dot partial g mod 2 as in the four-vector loop
	// (the same bits, TestExpRowDotOrder); then steps of two vectors for
	// the remaining 0–64 values (n/16 mod 5 steps).
	step := func(nv, parity int) { expStep(expPD, nv, parity, withDot, row, cc, v, cst, pf) }
	tail := R9
	// n/16 = 5·loops + tail, by DIVQ (once a row).
	MOVQ(n, RAX)
	XORQ(RDX, RDX)
	MOVQ(U32(5), tail)
	DIVQ(tail)
	MOVQ(RAX, n)
	MOVQ(RDX, tail)
	TESTQ(n, n)
	JE(LabelRef("tail"))
	Label("loop")
	step(5, 0)
	step(5, 1)
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("tail")
	TESTQ(tail, tail)
	JE(LabelRef("done"))
	step(2, 0)
	DECQ(tail)
	JNE(LabelRef("tail"))
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

// axpy4Kernel emits y[j] = fma(a[3], x3[j], fma(a[2], x2[j], fma(a[1], x1[j],
// fma(a[0], x0[j], y[j])))) for j < n, xi = x + i·stride, 128 bytes of y a
// loop: float64 (n a multiple of 16) or float32 (f32, n a multiple of 32),
// in two ZMM registers (avx512) or four YMM. The FMA order is the same on
// every variant, so each gives the bits of four axpy calls.
func axpy4Kernel(name string, f32, avx512 bool, doc ...string) {
	elem, sig := 8, "func(n int, a *[4]float64, x *float64, stride int, y *float64)"
	if f32 {
		elem, sig = 4, "func(n int, a *[4]float32, x *float32, stride int, y *float32)"
	}
	regs, vbytes := ymm[12:16], 32
	if avx512 {
		regs, vbytes = zmm[16:20], 64
	}
	acc := zmm
	if !avx512 {
		acc = ymm
	}
	TEXT(name, NOSPLIT, sig)
	Doc(doc...)
	n, ap, x, st, y := RCX, RAX, RSI, RDX, RDI
	Load(Param("n"), n)
	Load(Param("a"), ap)
	Load(Param("x"), x)
	Load(Param("stride"), st)
	Load(Param("y"), y)
	SHLQ(Imm(map[int]uint64{8: 3, 4: 2}[elem]), st)
	SHRQ(Imm(map[int]uint64{8: 4, 4: 5}[elem]), n) // 128-byte steps
	for i := 0; i < 4; i++ {
		if f32 {
			VBROADCASTSS(Mem{Base: ap, Disp: 4 * i}, regs[i])
		} else {
			VBROADCASTSD(Mem{Base: ap, Disp: 8 * i}, regs[i])
		}
	}
	x1, x2, x3 := R8, R9, R10
	LEAQ(Mem{Base: x, Index: st, Scale: 1}, x1)
	LEAQ(Mem{Base: x1, Index: st, Scale: 1}, x2)
	LEAQ(Mem{Base: x2, Index: st, Scale: 1}, x3)
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for h := 0; h < 128/vbytes; h++ {
		a := acc[h]
		if f32 {
			VMOVUPS(Mem{Base: y, Disp: vbytes * h}, a)
		} else {
			VMOVUPD(Mem{Base: y, Disp: vbytes * h}, a)
		}
		for i, xp := range []Register{x, x1, x2, x3} {
			if f32 {
				VFMADD231PS(Mem{Base: xp, Disp: vbytes * h}, regs[i], a)
			} else {
				VFMADD231PD(Mem{Base: xp, Disp: vbytes * h}, regs[i], a)
			}
		}
		if f32 {
			VMOVUPS(a, Mem{Base: y, Disp: vbytes * h})
		} else {
			VMOVUPD(a, Mem{Base: y, Disp: vbytes * h})
		}
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

// expISA is one precision's instructions for expStep: the float64 (PD) or
// float32 (PS) forms, with what differs between the two table lookups.
type expISA struct {
	// The instructions every step issues, in their PD or PS form.
	add, fnmadd231, max, mul, rndscale, sub, movap func(...Op)
	fmadd213, fmadd213bcst, scalef, movu, fmadd231 func(...Op)

	round  Op         // VRNDSCALE's immediate
	perm   func(t Op) // t = the 2^(j/16) table entry indexed by the low bits of t
	scaleQ func(q Op) // nil, or what turns q into the VSCALEF exponent
	degree int        // the polynomial's degree
}

// expAVX512Prefetch is how far ahead in row (bytes) each step of expRow16
// prefetches, as expAVX2Prefetch on AVX2: the fused pass's row map reads
// the block of K the tiles have just written, which has left L2. Fused
// pass at d = 784, M = 2,000, 8,192 rows, two workers, with and without it
// interleaved in one process (30 passes each, two runs, machine D at load
// 3.7–4.2): median 52.93 → 53.38 and 52.48 → 52.83 GFLOP per CPU-second,
// best 53.64 → 54.07 and 52.86 → 53.25; at d = 54 within ±0.5%.
const expAVX512Prefetch = 2048

// expPD is expStep's float64 form (expRowAVX512: q = round(16y)/16, a
// two-register table by VPERMI2PD).
var expPD = expISA{
	add: VADDPD, fnmadd231: VFNMADD231PD, max: VMAXPD, mul: VMULPD, rndscale: VRNDSCALEPD, sub: VSUBPD, movap: VMOVAPD,
	fmadd213: VFMADD213PD, fmadd213bcst: VFMADD213PD_BCST, scalef: VSCALEFPD, movu: VMOVUPD, fmadd231: VFMADD231PD,
	round:  Imm(0x40),
	perm:   func(t Op) { VPERMI2PD(Z30, Z29, t) },
	degree: exp16Degree,
}

// expPS is expStep's float32 form (expRow32: y is already scaled by 16, so
// q = round(y), the table is one register (VPERMPS) and q/16 is the
// exponent).
var expPS = expISA{
	add: VADDPS, fnmadd231: VFNMADD231PS, max: VMAXPS, mul: VMULPS, rndscale: VRNDSCALEPS, sub: VSUBPS, movap: VMOVAPS,
	fmadd213: VFMADD213PS, fmadd213bcst: VFMADD213PS_BCST, scalef: VSCALEFPS, movu: VMOVUPS, fmadd231: VFMADD231PS,
	round:  Imm(0),
	perm:   func(t Op) { VPERMPS(Z18, t, t) },
	scaleQ: func(q Op) { VMULPS(Z22, q, q) },
	degree: exp32Degree,
}

// expStep emits one step of the AVX-512 Gaussian row map over nv vectors
// at row, cc (and v, withDot), each instruction issued for all nv vectors
// before the next so that nv independent dependency chains are in flight.
// Per vector h, zmm[4h] holds t, then y, then f; zmm[4h+1] q; zmm[4h+2] the
// table entry T; zmm[4h+3] the polynomial, then the result (nv ≤ 5).
// Constants: Z23 the rounding shift, Z24 xx, Z25 s = ng·log2e (·16 for
// float32), Z26 the clamp, Z27 2, Z28 the leading coefficient, Z31 zero;
// the table in the registers isa.perm names. withDot adds vector h's
// product with v to the dot partial Z20 + (h + parity) mod 2.
func expStep(isa expISA, nv, parity int, withDot bool, row, cc, v Register, cst func(int) Mem, pf int) {
	each := func(f func(h int)) {
		for h := 0; h < nv; h++ {
			f(h)
		}
	}
	z := func(h, k int) Op { return zmm[4*h+k] }
	each(func(h int) { isa.add(Mem{Base: cc, Disp: 64 * h}, Z24, z(h, 0)) })        // t = xx + cc
	each(func(h int) { isa.fnmadd231(Mem{Base: row, Disp: 64 * h}, Z27, z(h, 0)) }) // t −= 2·row (2·row is exact)
	each(func(h int) { isa.max(z(h, 0), Z31, z(h, 0)) })                            // clamp round-off at 0 (NaN stays NaN)
	each(func(h int) { isa.mul(Z25, z(h, 0), z(h, 0)) })                            // y = s·t ≤ 0
	each(func(h int) { isa.max(z(h, 0), Z26, z(h, 0)) })                            // y ≥ clamp (NaN stays NaN)
	each(func(h int) { isa.rndscale(isa.round, z(h, 0), z(h, 1)) })                 // q = y rounded to the table's step
	each(func(h int) { isa.sub(z(h, 1), z(h, 0), z(h, 0)) })                        // f = y − q, exact
	each(func(h int) { isa.add(Z23, z(h, 1), z(h, 2)) })                            // the table index in the low bits
	each(func(h int) { isa.perm(z(h, 2)) })                                         // T = 2^(index/16)
	if isa.scaleQ != nil {
		each(func(h int) { isa.scaleQ(z(h, 1)) })
	}
	each(func(h int) { isa.movap(Z28, z(h, 3)) }) // q = leading coefficient
	for i := 1; i < isa.degree; i++ {
		each(func(h int) { isa.fmadd213bcst(cst(5+i), z(h, 0), z(h, 3)) }) // q = q·f + next coefficient
	}
	each(func(h int) { isa.mul(z(h, 0), z(h, 3), z(h, 3)) })      // p(f) = e^u − 1
	each(func(h int) { isa.fmadd213(z(h, 2), z(h, 2), z(h, 3)) }) // T·q + T
	each(func(h int) { isa.scalef(z(h, 1), z(h, 3), z(h, 3)) })   // ·2^⌊q⌋
	each(func(h int) { isa.movu(z(h, 3), Mem{Base: row, Disp: 64 * h}) })
	if pf > 0 {
		each(func(h int) { PREFETCHT0(Mem{Base: row, Disp: pf + 64*h}) })
	}
	if withDot {
		each(func(h int) { isa.fmadd231(Mem{Base: v, Disp: 64 * h}, z(h, 3), zmm[20+(h+parity)%2]) })
	}
	for _, p := range []Register{row, cc} {
		ADDQ(U32(64*nv), p)
	}
	if withDot {
		ADDQ(U32(64*nv), v)
	}
}
