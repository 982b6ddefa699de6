package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// avx2TileRows is the height of the engine's AVX2 tiles (and of the panels
// of X they read): 6 rows by two ymm vectors of centers keep 12 of the 16
// ymm registers as accumulators, two for the centers and two for the
// broadcasts of x, chosen by measurement (docs/performance.md, "Inner
// kernels"; kernel.BenchmarkTiles).
const avx2TileRows = 6

// subTile is one register-blocked piece of an AVX2 tile: rows rows of the
// packed a panel from row0 on, by vecs ymm vectors of the packed b panel
// from column col0 on. It keeps rows·vecs accumulators, vecs registers of
// b and the remaining ymm registers for the broadcasts of a.
type subTile struct{ row0, rows, col0, vecs int }

// avx2Tiles emits the engine's AVX2 tile kernels, float64, float32 into
// float64 and float32 into float32: gemm6x16AVX2, gemm6x32F32AVX2 and
// gemm6x32F32to32AVX2 for full panels of six rows, and the same for the last
// panel of a block, of 1 to 5 rows; gemm{1…6}x16HAVX2, the float64 tiles on
// centers packed as two halves of 8 (the engine's AVX2 layout, kernel's
// halfPanels); and fmaPeakAVX2, their reference.
func avx2Tiles() {
	fmaPeakAVX2()
	for h := avx2TileRows; h >= 1; h-- {
		name := fmt.Sprintf("gemm%dx16AVX2", h)
		gemmTilesAVX2(name, tileF64, h, 16, []subTile{{0, h, 0, 2}, {0, h, 8, 2}},
			fmt.Sprintf("%s sets (or, when add, increments) the %d×16 tile at c (row stride ldc elements) to", name, h),
			fmt.Sprintf("Σ_p a[p][0:%d] ⊗ b[p][0:16] over p < k, for packed a ([k][%d]) and b ([k][16]), as two %d×8 pieces.", h, h, h))
	}
	for h := avx2TileRows; h >= 1; h-- {
		name := fmt.Sprintf("gemm%dx16HAVX2", h)
		gemmTilesAVX2H(name, tileF64, h, 8, true, []subTile{{0, h, 0, 2}, {0, h, 8, 2}},
			fmt.Sprintf("%s is gemm%dx16AVX2 on centers packed as two 8-column halves: b ([k][8]) for columns 0–7", name, h),
			"and b + boff elements for columns 8–15 (the same sums, the same bits).")
	}
	for h := avx2TileRows; h >= 1; h-- {
		name := fmt.Sprintf("gemm%dx32F32to32AVX2", h)
		gemmTilesAVX2(name, tileF32to32, h, 32, []subTile{{0, h, 0, 2}, {0, h, 16, 2}},
			fmt.Sprintf("%s sets the %d×32 float32 tile at c (row stride ldc elements) to Σ_p a[p][0:%d] ⊗ b[p][0:32]", name, h, h),
			fmt.Sprintf("over p < k, summed in float32 (packed a [k][%d], b [k][32]), as two %d×16 pieces.", h, h))
	}
	for h := avx2TileRows; h >= 1; h-- {
		name := fmt.Sprintf("gemm%dx32F32AVX2", h)
		gemmTilesAVX2(name, tileF32, h, 32, []subTile{{0, h, 0, 2}, {0, h, 16, 2}},
			fmt.Sprintf("%s sums Σ_p a[p][0:%d] ⊗ b[p][0:32] over p < k in float32 (packed a [k][%d], b [k][32])", name, h, h),
			fmt.Sprintf("as two %d×16 pieces and sets or increments the %d×32 float64 tile at c (row stride ldc elements).", h, h))
	}
}

// fmaPeakAVX2 emits fmaPeakAVX2, the FMA throughput the AVX2 tiles are
// measured against (BenchmarkTiles): 12 independent ymm FMA chains, as many
// accumulators as a tile piece.
func fmaPeakAVX2() {
	fmaPeak("fmaPeakAVX2", ymm[:], 12, VXORPD,
		"fmaPeakAVX2 runs n steps of 12 independent ymm FMAs on registers (96 flops a step): the core's",
		"float64 FMA peak, for BenchmarkTiles.")
}

