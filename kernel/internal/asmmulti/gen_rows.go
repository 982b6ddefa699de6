package main

// The row kernels of package kernel's row-streaming products (widen.go:
// RowDots, RowAxpys, PanelDots, PanelAxpys and their float32 twins), which
// the solver's triangular solves with few right-hand sides run on.

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// axpy4F64 generates axpy4F64AVX512 or axpy4F64AVX2: keptAxpy4's chain of
// FMAs on four float64 rows (kernel.RowAxpys, the solver's L⁻ᵀx with one
// right-hand side), so that a float32 factor widened gives its bits.
func axpy4F64(avx512 bool) {
	name := "axpy4F64AVX2"
	if avx512 {
		name = "axpy4F64AVX512"
	}
	TEXT(name, NOSPLIT, "func(k int, s *[4]float64, a *float64, lda int, y *float64)")
	Pragma("noescape")
	Doc(name+" sets y[p] = fma(s[3], a[3·lda+p], fma(s[2], a[2·lda+p], fma(s[1], a[lda+p], fma(s[0], a[p], y[p]))))",
		"for p < k (a multiple of 16): four float64 rows (row stride lda elements).")
	axpy4Body(name, avx512, false)
}

// axpy4Body is the body of keptAxpy4 (f32: the rows float32, widened) and
// axpy4F64, after TEXT.
func axpy4Body(name string, avx512, f32 bool) {
	esz, shift := 8, 3
	if f32 {
		esz, shift = 4, 2
	}
	k, s, a, lda, y, lda3 := RCX, RAX, RSI, RDX, RDI, R8
	Load(Param("k"), k)
	Load(Param("s"), s)
	Load(Param("a"), a)
	Load(Param("lda"), lda)
	Load(Param("y"), y)
	SHLQ(Imm(uint64(shift)), lda)
	LEAQ(Mem{Base: lda, Index: lda, Scale: 2}, lda3)
	loop, done := name+"_loop", name+"_done"
	row := fourRows(a, lda, lda3)
	regs := ymm
	if avx512 {
		regs = zmm
	}
	for r := 0; r < 4; r++ {
		VBROADCASTSD(Mem{Base: s, Disp: 8 * r}, regs[r])
	}
	TESTQ(k, k)
	JE(LabelRef(done))
	Label(loop)
	if avx512 {
		VMOVUPD(Mem{Base: y}, Z4)
		VMOVUPD(Mem{Base: y, Disp: 64}, Z5)
		for r := 0; r < 4; r++ {
			if f32 {
				VCVTPS2PD(row(r, 0), Z6)
				VCVTPS2PD(row(r, 32), Z7)
				VFMADD231PD(Z6, zmm[r], Z4)
				VFMADD231PD(Z7, zmm[r], Z5)
				continue
			}
			VFMADD231PD(row(r, 0), zmm[r], Z4)
			VFMADD231PD(row(r, 64), zmm[r], Z5)
		}
		VMOVUPD(Z4, Mem{Base: y})
		VMOVUPD(Z5, Mem{Base: y, Disp: 64})
	} else {
		for q := 0; q < 4; q++ {
			VMOVUPD(Mem{Base: y, Disp: 32 * q}, ymm[4+q])
		}
		for r := 0; r < 4; r++ {
			for q := 0; q < 4; q++ {
				if !f32 {
					VFMADD231PD(row(r, 32*q), ymm[r], ymm[4+q])
					continue
				}
				t := ymm[8+q]
				VCVTPS2PD(row(r, 16*q), t)
				VFMADD231PD(t, ymm[r], ymm[4+q])
			}
		}
		for q := 0; q < 4; q++ {
			VMOVUPD(ymm[4+q], Mem{Base: y, Disp: 32 * q})
		}
	}
	ADDQ(Imm(uint64(16*esz)), a)
	ADDQ(Imm(128), y)
	SUBQ(Imm(16), k)
	JNE(LabelRef(loop))
	Label(done)
	VZEROUPPER()
	RET()
}

