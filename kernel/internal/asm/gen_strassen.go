package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The Strassen product's tiles with a summing epilogue (kernel's
// strassenDots, kernel/strassen_tiles.go). Each computes its tile's sums
// over k as the engine's tile does, then, in its store phase,
//
//	c = src + Σ          (src and c of row stride ldc; src may be c)
//	u = c + t            (only when t is not nil; u of stride ldc, t of stride ldt)
//
// each addition one rounding, the bits of the tile with add (c = c + Σ)
// after a copy of src into c, followed by a pass setting u = c + t. The
// Winograd combinations U2 + P5 and U3 + P5 are then formed by the tile
// that finishes U2 or U3, while its values are in registers, instead of by
// a pass over the block that reads them back from memory.
func strassenTiles() {
	gemm8x16SumAVX512()
	for _, halves := range []bool{true, false} {
		for h := avx2TileRows; h >= 1; h-- {
			name, of := fmt.Sprintf("gemm%dx16SumAVX2", h), fmt.Sprintf("gemm%dx16AVX2", h)
			if halves {
				name, of = fmt.Sprintf("gemm%dx16HSumAVX2", h), fmt.Sprintf("gemm%dx16HAVX2", h)
			}
			gemmSumAVX2(name, h, halves,
				fmt.Sprintf("%s is %s with a summing store: c = src + Σ (src of stride ldc, may be c) and,", name, of),
				"when t is not nil, u = c + t (u of stride ldc, t of stride ldt elements).")
		}
	}
}

// sumRegs are the general registers of a summing store: the running
// pointers into c, src, t and u and the strides of c (ldc, shared by src
// and u) and t (ldt), in bytes.
type sumRegs struct{ c, src, t, u, ldc, ldt GPPhysical }

// loadSum loads the summing store's parameters src, t, u and ldt (scaled
// to bytes) into r, each pointer advanced by off bytes (a piece's first
// column); c is already in r.c.
func loadSum(r sumRegs, off int) {
	Load(Param("src"), r.src)
	Load(Param("t"), r.t)
	Load(Param("ldt"), r.ldt)
	Load(Param("u"), r.u)
	SHLQ(Imm(3), r.ldt)
	if off != 0 {
		for _, p := range []GPPhysical{r.src, r.u} {
			ADDQ(U32(off), p)
		}
		// t stays nil when nil (the test of the second store).
		TESTQ(r.t, r.t)
		JE(LabelRef(fmt.Sprintf("tnil%d", off)))
		ADDQ(U32(off), r.t)
		Label(fmt.Sprintf("tnil%d", off))
	}
}

// storeSum emits the summing store of rows accumulator rows of vecs
// vectors of vbytes bytes each (acc(r, v)): row by row, c = src + acc,
// then, when t is not nil (tested once), u = c + t. The pointers advance
// row by row; name makes the labels unique.
func storeSum(name string, r sumRegs, rows, vecs, vbytes int, acc func(r, v int) VecPhysical) {
	second := name + "second"
	done := name + "done"
	addc := func(row int) {
		for v := 0; v < vecs; v++ {
			VADDPD(Mem{Base: r.src, Disp: vbytes * v}, acc(row, v), acc(row, v))
			VMOVUPD(acc(row, v), Mem{Base: r.c, Disp: vbytes * v})
		}
	}
	TESTQ(r.t, r.t)
	JNE(LabelRef(second))
	for row := 0; row < rows; row++ {
		addc(row)
		if row+1 < rows {
			ADDQ(r.ldc, r.src)
			ADDQ(r.ldc, r.c)
		}
	}
	JMP(LabelRef(done))
	Label(second)
	for row := 0; row < rows; row++ {
		addc(row)
		for v := 0; v < vecs; v++ {
			VADDPD(Mem{Base: r.t, Disp: vbytes * v}, acc(row, v), acc(row, v))
			VMOVUPD(acc(row, v), Mem{Base: r.u, Disp: vbytes * v})
		}
		if row+1 < rows {
			ADDQ(r.ldc, r.src)
			ADDQ(r.ldc, r.c)
			ADDQ(r.ldt, r.t)
			ADDQ(r.ldc, r.u)
		}
	}
	Label(done)
}

