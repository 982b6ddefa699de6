// Package kernel provides positive-definite kernels and the block engine that
// every Landmark estimator runs on.
//
// Kernels: Gaussian exp(−γ‖x−y‖²) (γ = 1/(2σ²)), Laplacian exp(−γ‖x−y‖₁),
// Polynomial (γ x·y + c₀)^p and Linear x·y.
//
// The engine (Op) treats K(X, C) for n data points and M centers as a linear
// operator: it walks X in row blocks, forms K(X_B, C) with one matrix product
// X_B·Cᵀ followed by an elementwise map using ‖x‖² + ‖c‖² − 2x·c (negative
// round-off clamped to zero), and uses the block at once for K·V, Kᵀ·U or the
// fused Kᵀ(K·V) that FALKON's conjugate gradient needs at every iteration
// (Rudi, Carratino, Rosasco, FALKON, NIPS 2017, Alg. 1). Reductions are summed
// in a fixed order, so results do not depend on the number of workers.
//
// # Inner kernels
//
// The product X_B·Cᵀ is computed from packed panels (C once per Op, 16 centers
// by d features; each block of X, 8 rows by d features) by an 8×16
// register-blocked micro-kernel, with the features cut into blocks of at most
// 256 so that a panel of C stays in the L1 cache. On CPUs with AVX-512 (or
// AVX2 and FMA) the micro-kernel, the Gaussian map of a row and the
// accumulation of Kᵀ(K v) are assembly generated with avo (internal/asm;
// "go generate" rewrites simd_amd64.s), chosen at run time from CPUID;
// elsewhere, or with LANDMARK_NOSIMD=1 in the environment, portable Go code
// is used (own loops for d ≤ 16, gonum's Dgemm above). Accel reports which.
// All paths agree to 1e-12 relative.
//
// The Gaussian map uses its own exp for x ≤ 0. The portable expNeg and the
// AVX2 kernel: Cody–Waite reduction x = k·ln2 + r with |r| ≤ ln2/2, the
// degree-13 Taylor polynomial of e^r and an exact scaling by 2^k (two factors
// built from their bits with AVX2; math.Ldexp in Go for subnormal results);
// within 3 ulps of math.Exp over [−746, 0]. The AVX-512 kernel: y =
// x·log2e, q = y rounded to a multiple of 1/16 (VRNDSCALEPD), e^x = 2^⌊q⌋ ·
// 2^((16q mod 16)/16) · (1 + p(y−q)) with a 16-entry table and a degree-7
// polynomial p (12 FMA-unit operations per 8 values instead of 20, 1.7×
// less CPU measured by BenchmarkExpRow); its error is at most
// (4 + 2|x|)·2^−53·e^x (TestExpRowSIMD), the |x| term from rounding y, which
// is at most 6e-17 in absolute value since |x|·e^x ≤ 1/e.
//
// With one right-hand side the Gaussian Kᵀ(K v) is fused further: each row
// of a block is mapped through exp and dotted with v in one pass, and rows are
// accumulated into Kᵀ(K v) four at a time.
//
// Options.Float32 computes the dot products in single precision (8×32 float32
// tiles, float64 sums across feature blocks) and everything after in float64,
// except on the AVX-512 single-vector Gaussian path for d ≤ 256 (the CG
// passes), where exp and the sums within a row block are float32 too (an
// exp of the same design as the float64 one with a degree-3 polynomial,
// TestExpRowF32);
// its added error on kernel values is below 2e-7 for standard-normal data with
// γ = 1/d (TestFloat32). Speed measurements are in docs/performance.md.
//
// # Sparse data
//
// An Op on X implementing Sparse (CSR rows, such as datasets.CSR) keeps X
// sparse (sparse_engine.go): the same row blocks, workers and fixed-order
// reductions, with x·c formed below density 0.08 by one contiguous M-wide
// axpy over the transposed centers per non-zero of x (nnz(x)·M work per
// row), and above it by expanding each row block to dense for the packed
// tile kernels. ‖x‖² sums the non-zeros; the kernel map (exp included) is
// the dense path's. The Laplacian uses the L1 merge
// ‖x − c‖₁ = ‖c‖₁ + Σ_{k∈nz(x)} (|x_k − c_k| − |c_k|). Float32 does not
// apply to sparse X. Results equal the dense path's to rounding
// (TestSparseOpMatchesDense, 1e-12) and do not depend on GOMAXPROCS.
//
// Centers C may be sparse too (sparse_centers.go): a Sparse C is kept as
// CSR for the Gaussian, Laplacian, polynomial and linear kernels, with X
// sparse (C stored by column over the features it uses, each non-zero x_k
// scattering into the centers that have feature k) or dense (each center
// gathers x at its own non-zeros). Memory is C's non-zeros, never M·d or d
// per row, so K_MM, K(X_B, C) and the fused products of FALKON (Rudi et
// al. 2018, eqs. 14–15) on news20-wide data cost what the data costs.
// PreferDenseCenters says when dense centers are faster (from density
// 0.25, measured in docs/performance.md); results equal the dense path's to 1e-12
// (TestSparseCentersMatchDense) at any GOMAXPROCS.
//
// # Dense products
//
// Dense runs general matrix products (Gemm) and the lower triangle of
// symmetric rank-k updates (SyrkLower) on the same 8×16 micro-kernels, as a
// packed GEMM: op(a) and op(b) are packed once per chunk of up to four
// 256-feature blocks (α folded into op(a)), the result is cut into 128×512
// blocks spread over the workers, and each 8×16 tile sums over the whole
// chunk before it is stored; SyrkLower skips the tiles above the diagonal.
// They are the products of package solver's blocked Cholesky, LᵀL and
// triangular solves (the FALKON preconditioner's and exact KRR's), whose
// speed "landmark bench linalg" measures against gonum and LAPACK.
package kernel