// rowDots generates dots4{F32,F64}AVX512 (four rows) and
// dots2{F32,F64}AVX2 (two rows): the dots of rows of a (row stride lda
// elements, float32 widened in registers or float64) with a float64 vector
// x over k columns (a multiple of 16), for the solver's L⁻¹x with one
// right-hand side (kernel.RowDots). Each row has 16 lane sums A[l] over the
// columns p ≡ l mod 16, one FMA per column in p order (AVX-512: two zmm,
// lanes 0–7 and 8–15; AVX2: four ymm of four lanes); out[8r+l] = A[l] +
// A[l+8] for l < 8, which the caller sums in lane order. Both paths and
// the Go loop of the portable one give the same bits.
func rowDots(avx512, f32 bool) {
	rows, name, typ, esz, shift := 2, "dots2", "float64", 8, uint64(3)
	if avx512 {
		rows, name = 4, "dots4"
	}
	if f32 {
		typ, esz, shift = "float32", 4, 2
		name += "F32"
	} else {
		name += "F64"
	}
	if avx512 {
		name += "AVX512"
	} else {
		name += "AVX2"
	}
	TEXT(name, NOSPLIT, "func(k int, a *"+typ+", lda int, x, out *float64)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s sets out[8r+l] = A_r[l] + A_r[l+8] for r < %d, l < 8, where A_r[l] is the", name, rows),
		fmt.Sprintf("sum over p < k (a multiple of 16), p ≡ l mod 16, of %s(a[r·lda+p])·x[p], one FMA a term in p order.", typ))
	k, a, lda, x, out, lda3 := RCX, RSI, RDX, RDI, RBX, R8
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("lda"), lda)
	Load(Param("x"), x)
	Load(Param("out"), out)
	SHLQ(Imm(shift), lda)
	if rows == 4 {
		LEAQ(Mem{Base: lda, Index: lda, Scale: 2}, lda3)
	}
	row := fourRows(a, lda, lda3)
	loop, done := name+"_loop", name+"_done"
	if avx512 {
		for i := 0; i < 8; i++ {
			VPXORQ(zmm[i], zmm[i], zmm[i])
		}
	} else {
		for i := 0; i < 8; i++ {
			VXORPD(ymm[i], ymm[i], ymm[i])
		}
	}
	TESTQ(k, k)
	JE(LabelRef(done))
	Label(loop)
	if avx512 {
		VMOVUPD(Mem{Base: x}, Z8)
		VMOVUPD(Mem{Base: x, Disp: 64}, Z9)
		for r := 0; r < 4; r++ {
			if f32 {
				VCVTPS2PD(row(r, 0), Z10)
				VCVTPS2PD(row(r, 32), Z11)
				VFMADD231PD(Z8, Z10, zmm[2*r])
				VFMADD231PD(Z9, Z11, zmm[2*r+1])
				continue
			}
			VFMADD231PD(row(r, 0), Z8, zmm[2*r])
			VFMADD231PD(row(r, 64), Z9, zmm[2*r+1])
		}
	} else {
		for q := 0; q < 4; q++ {
			VMOVUPD(Mem{Base: x, Disp: 32 * q}, ymm[8+q])
		}
		for r := 0; r < 2; r++ {
			for q := 0; q < 4; q++ {
				if !f32 {
					VFMADD231PD(row(r, 32*q), ymm[8+q], ymm[4*r+q])
					continue
				}
				t := ymm[12+q%2]
				VCVTPS2PD(row(r, 16*q), t)
				VFMADD231PD(ymm[8+q], t, ymm[4*r+q])
			}
		}
	}
	ADDQ(Imm(uint64(16*esz)), a)
	ADDQ(Imm(128), x)
	SUBQ(Imm(16), k)
	JNE(LabelRef(loop))
	Label(done)
	for r := 0; r < rows; r++ {
		if avx512 {
			VADDPD(zmm[2*r+1], zmm[2*r], zmm[2*r])
			VMOVUPD(zmm[2*r], Mem{Base: out, Disp: 64 * r})
			continue
		}
		VADDPD(ymm[4*r+2], ymm[4*r], ymm[4*r])
		VADDPD(ymm[4*r+3], ymm[4*r+1], ymm[4*r+1])
		VMOVUPD(ymm[4*r], Mem{Base: out, Disp: 64 * r})
		VMOVUPD(ymm[4*r+1], Mem{Base: out, Disp: 64*r + 32})
	}
	VZEROUPPER()
	RET()
}

