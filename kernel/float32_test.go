package kernel

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// float32KernelTol is the documented bound on the absolute error Float32 adds
// to Gaussian kernel values for standard-normal data with γ = 1/d (see
// Options.Float32 and BENCH.md). Where it comes from: rounding x and c to
// float32 and summing their products in float32 perturbs x·c by a few
// 2⁻²⁴·‖x‖‖c‖ ≈ 6e-8·d, so γ·2·|δ(x·c)| is a few 1e-7, and the kernel value
// (≤ 1) moves by less; the measured maxima (logged) are 1.5e-8 (d = 784) to
// 1.6e-7 (d = 8), so 1e-6 leaves a factor of six.
const float32KernelTol = 1e-6

// TestFloat32 measures the error the float32 mode adds to K and to the fused
// product, with the AVX-512 kernel and the portable code, for d = 8, 54,
// 300 and 784 (past one 256-feature block), and checks the two float32 paths agree.
func TestFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	ctx := context.Background()
	for _, d := range []int{8, 54, 300, 784} {
		x, c, v := randDense(r, 203, d), randDense(r, 45, d), randDense(r, 45, 1)
		k := Gaussian{Gamma: 1 / float64(d)}
		ref := mat.NewDense(203, 45, nil)
		if err := NewOp(k, x, c, Options{}).Block(ctx, ref); err != nil {
			t.Fatal(err)
		}
		refW := mat.NewDense(45, 1, nil)
		if err := NewOp(k, x, c, Options{}).MulTMul(ctx, refW, v); err != nil {
			t.Fatal(err)
		}
		var blocks [2]*mat.Dense
		for i, simd := range []bool{true, false} {
			restore := setSIMD(simd)
			op := NewOp(k, x, c, Options{Float32: true, BlockRows: 24})
			blocks[i] = mat.NewDense(203, 45, nil)
			w := mat.NewDense(45, 1, nil)
			if err := op.Block(ctx, blocks[i]); err != nil {
				t.Fatal(err)
			}
			if err := op.MulTMul(ctx, w, v); err != nil {
				t.Fatal(err)
			}
			restore()
			var diff mat.Dense
			diff.Sub(blocks[i], ref)
			maxErr := 0.0
			for _, e := range diff.RawMatrix().Data {
				maxErr = math.Max(maxErr, math.Abs(e))
			}
			var dw mat.Dense
			dw.Sub(w, refW)
			relW := mat.Norm(&dw, 2) / mat.Norm(refW, 2)
			t.Logf("d=%d simd=%v: max |ΔK| = %.2g, fused relative error %.2g", d, simd && hasAVX512, maxErr, relW)
			if maxErr > float32KernelTol || relW > float32KernelTol {
				t.Fatalf("d=%d simd=%v: float32 error %.3g (K) %.3g (fused) above %g", d, simd, maxErr, relW, float32KernelTol)
			}
		}
		// The two float32 paths differ only by FMA rounding in float32: about
		// 2⁻²⁴ relative per product, well under the mode's own error.
		if !mat.EqualApprox(blocks[0], blocks[1], float32KernelTol) {
			t.Fatalf("d=%d: float32 SIMD and portable differ", d)
		}
	}
}
