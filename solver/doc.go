// Package solver holds Landmark's linear solvers: conjugate gradient and
// preconditioned conjugate gradient over a small linear-operator abstraction,
// and a Cholesky factorization with adaptive jitter.
//
// Cholesky with jitter. Kernel matrices are positive semi-definite in exact
// arithmetic but often numerically singular (Gaussian kernels with small γ,
// duplicated points). Cholesky first factors A as given; when that fails it
// retries on A + jI with j = Jitter·mean(diag A), multiplying j by 10 until the
// factorization succeeds or j exceeds MaxJitter·mean(diag A), and reports the j
// it used. This is the "add a small multiple of the identity" remedy FALKON
// uses for K_MM (Rudi, Carratino, Rosasco, FALKON, NIPS 2017, Sect. 3 and
// Alg. 1), made adaptive so that the smallest sufficient j is used.
package solver
