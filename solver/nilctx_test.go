package solver

import (
	"context"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestTriangularNilContext: the exported float32 factorizations, the
// triangular solves of a Chol32 (SolveL, SolveL32) and Lauum/Lauum32
// refuse a nil context with an error wrapping ErrInput that names the
// routine, on inputs they would otherwise process (a 3×3 identity, one
// right-hand side); all six panicked at their first cancellation check.
// (Chol's own Solve, SolveL and MulL take no context.)
func TestTriangularNilContext(t *testing.T) {
	var nilCtx context.Context
	eye32 := func() blas32.General {
		return blas32.General{Rows: 3, Cols: 3, Stride: 3, Data: []float32{1, 0, 0, 0, 1, 0, 0, 0, 1}}
	}
	c, err := CholeskyBlocked32(context.Background(), eye32(), CholOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rhs64 := blas64.General{Rows: 3, Cols: 1, Stride: 1, Data: []float64{1, 2, 3}}
	rhs32 := blas32.General{Rows: 3, Cols: 1, Stride: 1, Data: []float32{1, 2, 3}}
	for _, e := range []struct {
		name, want string
		call       func() error
	}{
		{"CholeskyBlocked32", "solver: cholesky: invalid input: nil context", func() error {
			_, err := CholeskyBlocked32(nilCtx, eye32(), CholOptions{}, nil)
			return err
		}},
		{"CholeskyBlocked32Rows", "solver: cholesky: invalid input: nil context", func() error {
			_, err := CholeskyBlocked32Rows(nilCtx, eye32(), func() error { return nil }, CholOptions{}, nil)
			return err
		}},
		{"Chol32.SolveL", "solver: solve: invalid input: nil context", func() error { return c.SolveL(nilCtx, rhs64, false) }},
		{"Chol32.SolveL trans", "solver: solve: invalid input: nil context", func() error { return c.SolveL(nilCtx, rhs64, true) }},
		{"Chol32.SolveL32", "solver: solve: invalid input: nil context", func() error { return c.SolveL32(nilCtx, rhs32, false) }},
		{"Lauum", "solver: lauum: invalid input: nil context", func() error { return Lauum(nilCtx, mat.NewDense(3, 3, []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}), nil) }},
		{"Lauum32", "solver: lauum: invalid input: nil context", func() error { return Lauum32(nilCtx, eye32(), nil) }},
	} {
		checktest.Refused(t, e.name, e.call, e.want)
	}
	// The same calls with a context work (the refusal is the context's).
	if err := c.SolveL(context.Background(), rhs64, false); err != nil || rhs64.Data[2] != 3 {
		t.Errorf("SolveL with a context: %v, %v", err, rhs64.Data)
	}
}
