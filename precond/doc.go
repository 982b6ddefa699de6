// Package precond holds the preconditioners of Landmark's conjugate-gradient
// solvers: FALKON's, its leverage-score-weighted variant from FALKON-BLESS,
// and Identity and Jacobi for comparison.
//
// Most programs never call it: model.Falkon builds the right preconditioner
// from its centers (YAML preconditioner: falkon, bless, jacobi or none). Use
// it directly to solve a Nyström system of your own with solver.PCG: build
// with BuildFalkon(K_MM, n, λ, Options{}) for uniformly sampled centers, or
// BuildWeighted with the centers' importance weights, and pass the result as
// the solver's preconditioner. Options' zero value is the default; the ε
// used and any jitter added are reported on the result.
//
// For the Nyström system H α = K_nMᵀy, H = K_nMᵀK_nM + λn K_MM, the FALKON
// preconditioner is P = BBᵀ = ((n/M) K_MM² + λn K_MM)⁻¹ (Rudi, Carratino,
// Rosasco, NIPS 2017, Alg. 1; eq. 14 of Rudi, Calandriello, Carratino,
// Rosasco, NeurIPS 2018), H⁻¹ with K_nMᵀK_nM replaced by its estimate from
// the M centers; the weighted one is ((n/M) K_JJ A⁻¹ K_JJ + λ_h n K_JJ)⁻¹
// (eq. 15 there), with a_j = n·q_j for a center drawn with probability q_j,
// so that uniform centers (a = 1) give eq. 14. B is applied by triangular
// solves with two Cholesky factors; no inverse is formed. Both factor
// K_MM + εMs·I, s the mean of K_MM's diagonal (DefaultEpsilon says why
// ε = 1e-5); docs/FIDELITY.md lists this and the other departures from the
// papers.
//
// Cost: M³ flops for the build, on the kernel engine's blocked
// factorizations, and 16·M² bytes (1.6 GB at M = 10,000, 6.4 GB at
// M = 20,000); each application costs four triangular solves, 4·M² flops.
//
// Options.Precision = PrecisionFloat32 computes T (eq. 14's Cholesky of
// K_MM + εMsI), the product T A⁻¹ Tᵀ and A in float32 on the engine's
// float32 tiles, as FALKON does for float32 data: half the time at twice
// the flop rate, half the bytes streamed per application, and half the
// memory: 8·M² bytes (K_MM stays float64 for the operator H; both float32
// factors are stored in the bytes of its lower triangle). Any fixed invertible B
// gives the same Nyström solution at convergence (α = Bβ; CG solves
// BᵀHBβ = Bᵀz), so a float32 preconditioner changes CG's speed, not its
// solution (Precision says more; model.Falkon picks float32 for fits with
// float32 passes).
package precond
