// Command asmtrsm generates the AVX-512 tiles of package kernel's products
// for blocked triangular solves (kernel/trsm_amd64.s and
// kernel/trsm_stub_amd64.go) with avo; run it through "go generate ./kernel"
// (see kernel/trsm.go).
//
// Both tiles read eight rows of a matrix in place (row stride lda elements:
// the triangular factor, not packed) and a packed panel of the right-hand
// sides ([k][16] float64 or [k][32] float32, 128 bytes a step), and write
// their 8×16 (8×32) block of c directly: c = Σ, or c −= Σ with sub. Each
// step of p loads one row of the panel (two zmm), broadcasts one element of
// each of the eight rows (eight base registers, one index) and issues 16
// FMAs into 16 accumulators; the block of c is prefetched before the k loop
// (it is a row block of the right-hand sides, not in cache). Every element
// is the FMA chain over p ascending from zero, then stored or subtracted
// from c: the bits of Σ computed alone and subtracted after.
//
// This is a separate generator from kernel/internal/asm and asmmulti so
// that none of them needs a hand merge (their outputs are separate files).
package main

import (
	"fmt"

	"github.com/landmark-ml/landmark/kernel/internal/genout"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var zmm = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

func main() { genout.Main(generate) }

// generate declares the kernels; genout.Main writes them.
func generate() {
	Package("github.com/landmark-ml/landmark/kernel")
	ConstraintExpr("amd64")
	rowsTile(false)
	rowsTile(true)
}

// rowsTile emits trsmRows8x16AVX512 (float64) or trsmRows8x32F32AVX512.
func rowsTile(f32 bool) {
	name, elem, size, shift, cols := "trsmRows8x16AVX512", "float64", 8, uint64(3), 16
	load, bcast, fma, sub := VMOVUPD, VBROADCASTSD, VFMADD231PD, VSUBPD
	if f32 {
		name, elem, size, shift, cols = "trsmRows8x32F32AVX512", "float32", 4, 2, 32
		load, bcast, fma, sub = VMOVUPS, VBROADCASTSS, VFMADD231PS, VSUBPS
	}
	TEXT(name, NOSPLIT, fmt.Sprintf("func(k int, a *%s, lda int, b, c *%s, ldc int, sub bool)", elem, elem))
	Doc(fmt.Sprintf("%s sets c[r·ldc+s] to Σ_p a[r·lda+p]·b[p·%d+s] over p < k, or with sub", name, cols),
		fmt.Sprintf("subtracts that sum from it, for r < 8 and s < %d: eight rows read in place (row", cols),
		fmt.Sprintf("stride lda elements) times a packed [k][%d] panel; c is prefetched first.", cols))
	Pragma("noescape") // keeps no pointer: the caller's edge tile stays on its stack
	// c and ldc are loaded twice (for the prefetch, then for the store) so
	// that the eight row pointers, k, b, the index and lda fit in the
	// general registers without R14/R15.
	k, bp, idx, lda := RCX, RDI, RAX, RDX
	rows := []GPPhysical{RSI, RBX, R8, R9, R10, R11, R12, R13}
	c, ldc := RSI, RBX
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(shift), ldc)
	// Prefetch the 8 rows of 128 bytes of c: first, 64th and last byte of
	// each row cover every cache line it touches, aligned or not.
	MOVQ(c, idx)
	for r := 0; r < 8; r++ {
		PREFETCHT0(Mem{Base: idx})
		PREFETCHT0(Mem{Base: idx, Disp: 64})
		PREFETCHT0(Mem{Base: idx, Disp: 127})
		if r < 7 {
			ADDQ(ldc, idx)
		}
	}
	Load(Param("k"), k)
	Load(Param("a"), rows[0])
	Load(Param("lda"), lda)
	Load(Param("b"), bp)
	SHLQ(Imm(shift), lda)
	for r := 1; r < 8; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, rows[r])
	}
	XORQ(idx, idx)
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	load(Mem{Base: bp}, Z16)
	load(Mem{Base: bp, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		t := zmm[18+r%4]
		bcast(Mem{Base: rows[r], Index: idx, Scale: 1}, t)
		fma(Z16, t, zmm[2*r])
		fma(Z17, t, zmm[2*r+1])
	}
	ADDQ(Imm(uint64(size)), idx)
	ADDQ(Imm(128), bp)
	DECQ(k)
	JNE(LabelRef("loop"))
	Label("store")
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(shift), ldc)
	s := RAX
	Load(Param("sub"), s)
	TESTB(s.As8(), s.As8())
	JE(LabelRef("set"))
	for r := 0; r < 8; r++ {
		// c − Σ: VSUBPD Σ, c, dst computes c − Σ (Go assembler operand order).
		load(Mem{Base: c}, Z16)
		load(Mem{Base: c, Disp: 64}, Z17)
		sub(zmm[2*r], Z16, Z16)
		sub(zmm[2*r+1], Z17, Z17)
		load(Z16, Mem{Base: c})
		load(Z17, Mem{Base: c, Disp: 64})
		if r < 7 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
	Label("set")
	for r := 0; r < 8; r++ {
		load(zmm[2*r], Mem{Base: c})
		load(zmm[2*r+1], Mem{Base: c, Disp: 64})
		if r < 7 {
			ADDQ(ldc, c)
		}
	}
	VZEROUPPER()
	RET()
}