// panelAxpy generates panelAxpy4{F32,F64}AVX512 (a half-panel AVX2 twin
// was dropped: panelAxpyFullAVX2's one pass over all 16 columns read
// 19–21% more per CPU-second at M = 10,000, t = 10, three alternated
// pairs): y[p][s] = fma(a3[p], b[3][s],
// fma(a2[p], b[2][s], fma(a1[p], b[1][s], fma(a0[p], b[0][s], y[p][s]))))
// for p < m, a_r row r of a (row stride lda elements; float32 widened, or
// float64) and b, y panels of rows of 16 float64 values: four rows of the
// factor streamed into the [m][16] piece of x of a task of the solver's
// L⁻ᵀX with few right-hand sides (kernel.PanelAxpys). b is held in eight
// zmm and a row of y (two zmm) updated per p.
func panelAxpy(f32 bool) {
	name := "panelAxpy4F64AVX512"
	if f32 {
		name = "panelAxpy4F32AVX512"
	}
	pa := panelAxpy4Start(name, f32)
	m, b, y, row, loop, done := pa.m, pa.b, pa.y, pa.row, pa.loop, pa.done
	for r := 0; r < 4; r++ {
		VMOVUPD(Mem{Base: b, Disp: 128 * r}, zmm[2*r])
		VMOVUPD(Mem{Base: b, Disp: 128*r + 64}, zmm[2*r+1])
	}
	TESTQ(m, m)
	JE(LabelRef(done))
	Label(loop)
	VMOVUPD(Mem{Base: y}, Z8)
	VMOVUPD(Mem{Base: y, Disp: 64}, Z9)
	for r := 0; r < 4; r++ {
		bc := zmm[10+r%2]
		if f32 {
			VBROADCASTSS(row(r, 0), Y12)
			VCVTPS2PD(Y12, bc)
		} else {
			VBROADCASTSD(row(r, 0), bc)
		}
		VFMADD231PD(bc, zmm[2*r], Z8)
		VFMADD231PD(bc, zmm[2*r+1], Z9)
	}
	VMOVUPD(Z8, Mem{Base: y})
	VMOVUPD(Z9, Mem{Base: y, Disp: 64})
	pa.next()
}

