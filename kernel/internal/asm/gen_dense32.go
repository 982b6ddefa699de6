package main

// gemmDense32 emits the float32 tiles of kernel.DenseF32's products (the
// GEMM and SYRK of the float32 blocked factorizations of FALKON's
// preconditioner): the 8×32 float32 zmmTile of gemm8x32F32to32AVX512 (16 zmm
// accumulators: 2 loads, 8 broadcasts and 16 FMAs per step of k, 512 flops
// where the float64 tile does 256) with its block of c prefetched first and
// an add flag, as gemm8x16PfAVX512 for float64; and its AVX2 version on the
// engine's AVX2 tile generator (gemmTilesAVX2), four 4×16 pieces of 8 ymm
// accumulators (2 loads, 4 broadcasts, 8 FMAs per step).
func gemmDense32() {
	zmmTile{name: "gemm8x32F32PfAVX512", f32: true, prefetchC: true, add: true, doc: []string{
		"gemm8x32F32PfAVX512 sets (or, with add, increments) the 8×32 float32 tile at c (row stride ldc",
		"elements) to Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 from 0 in p order (packed",
		"a [k][8], b [k][32]); the tile at c is prefetched before the k loop."}}.emit()

	gemmTilesAVX2("gemm8x32F32AVX2", tileF32add32, 8, 32, []subTile{{0, 4, 0, 2}, {0, 4, 16, 2}, {4, 4, 0, 2}, {4, 4, 16, 2}},
		"gemm8x32F32AVX2 sets (or, with add, increments) the 8×32 float32 tile at c (row stride ldc elements)",
		"to Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 from 0 in p order (packed a [k][8],",
		"b [k][32]), as four 4×16 pieces, its block of c prefetched first.")
}
