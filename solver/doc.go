// Package solver holds the numerical solvers under Landmark's estimators:
// conjugate gradient and preconditioned conjugate gradient over a small
// linear-operator abstraction, Cholesky factorizations with adaptive jitter,
// and the SVM dual solvers.
//
// The estimators of package model call these for you. Use the package
// directly to solve a system of your own: wrap x ↦ Ax as an Operator (an
// explicit symmetric matrix with Matrix, a function with OperatorFunc), call
// CG or PCG with a context and Options (zero value: defaults), and read the
// Result's status, iterations and residual; Options.Callback sees every
// iteration and can stop the solve. Cholesky factors a kernel matrix,
// adding the smallest sufficient jitter and reporting it. SolveSMO (LIBSVM's
// C-SVC with its working-set selection) and SolveDCD (the dual without a bias
// term, dual coordinate descent) solve an SVMProblem over any column source,
// with a column cache of a given byte budget.
//
// Conjugate gradient. CG and PCG (Hestenes & Stiefel 1952; the preconditioned
// form as in Saad, Iterative Methods for Sparse Linear Systems, Alg. 9.1) see
// only an Operator (x ↦ Ax, symmetric positive definite) and an optional
// Preconditioner (r ↦ Pr, P ≈ A⁻¹). FALKON (Rudi, Carratino, Rosasco, NIPS
// 2017, Alg. 1) is PCG on (K_nMᵀK_nM + λnK_MM)α = K_nMᵀy with P = BBᵀ from
// package precond; running PCG with P = BBᵀ produces the same iterates α as
// running CG on FALKON's BᵀHBβ = BᵀK_nMᵀy with α = Bβ, while keeping α (the
// quantity callers want, e.g. to record validation error) at every step.
// Multiple right-hand sides (n×t) are t independent recurrences sharing each
// application of the operator, so a kernel operator makes one pass over the
// data per iteration for all outputs. Stopping: relative residual
// ‖b − Ax‖/‖b‖ ≤ Tol for every column, MaxIter (a status, not an error), a
// callback returning false, or context cancellation.
//
// Cholesky with jitter. Kernel matrices are positive semi-definite in exact
// arithmetic but often numerically singular (Gaussian kernels with small γ,
// duplicated points). Cholesky first factors A as given; when that fails it
// retries on A + jI with j = Jitter·mean(diag A), multiplying j by 10 until the
// factorization succeeds or j exceeds MaxJitter·mean(diag A), and reports the j
// it used. This is the "add a small multiple of the identity" remedy FALKON
// uses for K_MM (Rudi, Carratino, Rosasco, FALKON, NIPS 2017, Sect. 3 and
// Alg. 1), made adaptive so that the smallest sufficient j is used.
//
// Float32 factorizations. CholeskyBlocked32, Lauum32 and Chol32 are the
// blocked Cholesky, triangular product LᵀL and solves in float32 (LAPACK's
// spotrf, slauum, strsm), on float32 products (Products32; kernel.DenseF32):
// FALKON factors its preconditioner in float32 for float32 data (package
// precond), M³ flops at twice the float64 rate. Their diagonal blocks are
// factored and inverted in float64 and rounded; a float32 factorization
// fails more often, and its jitter starts at 2⁻²⁰ of the mean diagonal
// (a smaller one is lost to float32 rounding).
package solver