// rowsPanelF32 generates rowsPanel8x16F32AVX512 and rowsPanel{6,4,2}x8F32AVX2:
// rowsPanel8x16AVX512 and rowsPanel{6,4,2}x8AVX2 with the rows of a in
// float32, each element broadcast and widened (exactly) in a register, so
// that a float32 factor gives the float64 tiles' bits on its widened values
// (kernel.PanelDots32, the solver's L⁻¹X with a few right-hand sides).
func rowsPanelF32(avx512 bool, n int) {
	name := fmt.Sprintf("rowsPanel%dx8F32AVX2", n)
	if avx512 {
		name = fmt.Sprintf("rowsPanel%dx16F32AVX512", n)
	}
	TEXT(name, NOSPLIT, "func(k int, a *float32, lda int, b, out *float64)")
	Pragma("noescape")
	half := "half of "
	s := 8
	if avx512 {
		half, s = "", 16
	}
	Doc(fmt.Sprintf("%s sets out[r·16+s] = Σ_p float64(a[r·lda+p])·b[p·16+s] over p < k, for r < %d and", name, n),
		fmt.Sprintf("s < %d, one FMA a term in p order from zero: float32 rows (row stride lda elements) times %sa [k][16] panel.", s, half))
	k, b, idx, lda := RCX, RDI, RAX, RDX
	rows := []GPPhysical{RSI, RBX, R8, R9, R10, R11, R12, R13}[:n]
	Load(Param("k"), k)
	Load(Param("a"), rows[0])
	Load(Param("lda"), lda)
	Load(Param("b"), b)
	SHLQ(Imm(2), lda)
	for r := 1; r < n; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, rows[r])
	}
	XORQ(idx, idx)
	regs, w := ymm, 32
	if avx512 {
		regs, w = zmm, 64
	}
	for i := 0; i < 2*n; i++ {
		if avx512 {
			VPXORQ(regs[i], regs[i], regs[i])
		} else {
			VXORPD(regs[i], regs[i], regs[i])
		}
	}
	loop, store := name+"_loop", name+"_store"
	TESTQ(k, k)
	JE(LabelRef(store))
	Label(loop)
	b0, b1 := Y12, Y13
	if avx512 {
		VMOVUPD(Mem{Base: b}, Z16)
		VMOVUPD(Mem{Base: b, Disp: 64}, Z17)
	} else {
		VMOVUPD(Mem{Base: b}, b0)
		VMOVUPD(Mem{Base: b, Disp: 32}, b1)
	}
	xmm := []VecPhysical{X14, X15}
	ymmT := []VecPhysical{Y18, Y19, Y20, Y21}
	for r := 0; r < n; r++ {
		m := Mem{Base: rows[r], Index: idx, Scale: 1}
		if avx512 {
			t := zmm[18+r%4]
			VBROADCASTSS(m, ymmT[r%4])
			VCVTPS2PD(ymmT[r%4], t)
			VFMADD231PD(Z16, t, zmm[2*r])
			VFMADD231PD(Z17, t, zmm[2*r+1])
			continue
		}
		t := ymm[14+r%2]
		VBROADCASTSS(m, xmm[r%2])
		VCVTPS2PD(xmm[r%2], t)
		VFMADD231PD(b0, t, ymm[2*r])
		VFMADD231PD(b1, t, ymm[2*r+1])
	}
	ADDQ(Imm(4), idx)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef(loop))
	Label(store)
	out := RDI
	Load(Param("out"), out)
	for r := 0; r < n; r++ {
		VMOVUPD(regs[2*r], Mem{Base: out, Disp: 128 * r})
		VMOVUPD(regs[2*r+1], Mem{Base: out, Disp: 128*r + w})
	}
	VZEROUPPER()
	RET()
}

// panelAxpy8 generates panelAxpy8F64AVX512: panelAxpy4's chain of FMAs
// over eight float64 rows of a (row r at a + r·lda, one index for all), so
// that a row of y is loaded and stored once per eight rows of the factor;
// b's eight rows are held in sixteen zmm. The same bits as two calls of
// panelAxpy4 on rows 0–3 and 4–7. (A float32 twin, widening as
// panelAxpy4F32AVX512 does, measured 10% slower than the four-row kernel
// at M = 10,000, t = 10, three alternated pairs, and was dropped; the
// float64 one 10% faster.)
func panelAxpy8() {
	name := "panelAxpy8F64AVX512"
	TEXT(name, NOSPLIT, "func(m int, b *float64, a *float64, lda int, y *float64)")
	Pragma("noescape")
	Doc(name+" sets y[16p+s] = fma(a[7·lda+p], b[112+s], … fma(a[lda+p], b[16+s], fma(a[p], b[s], y[16p+s])))",
		"for p < m, s < 16: eight rows of a (float64) streamed into a [m][16] panel y, one FMA a row in row order.")
	m, b, idx, lda, y := RCX, RAX, RAX, RDX, RDI // b is read before idx starts
	rows := []GPPhysical{RSI, RBX, R8, R9, R10, R11, R12, R13}
	Load(Param("m"), m)
	Load(Param("b"), b)
	Load(Param("a"), rows[0])
	Load(Param("lda"), lda)
	Load(Param("y"), y)
	SHLQ(Imm(3), lda)
	for r := 1; r < 8; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, rows[r])
	}
	for r := 0; r < 8; r++ {
		VMOVUPD(Mem{Base: b, Disp: 128 * r}, zmm[2*r])
		VMOVUPD(Mem{Base: b, Disp: 128*r + 64}, zmm[2*r+1])
	}
	XORQ(idx, idx)
	loop, done := name+"_loop", name+"_done"
	TESTQ(m, m)
	JE(LabelRef(done))
	Label(loop)
	VMOVUPD(Mem{Base: y}, Z16)
	VMOVUPD(Mem{Base: y, Disp: 64}, Z17)
	for r := 0; r < 8; r++ {
		bc := zmm[18+r%4]
		VBROADCASTSD(Mem{Base: rows[r], Index: idx, Scale: 1}, bc)
		VFMADD231PD(bc, zmm[2*r], Z16)
		VFMADD231PD(bc, zmm[2*r+1], Z17)
	}
	VMOVUPD(Z16, Mem{Base: y})
	VMOVUPD(Z17, Mem{Base: y, Disp: 64})
	ADDQ(Imm(8), idx)
	ADDQ(Imm(128), y)
	DECQ(m)
	JNE(LabelRef(loop))
	Label(done)
	VZEROUPPER()
	RET()
}

