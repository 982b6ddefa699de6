package main

// gemmDense32 emits the float32 tiles of kernel.DenseF32's products (the
// GEMM and SYRK of the float32 blocked factorizations of FALKON's
// preconditioner): the 8×32 float32 zmmTile of gemm8x32F32to32AVX512 (16 zmm
// accumulators: 2 loads, 8 broadcasts and 16 FMAs per step of k, 512 flops
// where the float64 tile does 256) with its block of c prefetched first and
// an add flag, as gemm8x16PfAVX512 for float64; and its AVX2 version on the
// engine's AVX2 tile generator (gemmTilesAVX2) on the same 8-row panels:
// two 6×16 pieces of 12 ymm accumulators (2 loads, 6 broadcasts, 12 FMAs
// per step) and a 2×32 one of 8. Each element is the same FMA chain
// whatever the pieces. Against the four 4×16 pieces of 8 accumulators used
// before, BenchmarkTiles (one core of a Zen 4 EPYC, in cache, best of 20
// interleaved rounds, shared machine, 2026-11-26) measured 110.7 / 108.6
// against 105.6 / 105.4 GFLOP/s at k = 54 / 261 (AVX-512's
// gemm8x32F32PfAVX512 112.2 / 114.5).
func gemmDense32() {
	zmmTile{name: "gemm8x32F32PfAVX512", f32: true, prefetchC: true, add: true, doc: []string{
		"gemm8x32F32PfAVX512 sets (or, with add, increments) the 8×32 float32 tile at c (row stride ldc",
		"elements) to Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 from 0 in p order (packed",
		"a [k][8], b [k][32]); the tile at c is prefetched before the k loop."}}.emit()
	zmmTile{name: "gemm8x32F32SyrkPfAVX512", f32: true, prefetchC: true, add: true, lda: 32, doc: []string{
		"gemm8x32F32SyrkPfAVX512 is gemm8x32F32PfAVX512 with a read as [k][32] (8 of each 32 values: one",
		"quarter of a panel of b)."}}.emit()
	zmmTile{name: "gemm8x32F32SyrkNegPfAVX512", f32: true, prefetchC: true, add: true, lda: 32, neg: true, doc: []string{
		"gemm8x32F32SyrkNegPfAVX512 is gemm8x32F32SyrkPfAVX512 summing −a·b (VFNMADD: the bits of the",
		"sums of (−a)·b)."}}.emit()

	gemmTilesAVX2("gemm8x32F32AVX2", tileF32add32, 8, 32, []subTile{{0, 6, 0, 2}, {0, 6, 16, 2}, {6, 2, 0, 4}},
		"gemm8x32F32AVX2 sets (or, with add, increments) the 8×32 float32 tile at c (row stride ldc elements)",
		"to Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 from 0 in p order (packed a [k][8],",
		"b [k][32]), as two 6×16 pieces and a 2×32 one, its block of c prefetched first.")
}
