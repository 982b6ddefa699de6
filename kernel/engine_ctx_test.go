package kernel

import (
	"context"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
	"gonum.org/v1/gonum/mat"
)

// TestOpNilContext: every exported method of Op that takes a context
// refuses a nil one with an error wrapping check.ErrInput that names the
// method, instead of panicking at the first cancellation check (they all
// panicked before). The Op and the shapes are valid, so the context is the
// only thing wrong; each method is called on a fresh Op and on one that has
// already run a product (its plan prepared).
func TestOpNilContext(t *testing.T) {
	x, c := checktest.Normal(30, 4, 1), checktest.Normal(7, 4, 2)
	v, u := checktest.Normal(7, 2, 3), checktest.Normal(30, 2, 4)
	var nilCtx context.Context
	for _, prepared := range []bool{false, true} {
		newOp := func() *Op {
			op := NewOp(Gaussian{Gamma: 0.5}, x, c, Options{})
			if prepared {
				if err := op.MulTMul(context.Background(), mat.NewDense(7, 2, nil), v); err != nil {
					t.Fatal(err)
				}
			}
			return op
		}
		calls := map[string]func() error{
			"Block":   func() error { return newOp().Block(nilCtx, mat.NewDense(30, 7, nil)) },
			"Mul":     func() error { return newOp().Mul(nilCtx, mat.NewDense(30, 2, nil), v) },
			"MulT":    func() error { return newOp().MulT(nilCtx, mat.NewDense(7, 2, nil), u) },
			"MulTMul": func() error { return newOp().MulTMul(nilCtx, mat.NewDense(7, 2, nil), v) },
			"Keep32": func() error {
				_, err := newOp().Keep32(nilCtx, 1<<20)
				return err
			},
		}
		for name, call := range calls {
			checktest.Refused(t, name, call, "kernel: "+name+": ")
			checktest.Refused(t, name, call, "nil context")
		}
	}
}
