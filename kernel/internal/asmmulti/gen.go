// Command asmmulti generates the AVX-512 tiles of package kernel's
// multi-output products (kernel/multi_amd64.s and kernel/multi_stub_amd64.go)
// with avo; run it through "go generate ./kernel" (see kernel/multi.go).
//
// Both tiles read a block of K as the engine forms it, row-major with the
// padded stride mp, so that neither product packs K:
//
//   - rowsPanel8x16AVX512: out[r][s] = Σ_p a[r·lda + p]·b[p][s] for r < 8,
//     s < 16: eight rows of K times a [k][16] panel of V (K_B·V). Each step of
//     p loads one row of the panel (two zmm), broadcasts one element of each
//     of the eight rows of K (eight base registers, one index) and issues 16
//     FMAs into 16 accumulators.
//   - colsPanel8x16AVX512: c[r][s] += Σ_p a[p·lda + r]·b[p][s] for r < 8,
//     s < 16: eight columns of K (eight centers) times a [k][16] panel of
//     K_B·V rows (K_Bᵀ·U), c a [8][16] tile of the partial sums. Each step
//     broadcasts eight consecutive elements of row p of K.
//
// The AVX2 tiles (rowsPanel{6,4,2}x8AVX2, colsPanel{6,4,2}x8AVX2) compute
// the same sums on half a panel (8 of its 16 columns; the caller offsets b
// and the output by 0 or 8) for N = 6, 4 or 2 rows (centers): 2N of the 16
// ymm registers accumulate (12 for the main 6×8 tile), two hold the row of
// the panel and two take the broadcasts. Each element is the same chain of
// FMAs in the same order (p ascending, from zero; the cols tiles add c
// last) as in the AVX-512 tiles, so both give the same bits.
//
// This is a separate generator from kernel/internal/asm so that the two
// never need a hand merge (their outputs are separate files).
package main

import (
	"fmt"

	"github.com/landmark-ml/landmark/kernel/internal/genout"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var ymm = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

var zmm = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

func main() { genout.Main(generate) }

// generate declares the kernels; genout.Main writes them.
func generate() {
	Package("github.com/landmark-ml/landmark/kernel")
	ConstraintExpr("amd64")
	rowsPanel()
	colsPanel()
	for _, n := range []int{6, 4, 2} {
		rowsPanelAVX2(n)
	}
	for _, n := range []int{6, 4, 2} {
		colsPanelAVX2(n)
	}
	widen(true)
	widen(false)
	keptDot4(true)
	keptDot4(false)
	keptAxpy4(true)
	keptAxpy4(false)
	for _, f32 := range []bool{true, false} {
		rowDots(true, f32)
		rowDots(false, f32)
	}
	axpy4F64(true)
	axpy4F64(false)
	panelAxpy(true)
	panelAxpy(false)
	panelAxpy8()
	panelAxpyFullAVX2(true)
	panelAxpyFullAVX2(false)
	axpy8(true)
	axpy8(false)
	rowsPanelF32(true, 8)
	for _, n := range []int{6, 4, 2} {
		rowsPanelF32(false, n)
	}
}

func rowsPanel() {
	TEXT("rowsPanel8x16AVX512", NOSPLIT, "func(k int, a *float64, lda int, b, out *float64)")
	Doc("rowsPanel8x16AVX512 sets out[r·16+s] = Σ_p a[r·lda+p]·b[p·16+s] over p < k, for r < 8 and",
		"s < 16: eight rows of K (row stride lda elements) times a [k][16] panel.")
	k, b, idx, lda := RCX, RDI, RAX, RDX
	rows := []GPPhysical{RSI, RBX, R8, R9, R10, R11, R12, R13}
	Load(Param("k"), k)
	Load(Param("a"), rows[0])
	Load(Param("lda"), lda)
	Load(Param("b"), b)
	SHLQ(Imm(3), lda)
	for r := 1; r < 8; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, rows[r])
	}
	XORQ(idx, idx)
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("rows_store"))
	Label("rows_loop")
	VMOVUPD(Mem{Base: b}, Z16)
	VMOVUPD(Mem{Base: b, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		t := zmm[18+r%4]
		VBROADCASTSD(Mem{Base: rows[r], Index: idx, Scale: 1}, t)
		VFMADD231PD(Z16, t, zmm[2*r])
		VFMADD231PD(Z17, t, zmm[2*r+1])
	}
	ADDQ(Imm(8), idx)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("rows_loop"))
	Label("rows_store")
	out := RDI
	Load(Param("out"), out)
	for r := 0; r < 8; r++ {
		VMOVUPD(zmm[2*r], Mem{Base: out, Disp: 128 * r})
		VMOVUPD(zmm[2*r+1], Mem{Base: out, Disp: 128*r + 64})
	}
	VZEROUPPER()
	RET()
}

