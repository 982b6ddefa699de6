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
//     rounding to nearest is symmetric) and an FMA by 1.0 into the
//     accumulator.
//   - l1Tile3x16AVX2 and l1Tile2x16AVX2: 3 (2) rows × 16 centers of the same
//     packed panels, 12 (8) ymm accumulators; the 8×16 tile is two 3×16
//     pieces and a 2×16 one. Per feature and row VBROADCASTSD, then per
//     vector of four centers VSUBPD with the centers as a memory operand
//     (x − c), VANDPD, and the FMA by 1.0.
//
// The sum is accumulated as fma(|c − x|, 1, s): the product by 1 is exact,
// so the FMA rounds s + |c − x| once, the bits of VADDPD, but it runs on the
// FMA pipes while VSUBPD takes the add pipes (with VADDPD the two competed
// for the two add pipes of Zen 4). Each accumulator adds the features in the
// order k = 0, 1, …, d−1, so every sum has the bits of the scalar loop
// s += |x[k] − c[k]| (Laplacian.Eval's). Measured alone on one core of a
// Zen 4 EPYC (BenchmarkL1Tiles, k = 54 / 200, G feature-pairs per second,
// best of 30 interleaved rounds, shared machine, 2026-11-26): AVX2 four 4×8
// quarters with VADDPD 14.2 / 14.1 (the tile before), the same with the FMA
// 15.5 / 15.2, 6×8 pieces and a 2×16 one 16.4 / 16.8, 3×16 + 3×16 + 2×16
// 16.6–16.9 / 17.1–17.5; AVX-512 8×16 with VADDPD 14.6 / 14.5, with the FMA
// 19.0 / 19.2. At the end the sums are multiplied by scale (the
// engine passes −½, exact, so that the Gaussian row map exp(ng·(xx + cc −
// 2·row)) with xx = cc = 0 yields exp(ng·sum)).
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
	ones := GLOBL("l1ones", RODATA|NOPTR)
	for l := 0; l < 4; l++ {
		DATA(8*l, U64(0x3ff0000000000000)) // 1.0
	}
	tileAVX512(absMask, ones)
	tileAVX2("l1Tile3x16AVX2", 3, absMask, ones)
	tileAVX2("l1Tile2x16AVX2", 2, absMask, ones)
}

// tileAVX512 emits l1Tile8x16AVX512.
func tileAVX512(absMask, ones Mem) {
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
	// Z0–Z15 accumulators (row r: Z2r, Z2r+1), Z16 the mask, Z27 1.0,
	// Z17/Z18 the centers, Z19–Z26 temporaries (two per row, reused every other row: the
	// renamer removes the false dependences).
	for i := 0; i < 16; i++ {
		VPXORQ(zmm[i], zmm[i], zmm[i])
	}
	VBROADCASTSD(absMask, Z16)
	VBROADCASTSD(ones, Z27)
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
		VFMADD231PD(Z27, t0, zmm[2*r]) // + |c − x|·1: the bits of VADDPD
		VFMADD231PD(Z27, t1, zmm[2*r+1])
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

// paramAddr is the stack address of a float64 argument, for instructions
// that take it as a memory operand (X16–X31 cannot be loaded with MOVSD).
func paramAddr(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// tileAVX2 emits an AVX2 tile of rows × 16 centers of the packed panels
// (rows of a at byte offsets 8i of each [8] group, the caller offsetting a
// to the first row), accumulating |x − c| by FMA (see the package comment).
// rows·4 accumulators; the mask and 1.0 in registers, the four vectors of
// centers in registers when they fit (2 rows), else read as memory operands
// of VSUBPD (3 rows).
func tileAVX2(name string, rows int, absMask, ones Mem) {
	const vecs = 4
	TEXT(name, NOSPLIT, "func(k int, a, b, c *float64, ldc int, scale float64)")
	Doc(fmt.Sprintf("%s sets the %d×%d tile at c (row stride ldc elements) to scale·Σ_p |a[8p+i] − b[16p+j]|", name, rows, 4*vecs),
		"over p < k (summed in the order p = 0, 1, …; the sums have the bits of VADDPD's).")
	k, a, b, c, ldc := RCX, RSI, RDI, RDX, R9
	Load(Param("k"), k)
	Load(Param("a"), a)
	Load(Param("b"), b)
	Load(Param("c"), c)
	Load(Param("ldc"), ldc)
	SHLQ(Imm(3), ldc)
	nacc := rows * vecs
	mask, one := ymm[nacc], ymm[nacc+1]
	free := ymm[nacc+2:]
	centersInRegs := nacc+vecs+4 <= 16
	var cv []VecPhysical
	if centersInRegs {
		cv, free = free[:vecs], free[vecs:]
	}
	for i := 0; i < nacc; i++ {
		VXORPD(ymm[i], ymm[i], ymm[i])
	}
	VMOVUPD(absMask, mask)
	VMOVUPD(ones, one)
	TESTQ(k, k)
	JE(LabelRef(name + "_store"))
	Label(name + "_loop")
	for v := range cv {
		VMOVUPD(Mem{Base: b, Disp: 32 * v}, cv[v])
	}
	t := 0
	for r := 0; r < rows; r++ {
		x := free[0]
		VBROADCASTSD(Mem{Base: a, Disp: 8 * r}, x)
		for v := 0; v < vecs; v++ {
			tmp := free[1+t%(len(free)-1)]
			t++
			if centersInRegs {
				VSUBPD(x, cv[v], tmp) // c − x
			} else {
				VSUBPD(Mem{Base: b, Disp: 32 * v}, x, tmp) // x − c: the same magnitude
			}
			VANDPD(mask, tmp, tmp)
			VFMADD231PD(one, tmp, ymm[r*vecs+v])
		}
	}
	ADDQ(Imm(64), a)
	ADDQ(Imm(128), b)
	DECQ(k)
	JNE(LabelRef(name + "_loop"))
	Label(name + "_store")
	VBROADCASTSD(paramAddr("scale"), mask)
	for r := 0; r < rows; r++ {
		for v := 0; v < vecs; v++ {
			VMULPD(mask, ymm[r*vecs+v], ymm[r*vecs+v])
			VMOVUPD(ymm[r*vecs+v], Mem{Base: c, Disp: 32 * v})
		}
		ADDQ(ldc, c)
	}
	VZEROUPPER()
	RET()
}
