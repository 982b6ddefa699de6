package precond

import (
	"context"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
	"gonum.org/v1/gonum/mat"
)

// TestPreconditionRefusals: the Precondition methods of Falkon, Identity
// and Jacobi refuse a nil context (ignored before, while a caller's
// preconditioner would panic on it) and a nil dst or r (they panicked),
// with an error wrapping ErrInput naming the preconditioner; with valid
// arguments they precondition as before (Identity copies r, Jacobi
// divides by the diagonal: [2,4]/[2,4] = [1,1]).
func TestPreconditionRefusals(t *testing.T) {
	var nilCtx context.Context
	kmm := mat.NewDense(2, 2, []float64{2, 0.5, 0.5, 1})
	f, err := BuildFalkon(kmm, 10, 1e-3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := mat.NewDense(2, 1, []float64{2, 4})
	dst := mat.NewDense(2, 1, nil)
	type pre interface {
		Precondition(context.Context, *mat.Dense, *mat.Dense) error
	}
	for name, p := range map[string]pre{"falkon": f, "identity": Identity{}, "jacobi": Jacobi{Diag: []float64{2, 4}}} {
		checktest.Refused(t, name+" nil context", func() error { return p.Precondition(nilCtx, dst, r) }, "precond: "+name+": invalid input: nil context")
		checktest.Refused(t, name+" nil dst", func() error { return p.Precondition(context.Background(), nil, r) }, "precond: "+name+": invalid input: nil dst or r")
		checktest.Refused(t, name+" nil r", func() error { return p.Precondition(context.Background(), dst, nil) }, "precond: "+name+": invalid input: nil dst or r")
		if err := p.Precondition(context.Background(), dst, r); err != nil {
			t.Errorf("%s with valid arguments: %v", name, err)
		}
	}
	if err := (Jacobi{Diag: []float64{2, 4}}).Precondition(context.Background(), dst, r); err != nil || dst.At(0, 0) != 1 || dst.At(1, 0) != 1 {
		t.Errorf("jacobi: %v, dst %v", err, mat.Formatted(dst))
	}
}