func colsPanel() {
	TEXT("colsPanel8x16AVX512", NOSPLIT, "func(k int, a *float64, lda int, b, c *float64)")
	Doc("colsPanel8x16AVX512 adds Σ_p a[p·lda+r]·b[p·16+s] over p < k to c[r·16+s], for r < 8 and",
		"s < 16: eight columns of K (row stride lda elements) times a [k][16] panel.")
	k, a, lda, b, c := RCX, RSI, RDX, RDI, RBX
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("lda"), lda)
	Load(Param("b"), b)
	Load(Param("c"), c)
	SHLQ(Imm(3), lda)
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	TESTQ(k, k)
	JE(LabelRef("cols_store"))
	Label("cols_loop")
	VMOVUPD(Mem{Base: b}, Z16)
	VMOVUPD(Mem{Base: b, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		t := zmm[18+r%4]
		VBROADCASTSD(Mem{Base: a, Disp: 8 * r}, t)
		VFMADD231PD(Z16, t, zmm[2*r])
		VFMADD231PD(Z17, t, zmm[2*r+1])
	}
	ADDQ(lda, a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("cols_loop"))
	Label("cols_store")
	for r := 0; r < 8; r++ {
		VADDPD(Mem{Base: c, Disp: 128 * r}, zmm[2*r], zmm[2*r])
		VADDPD(Mem{Base: c, Disp: 128*r + 64}, zmm[2*r+1], zmm[2*r+1])
		VMOVUPD(zmm[2*r], Mem{Base: c, Disp: 128 * r})
		VMOVUPD(zmm[2*r+1], Mem{Base: c, Disp: 128*r + 64})
	}
	VZEROUPPER()
	RET()
}

// rowsPanelAVX2 generates rowsPanel<n>x8AVX2: n rows of K times half a
// [k][16] panel (8 columns), 2n accumulators.
func rowsPanelAVX2(n int) {
	name := fmt.Sprintf("rowsPanel%dx8AVX2", n)
	TEXT(name, NOSPLIT, "func(k int, a *float64, lda int, b, out *float64)")
	Doc(fmt.Sprintf("%s sets out[r·16+s] = Σ_p a[r·lda+p]·b[p·16+s] over p < k, for r < %d and", name, n),
		"s < 8: rows of K (row stride lda elements) times half of a [k][16] panel.")
	k, b, idx, lda := RCX, RDI, RAX, RDX
	rows := []GPPhysical{RSI, RBX, R8, R9, R10, R11}[:n]
	Load(Param("k"), k)
	Load(Param("a"), rows[0])
	Load(Param("lda"), lda)
	Load(Param("b"), b)
	SHLQ(Imm(3), lda)
	for r := 1; r < n; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, rows[r])
	}
	XORQ(idx, idx)
	for i := 0; i < 2*n; i++ {
		VXORPD(ymm[i], ymm[i], ymm[i])
	}
	loop, store := fmt.Sprintf("rows%d_loop", n), fmt.Sprintf("rows%d_store", n)
	TESTQ(k, k)
	JE(LabelRef(store))
	Label(loop)
	VMOVUPD(Mem{Base: b}, Y12)
	VMOVUPD(Mem{Base: b, Disp: 32}, Y13)
	for r := 0; r < n; r++ {
		t := ymm[14+r%2]
		VBROADCASTSD(Mem{Base: rows[r], Index: idx, Scale: 1}, t)
		VFMADD231PD(Y12, t, ymm[2*r])
		VFMADD231PD(Y13, t, ymm[2*r+1])
	}
	ADDQ(Imm(8), idx)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef(loop))
	Label(store)
	out := RDI
	Load(Param("out"), out)
	for r := 0; r < n; r++ {
		VMOVUPD(ymm[2*r], Mem{Base: out, Disp: 128 * r})
		VMOVUPD(ymm[2*r+1], Mem{Base: out, Disp: 128*r + 32})
	}
	VZEROUPPER()
	RET()
}

