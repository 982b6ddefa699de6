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
