package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// gemmDense32 emits the float32 tiles of kernel.Dense32's products (the
// GEMM and SYRK of the float32 blocked factorizations of FALKON's
// preconditioner): the 8×32 float32 tile of gemm8x32F32to32AVX512 (16 zmm
// accumulators: 2 loads, 8 broadcasts and 16 FMAs per step of k, 512 flops
// where the float64 tile does 256) with its block of c prefetched first and
// an add flag, as gemm8x16PfAVX512 for float64; and its AVX2 quarter, a
// 4×16 float32 tile with 8 ymm accumulators (2 loads, 4 broadcasts, 8
// FMAs per step), four of which make an 8×32 tile.
func gemmDense32() {
	TEXT("gemm8x32F32PfAVX512", NOSPLIT, "func(k int, a, b, c *float32, ldc int, add bool)")
	Doc("gemm8x32F32PfAVX512 sets (or, with add, increments) the 8×32 float32 tile at c (row stride ldc",
		"elements) to Σ_p a[p][0:8] ⊗ b[p][0:32] over p < k, summed in float32 from 0 in p order (packed",
		"a [k][8], b [k][32]); the tile at c is prefetched before the k loop.")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(2), ldc)
	prefetchTile(c, ldc, R8) // 8 rows of 128 bytes, as the float64 8×16 tile
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
	TESTB(add.As8(), add.As8())
	JE(LabelRef("overwrite"))
	for r := 0; r < 8; r++ {
		VADDPS(Mem{Base: c}, zmm[2*r], zmm[2*r])
		VADDPS(Mem{Base: c, Disp: 64}, zmm[2*r+1], zmm[2*r+1])
		VMOVUPS(zmm[2*r], Mem{Base: c})
		VMOVUPS(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
	Label("overwrite")
	for r := 0; r < 8; r++ {
		VMOVUPS(zmm[2*r], Mem{Base: c})
		VMOVUPS(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()

	TEXT("gemm4x16F32AVX2", NOSPLIT, "func(k int, a, b, c *float32, ldc int, add bool)")
	Doc("gemm4x16F32AVX2 sets (or, with add, increments) the 4×16 float32 tile at c (row stride ldc",
		"elements) to Σ_p a[p][0:4] ⊗ b[p][0:16] over p < k, summed in float32 from 0 in p order, reading",
		"a as [k][8] and b as [k][32] (one quarter of gemm8x32F32PfAVX512's panels).")
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(2), ldc)
	for i := 0; i < 8; i++ {
		VXORPS(ymm[i], ymm[i], ymm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("store2"))
	Label("loop2")
	VMOVUPS(Mem{Base: b}, Y8)
	VMOVUPS(Mem{Base: b, Disp: 32}, Y9)
	for r := 0; r < 4; r++ {
		t := ymm[10+r%4]
		VBROADCASTSS(Mem{Base: a, Disp: 4 * r}, t)
		VFMADD231PS(Y8, t, ymm[2*r])
		VFMADD231PS(Y9, t, ymm[2*r+1])
	}
	ADDQ(Imm(32), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("loop2"))
	Label("store2")
	Load(Param("add"), add)
	TESTB(add.As8(), add.As8())
	JE(LabelRef("overwrite2"))
	for r := 0; r < 4; r++ {
		VADDPS(Mem{Base: c}, ymm[2*r], ymm[2*r])
		VADDPS(Mem{Base: c, Disp: 32}, ymm[2*r+1], ymm[2*r+1])
		VMOVUPS(ymm[2*r], Mem{Base: c})
		VMOVUPS(ymm[2*r+1], Mem{Base: c, Disp: 32})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
	Label("overwrite2")
	for r := 0; r < 4; r++ {
		VMOVUPS(ymm[2*r], Mem{Base: c})
		VMOVUPS(ymm[2*r+1], Mem{Base: c, Disp: 32})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}
