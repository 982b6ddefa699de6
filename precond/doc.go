// Package precond holds preconditioners for the conjugate-gradient solvers of
// package solver: the FALKON preconditioner, its leverage-score-weighted
// variant from FALKON-BLESS, and identity and Jacobi preconditioners for
// comparison.
//
// FALKON (Rudi, Carratino, Rosasco, NIPS 2017, eq. 9 and Alg. 1; eq. 14 of
// Rudi, Calandriello, Carratino, Rosasco, NeurIPS 2018). For the Nyström KRR
// system H α = K_nMᵀy with H = K_nMᵀK_nM + λn K_MM, the preconditioner is
// P = BBᵀ with
//
//	T = chol(K_MM + εM·s·I)      (upper triangular, TᵀT = K_MM + εM·s·I)
//	A = chol(TTᵀ/M + λI)         (upper triangular)
//	B = (1/√n) T⁻¹A⁻¹,  so BBᵀ = ((n/M) K² + λn K)⁻¹ with K = TᵀT,
//
// i.e. H⁻¹ with K_nMᵀK_nM replaced by its uniform-subsampling estimate
// (n/M)K_MM². s is the mean of K_MM's diagonal (1 for Gaussian and Laplacian
// kernels, making εM·s exactly FALKON's εM). B and Bᵀ are applied through
// triangular solves; no inverse is ever formed.
//
// FALKON-BLESS (Rudi et al. 2018, eq. 15). With centers J sampled with
// non-uniform probabilities and the diagonal weight matrix A_J = diag(a):
//
//	T = chol(K_JJ + εM·s·I),  A = chol((1/M) T A_J⁻¹ Tᵀ + λ_h I),  B = (1/√n) T⁻¹A⁻¹,
//	BBᵀ = ((n/M) K A_J⁻¹ K + λ_h n K)⁻¹,
//
// the importance-weighted estimate of K_nMᵀK_nM. The weight of a center drawn
// with probability q_j out of n points is a_j = n·q_j, so uniform sampling has
// a = 1 and eq. 15 reduces to eq. 14. (BLESS's A_h of Alg. 1 is M·q_j; taken
// literally in eq. 15 it would weigh the K² term n/M times too much, and
// uniform sampling would not give eq. 14: model.Falkon rescales it by n/M.)
// The paper regularizes eq. 15 with λ_h, the λ of the BLESS step the centers
// come from, at which the weighted sample approximates K_nMᵀK_nM with bounded
// relative error; model.Falkon passes it as lambda (docs/FIDELITY.md).
//
// The jitter ε. FALKON's defaults are ε = 1e-5 in float32 and 1e-13 in
// float64; on this project's benchmarks the float64 default left CG badly
// converged after 10 iterations (ijcnn1: 8.85% error instead of 1.65%) while
// 1e-5 matched float32. The shift εMs bounds the condition of T (T⁻¹ amplifies
// rounding by up to 1/√(εMs)) at the price of preconditioning K_MM + εMsI
// rather than K_MM; see DefaultEpsilon for the value chosen (1e-5) and the
// measurements behind it. The ε used and any extra jitter are reported.
//
// Cost and memory of the build. Two Cholesky factorizations and one
// triangular product LᵀL (LAPACK's lauum), 2·M³/3 + M³/3 = M³ flops, run
// blocked on the kernel engine's micro-kernels (solver.CholeskyBlocked and
// solver.Lauum with kernel.Dense). T is factored in place in the lower
// triangle of K_MM, whose strict upper triangle keeps K_MM for the Nyström
// operator; A = chol(TTᵀ/M + λI) is formed and factored in place in one
// more M×M matrix. Memory: 2·M² doubles (16·M² bytes: 1.6 GB at M = 10,000,
// 6.4 GB at M = 20,000), plus ≈ 4·256·M doubles of packed operands and
// panels (8 KiB·M: 82 MB at M = 10,000, 164 MB at M = 20,000).
package precond
