package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// gemmDense emits the tile of kernel.Dense's products (the GEMM and SYRK of
// the blocked factorizations): gemm8x16AVX512 with its block of c
// prefetched first. Their results are M×M matrices that do not stay in
// cache between updates, and each 8×16 tile of c is read only after its k
// loop (256 steps, ≈ 4,000 cycles): prefetched at the start, its 16 to 24
// cache lines arrive while the loop runs instead of stalling the store.
func gemmDense() {
	gemm8x16("gemm8x16PfAVX512", true, "gemm8x16PfAVX512 is gemm8x16AVX512 with the 8×16 tile at c prefetched into L1 before its",
		"k loop (for results that are not in cache).")
	zmmTile{name: "gemm8x16PanelsPfAVX512", prefetchC: true, panels: true, doc: []string{
		"gemm8x16PanelsPfAVX512 is np ≥ 1 calls of gemm8x16PfAVX512 (add false): the 8×16 tiles of np packed",
		"panels of a, one after the other, by the panel of b, into c, c+8·ldc, …; before each tile it prefetches",
		"into L2 (PREFETCHT1) chunk bytes (> 0) of next, the next chunk for the next tile."}}.emit()
	// SyrkLower's tiles with alpha = ±1 read their 8 rows of Â from one half
	// of a 16-column panel of B̂ (the same operand) instead of a copy of it.
	zmmTile{name: "gemm8x16SyrkPfAVX512", prefetchC: true, add: true, lda: 16, doc: []string{
		"gemm8x16SyrkPfAVX512 is gemm8x16PfAVX512 with a read as [k][16] (8 of each 16 values: one half",
		"of a panel of b)."}}.emit()
	zmmTile{name: "gemm8x16SyrkNegPfAVX512", prefetchC: true, add: true, lda: 16, neg: true, doc: []string{
		"gemm8x16SyrkNegPfAVX512 is gemm8x16SyrkPfAVX512 summing −a·b (VFNMADD: the bits of the sums",
		"of (−a)·b)."}}.emit()
	gemm8x16PanelsKbPf()
}

// prefetchTile prefetches the 8 rows of 16 float64 of the tile at c (row
// stride ldc bytes), using tmp: each row's first and last byte and the
// byte 64 after its start cover every cache line it touches, aligned or not.
func prefetchTile(c, ldc, tmp GPPhysical) {
	MOVQ(c, tmp)
	for r := 0; r < 8; r++ {
		PREFETCHT0(Mem{Base: tmp})
		PREFETCHT0(Mem{Base: tmp, Disp: 64})
		PREFETCHT0(Mem{Base: tmp, Disp: 127})
		if r < 7 {
			ADDQ(ldc, tmp)
		}
	}
}

// gemm8x16PanelsKbPf emits gemm8x16PanelsKbPfAVX512(k, kc, np int, a, b, c
// *float64, ldc int, add bool, next *float64, chunk int): np 8×16 tiles,
// the packed panels of a one after the other ([k][8] each) by the panel of
// b ([k][16]), into c, c+8·ldc, …, each over the feature blocks [k0, k0+kl)
// of kc features (the last one shorter) in order: the first block sets the
// tile (or adds to it with add), the others add, each block's sum an FMA
// chain from zero stored (or added) before the next block starts. Those are
// the bits of gemm8x16PfAVX512 called once per tile and block (tileLoop's
// order), which the Strassen products (kernel's tiles, k = d/2 ≈ 392: two
// blocks) made through a Go closure: at ≈ 0.6 µs a call, the closure and
// the call were 1–2% of a pass. Before each tile it prefetches into L2 the
// lines of chunk bytes (> 0) of next, then advances next by chunk; before
// each tile's first block it prefetches the tile of c (prefetchTile).
func gemm8x16PanelsKbPf() {
	name := "gemm8x16PanelsKbPfAVX512"
	TEXT(name, NOSPLIT, "func(k, kc, np int, a, b, c *float64, ldc int, add bool, next *float64, chunk int)")
	Doc(name+" is np ≥ 1 tiles of gemm8x16PfAVX512 over the feature blocks of kc ≥ 1 of k ≥ 1 features each: the",
		"8×16 tiles of np packed panels of a, one after the other, by the panel of b, into c, c+8·ldc, …, each",
		"block's sum stored over the tile (the first block, add false) or added to it; before each tile it",
		"prefetches into L2 (PREFETCHT1) chunk bytes (> 0) of next, the next chunk for the next tile.")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	np, b0, left := R10, R11, R12
	next, chunk, end, ct, kc := R13, RBX, RAX, R14, R8
	Load(Param("np"), np)
	Load(Param("a"), a)
	Load(Param("b"), b0)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	Load(Param("next"), next)
	Load(Param("chunk"), chunk)
	Load(Param("kc"), kc)
	Label("panel")
	MOVQ(b0, b)
	Load(Param("k"), left)
	prefetchChunk(next, chunk, end)
	prefetchTile(c, ldc, ct)
	// The first block: overwrite unless add.
	Load(Param("add"), end)
	TESTB(end.As8(), end.As8())
	JNE(LabelRef("addblock"))
	// block emits the k loop of the next feature block (k = min(kc, left)
	// features, taken from left), leaving ct at the tile.
	block := func(loop, store string) {
		MOVQ(kc, k)
		CMPQ(left, k)
		CMOVQLT(left, k)
		SUBQ(k, left)
		zmmLoopLabels(k, a, b, loop, store)
		MOVQ(c, ct)
	}
	block("loop0", "store0")
	for r := 0; r < 8; r++ {
		VMOVUPD(zmm[2*r], Mem{Base: ct})
		VMOVUPD(zmm[2*r+1], Mem{Base: ct, Disp: 64})
		if r < 7 {
			ADDQ(ldc, ct)
		}
	}
	Label("addblock")
	TESTQ(left, left)
	JE(LabelRef("tiledone"))
	block("loop1", "store1")
	for r := 0; r < 8; r++ {
		VADDPD(Mem{Base: ct}, zmm[2*r], zmm[2*r])
		VADDPD(Mem{Base: ct, Disp: 64}, zmm[2*r+1], zmm[2*r+1])
		VMOVUPD(zmm[2*r], Mem{Base: ct})
		VMOVUPD(zmm[2*r+1], Mem{Base: ct, Disp: 64})
		if r < 7 {
			ADDQ(ldc, ct)
		}
	}
	JMP(LabelRef("addblock"))
	Label("tiledone")
	// The next tile: 8 rows down (a has advanced k steps, to the next panel).
	LEAQ(Mem{Base: c, Index: ldc, Scale: 8}, c)
	DECQ(np)
	JNE(LabelRef("panel"))
	VZEROUPPER()
	RET()
}

// prefetchChunk emits the prefetch into L2 (PREFETCHT1) of the lines of the
// chunk bytes at next, advancing next past them (end is scratch): the
// panel kernels' share of the next panel of centers before each tile.
func prefetchChunk(next, chunk, end GPPhysical) {
	LEAQ(Mem{Base: next, Index: chunk, Scale: 1}, end)
	Label("next")
	PREFETCHT1(Mem{Base: next})
	ADDQ(Imm(64), next)
	CMPQ(next, end)
	JB(LabelRef("next"))
}
