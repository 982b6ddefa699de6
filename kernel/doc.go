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
package kernel
