// Command asml1 generates the L1-distance micro-kernels of package kernel
// (kernel/l1_amd64.s and kernel/l1_stub_amd64.go) with avo. It is separate
// from kernel/internal/asm so that the two generators and their outputs can
// change independently.
//
// Run it through "go generate ./kernel" (see kernel/l1.go). The kernels sum
// |x_i[k] − c_j[k]| over the features k of a register-blocked tile of rows
// x_i (packed as [k][8], feature-major) and centers c_j (packed as [k][16]):
//
//   - l1Tile8x16AVX512: 8 rows × 16 centers, 16 zmm accumulators; per
//     feature two center vectors are loaded and, for each row, x_i[k] meets
//     them through VSUBPD with an embedded broadcast (c − x), VPANDQ with the
//     mask 0x7fff…f (clears the sign bit: |c − x| = |x − c| exactly, since
//     rounding to nearest is symmetric) and VADDPD into the accumulator.
//   - l1Tile4x8AVX2: 4 rows × 8 centers (one quarter of the 8×16 tile of the
//     same packed panels), 8 ymm accumulators, VBROADCASTSD, VSUBPD, VANDPD,
//     VADDPD.
//
// Each accumulator adds the features in the order k = 0, 1, …, d−1 without
// FMA, so every sum has the bits of the scalar loop s += |x[k] − c[k]|
// (Laplacian.Eval's). At the end the sums are multiplied by scale (the
// engine passes −½, exact, so that the Gaussian row map exp(ng·(xx + cc −
// 2·row)) with xx = cc = 0 yields exp(ng·sum)).
package main

import (
	"github.com/landmark-ml/landmark/kernel/internal/genout"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

var zmm = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

var ymm = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

func main() { genout.Main(generate) }

// generate declares the kernels; genout.Main writes them.
func generate() {
	Package("github.com/landmark-ml/landmark/kernel")
	ConstraintExpr("amd64")

	absMask := GLOBL("l1absmask", RODATA|NOPTR)
	for l := 0; l < 4; l++ { // replicated for the AVX2 load
		DATA(8*l, U64(0x7fffffffffffffff))
	}
	tileAVX512(absMask)
	tileAVX2(absMask)
}

// tileAVX512 emits l1Tile8x16AVX512.
func tileAVX512(absMask Mem) {
	TEXT("l1Tile8x16AVX512", NOSPLIT, "func(k int, a, b, c *float64, ldc int, scale float64)")
	Doc("l1Tile8x16AVX512 sets the 8×16 tile at c (row stride ldc elements) to scale·Σ_p |a[p][i] − b[p][j]|",
		"over p < k (summed in the order p = 0, 1, …), for packed a ([k][8]) and b ([k][16]).")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	// Z0–Z15 accumulators (row r: Z2r, Z2r+1), Z16 the mask, Z17/Z18 the
	// centers, Z19–Z26 temporaries (two per row, reused every other row: the
	// renamer removes the false dependences).
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	VBROADCASTSD(absMask, Z16)
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	VMOVUPD(Mem{Base: b}, Z17)
	VMOVUPD(Mem{Base: b, Disp: 64}, Z18)
	for r := 0; r < 8; r++ {
		t0, t1 := zmm[19+2*(r%4)], zmm[20+2*(r%4)]
		x := Mem{Base: a, Disp: 8 * r}
		VSUBPD_BCST(x, Z17, t0) // c − x
		VSUBPD_BCST(x, Z18, t1)
		VPANDQ(Z16, t0, t0)
		VPANDQ(Z16, t1, t1)
		VADDPD(t0, zmm[2*r], zmm[2*r])
		VADDPD(t1, zmm[2*r+1], zmm[2*r+1])
	}
	ADDQ(Imm(64), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("loop"))
	Label("store")
	VBROADCASTSD(paramAddr("scale"), Z16)
	for r := 0; r < 8; r++ {
		VMULPD(Z16, zmm[2*r], zmm[2*r])
		VMULPD(Z16, zmm[2*r+1], zmm[2*r+1])
		VMOVUPD(zmm[2*r], Mem{Base: c})
		VMOVUPD(zmm[2*r+1], Mem{Base: c, Disp: 64})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}

// tileAVX2 emits l1Tile4x8AVX2.
func tileAVX2(absMask Mem) {
	TEXT("l1Tile4x8AVX2", NOSPLIT, "func(k int, a, b, c *float64, ldc int, scale float64)")
	Doc("l1Tile4x8AVX2 sets the 4×8 tile at c (row stride ldc elements) to scale·Σ_p |a[8p+i] − b[16p+j]|",
		"over p < k (summed in the order p = 0, 1, …): one quarter of an 8×16 tile of the packed panels.")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	// Y0–Y7 accumulators (row r: Y2r, Y2r+1), Y8/Y9 the centers, Y10 the
	// mask, Y11–Y15 temporaries.
	for i := 0; i < 8; i++ {
		VXORPD(ymm[i], ymm[i], ymm[i])
	}
	VMOVUPD(absMask, Y10)
	TESTQ(k, k)
	JE(LabelRef("store"))
	Label("loop")
	VMOVUPD(Mem{Base: b}, Y8)
	VMOVUPD(Mem{Base: b, Disp: 32}, Y9)
	for r := 0; r < 4; r++ {
		x, t0, t1 := Y11, Y12, Y13
		if r%2 == 1 {
			x, t0, t1 = Y14, Y15, Y11
		}
		VBROADCASTSD(Mem{Base: a, Disp: 8 * r}, x)
		VSUBPD(x, Y8, t0) // c − x
		VSUBPD(x, Y9, t1)
		VANDPD(Y10, t0, t0)
		VANDPD(Y10, t1, t1)
		VADDPD(t0, ymm[2*r], ymm[2*r])
		VADDPD(t1, ymm[2*r+1], ymm[2*r+1])
	}
	ADDQ(Imm(64), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef("loop"))
	Label("store")
	VBROADCASTSD(paramAddr("scale"), Y10)
	for r := 0; r < 4; r++ {
		VMULPD(Y10, ymm[2*r], ymm[2*r])
		VMULPD(Y10, ymm[2*r+1], ymm[2*r+1])
		VMOVUPD(ymm[2*r], Mem{Base: c})
		VMOVUPD(ymm[2*r+1], Mem{Base: c, Disp: 32})
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}

// paramAddr is the stack address of a float64 argument, for instructions
// that take it as a memory operand (X16–X31 cannot be loaded with MOVSD).
func paramAddr(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