// prefetchSum prefetches the rows of width bytes the summing store reads
// or writes: src's and c's (c's only when it is not src) and, when t is
// not nil, t's and u's, using tmp.
func prefetchSum(name string, r sumRegs, tmp GPPhysical, rows, width int) {
	prefetchRows(r.src, r.ldc, tmp, rows, width)
	CMPQ(r.src, r.c)
	JE(LabelRef(name + "pfsame"))
	prefetchRows(r.c, r.ldc, tmp, rows, width)
	Label(name + "pfsame")
	TESTQ(r.t, r.t)
	JE(LabelRef(name + "pfdone"))
	prefetchRows(r.t, r.ldt, tmp, rows, width)
	prefetchRows(r.u, r.ldc, tmp, rows, width)
	Label(name + "pfdone")
}

// gemm8x16SumAVX512 emits gemm8x16SumPfAVX512: gemm8x16PfAVX512's k loop
// (zmmTile), its operands of the store prefetched first, and the summing
// store.
func gemm8x16SumAVX512() {
	TEXT("gemm8x16SumPfAVX512", NOSPLIT, "func(k int, a, b, c *float64, ldc int, src, t *float64, ldt int, u *float64)")
	Doc("gemm8x16SumPfAVX512 is gemm8x16PfAVX512 with a summing store: c = src + Σ (src of stride ldc, may",
		"be c) and, when t is not nil, u = c + t (u of stride ldc, t of stride ldt elements).")
	k, a, b := RCX, RSI, RDI
	r := sumRegs{c: RDX, src: R10, t: R11, u: R13, ldc: R9, ldt: R12}
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), r.c)
	Load(Param("ldc"), r.ldc)
	SHLQ(Imm(3), r.ldc)
	loadSum(r, 0)
	prefetchSum("z", r, R8, 8, 128)
	zmmLoop(k, a, b, 8, 8, VMOVUPD, VBROADCASTSD, VFMADD231PD)
	storeSum("z", r, 8, 2, 64, func(row, v int) VecPhysical { return zmm[2*row+v] })
	VZEROUPPER()
	RET()
}

// gemmSumAVX2 emits an AVX2 float64 tile of h rows by 16 centers (two h×8
// pieces, as gemmTilesAVX2's gemm{h}x16AVX2, or on halves as
// gemm{h}x16HAVX2) with the summing store: each piece's k loop as
// pieceAVX2's, then its rows stored by storeSum.
func gemmSumAVX2(name string, h int, halves bool, doc ...string) {
	sig := "func(k int, a, b, c *float64, ldc int, src, t *float64, ldt int, u *float64)"
	if halves {
		sig = "func(k int, a, b, c *float64, ldc, boff int, src, t *float64, ldt int, u *float64)"
	}
	TEXT(name, NOSPLIT, sig)
	Doc(doc...)
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	cnt, ap, bp, cp, nxt := R10, R11, R12, R13, R8
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	parts := []subTile{{0, h, 0, 2}, {0, h, 8, 2}}
	ldb := 16
	if halves {
		ldb = 8
	}
	prefetchA := h == avx2TileRows
	if prefetchA {
		IMUL3Q(U32(8*h), k, nxt)
	}
	// The store phase's registers (the loop's are free by then): src, t,
	// u and ldt, with cp running over c; RAX holds ldt.
	r := sumRegs{c: cp, src: cnt, t: ap, u: bp, ldc: ldc, ldt: RAX}
	{
		// Prefetch what the stores read and write, as gemmTilesAVX2 does
		// the tile of c.
		pr := r
		pr.c = c
		loadSum(pr, 0)
		prefetchSum(name, pr, cp, h, 128)
	}
	g := tileRegs{k: k, a: a, b: b, c: c, ldc: ldc, cnt: cnt, ap: ap, bp: bp, cp: cp, nxt: nxt}
	if halves {
		g.boff = RBX
		Load(Param("boff"), g.boff)
		SHLQ(Imm(3), g.boff)
	}
	for n, t := range parts {
		g.store = func(n int, t subTile, acc func(r, v int) VecPhysical) {
			LEAQ(Mem{Base: c, Disp: 8 * t.col0}, cp)
			loadSum(r, 8*t.col0)
			storeSum(fmt.Sprintf("p%d", n), r, t.rows, t.vecs, 32, acc)
		}
		pieceAVX2(n, t, tileF64, h, ldb, g, prefetchA && n == len(parts)-1)
	}
	VZEROUPPER()
	RET()
}

// packSumsKernels emits packSumsAVX512 and packSumsAVX2, the one-pass
// packing of strassenDots' X-side operands for one panel of rows (8 on
// AVX-512, 6 on AVX2).
func packSumsKernels() {
	packSums("packSumsAVX512", 8, 8)
	packSums("packSumsAVX2", avx2TileRows, 4)
}

