// Command asm generates the AVX-512 and AVX2 micro-kernels of package kernel
// (kernel/simd_amd64.s and kernel/simd_stub_amd64.go) with avo.
//
// Run it through "go generate ./kernel" (see kernel/simd.go). The kernels are:
//
//   - gemm8x16AVX512: an 8×16 register-blocked tile of A·Bᵀ from packed
//     panels (A as [k][8], B as [k][16]), 16 zmm accumulators, the inner loop
//     issuing 2 loads, 8 broadcasts and 16 FMAs per step of k.
//   - gemm8x16PfAVX512: the same tile prefetching its block of c first, for
//     products whose result is too large to stay in cache (gen_dense.go).
//   - gemm8x16PanelsPfAVX512: np gemm8x16PfAVX512 tiles in one call, one
//     panel of b by np consecutive panels of a (the engine's distance
//     product when d fits one feature block: one call a panel of centers),
//     prefetching a share of the next panel of b into L2 before each tile.
//   - gemm8x16PanelsKbPfAVX512 (gen_dense.go): the same for any k, each tile
//     over the feature blocks of kc features (the first setting the tile or
//     adding to it, the others adding), the bits of gemm8x16PfAVX512 called
//     once per tile and block: the AVX-512 tiles of the distance product at
//     d > 256 and of the Strassen products, one call a panel of centers.
//   - gemm8x32F32PfAVX512 and gemm8x32F32AVX2 (gen_dense32.go): the float32
//     tiles of kernel.DenseF32 (float32 results, add flag).
//   - gemm8x32F32AVX512 (float32 sums into a float64 tile) and
//     gemm8x32F32to32AVX512 (float32 tile): the 8×32 float32 tile, 16 zmm
//     accumulators.
//   - gemm6x16AVX2 and gemm6x32F32AVX2 (gen_tiles.go): the AVX2 tiles, 6
//     rows of X (panels of 6 rows, [k][6]) by 16 float64 or 32 float32
//     centers, as two pieces of 12 ymm accumulators each (2 loads, 6
//     broadcasts and 12 FMAs per step of k; the tile of c prefetched
//     first, as in gemm8x32F32AVX512), and gemm1x16AVX2 …
//     gemm5x16AVX2 (and float32) for the last panel of a block;
//     gemm1x16HAVX2 … gemm6x16HAVX2, the float64 ones on centers packed
//     as two halves of 8 columns (boff values apart), the engine's layout
//     on AVX2 since 2026-11-27;
//     gemm4x8AVX2, one quarter of an 8×16 tile (Dense's AVX2 tile until
//     2026-11-26; kept as BenchmarkTiles' reference); gemm6x8AVX2
//     (gen_avx2.go), Dense's AVX2 tile since: one 6×8 piece of 12
//     accumulators on panels of 6 rows and 8 columns.
//   - gemm8x16SumPfAVX512, gemm{1…6}x16SumAVX2 and gemm{1…6}x16HSumAVX2
//     (gen_strassen.go): the engine's tiles with a summing store for
//     kernel's strassenDots, c = src + Σ and, when t is not nil, u = c + t
//     (the Winograd sums U2 + P5 and U3 + P5 formed in registers);
//     packSumsAVX512 and packSumsAVX2, one panel of strassenDots' eight
//     X-side operands (the quadrants and the sums S1 … S4) packed in one
//     pass, each 8×8 (4×6) block transposed in registers.
//   - sqNorms8AVX512 and sqNorms8AVX2 (gen_norms.go): the squared norms of
//     eight rows of X, each in feature order with every product and sum
//     rounded (the scalar loop's bits), the block transposed in registers so
//     that one vector holds a feature of all eight rows, each row prefetched
//     ahead; the last d mod 8 (mod 4) features by masked loads.
//   - fmaPeakAVX2 (gen_tiles.go): 12 independent ymm FMA chains without
//     loads, the float64 peak BenchmarkTiles measures the AVX2 tiles against;
//     fmaPeakAVX512, 24 zmm chains, the same for the AVX-512 tiles.
//   - expRowAVX512 / expRowDotAVX512: the Gaussian map of one row of dot
//     products, k_j = exp(ng·max(0, xx + cc_j − 2·row_j)), with exp computed
//     from y = x·log2e and q = y rounded to a multiple of 1/16 as 2^⌊q⌋
//     (VSCALEFPD, which also rounds subnormals once) · 2^((16q mod 16)/16)
//     (a 16-entry table, VPERMI2PD) · (1 + p(y − q)), p a degree-6
//     polynomial (Taylor's of degree 7 with f^7 economized); five vectors interleaved per step, each prefetching row
//     2 KiB ahead. The Dot variant also returns Σ_j k_j·v_j.
//   - expRowAVX2 / expRowDotAVX2: the same map with a 4-entry table of
//     2^(j/4) (VPERMD on 32-bit lane pairs) and a degree-9 polynomial, 2^⌊q⌋
//     from the bits of the rounding sum (gen_avx2.go: AVX2 has no VSCALEFPD
//     and no 16-entry permute).
//   - axpyAVX512 / axpy4AVX512: y += a·x, and y += a0·x0 + a1·x1 + a2·x2 +
//     a3·x3 as four FMAs in that order (bit-identical to four axpy calls).
//   - axpyRoundAVX512 / axpyRoundAVX2: y += a·x with the product rounded
//     before the add (VMULPD, VADDPD: no FMA), the bits of the scalar
//     y[j] += a*x[j] on amd64, so that a dense row can stand in for scattered
//     scalar updates without changing a result.
//   - expRowDotF32AVX512, axpy4F32AVX512, flush32AVX512 (gen_f32.go): the
//     float32 row map, four-row update and float64 flush of the float32
//     passes; expRowDotF32AVX2, axpy4F32AVX2, flush32AVX2 (gen_f32avx2.go)
//     and gemm{1…6}x32F32to32AVX2 (gen_tiles.go) the same on AVX2.
//   - cpuid / xgetbv for the run-time feature check.
package main

