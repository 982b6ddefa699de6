package kernel

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check/checktest"
	"gonum.org/v1/gonum/blas/blas32"
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

// TestDenseNilContext: Dense's and DenseF32's Gemm, SyrkLower and
// LauumRows (the factorizations' products) refuse a nil context naming
// the routine, and their shape and beta errors wrap check.ErrInput.
func TestDenseNilContext(t *testing.T) {
	a, c := checktest.Normal(4, 4, 1), mat.NewDense(4, 4, nil)
	a32 := blas32.General{Rows: 4, Cols: 4, Stride: 4, Data: make([]float32, 16)}
	c32 := blas32.General{Rows: 4, Cols: 4, Stride: 4, Data: make([]float32, 16)}
	var nilCtx context.Context
	ctx := context.Background()
	calls := map[string]func(context.Context) error{
		"Gemm":        func(ctx context.Context) error { return Dense{}.Gemm(ctx, false, true, 1, a, a, 0, c) },
		"SyrkLower":   func(ctx context.Context) error { return Dense{}.SyrkLower(ctx, false, 1, a, 0, c) },
		"LauumRows":   func(ctx context.Context) error { return Dense{}.LauumRows(ctx, c, 0, 4) },
		"Gemm32":      func(ctx context.Context) error { return DenseF32{}.Gemm(ctx, false, true, 1, a32, a32, 0, c32) },
		"SyrkLower32": func(ctx context.Context) error { return DenseF32{}.SyrkLower(ctx, false, 1, a32, 0, c32) },
		"LauumRows32": func(ctx context.Context) error { return DenseF32{}.LauumRows(ctx, c32, 0, 4) },
	}
	for name, call := range calls {
		if err := call(ctx); err != nil {
			t.Fatalf("%s on valid input: %v", name, err)
		}
		checktest.Refused(t, name, func() error { return call(nilCtx) }, "kernel: "+name+": ")
		checktest.Refused(t, name, func() error { return call(nilCtx) }, "nil context")
	}
	bad := map[string]func() error{
		"Gemm beta":       func() error { return Dense{}.Gemm(ctx, false, true, 1, a, a, 2, c) },
		"SyrkLower shape": func() error { return Dense{}.SyrkLower(ctx, false, 1, a, 0, mat.NewDense(3, 3, nil)) },
		"LauumRows rows":  func() error { return Dense{}.LauumRows(ctx, c, 3, 2) },
		"Gemm32 shape": func() error {
			return DenseF32{}.Gemm(ctx, false, true, 1, a32, a32, 0, blas32.General{Rows: 3, Cols: 4, Stride: 4, Data: make([]float32, 12)})
		},
		"LauumRows32 rows": func() error { return DenseF32{}.LauumRows(ctx, c32, 0, 5) },
	}
	for name, call := range bad {
		checktest.Refused(t, name, call, "kernel: ")
	}
}