// fmaPeakAVX512 emits fmaPeakAVX512, the FMA throughput the AVX-512 tiles
// are measured against (BenchmarkTiles): 24 independent zmm FMA chains (FMA
// latency 4 cycles × 2 FMA pipes needs 8; 24 leaves no dependency stall).
func fmaPeakAVX512() {
	fmaPeak("fmaPeakAVX512", zmm[:], 24, VPXORQ,
		"fmaPeakAVX512 runs n steps of 24 independent zmm FMAs on registers (384 flops a step): the core's",
		"AVX-512 float64 FMA peak, for BenchmarkTiles.")
}

// fmaPeak emits name(n int): n steps of chains independent FMAs into
// regs[0:chains] from the two registers after them, no loads; the chains+3
// registers used are cleared first by zero.
func fmaPeak(name string, regs []VecPhysical, chains int, zero func(...Op), doc ...string) {
	TEXT(name, NOSPLIT, "func(n int)")
	Doc(doc...)
	n := RCX
	Load(Param("n"), n)
	for i := 0; i < chains+3; i++ {
		zero(regs[i], regs[i], regs[i])
	}
	TESTQ(n, n)
	JE(LabelRef("done"))
	Label("loop")
	for i := 0; i < chains; i++ {
		VFMADD231PD(regs[chains+i%2], regs[chains+2], regs[i])
	}
	DECQ(n)
	JNE(LabelRef("loop"))
	Label("done")
	VZEROUPPER()
	RET()
}

// tileMode is the precision of an AVX2 tile kernel: its inputs, its sums
// and its result c.
type tileMode int

const (
	tileF64      tileMode = iota // float64 in, float64 sums, set or add float64 c
	tileF32                      // float32 in and sums, set or add float64 c
	tileF32to32                  // float32 in and sums, set float32 c (no add)
	tileF32add32                 // float32 in and sums, set or add float32 c
)

// gemmTilesAVX2 emits an AVX2 tile kernel over packed panels a ([k][lda])
// and b ([k][ldb]), of float64 or float32 (mode), made of the given pieces,
// each a k loop of its own, after prefetching the tile of c. Every element
// of c is the FMA chain over p
// ascending from zero, converted to float64 (tileF32) and added to c (add):
// the bits of the AVX-512 kernels, whatever the pieces.
func gemmTilesAVX2(name string, mode tileMode, lda, ldb int, parts []subTile, doc ...string) {
	gemmTilesAVX2H(name, mode, lda, ldb, false, parts, doc...)
}

// gemmTilesAVX2H is gemmTilesAVX2, with halves: b is two panels of ldb
// columns, the second boff elements after the first (a last parameter),
// piece n reading panel n.
func gemmTilesAVX2H(name string, mode tileMode, lda, ldb int, halves bool, parts []subTile, doc ...string) {
	sig := map[tileMode]string{
		tileF64:      "func(k int, a, b, c *float64, ldc int, add bool)",
		tileF32:      "func(k int, a, b *float32, c *float64, ldc int, add bool)",
		tileF32to32:  "func(k int, a, b, c *float32, ldc int)",
		tileF32add32: "func(k int, a, b, c *float32, ldc int, add bool)",
	}[mode]
	if halves {
		sig = sig[:len(sig)-1] + ", boff int)"
	}
	es, ces := tileSizes(mode)
	lanes := 32 / es
	TEXT(name, NOSPLIT, sig)
	Doc(doc...)
	k, a, b, c, ldc, add := RCX, RSI, RDI, RDX, R9, RAX
	cnt, ap, bp, cp := R10, R11, R12, R13
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	if mode != tileF32to32 {
		Load(Param("add"), add)
	}
	SHLQ(Imm(map[int]uint64{8: 3, 4: 2}[ces]), ldc)
	nxt := R8
	// The engine's full-height tiles (two pieces over 6-row panels of X)
	// prefetch the next call's panel of a; see the k loop.
	prefetchA := mode != tileF32add32 && lda == avx2TileRows && len(parts) > 1
	if prefetchA {
		IMUL3Q(U32(es*lda), k, nxt)
	}
	// The tile of c, read or written only after the k loops: prefetched
	// first, its lines arrive while the loops run (the engine's blocks of K
	// take 1–4 MiB, beyond L2). Every line of each row: its start, every 64
	// bytes, and its last byte (aligned or not).
	rows, width := 0, 0
	for _, t := range parts {
		rows = max(rows, t.row0+t.rows)
		width = max(width, ces*(t.col0+t.vecs*lanes))
	}
	prefetchRows(c, ldc, cp, rows, width)
	g := tileRegs{k: k, a: a, b: b, c: c, ldc: ldc, add: add, cnt: cnt, ap: ap, bp: bp, cp: cp, nxt: nxt}
	if halves {
		g.boff = RBX
		Load(Param("boff"), g.boff)
		SHLQ(Imm(map[int]uint64{8: 3, 4: 2}[es]), g.boff)
	}
	for n, t := range parts {
		pieceAVX2(n, t, mode, lda, ldb, g, prefetchA && n == len(parts)-1)
	}
	VZEROUPPER()
	RET()
}

