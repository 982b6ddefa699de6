package kernel

import (
	"context"
	"math/rand/v2"
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

// TestOtherNilContext: the kernel's other exported routines that take a
// context (Factored's four products, SubLowerGram, SparsePairBlock) refuse
// a nil one the same way, naming the routine (each panicked before, at its
// first cancellation check or in parallel.For), and the shape errors of Op
// and Factored wrap check.ErrInput as the nil context does (they were bare
// errors, so errors.Is(err, model.ErrInput) was false).
func TestOtherNilContext(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := oneHotData(r, 300)
	c := factoredCenters(r, x, 20)
	s, _ := DetectSplit(x, 0)
	f, err := NewFactored(Gaussian{Gamma: 1}, x, c, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v, u := randDense(r, 20, 1), randDense(r, 300, 1)
	sx := NewCSRRows(3, []int{0, 1, 2}, []int32{0, 2}, []float64{1, 2})
	var nilCtx context.Context
	calls := map[string]func() error{
		"Factored.MulTMul": func() error { return f.MulTMul(nilCtx, mat.NewDense(20, 1, nil), v) },
		"Factored.MulT":    func() error { return f.MulT(nilCtx, mat.NewDense(20, 1, nil), u) },
		"Factored.Mul":     func() error { return f.Mul(nilCtx, mat.NewDense(300, 1, nil), v) },
		"Factored.Block":   func() error { return f.Block(nilCtx, mat.NewDense(300, 20, nil)) },
		"SubLowerGram": func() error {
			return SubLowerGram(nilCtx, mat.NewDense(3, 3, nil), checktest.Normal(3, 2, 1), Options{})
		},
		"SparsePairBlock": func() error {
			return SparsePairBlock(nilCtx, Gaussian{Gamma: 1}, mat.NewDense(2, 2, nil), sx, sx, Options{})
		},
	}
	for name, call := range calls {
		checktest.Refused(t, name, call, "kernel: "+name+": ")
		checktest.Refused(t, name, call, "nil context")
	}
	ctx := context.Background()
	op := NewOp(Gaussian{Gamma: 1}, x, c, Options{})
	shapes := map[string]func() error{
		"Op.Mul v rows":        func() error { return op.Mul(ctx, mat.NewDense(300, 1, nil), u) },
		"Op.MulTMul dst shape": func() error { return op.MulTMul(ctx, mat.NewDense(21, 1, nil), v) },
		"Op nil kernel":        func() error { return NewOp(nil, x, c, Options{}).Block(ctx, mat.NewDense(300, 20, nil)) },
		"Op columns": func() error {
			return NewOp(Gaussian{Gamma: 1}, x, u, Options{}).Block(ctx, mat.NewDense(300, 300, nil))
		},
		"Factored.Block shape": func() error { return f.Block(ctx, mat.NewDense(300, 21, nil)) },
		"SubLowerGram shapes":  func() error { return SubLowerGram(ctx, mat.NewDense(3, 3, nil), mat.NewDense(4, 2, nil), Options{}) },
	}
	for name, call := range shapes {
		checktest.Refused(t, name, call, "kernel: ")
	}
}