// colsPanelAVX2 generates colsPanel<n>x8AVX2: n columns of K (centers)
// times half a [k][16] panel (8 columns), added to c; 2n accumulators.
func colsPanelAVX2(n int) {
	name := fmt.Sprintf("colsPanel%dx8AVX2", n)
	TEXT(name, NOSPLIT, "func(k int, a *float64, lda int, b, c *float64)")
	Doc(fmt.Sprintf("%s adds Σ_p a[p·lda+r]·b[p·16+s] over p < k to c[r·16+s], for r < %d and", name, n),
		"s < 8: columns of K (row stride lda elements) times half of a [k][16] panel.")
	k, a, lda, b, c := RCX, RSI, RDX, RDI, RBX
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("lda"), lda)
	Load(Param("b"), b)
	Load(Param("c"), c)
	SHLQ(Imm(3), lda)
	for i := 0; i < 2*n; i++ {
		VXORPD(ymm[i], ymm[i], ymm[i])
	}
	loop, store := fmt.Sprintf("cols%d_loop", n), fmt.Sprintf("cols%d_store", n)
	TESTQ(k, k)
	JE(LabelRef(store))
	Label(loop)
	VMOVUPD(Mem{Base: b}, Y12)
	VMOVUPD(Mem{Base: b, Disp: 32}, Y13)
	for r := 0; r < n; r++ {
		t := ymm[14+r%2]
		VBROADCASTSD(Mem{Base: a, Disp: 8 * r}, t)
		VFMADD231PD(Y12, t, ymm[2*r])
		VFMADD231PD(Y13, t, ymm[2*r+1])
	}
	ADDQ(lda, a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef(loop))
	Label(store)
	for r := 0; r < n; r++ {
		VADDPD(Mem{Base: c, Disp: 128 * r}, ymm[2*r], ymm[2*r])
		VADDPD(Mem{Base: c, Disp: 128*r + 32}, ymm[2*r+1], ymm[2*r+1])
		VMOVUPD(ymm[2*r], Mem{Base: c, Disp: 128 * r})
		VMOVUPD(ymm[2*r+1], Mem{Base: c, Disp: 128*r + 32})
	}
	VZEROUPPER()
	RET()
}

// widen generates widenAVX512 or widenAVX2: dst[i] = float64(src[i]) for
// i < n, n a multiple of 16 (the kept float32 blocks of K, widened for the
// tiles; the conversion is exact). Sixteen values per step, as two (AVX-512)
// or four (AVX2) VCVTPS2PD.
func widen(avx512 bool) {
	name, regs, step := "widenAVX2", ymm[:4], 16
	if avx512 {
		name, regs = "widenAVX512", zmm[:2]
	}
	TEXT(name, NOSPLIT, "func(dst *float64, src *float32, n int)")
	Doc(name + " sets dst[i] = float64(src[i]) for i < n, n a multiple of 16.")
	dst, src, n := RDI, RSI, RCX
	Load(Param("dst"), dst)
	Load(Param("src"), src)
	Load(Param("n"), n)
	loop, done := name+"_loop", name+"_done"
	TESTQ(n, n)
	JE(LabelRef(done))
	Label(loop)
	w := step / len(regs) // values per register
	for i, r := range regs {
		VCVTPS2PD(Mem{Base: src, Disp: 4 * w * i}, r)
	}
	for i, r := range regs {
		VMOVUPD(r, Mem{Base: dst, Disp: 8 * w * i})
	}
	ADDQ(Imm(uint64(4*step)), src)
	ADDQ(Imm(uint64(8*step)), dst)
	SUBQ(Imm(uint64(step)), n)
	JNE(LabelRef(loop))
	Label(done)
	VZEROUPPER()
	RET()
}

// fourRows returns the address of byte disp of row r < 4 of a block at a
// whose row stride is lda bytes (lda3 = 3·lda): a, a+lda, a+2·lda, a+lda3.
func fourRows(a, lda, lda3 GPPhysical) func(r, disp int) Mem {
	return func(r, disp int) Mem {
		switch r {
		case 0:
			return Mem{Base: a, Disp: disp}
		case 1:
			return Mem{Base: a, Index: lda, Scale: 1, Disp: disp}
		case 2:
			return Mem{Base: a, Index: lda, Scale: 2, Disp: disp}
		}
		return Mem{Base: a, Index: lda3, Scale: 1, Disp: disp}
	}
}