// axpy8 generates axpy8{F32,F64}AVX512: keptAxpy4's chain of FMAs over
// eight rows of a (row r at a + r·lda, one index for all; float32 widened
// in registers, or float64), so that y is loaded and stored once per eight
// rows: kernel.RowAxpys on AVX-512. The same bits as two four-row calls.
func axpy8(f32 bool) {
	typ, esz, name := "float64", 8, "axpy8F64AVX512"
	if f32 {
		typ, esz, name = "float32", 4, "axpy8F32AVX512"
	}
	TEXT(name, NOSPLIT, "func(k int, s *[8]float64, a *"+typ+", lda int, y *float64)")
	Pragma("noescape")
	Doc(name+" sets y[p] = fma(s[7], a[7·lda+p], … fma(s[1], a[lda+p], fma(s[0], a[p], y[p])))",
		"for p < k (a multiple of 16): eight "+typ+" rows (row stride lda elements), one FMA a row in row order.")
	k, sp, idx, lda, y := RCX, RAX, RAX, RDX, RDI // s is read before idx starts
	rows := []GPPhysical{RSI, RBX, R8, R9, R10, R11, R12, R13}
	Load(Param("k"), k)
	Load(Param("s"), sp)
	Load(Param("a"), rows[0])
	Load(Param("lda"), lda)
	Load(Param("y"), y)
	shift := uint64(3)
	if f32 {
		shift = 2
	}
	SHLQ(Imm(shift), lda)
	for r := 1; r < 8; r++ {
		LEAQ(Mem{Base: rows[r-1], Index: lda, Scale: 1}, rows[r])
	}
	for r := 0; r < 8; r++ {
		VBROADCASTSD(Mem{Base: sp, Disp: 8 * r}, zmm[r])
	}
	XORQ(idx, idx)
	loop, done := name+"_loop", name+"_done"
	TESTQ(k, k)
	JE(LabelRef(done))
	Label(loop)
	VMOVUPD(Mem{Base: y}, Z8)
	VMOVUPD(Mem{Base: y, Disp: 64}, Z9)
	for r := 0; r < 8; r++ {
		m0 := Mem{Base: rows[r], Index: idx, Scale: 1}
		m1 := Mem{Base: rows[r], Index: idx, Scale: 1, Disp: 8 * esz}
		if f32 {
			t0, t1 := zmm[10+2*(r%2)], zmm[11+2*(r%2)]
			VCVTPS2PD(m0, t0)
			VCVTPS2PD(m1, t1)
			VFMADD231PD(t0, zmm[r], Z8)
			VFMADD231PD(t1, zmm[r], Z9)
			continue
		}
		VFMADD231PD(m0, zmm[r], Z8)
		VFMADD231PD(m1, zmm[r], Z9)
	}
	VMOVUPD(Z8, Mem{Base: y})
	VMOVUPD(Z9, Mem{Base: y, Disp: 64})
	ADDQ(Imm(uint64(16*esz)), idx)
	ADDQ(Imm(128), y)
	SUBQ(Imm(16), k)
	JNE(LabelRef(loop))
	Label(done)
	VZEROUPPER()
	RET()
}