import (
	"github.com/landmark-ml/landmark/kernel/internal/genout"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

// log2e is 1/ln 2, the factor of e^x = 2^(x·log2e) in every exp kernel.
const log2e = 1.4426950408889634073599246810018921374266459541530

var zmm = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

func main() { genout.Main(generate) }

// generate declares the kernels; genout.Main writes them.
func generate() {
	Package("github.com/landmark-ml/landmark/kernel")
	ConstraintExpr("amd64")

	gemm()
	gemmDense()
	gemmDense32()
	gemm32()
	expRow16("expRowAVX512", false, expAVX512Prefetch)
	expRow16("expRowDotAVX512", true, expAVX512Prefetch)
	axpyKernel("axpyAVX512", true, true, "axpyAVX512 sets y[j] += a·x[j] (one FMA each) for j < n, n a multiple of 16.")
	axpyKernel("axpyRoundAVX512", true, false, "axpyRoundAVX512 sets y[j] += a·x[j] with the product rounded first (no FMA: the bits of the",
		"scalar y[j] += a*x[j]) for j < n, n a multiple of 16.")
	axpy4Kernel("axpy4AVX512", false, true, "axpy4AVX512 sets y[j] = fma(a[3], x3[j], fma(a[2], x2[j], fma(a[1], x1[j], fma(a[0], x0[j], y[j]))))",
		"for j < n (n a multiple of 16), where xi = x + i·stride: the same bits as four axpy calls.")
	gemm32to32()
	expRow32()
	axpy4Kernel("axpy4F32AVX512", true, true, "axpy4F32AVX512 sets y[j] = fma(a[3], x3[j], fma(a[2], x2[j], fma(a[1], x1[j], fma(a[0], x0[j], y[j]))))",
		"in float32 for j < n (n a multiple of 32), where xi = x + i·stride.")
	flush32()

	gemmAVX2()
	avx2Tiles()
	strassenTiles()
	packSumsKernels()
	sqNormsKernels()
	fmaPeakAVX512()
	gemmDenseAVX2()
	expRowF32AVX2()
	axpy4Kernel("axpy4F32AVX2", true, false, "axpy4F32AVX2 is the AVX2+FMA version of axpy4F32AVX512 (same FMA order, same bits).")
	flush32AVX2()
	expRowAVX2("expRowAVX2", false)
	expRowAVX2("expRowDotAVX2", true)
	axpyKernel("axpyAVX2", false, true, "axpyAVX2 sets y[j] += a·x[j] (one FMA each) for j < n, n a multiple of 16.")
	axpyKernel("axpyRoundAVX2", false, false, "axpyRoundAVX2 is the AVX2 version of axpyRoundAVX512 (no FMA, same bits).")
	axpy4Kernel("axpy4AVX2", false, false, "axpy4AVX2 is the AVX2+FMA version of axpy4AVX512 (same FMA order, same bits).")
	cpu()
}

func factorial(n int) float64 {
	f := 1.0
	for i := 2; i <= n; i++ {
		f *= float64(i)
	}
	return f
}

// Constants of the table-driven exponential of expRow16. y = t·(ng·log2e)
// is e^x in powers of two: e^x = 2^y. VRNDSCALEPD rounds y to the nearest
// multiple of 1/16, q = k/16 (its immediate keeps 4 fraction bits), and
// f = y − q ∈ [−1/32, 1/32] is exact; then e^x = 2^⌊q⌋ · 2^((k mod 16)/16) ·
// 2^f: the first factor by VSCALEFPD (which floors its exponent operand
// itself), the second from a 16-entry table held in two registers
// (VPERMI2PD uses the low 4 bits of q + 1.5·2^48, whose last mantissa bit is
// worth 1/16, i.e. k mod 16), the third as 1 + p(f) with p ≈ e^u − 1,
// u = f·ln2, |u| ≤ 0.0217: the degree-7 Taylor polynomial (remainder
// |u|^8/8! ≈ 1.2e-18) with its f^7 term replaced by the degree-5 Chebyshev
// economization of f^7 on [−1/32, 1/32] (exp16Poly), whose error is
// (1/32)^7/2^6 times that term's coefficient ln2^7/7!: 6.9e-18. Together
// under 1e-17, a tenth of an ulp of e^u (1.1e-16); the degree-7 polynomial
// used before took one more FMA per 8 values (TestExpRowSIMD's bound holds
// for both).
const (
	exp16Degree = 6
	exp16Clamp  = -1076 // 2^y rounds to zero below 2^−1075: clamping here keeps −Inf out of f
)

var ymm = []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}

func cpu() {
	TEXT("cpuid", NOSPLIT, "func(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)")
	Doc("cpuid executes CPUID with the given EAX and ECX.")
	Load(Param("eaxArg"), EAX)
	Load(Param("ecxArg"), ECX)
	CPUID()
	Store(EAX, Return("eax"))
	Store(EBX, Return("ebx"))
	Store(ECX, Return("ecx"))
	Store(EDX, Return("edx"))
	RET()

	TEXT("xgetbv", NOSPLIT, "func() (eax, edx uint32)")
	Doc("xgetbv reads XCR0 (call only when CPUID reports OSXSAVE).")
	XORL(ECX, ECX)
	XGETBV()
	Store(EAX, Return("eax"))
	Store(EDX, Return("edx"))
	RET()
}

// Float32 exp: the scheme of expRow16 in single precision, 16 lanes, with
// the degree-3 Taylor polynomial of e^u − 1 (|u| ≤ ln2/32: remainder
// |u|^4/4! ≈ 9e-9, below half an ulp of float32, 3e-8).
const (
	exp32Degree = 3
	exp32Clamp  = -152 * 16 // 2^(z/16) rounds to zero below 2^−150 in float32
)
