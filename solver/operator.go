package solver

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Operator is a symmetric positive (semi-)definite linear operator A on ℝⁿ.
// It is applied to blocks of t vectors at once, so that one pass over the data
// serves every right-hand side.
type Operator interface {
	// Size returns n.
	Size() int
	// Apply sets dst = A·x for x and dst n×t. dst and x do not alias.
	Apply(ctx context.Context, dst, x *mat.Dense) error
}

// Preconditioner applies z = P·r with P symmetric positive definite, P ≈ A⁻¹.
type Preconditioner interface {
	// Precondition sets dst = P·r for r and dst n×t. dst and r do not alias.
	Precondition(ctx context.Context, dst, r *mat.Dense) error
}

// Matrix is the Operator of an explicit symmetric matrix.
type Matrix struct {
	// A is the matrix.
	A mat.Symmetric
}

var _ Operator = Matrix{}

// Size returns the order of A.
func (m Matrix) Size() int { return m.A.SymmetricDim() }

// Apply sets dst = A·x.
func (m Matrix) Apply(_ context.Context, dst, x *mat.Dense) error {
	if err := opCheckBlock(m.Size(), dst, x); err != nil {
		return err
	}
	dst.Mul(m.A, x)
	return nil
}

// OperatorFunc adapts a function to the Operator interface.
type OperatorFunc struct {
	// N is the size of the operator.
	N int
	// F sets dst = A·x.
	F func(ctx context.Context, dst, x *mat.Dense) error
}

var _ Operator = OperatorFunc{}

// Size returns N.
func (f OperatorFunc) Size() int { return f.N }

// Apply calls F.
func (f OperatorFunc) Apply(ctx context.Context, dst, x *mat.Dense) error { return f.F(ctx, dst, x) }

func opCheckBlock(n int, dst, x *mat.Dense) error {
	if dst == nil || x == nil {
		return fmt.Errorf("%w: nil matrix", ErrShape)
	}
	rx, tx := x.Dims()
	rd, td := dst.Dims()
	if rx != n || rd != n || tx != td {
		return fmt.Errorf("%w: operator of size %d applied to %d×%d into %d×%d", ErrShape, n, rx, tx, rd, td)
	}
	return nil
}