// panelAxpyFullAVX2 generates panelAxpy4x16{F32,F64}AVX2: panelAxpy4's
// chain on all 16 columns of the panel in one pass (y's row in four ymm,
// b's rows read from memory by the FMAs: 512 bytes, in L1), so that each
// element of the factor is broadcast (and widened) once rather than once
// per half.
func panelAxpyFullAVX2(f32 bool) {
	name := "panelAxpy4x16F64AVX2"
	if f32 {
		name = "panelAxpy4x16F32AVX2"
	}
	pa := panelAxpy4Start(name, f32)
	m, b, y, row, loop, done := pa.m, pa.b, pa.y, pa.row, pa.loop, pa.done
	TESTQ(m, m)
	JE(LabelRef(done))
	Label(loop)
	for q := 0; q < 4; q++ {
		VMOVUPD(Mem{Base: y, Disp: 32 * q}, ymm[q])
	}
	for r := 0; r < 4; r++ {
		bc := ymm[4+r%4]
		if f32 {
			x := []VecPhysical{X4, X5, X6, X7}[r%4]
			VBROADCASTSS(row(r, 0), x)
			VCVTPS2PD(x, bc)
		} else {
			VBROADCASTSD(row(r, 0), bc)
		}
		for q := 0; q < 4; q++ {
			VFMADD231PD(Mem{Base: b, Disp: 128*r + 32*q}, bc, ymm[q])
		}
	}
	for q := 0; q < 4; q++ {
		VMOVUPD(ymm[q], Mem{Base: y, Disp: 32 * q})
	}
	pa.next()
}

// panelAxpy4Regs are the registers and labels of a four-row panel axpy
// (panelAxpy, panelAxpyFullAVX2) after panelAxpy4Start.
type panelAxpy4Regs struct {
	m, b, a, y GPPhysical
	esz        int                   // bytes of an element of a
	row        func(r, disp int) Mem // element p of row r of a, at disp bytes
	loop, done string
}

// panelAxpy4Start opens the four-row panel axpy name (a in float32 when
// f32) with its signature and doc, and loads its arguments: lda in bytes,
// the rows of a addressed by row.
func panelAxpy4Start(name string, f32 bool) panelAxpy4Regs {
	typ, esz := "float64", 8
	if f32 {
		typ, esz = "float32", 4
	}
	TEXT(name, NOSPLIT, "func(m int, b *float64, a *"+typ+", lda int, y *float64)")
	Pragma("noescape")
	Doc(name+" sets y[16p+s] = fma(a[3·lda+p], b[48+s], fma(a[2·lda+p], b[32+s], fma(a[lda+p], b[16+s], fma(a[p], b[s], y[16p+s]))))",
		"for p < m, s < 16: four rows of a ("+typ+") streamed into a [m][16] panel y.")
	m, b, a, lda, y, lda3 := RCX, RAX, RSI, RDX, RDI, R8
	Load(Param("m"), m)
	Load(Param("b"), b)
	Load(Param("a"), a)
	Load(Param("lda"), lda)
	Load(Param("y"), y)
	shift := uint64(3)
	if f32 {
		shift = 2
	}
	SHLQ(Imm(shift), lda)
	LEAQ(Mem{Base: lda, Index: lda, Scale: 2}, lda3)
	row := fourRows(a, lda, lda3)
	return panelAxpy4Regs{m: m, b: b, a: a, y: y, esz: esz, row: row, loop: name + "_loop", done: name + "_done"}
}

// next ends a panel axpy's loop body (a to its next element, y to its next
// row of 16, m counted down) and the function.
func (pa panelAxpy4Regs) next() {
	ADDQ(Imm(uint64(pa.esz)), pa.a)
	ADDQ(Imm(128), pa.y)
	DECQ(pa.m)
	JNE(LabelRef(pa.loop))
	Label(pa.done)
	VZEROUPPER()
	RET()
}
