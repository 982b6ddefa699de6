package precond

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// Identity is the trivial preconditioner P = I: PCG with it is plain CG.
type Identity struct{}

var _ solver.Preconditioner = Identity{}

// Precondition sets dst = r. A nil ctx, dst or r is an error wrapping
// ErrInput.
func (Identity) Precondition(ctx context.Context, dst, r *mat.Dense) error {
	if err := preconditionArgs(ctx, "identity", dst, r); err != nil {
		return err
	}
	if dst != r {
		dst.Copy(r)
	}
	return nil
}

// Jacobi is the diagonal preconditioner P = diag(H)⁻¹.
type Jacobi struct {
	// Diag holds the diagonal of the operator; every entry must be > 0.
	Diag []float64
}

var _ solver.Preconditioner = Jacobi{}

// Validate checks that Diag is positive and finite.
func (j Jacobi) Validate() error {
	if len(j.Diag) == 0 {
		return fmt.Errorf("precond: %w: jacobi: empty diagonal", ErrInput)
	}
	for i, v := range j.Diag {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("precond: %w: jacobi: diagonal element %d is %g, want finite and > 0", ErrInput, i, v)
		}
	}
	return nil
}

// Precondition sets dst = diag(H)⁻¹·r. A nil ctx, dst or r is an error
// wrapping ErrInput.
func (j Jacobi) Precondition(ctx context.Context, dst, r *mat.Dense) error {
	if err := preconditionArgs(ctx, "jacobi", dst, r); err != nil {
		return err
	}
	rr, rd := r.RawMatrix(), dst.RawMatrix()
	if rr.Rows != len(j.Diag) || rd.Rows != rr.Rows || rd.Cols != rr.Cols {
		return fmt.Errorf("precond: %w: jacobi of size %d applied to %d×%d into %d×%d", ErrInput, len(j.Diag), rr.Rows, rr.Cols, rd.Rows, rd.Cols)
	}
	for i, d := range j.Diag {
		src := rr.Data[i*rr.Stride : i*rr.Stride+rr.Cols]
		out := rd.Data[i*rd.Stride : i*rd.Stride+rd.Cols]
		for k, v := range src {
			out[k] = v / d
		}
	}
	return nil
}