// tileSizes are the bytes of a tile's inputs (es) and of its c (ces).
func tileSizes(mode tileMode) (es, ces int) {
	switch mode {
	case tileF32:
		return 4, 8
	case tileF32to32, tileF32add32:
		return 4, 4
	}
	return 8, 8
}

// tileRegs are the general registers of gemmTilesAVX2's kernels: its
// parameters k, a, b, c, ldc (in bytes) and add, the k-loop counter cnt,
// the running pointers ap and bp into the panels and cp into c, and nxt,
// the distance to the next call's panel of a (prefetchA only). store, when
// not nil, emits a piece's store phase instead of the set-or-add one
// (gen_strassen.go's summing store); cnt, ap and bp are free by then.
type tileRegs struct {
	k, a, b, c, ldc, add, cnt, ap, bp, cp, nxt, boff GPPhysical
	store                                            func(n int, t subTile, acc func(r, v int) VecPhysical)
}

// pieceAVX2 emits piece n (t) of a gemmTilesAVX2 kernel: its accumulators
// zeroed, its k loop over the panels a ([k][lda]) and b ([k][ldb]), with
// the next call's panel of a prefetched when prefetchA, and its rows set
// or added into c.
func pieceAVX2(n int, t subTile, mode tileMode, lda, ldb int, g tileRegs, prefetchA bool) {
	f32 := mode != tileF64
	es, ces := tileSizes(mode)
	lanes := 32 / es
	k, a, b, c, ldc, add := g.k, g.a, g.b, g.c, g.ldc, g.add
	cnt, ap, bp, cp, nxt := g.cnt, g.ap, g.bp, g.cp, g.nxt
	acc := func(r, v int) VecPhysical { return ymm[r*t.vecs+v] }
	bv := ymm[t.rows*t.vecs : t.rows*t.vecs+t.vecs]
	bc := ymm[t.rows*t.vecs+t.vecs:]
	if len(bc) > 2 {
		bc = bc[:2]
	}
	for r := 0; r < t.rows; r++ {
		for v := 0; v < t.vecs; v++ {
			VXORPD(acc(r, v), acc(r, v), acc(r, v))
		}
	}
	MOVQ(k, cnt)
	LEAQ(Mem{Base: a, Disp: es * t.row0}, ap)
	switch {
	case g.boff != nil && n == 0:
		MOVQ(b, bp)
	case g.boff != nil:
		LEAQ(Mem{Base: b, Index: g.boff, Scale: 1}, bp)
	default:
		LEAQ(Mem{Base: b, Disp: es * t.col0}, bp)
	}
	TESTQ(cnt, cnt)
	JE(LabelRef(fmt.Sprintf("store%d", n)))
	Label(fmt.Sprintf("loop%d", n))
	for v := 0; v < t.vecs; v++ {
		if f32 {
			VMOVUPS(Mem{Base: bp, Disp: 32 * v}, bv[v])
		} else {
			VMOVUPD(Mem{Base: bp, Disp: 32 * v}, bv[v])
		}
	}
	if prefetchA {
		// The next call's panel of a (the next feature block of this
		// tile, or the next tile's first: in tileLoop's order the
		// k·lda values after this call's, in either case) into L1
		// while the last piece runs on a already in L1, one line a
		// step at the distance of one block (k·lda·es bytes, in nxt):
		// the first piece then finds its a in L1 instead of waiting
		// for it from L2 or L3 (the packed block of X, 1.6 MB at
		// d = 784, does not stay in L2). Fused pass on 256-row blocks
		// at d = 784, M = 2,000, one core of a Zen 4 EPYC, tiles with
		// and without it interleaved in one process (thread CPU time,
		// 80 blocks each, three runs, load ≈ 9): best 49.2–50.3 →
		// 49.7–51.0, median 47.1–48.7 → 48.4–50.0 GFLOP/s (AVX-512's
		// tile in the same runs: best 52.9, median 50.6).
		PREFETCHT0(Mem{Base: ap, Index: nxt, Scale: 1})
	}
	for r := 0; r < t.rows; r++ {
		x := bc[r%len(bc)]
		if f32 {
			VBROADCASTSS(Mem{Base: ap, Disp: 4 * r}, x)
		} else {
			VBROADCASTSD(Mem{Base: ap, Disp: 8 * r}, x)
		}
		for v := 0; v < t.vecs; v++ {
			if f32 {
				VFMADD231PS(bv[v], x, acc(r, v))
			} else {
				VFMADD231PD(bv[v], x, acc(r, v))
			}
		}
	}
	ADDQ(U32(es*lda), ap)
	ADDQ(U32(es*ldb), bp)
	DECQ(cnt)
	JNE(LabelRef(fmt.Sprintf("loop%d", n)))
	Label(fmt.Sprintf("store%d", n))
	if g.store != nil {
		g.store(n, t, acc)
		return
	}
	// cp = c + row0·ldc + col0 elements of c
	if t.row0 == 0 {
		LEAQ(Mem{Base: c, Disp: ces * t.col0}, cp)
	} else {
		IMUL3Q(U32(t.row0), ldc, cp)
		LEAQ(Mem{Base: cp, Index: c, Scale: 1, Disp: ces * t.col0}, cp)
	}
	store := func(plus bool) { storePieceAVX2(mode, t, acc, cp, ldc, lanes, plus) }
	if mode == tileF32to32 {
		store(false)
		return
	}
	TESTB(add.As8(), add.As8())
	JE(LabelRef(fmt.Sprintf("set%d", n)))
	store(true)
	JMP(LabelRef(fmt.Sprintf("next%d", n)))
	Label(fmt.Sprintf("set%d", n))
	store(false)
	Label(fmt.Sprintf("next%d", n))
}