// keptDot4 generates keptDot4AVX512 or keptDot4AVX2: the dots of four kept
// float32 rows of K (row stride lda elements) with a float64 vector v over
// k columns (a multiple of 16), for products with one right-hand side. Each
// row has two accumulators (AVX-512: columns 0–7 and 8–15 of each group of
// 16; AVX2: columns 0–3, 8–11 and 4–7, 12–15), added at the end and stored
// as lanes (8 on AVX-512, 4 on AVX2) at out[8r], which the caller sums in
// lane order: a fixed order for each path.
func keptDot4(avx512 bool) {
	name := "keptDot4AVX2"
	if avx512 {
		name = "keptDot4AVX512"
	}
	TEXT(name, NOSPLIT, "func(k int, a *float32, lda int, v, out *float64)")
	Pragma("noescape") // keeps no pointer: the caller's small arrays stay on its stack
	Doc(name+" stores at out[8r:] the lanes of Σ_p float64(a[r·lda+p])·v[p] over p < k",
		"(a multiple of 16) for r < 4, two accumulators a row added: four kept float32 rows of K times v.")
	k, a, lda, v, out, lda3 := RCX, RSI, RDX, RDI, RBX, R8
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("lda"), lda)
	Load(Param("v"), v)
	Load(Param("out"), out)
	SHLQ(Imm(2), lda)
	LEAQ(Mem{Base: lda, Index: lda, Scale: 2}, lda3)
	loop, done := name+"_loop", name+"_done"
	row := fourRows(a, lda, lda3)
	regs := ymm
	if avx512 {
		regs = zmm
	}
	for i := 0; i < 8; i++ {
		if avx512 {
			VPXORQ(regs[i], regs[i], regs[i])
		} else {
			VXORPD(regs[i], regs[i], regs[i])
		}
	}
	TESTQ(k, k)
	JE(LabelRef(done))
	Label(loop)
	if avx512 {
		VMOVUPD(Mem{Base: v}, Z8)
		VMOVUPD(Mem{Base: v, Disp: 64}, Z9)
		for r := 0; r < 4; r++ {
			VCVTPS2PD(row(r, 0), Z10)
			VCVTPS2PD(row(r, 32), Z11)
			VFMADD231PD(Z8, Z10, zmm[2*r])
			VFMADD231PD(Z9, Z11, zmm[2*r+1])
		}
	} else {
		for q := 0; q < 4; q++ {
			VMOVUPD(Mem{Base: v, Disp: 32 * q}, ymm[8+q])
		}
		for r := 0; r < 4; r++ {
			for q := 0; q < 4; q++ {
				t := ymm[12+q%2]
				VCVTPS2PD(row(r, 16*q), t)
				VFMADD231PD(ymm[8+q], t, ymm[2*r+q%2])
			}
		}
	}
	ADDQ(Imm(64), a)
	ADDQ(Imm(128), v)
	SUBQ(Imm(16), k)
	JNE(LabelRef(loop))
	Label(done)
	for r := 0; r < 4; r++ {
		VADDPD(regs[2*r+1], regs[2*r], regs[2*r])
		VMOVUPD(regs[2*r], Mem{Base: out, Disp: 64 * r})
	}
	VZEROUPPER()
	RET()
}

// keptAxpy4 generates keptAxpy4AVX512 or keptAxpy4AVX2: y[p] =
// fma(s[3], a3[p], fma(s[2], a2[p], fma(s[1], a1[p], fma(s[0], a0[p], y[p]))))
// for p < k (a multiple of 16), a_r the kept float32 row r of K (row stride
// lda elements) widened: the same chain on both paths.
func keptAxpy4(avx512 bool) {
	name := "keptAxpy4AVX2"
	if avx512 {
		name = "keptAxpy4AVX512"
	}
	TEXT(name, NOSPLIT, "func(k int, s *[4]float64, a *float32, lda int, y *float64)")
	Pragma("noescape") // keeps no pointer: the caller's small arrays stay on its stack
	Doc(name+" sets y[p] = fma(s[3], a[3·lda+p], fma(s[2], a[2·lda+p], fma(s[1], a[lda+p], fma(s[0], a[p], y[p]))))",
		"for p < k (a multiple of 16), the rows of a kept float32 block of K widened.")
	axpy4Body(name, avx512, true)
}
