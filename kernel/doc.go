// Package kernel provides the kernels of Landmark and the engine that
// evaluates them block by block, on all cores, without ever holding an n×M
// kernel matrix unless asked to.
//
// Pick a kernel as a value — Gaussian{Gamma: γ} for exp(−γ‖x−y‖²) (or
// GaussianSigma(σ), γ = 1/(2σ²)), Laplacian exp(−γ‖x−y‖₁), Polynomial
// (γ x·y + c₀)^p, Sigmoid tanh(γ x·y + c₀) (LIBSVM's -t 3; not positive
// definite in general), Linear x·y, or Precomputed, the caller's own kernel
// values given as rows [serial | K(x, x_1…x_n)] (LIBSVM's -t 4) — or build one from its YAML description with
// New(Spec{Type: "gaussian", Sigma: 2}); Names lists the types. Every
// estimator of package model takes a Kernel; a nil kernel means Gaussian with
// γ = 1/d.
//
// To compute with K(X, C) directly (n data points, M centers), build an
// operator with NewOp(k, X, C, Options{}) and call Block (the whole n×M
// matrix into a destination), Mul (K·V), MulT (Kᵀ·U) or MulTMul (the fused
// Kᵀ(K·V) that FALKON's conjugate gradient runs at every iteration; Rudi,
// Carratino, Rosasco, FALKON, NIPS 2017, Alg. 1), or MulTMulWeighted
// (Kᵀ·diag(w)·K·V in the same pass, the weighted least squares of a fit
// with sample weights). The operator walks X in row
// blocks and uses each block at once, so its memory is a few blocks, not
// n·M. Every call takes a context and stops when it is cancelled. Results do
// not depend on the number of workers: reductions are summed in a fixed order.
//
// Tabular data often has one-hot or binary columns. For the Gaussian and
// the Laplacian, which are separable over any split of the columns,
// k(x, c) = k(x_D, c_D)·k(x_S, c_S) (the exponent is a sum over columns);
// DetectSplit finds S, the columns of a dense X taking at most two values,
// and groups the rows by their pattern on S, and NewFactored evaluates
// K(X, C) group by group as K_D(X_p, C_D)·diag(T[p]), T[p][j] = k(s_p,
// c_{j,S}), so that every product runs the engine at dimension |D| instead
// of d (Factored: exact, up to rounding; covtype's passes take about 2.1
// times less, 10 of its 54 columns being dense).
//
// X and C may be dense (*mat.Dense) or sparse (any Sparse, such as
// datasets.CSR): sparse data stays sparse, with memory that grows with the
// non-zeros rather than with n·d; PreferDenseCenters says when dense centers
// are faster. Options.Float32 computes the distance products in float32
// (kernel values within about 2e-7 of float64 on standardized data), which
// is faster at large d. Dense runs the general and symmetric products of
// package solver's factorizations on the same micro-kernels, and DenseF32
// their float32 versions on an 8×32 float32 tile (twice the float64 tile's
// flops per instruction), for the float32 FALKON preconditioner
// (package precond, eq. 14/15 of Rudi et al., NeurIPS 2018).
//
// The inner loops are generated AVX-512 and AVX2 assembly chosen at run time
// (Accel reports which), with portable Go code elsewhere; the Laplacian's
// L1 distances have tiles of their own (internal/asml1, l1.go), whose sums
// have the bits of Laplacian.Eval's.
// LANDMARK_SIMD=avx512, avx2 or portable in the environment caps the choice
// at start (at what the CPU has; AccelChoice says how it was made), and
// LANDMARK_NOSIMD=1 forces the portable code; all paths agree to 1e-12
// relative. On Linux the packed centers ask for transparent huge pages
// (madvise; LANDMARK_HUGEPAGES=0 turns the hint off), which spares the
// data TLB when a block of rows sweeps megabytes of them.
//
// MulTMul's float64 Gaussian pass with one right-hand side (FALKON's CG
// iterations) on dense X and C with d ≥ 512 computes its distance products
// X_B·Cᵀ with one level of Strassen's algorithm (V. Strassen, "Gaussian
// elimination is not optimal", Numer. Math. 13, 1969) in Winograd's variant
// (7 multiplications, 15 additions) on the AVX-512 and AVX2 tiles: 7/8 of
// the multiplications. It is not from the four papers the package follows;
// strassen.go derives it and docs/performance.md measures it. Its error
// bound is normwise (max|X|·max|C|·d, not |x|·|c|·d), and it mixes rows of
// a block, so predictions (Mul, Block) keep the classical product: a
// prediction on a subset of rows has the bits of the full one. The AVX-512
// and AVX2 paths give the same bits with it. LANDMARK_STRASSEN=0 in the
// environment turns it off (the classical bits, 4–10% more CPU at d = 784).
// How the engine is built (packing, tile sizes, the exp kernels and their
// error bounds, the sparse paths) and what it measures against scikit-learn
// and OpenBLAS are in docs/performance.md.
package kernel