// storePieceAVX2 emits the stores of a tile piece's rows t.rows × t.vecs
// from its accumulators acc to c at cp (row stride ldc bytes, advanced row
// by row), adding c first when plus; float32 sums into float64 c (tileF32)
// are widened to float64 lanes first.
func storePieceAVX2(mode tileMode, t subTile, acc func(r, v int) VecPhysical, cp, ldc GPPhysical, lanes int, plus bool) {
	f32 := mode != tileF64
	for r := 0; r < t.rows; r++ {
		for v := 0; v < t.vecs; v++ {
			if mode == tileF32to32 || mode == tileF32add32 {
				if plus {
					VADDPS(Mem{Base: cp, Disp: 32 * v}, acc(r, v), acc(r, v))
				}
				VMOVUPS(acc(r, v), Mem{Base: cp, Disp: 32 * v})
				continue
			}
			if !f32 {
				if plus {
					VADDPD(Mem{Base: cp, Disp: 32 * v}, acc(r, v), acc(r, v))
				}
				VMOVUPD(acc(r, v), Mem{Base: cp, Disp: 32 * v})
				continue
			}
			// float32 lanes 0–3 and 4–7 to two float64 vectors.
			lo, hi := Y14, Y15
			VEXTRACTF128(Imm(1), acc(r, v), hi.AsX())
			VCVTPS2PD(acc(r, v).AsX(), lo)
			VCVTPS2PD(hi.AsX(), hi)
			for h, y := range []VecPhysical{lo, hi} {
				at := Mem{Base: cp, Disp: 8*lanes*v + 32*h}
				if plus {
					VADDPD(at, y, y)
				}
				VMOVUPD(y, at)
			}
		}
		ADDQ(ldc, cp)
	}
}

// prefetchRows prefetches rows rows of width bytes at c (row stride ldc
// bytes) into L1, using tmp: each row's start, every 64 bytes after it and
// its last byte, which covers every cache line it touches, aligned or not.
func prefetchRows(c, ldc, tmp GPPhysical, rows, width int) {
	MOVQ(c, tmp)
	for r := 0; r < rows; r++ {
		for off := 0; off < width; off += 64 {
			PREFETCHT0(Mem{Base: tmp, Disp: off})
		}
		PREFETCHT0(Mem{Base: tmp, Disp: width - 1})
		if r+1 < rows {
			ADDQ(ldc, tmp)
		}
	}
}
