package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sparseEngineKernels are the four kernels of the issue, with parameters
// that keep the kernel values away from 0 and 1 on standard-normal data
// with ~10 non-zeros (squared distances ~20, so γ = 0.05 gives e^−1).
var sparseEngineKernels = []Kernel{
	Gaussian{Gamma: 0.05}, Laplacian{Gamma: 0.05},
	Polynomial{Degree: 3, Gamma: 0.1, Coef0: 1}, Sigmoid{Gamma: 0.1, Coef0: -0.5}, Linear{},
}

// closeTo fails when got and want differ by more than tol relative to
// max(1, ‖want‖_∞), the scale of the entries being compared.
func closeTo(t *testing.T, what string, got, want *mat.Dense, tol float64) {
	t.Helper()
	scale := math.Max(1, mat.Norm(want, math.Inf(1)))
	r, c := want.Dims()
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); d > tol*scale {
				t.Fatalf("%s: [%d,%d] sparse %v dense %v (diff %g, scale %g)", what, i, j, got.At(i, j), want.At(i, j), d, scale)
			}
		}
	}
}

// opProducts runs Block, Mul, MulT and MulTMul (one and three right-hand
// sides) and returns their results in a fixed order.
func opProducts(t *testing.T, op *Op, v1, v3, u1, u3 *mat.Dense) []*mat.Dense {
	t.Helper()
	ctx := context.Background()
	n, m := op.Dims()
	out := []*mat.Dense{mat.NewDense(n, m, nil), mat.NewDense(n, 1, nil), mat.NewDense(n, 3, nil),
		mat.NewDense(m, 1, nil), mat.NewDense(m, 3, nil), mat.NewDense(m, 1, nil), mat.NewDense(m, 3, nil)}
	errs := []error{
		op.Block(ctx, out[0]), op.Mul(ctx, out[1], v1), op.Mul(ctx, out[2], v3),
		op.MulT(ctx, out[3], u1), op.MulT(ctx, out[4], u3),
		op.MulTMul(ctx, out[5], v1), op.MulTMul(ctx, out[6], v3),
	}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("product %d: %v", i, err)
		}
	}
	return out
}

var productNames = []string{"Block", "Mul t=1", "Mul t=3", "MulT t=1", "MulT t=3", "MulTMul t=1", "MulTMul t=3"}

// TestSparseOpMatchesDense compares every product of an Op on CSR rows with
// the same Op on the densified rows, for the four kernels, at a density that
// takes the axpy path (0.03) and one that takes the dense-block path (0.3),
// with the SIMD kernels and the portable code. Sizes are ragged (n = 203 is
// not a multiple of the 16-row blocks forced here, M = 37 not a multiple of
// the 16-center panels) and row 0 is empty. 1e-12 relative is the issue's
// tolerance; the two paths sum the same products in different orders and
// differ by a few ulps.
func TestSparseOpMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const n, d, m = 203, 300, 37
	c := randDense(rng, m, d)
	v1, v3 := randDense(rng, m, 1), randDense(rng, m, 3)
	u1, u3 := randDense(rng, n, 1), randDense(rng, n, 3)
	for _, simd := range []bool{true, false} {
		restore := setSIMD(simd)
		for _, density := range []float64{0.03, 0.3} {
			x := randomCSR(rng, n, d, density)
			xd := DenseOf(x)
			for _, k := range sparseEngineKernels {
				opt := Options{BlockRows: 16}
				sop := NewOp(k, x, c, opt)
				// The Laplacian expands dense blocks only where its L1 tiles run.
				_, lap := k.(Laplacian)
				if wantDense := density > sparseDenseFrom && (!lap || bestAccel != accelPortable); sop.sparseDenseBlocks() != wantDense {
					t.Fatalf("density %g: dense blocks %v", density, sop.sparseDenseBlocks())
				}
				got := opProducts(t, sop, v1, v3, u1, u3)
				want := opProducts(t, NewOp(k, xd, c, opt), v1, v3, u1, u3)
				for i := range got {
					closeTo(t, fmt.Sprintf("simd %v density %g %v %s", simd, density, k, productNames[i]), got[i], want[i], 1e-12)
				}
			}
		}
		restore()
	}
}

// TestSparseOpDeterministic checks that the sparse path gives the same bits
// whatever the number of workers and GOMAXPROCS (the row-block size is not
// a function of either, and the reductions sum in a fixed order).
func TestSparseOpDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n, d, m = 1000, 200, 50
	c := randDense(rng, m, d)
	v1, v3 := randDense(rng, m, 1), randDense(rng, m, 3)
	u1, u3 := randDense(rng, n, 1), randDense(rng, n, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, density := range []float64{0.03, 0.3} {
		x := randomCSR(rng, n, d, density)
		for _, k := range sparseEngineKernels {
			var ref []*mat.Dense
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				got := opProducts(t, NewOp(k, x, c, Options{BlockRows: 24}), v1, v3, u1, u3)
				if ref == nil {
					ref = got
					continue
				}
				for i := range got {
					if !mat.Equal(got[i], ref[i]) {
						t.Fatalf("%v density %g %s: GOMAXPROCS %d differs from 1", k, density, productNames[i], procs)
					}
				}
			}
		}
	}
}

// TestSparseOpBadInput: a CSR X whose column count differs from C's is an
// error from every product, as for dense X.
func TestSparseOpBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	x := randomCSR(rng, 10, 20, 0.2)
	op := NewOp(Gaussian{Gamma: 1}, x, randDense(rng, 4, 21), Options{})
	if err := op.Block(context.Background(), mat.NewDense(10, 4, nil)); err == nil {
		t.Fatal("20-column X with 21-column C: no error")
	}
}

// BenchmarkSparseMulTMul measures the fused Gaussian product on CSR rows at
// several densities beside the same data dense, M = 2,000, d = 784 (mnist's
// shape); sparseDenseFrom is set from it.
func BenchmarkSparseMulTMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(51, 52))
	const n, d, m = 4000, 784, 2000
	c := randDense(rng, m, d)
	v := randDense(rng, m, 1)
	dst := mat.NewDense(m, 1, nil)
	for _, density := range []float64{0.01, 0.03, 0.05, 0.1, 0.2} {
		x := randomCSR(rng, n, d, density)
		for _, mode := range []string{"axpy", "denseblocks", "dense"} {
			b.Run(fmt.Sprintf("density=%g/%s", density, mode), func(b *testing.B) {
				var op *Op
				switch mode {
				case "dense":
					op = NewOp(Gaussian{Gamma: 1.0 / d}, DenseOf(x), c, Options{})
				case "axpy":
					denseFrom = 2 // never
					op = NewOp(Gaussian{Gamma: 1.0 / d}, x, c, Options{})
					op.prepare()
				default:
					denseFrom = 0 // always
					op = NewOp(Gaussian{Gamma: 1.0 / d}, x, c, Options{})
					op.prepare()
				}
				denseFrom = sparseDenseFrom
				for b.Loop() {
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