// packSums emits name(dst *float64, sz int, x *float64, stride, hs, dh int):
// for rows rows of the row-major x (stride elements) from x on (the top
// rows) and hs elements further (the bottom rows), their features split at
// dh, one panel of each of the eight operands A11, A12, A21, A22, S1 =
// A21 + A22, S2 = S1 − A11, S3 = A11 − A21, S4 = A12 − S2 (operand o at
// dst + o·sz, feature-major: feature k of row i at k·rows + i), in steps of
// vecLen features (dh a multiple of vecLen). Each row of an operand is
// formed in a register from the quadrants' loads (the sums with one
// rounding each, as packQuads' axpy with ±1), then the rows × vecLen block
// is transposed in registers and stored: X read once from memory instead
// of packed, then copied and read again by the sums.
func packSums(name string, rows, vecLen int) {
	TEXT(name, NOSPLIT, "func(dst *float64, sz int, x *float64, stride, hs, dh int)")
	Doc(name+fmt.Sprintf(" packs %d rows of x (stride elements; the bottom rows hs elements after the top", rows),
		fmt.Sprintf("ones; features split at dh, a multiple of %d) as one panel of each of strassenDots' eight operands", vecLen),
		"A11, A12, A21, A22, S1 … S4 (operand o at dst + o·sz elements, feature-major).")
	dst, sz, top, s, hs, dh := RDX, R13, RSI, R9, R11, R10
	p, hsdh, q, cnt := R8, R12, RDI, RCX
	Load(Param("dst"), dst)
	Load(Param("sz"), sz)
	Load(Param("x"), top)
	Load(Param("stride"), s)
	Load(Param("hs"), hs)
	Load(Param("dh"), cnt)
	for _, r := range []GPPhysical{sz, s, hs} {
		SHLQ(Imm(3), r)
	}
	MOVQ(cnt, dh)
	SHLQ(Imm(3), dh)
	LEAQ(Mem{Base: hs, Index: dh, Scale: 1}, hsdh)
	SHRQ(Imm(map[int]uint64{8: 3, 4: 2}[vecLen]), cnt) // steps of vecLen features
	vbytes := 8 * vecLen
	regs := zmm
	if vecLen == 4 {
		regs = ymm
	}
	load, add, sub := VMOVUPD, VADDPD, VSUBPD
	a11 := func(p GPPhysical) Mem { return Mem{Base: p} }
	a12 := func(p GPPhysical) Mem { return Mem{Base: p, Index: dh, Scale: 1} }
	a21 := func(p GPPhysical) Mem { return Mem{Base: p, Index: hs, Scale: 1} }
	a22 := func(p GPPhysical) Mem { return Mem{Base: p, Index: hsdh, Scale: 1} }
	// Each operand's row i into x (a register), from the row's pointer p.
	ops := []func(p GPPhysical, x VecPhysical){
		func(p GPPhysical, x VecPhysical) { load(a11(p), x) },
		func(p GPPhysical, x VecPhysical) { load(a12(p), x) },
		func(p GPPhysical, x VecPhysical) { load(a21(p), x) },
		func(p GPPhysical, x VecPhysical) { load(a22(p), x) },
		func(p GPPhysical, x VecPhysical) { load(a21(p), x); add(a22(p), x, x) },                    // S1 = A21 + A22
		func(p GPPhysical, x VecPhysical) { load(a21(p), x); add(a22(p), x, x); sub(a11(p), x, x) }, // S2 = S1 − A11
		func(p GPPhysical, x VecPhysical) { load(a11(p), x); sub(a21(p), x, x) },                    // S3 = A11 − A21
		func(p GPPhysical, x VecPhysical) { // S4 = A12 − S2
			t := regs[len(regs)-1]
			load(a21(p), t)
			add(a22(p), t, t)
			sub(a11(p), t, t)
			load(a12(p), x)
			sub(t, x, x)
		},
	}
	TESTQ(cnt, cnt)
	JE(LabelRef("done"))
	Label("loop")
	MOVQ(dst, q)
	for o, op := range ops {
		MOVQ(top, p)
		for i := 0; i < rows; i++ {
			op(p, regs[i])
			if o == 0 {
				// The rows stream from memory: each quadrant's line
				// 512 bytes ahead (8 steps on AVX-512, 16 on AVX2; no
				// prefetch and 1,024 bytes were slower in
				// BenchmarkPackSums, machine E, loaded).
				for _, m := range []Mem{a11(p), a12(p), a21(p), a22(p)} {
					m.Disp = 512
					PREFETCHT0(m)
				}
			}
			if i+1 < rows {
				ADDQ(s, p)
			}
		}
		if vecLen == 8 {
			transpose8x8(regs[:8], regs[8:16], q)
		} else {
			transpose6x4(regs[:6], regs[6:15], q)
		}
		if o+1 < len(ops) {
			ADDQ(sz, q)
		}
	}
	ADDQ(U32(vbytes), top)
	ADDQ(U32(vbytes*rows), dst)
	DECQ(cnt)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// transpose8x8 stores the transpose of the 8×8 block in r (row i in r[i],
// overwritten) at q: 8 vectors, column j at q + 64j. t are 8 scratch
// registers.
func transpose8x8(r, t []VecPhysical, q GPPhysical) {
	transpose8x8Regs(r, t)
	for j := 0; j < 8; j++ {
		VMOVUPD(t[j], Mem{Base: q, Disp: 64 * j})
	}
}

// transpose8x8Regs leaves the transpose of the 8×8 block in r (row i in
// r[i], overwritten) in t: column j in t[j].
func transpose8x8Regs(r, t []VecPhysical) {
	for i := 0; i < 8; i += 2 {
		VUNPCKLPD(r[i+1], r[i], t[i])   // r_i[0] r_i+1[0] r_i[2] r_i+1[2] …
		VUNPCKHPD(r[i+1], r[i], t[i+1]) // r_i[1] r_i+1[1] r_i[3] r_i+1[3] …
	}
	// s0 = (t0.l0, t0.l2, t2.l0, t2.l2): columns 0 and 4 of rows 0–3;
	// s1 = (t0.l1, t0.l3, t2.l1, t2.l3): columns 2 and 6; s2, s3 the same
	// from t1, t3 (columns 1 and 5, 3 and 7); s4 … s7 rows 4–7.
	for h := 0; h < 2; h++ {
		a, b := t[4*h], t[4*h+2]
		c, d := t[4*h+1], t[4*h+3]
		VSHUFF64X2(Imm(0x88), b, a, r[4*h])
		VSHUFF64X2(Imm(0xdd), b, a, r[4*h+1])
		VSHUFF64X2(Imm(0x88), d, c, r[4*h+2])
		VSHUFF64X2(Imm(0xdd), d, c, r[4*h+3])
	}
	// Column j: s(j) lanes of rows 0–3 and of rows 4–7.
	for k, j := range []int{0, 4, 2, 6, 1, 5, 3, 7} {
		src := k / 2 // s0 → columns 0, 4; s1 → 2, 6; s2 → 1, 5; s3 → 3, 7
		imm := uint64(0x88)
		if k%2 == 1 {
			imm = 0xdd
		}
		VSHUFF64X2(Imm(imm), r[4+src], r[src], t[j])
	}
}

// transpose6x4 stores the transpose of the 6×4 block in r (row i in r[i])
// at q: column j (6 values) at q + 48j. t are 9 scratch registers.
func transpose6x4(r, t []VecPhysical, q GPPhysical) {
	VUNPCKLPD(r[1], r[0], t[0]) // r0[0] r1[0] r0[2] r1[2]
	VUNPCKHPD(r[1], r[0], t[1]) // r0[1] r1[1] r0[3] r1[3]
	VUNPCKLPD(r[3], r[2], t[2])
	VUNPCKHPD(r[3], r[2], t[3])
	VUNPCKLPD(r[5], r[4], t[4])             // r4[0] r5[0] r4[2] r5[2]
	VUNPCKHPD(r[5], r[4], t[5])             // r4[1] r5[1] r4[3] r5[3]
	VPERM2F128(Imm(0x20), t[2], t[0], r[0]) // column 0, rows 0–3
	VPERM2F128(Imm(0x20), t[3], t[1], r[1]) // column 1
	VPERM2F128(Imm(0x31), t[2], t[0], r[2]) // column 2
	VPERM2F128(Imm(0x31), t[3], t[1], r[3]) // column 3
	for j := 0; j < 4; j++ {
		VMOVUPD(r[j], Mem{Base: q, Disp: 48 * j})
	}
	VMOVUPD(t[4].AsX(), Mem{Base: q, Disp: 32})
	VMOVUPD(t[5].AsX(), Mem{Base: q, Disp: 48 + 32})
	VEXTRACTF128(Imm(1), t[4], Mem{Base: q, Disp: 2*48 + 32})
	VEXTRACTF128(Imm(1), t[5], Mem{Base: q, Disp: 3*48 + 32})
}
