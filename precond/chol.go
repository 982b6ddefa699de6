package precond

import (
	"context"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// cholesky factors a in place (solver.CholeskyInPlace's contract) by the
// blocked algorithm whose products, all but ≈ 3·256/M of the M³/3 flops,
// run on the kernel engine's micro-kernels (kernel.Dense).
func cholesky(ctx context.Context, a *mat.Dense, opt solver.CholOptions) (*solver.Chol, error) {
	return solver.CholeskyBlocked(ctx, a, opt, kernel.Dense{})
}

// lowerGram overwrites the lower triangle of the lower-triangular w (strict
// upper triangle ignored and left alone) with the lower triangle of WᵀW, as
// LAPACK's lauum does, with the products on the kernel engine
// (solver.Lauum). Memory: one 256×M panel.
func lowerGram(ctx context.Context, w *mat.Dense) error {
	return solver.Lauum(ctx, w, kernel.Dense{})
}
