package solver

import (
	"context"

	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// LowerUpdate sets the lower triangle (j ≤ i) of the square matrix c to
// c − a·aᵀ. CholeskyBlocked spends nearly all its flops in it, so a caller
// passes the fastest matrix product it has (Landmark's kernel engine:
// kernel.SubLowerGram); solver itself depends on no other Landmark package.
type LowerUpdate func(ctx context.Context, c, a *mat.Dense) error

// cholBlock is the panel width of CholeskyBlocked: wide enough that the
// trailing updates run at matrix-product speed, narrow enough that the
// panel's own factorization and triangular solve stay a small share.
const cholBlock = 256

// CholeskyBlocked is CholeskyInPlace (same contract, same jitter policy)
// computed by the right-looking blocked algorithm: for each panel of cholBlock
// columns, factor the diagonal block (LAPACK potrf), solve for the panel below
// it (trsm, rows split across workers), then subtract the panel's outer
// product from the trailing matrix with update. With update = nil it uses
// gonum's BLAS. Matrices of at most 2·cholBlock rows go straight to potrf.
func CholeskyBlocked(ctx context.Context, a *mat.Dense, opt CholOptions, update LowerUpdate, workers int) (*Chol, error) {
	var upErr error
	factor := func(sym blas64.Symmetric) (blas64.Triangular, bool) {
		ok, err := blockedPotrf(ctx, sym, update, workers)
		if err != nil {
			// Cancellation or a failed update is not a pivot failure: report
			// success to end the jitter loop and return the error below.
			upErr = err
			return blas64.Triangular{}, true
		}
		return blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: sym.N, Stride: sym.Stride, Data: sym.Data}, ok
	}
	c, err := choleskyInPlace(a, opt, factor)
	if upErr != nil {
		return nil, upErr
	}
	return c, err
}

// blockedPotrf factors the lower triangle of s in place; ok is false when a
// pivot is not positive (the matrix is not positive definite).
func blockedPotrf(ctx context.Context, s blas64.Symmetric, update LowerUpdate, workers int) (ok bool, err error) {
	n := s.N
	if n <= 2*cholBlock {
		_, ok := lapack64.Potrf(s)
		return ok, nil
	}
	full := &mat.Dense{} // a view on s's storage
	full.SetRawMatrix(blas64.General{Rows: n, Cols: n, Stride: s.Stride, Data: s.Data})
	for k := 0; k < n; k += cholBlock {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		b := min(cholBlock, n-k)
		diag := blas64.Symmetric{Uplo: blas.Lower, N: b, Stride: s.Stride, Data: s.Data[k*s.Stride+k:]}
		l11, ok := lapack64.Potrf(diag)
		if !ok {
			return false, nil
		}
		rest := n - k - b
		if rest == 0 {
			break
		}
		// A21 ← A21·L11⁻ᵀ, rows independent: split them across workers.
		const rowsPer = 256
		chunks := (rest + rowsPer - 1) / rowsPer
		if err := parallel.For(ctx, chunks, workers, func(_, c int) {
			r0 := k + b + c*rowsPer
			r1 := min(r0+rowsPer, n)
			a21 := blas64.General{Rows: r1 - r0, Cols: b, Stride: s.Stride, Data: s.Data[r0*s.Stride+k:]}
			blas64.Trsm(blas.Right, blas.Trans, 1, l11, a21)
		}); err != nil {
			return false, err
		}
		a21 := full.Slice(k+b, n, k, k+b).(*mat.Dense)
		a22 := full.Slice(k+b, n, k+b, n).(*mat.Dense)
		if update != nil {
			if err := update(ctx, a22, a21); err != nil {
				return false, err
			}
			continue
		}
		blas64.Syrk(blas.NoTrans, -1, a21.RawMatrix(), 1, blas64.Symmetric{Uplo: blas.Lower, N: rest, Stride: s.Stride, Data: s.Data[(k+b)*s.Stride+k+b:]})
	}
	return true, nil
}
