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
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	VMOVUPD(Mem{Base: b}, Z16)
	VMOVUPD(Mem{Base: b, Disp: 64}, Z17)
	for row := 0; row < 8; row++ {
		x := zmm[18+row%4]
		VBROADCASTSD(Mem{Base: a, Disp: 8 * row}, x)
		VFMADD231PD(Z16, x, zmm[2*row])
		VFMADD231PD(Z17, x, zmm[2*row+1])
	}
	ADDQ(Imm(64), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("loop"))
	Label("store")
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
