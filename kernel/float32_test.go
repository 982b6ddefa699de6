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
// Options.Float32 and docs/performance.md). Where it comes from: rounding x and c to
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
		x, c, v, u := randDense(r, 203, d), randDense(r, 45, d), randDense(r, 45, 1), randDense(r, 203, 1)
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
			kv := mat.NewDense(203, 1, nil)
			if err := op.Mul(ctx, kv, v); err != nil {
				t.Fatal(err)
			}
			// Kᵀu with one column: on the float32 blocks' path (d ≤ 256
			// with SIMD) u is rounded to float32 (2⁻²⁴ relative per term),
			// well inside the bound on K's values.
			ktu := mat.NewDense(45, 1, nil)
			if err := op.MulT(ctx, ktu, u); err != nil {
				t.Fatal(err)
			}
			restore()
			var wantKtu, dktu mat.Dense
			wantKtu.Mul(ref.T(), u)
			dktu.Sub(ktu, &wantKtu)
			if rel := mat.Norm(&dktu, 2) / mat.Norm(&wantKtu, 2); rel > float32KernelTol {
				t.Fatalf("d=%d simd=%v: float32 Kᵀu relative error %.3g above %g", d, simd, rel, float32KernelTol)
			}
			var wantKV, dkv mat.Dense
			wantKV.Mul(ref, v)
			dkv.Sub(kv, &wantKV)
			if rel := mat.Norm(&dkv, 2) / mat.Norm(&wantKV, 2); rel > float32KernelTol {
				t.Fatalf("d=%d simd=%v: float32 K·v relative error %.3g above %g", d, simd, rel, float32KernelTol)
			}
			var diff mat.Dense
			diff.Sub(blocks[i], ref)
			maxErr := 0.0
			for _, e := range diff.RawMatrix().Data {
				maxErr = math.Max(maxErr, math.Abs(e))
			}
			var dw mat.Dense
			dw.Sub(w, refW)
			relW := mat.Norm(&dw, 2) / mat.Norm(refW, 2)
			t.Logf("d=%d %v: max |ΔK| = %.2g, fused relative error %.2g", d, map[bool]accel{true: bestAccel}[simd], maxErr, relW)
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

// TestExpRowF32 checks the float32 Gaussian row map of the float32 passes
// against math.Exp of its argument computed in float64 from the same float32
// inputs, on arguments spread over [−110, 0] (float32 results underflow below
// about −103.3) with zero distances and negative round-off.
//
// The bound: |k − e^x| ≤ ((4 + 2|x|)·2^−24 + γ·(xx + cc + 2|row|)·2^−24)·e^x
// + 2^−148. The first term is the float64 kernel's bound in float32 units
// (polynomial, table and roundings; rounding z = x·16·log2e); the second is
// the float32 rounding of t = xx + cc − 2·row before the exp; the last covers
// float32 subnormal results. Since |x|·e^x ≤ 1/e the |x| term is at most
// 2·2^−24/e ≈ 4.4e-8 in absolute value. The largest error measured is logged.
func TestExpRowF32(t *testing.T) {
	if bestAccel == accelPortable {
		t.Skip("no AVX2 or AVX-512 on this CPU (or LANDMARK_SIMD=portable)")
	}
	for _, a := range accels()[1:] {
		t.Run(a.String(), func(t *testing.T) { testExpRowF32(t, passKernels32(a).expRowDot) })
	}
}

// testExpRowF32 is TestExpRowF32 for one float32 row map (AVX-512 or AVX2,
// whose 8-entry table and degree-4 polynomial keep the same bound: the
// polynomial's remainder 1.3e-9 and the table's rounding stay within the
// 4·2^−24 term).
func testExpRowF32(t *testing.T, expRowDot func(row, cc, v *float32, n int, xx, ng float32) float32) {
	r := rand.New(rand.NewPCG(17, 18))
	const n = 4096
	const xx, ng = 1, -1
	row, cc, v := make([]float32, n), make([]float32, n), make([]float32, n)
	for j := range row {
		switch j % 4 {
		case 0:
			cc[j], row[j] = float32(100*r.Float64()), 0.5
		case 1:
			cc[j], row[j] = float32(85+25*r.Float64()), 0.5 // subnormal results and zero
		case 2:
			cc[j], row[j] = float32(1e-6*r.Float64()), float32(0.5+1e-6*r.Float64()) // tiny and negative t
		case 3:
			cc[j], row[j] = float32(5*r.Float64()), float32(0.5+r.NormFloat64())
		}
		v[j] = float32(r.NormFloat64())
	}
	got := append([]float32(nil), row...)
	dot := expRowDot(&got[0], &cc[0], &v[0], n, xx, ng)
	const eps = 0x1p-24
	var worst, wantDot, absDot float64
	for j := range got {
		tt := max(xx+float64(cc[j])-2*float64(row[j]), 0)
		x := ng * tt
		e := math.Exp(x)
		bound := ((4+2*math.Abs(x))*eps+(xx+float64(cc[j])+2*math.Abs(float64(row[j])))*eps)*e + 0x1p-148
		diff := math.Abs(float64(got[j]) - e)
		if diff > bound || math.IsNaN(float64(got[j])) {
			t.Fatalf("j=%d, x=%v: float32 %v, math.Exp %v (bound %v)", j, x, got[j], e, bound)
		}
		if e > 0x1p-126 {
			worst = max(worst, diff/(eps*e))
		}
		wantDot += float64(got[j]) * float64(v[j])
		absDot += math.Abs(float64(got[j]) * float64(v[j]))
	}
	// The dot product is summed in 32 float32 lanes of about 128 terms each:
	// at most about 128·2^−24 relative to Σ|k_j v_j|.
	if math.Abs(float64(dot)-wantDot) > 128*eps*absDot {
		t.Fatalf("dot: float32 %v, float64 sum of the same values %v", dot, wantDot)
	}
	t.Logf("max |error| = %.2f·2^−24·e^x (normal results)", worst)
}
