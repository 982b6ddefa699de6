package precond

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// cholesky factors a in place (solver.CholeskyInPlace's contract) by the
// blocked algorithm whose products, all but ≈ 2·128/M of the M³/3 flops,
// run on the kernel engine's micro-kernels (kernel.Dense).
func cholesky(ctx context.Context, a *mat.Dense, opt solver.CholOptions) (*solver.Chol, error) {
	return solver.CholeskyBlocked(ctx, a, opt, kernel.Dense{})
}

// reserve readies and holds kernel.Dense's packing buffer for the largest
// product of cholesky and lowerGram on an m×m matrix until release is
// called (see kernel.Dense.Reserve).
func reserve(m int) (release func()) {
	return kernel.Dense{}.ReserveSyrk(m, min(m, solver.BlockedWidth))
}

// ScratchBytes returns the memory a FALKON preconditioner holds for M = m
// and t outputs beside its m×m matrices (float64 K_MM and a second float64
// matrix, or, with PrecisionFloat32, K_MM alone):
// the packed operands of the largest product of its factorizations
// (kernel.Dense.SyrkPackBytes, or kernel.DenseF32.SyrkPackBytes, over
// solver.BlockedWidth) and their panels (solver.CholeskyScratchBytes or
// CholeskyScratchBytes32: on kernel.Dense and DenseF32 the triangular
// product allocates none), the larger of the two precisions (the float64
// one at every M today), so that one plan bounds either. It also bounds
// what the built preconditioner takes while CG runs, which the build's
// scratch is garbage by (the larger of the two is returned): Falkon.MulKMM's
// partial sums and copy of v, and the buffers of the triangular solves of
// Precondition, MulB and MulBT (solver.SolveScratchBytes or, for a float32
// factor, SolveScratchBytes32; the first grows with
// t from 16 outputs, where a float64 factor's solves are blocked, with
// their products' buffer kernel.Dense.PackBytes), each held once (they are
// recycled between calls). The build's is the larger from about 100
// centers on at few outputs (M = 10,000: 52 MB against 17 MB; M = 40: 117
// KB against 111 KB). t below 16 plans as 16.
func ScratchBytes(m, t int) int64 {
	if m <= 0 {
		return 0
	}
	k := min(m, solver.BlockedWidth)
	f64 := kernel.Dense{}.SyrkPackBytes(m, k) + solver.CholeskyScratchBytes(m)
	f32 := kernel.DenseF32{}.SyrkPackBytes(m, k) + solver.CholeskyScratchBytes32(m)
	return max(f64, f32, applyScratchBytes(m, t))
}

// lowerGram overwrites the lower triangle of the lower-triangular w (strict
// upper triangle ignored and left alone) with the lower triangle of WᵀW, as
// LAPACK's lauum does, with the products on the kernel engine
// (solver.Lauum). Memory: none beside kernel.Dense's packing buffer (see
// solver.CholeskyScratchBytes).
func lowerGram(ctx context.Context, w *mat.Dense) error {
	return solver.Lauum(ctx, w, kernel.Dense{})
}

// mirrorTile is the side of the square tiles mirrorLower copies at a time:
// a 64×64 tile of rows and its transpose (64 KiB) stay in L1/L2 while the
// column-wise writes happen, instead of one cache miss per element.
const mirrorTile = 64

// mirrorLower copies the strict lower triangle of the square a into its
// strict upper triangle (a[j][i] = a[i][j] for j < i), tile by tile, the
// rows of tiles split over the workers (each tile is read from the lower
// triangle and written to its own place in the upper one, so the split
// does not change the result).
func mirrorLower[T float32 | float64](ctx context.Context, data []T, n, stride int) error {
	return parallel.For(ctx, (n+mirrorTile-1)/mirrorTile, 0, func(_, t int) {
		i0 := t * mirrorTile
		i1 := min(i0+mirrorTile, n)
		for j0 := 0; j0 <= i0; j0 += mirrorTile {
			for i := i0; i < i1; i++ {
				j1 := min(j0+mirrorTile, i)
				for j := j0; j < j1; j++ {
					data[j*stride+i] = data[i*stride+j]
				}
			}
		}
	})
}
