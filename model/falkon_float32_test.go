package model

import (
	"context"
	"math"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
)

// TestFalkonFloat32 compares Falkon with float32 K_nM passes against the
// float64 default on the same centers: kernel values differ by ≲ 2e-7
// (kernel.TestFloat32), and on AVX-512 the passes' exp and their sums over at
// most 32 terms are float32 too (relative error ≲ 32·2^−24 ≈ 2e-6 per sum), so
// after a few well-preconditioned CG iterations the predictions must agree
// to a small multiple of that, far below the spread of the targets. Measured:
// 8.4e-6 of the largest prediction with the float32 exp and sums, 5.4e-7 with
// float32 dot products only (the portable and AVX2 paths); the bound is 5e-5.
// The test also checks the setting leaves the predictions different (float32
// products really were used).
func TestFalkonFloat32(t *testing.T) {
	x, y := krrTestData(3, 600, 5)
	ctx := context.Background()
	base := Falkon{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, M: 100, MaxIter: 10, Seed: 4}
	f64, f32 := base, base
	f32.Float32 = true
	if err := f64.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := f32.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	p64, _ := f64.Predict(x)
	p32, _ := f32.Predict(x)
	var worst, scale float64
	same := true
	for i := range p64 {
		worst = math.Max(worst, math.Abs(p64[i]-p32[i]))
		scale = math.Max(scale, math.Abs(p64[i]))
		same = same && p64[i] == p32[i]
	}
	t.Logf("max |Δprediction| %.3g (largest prediction %.3g)", worst, scale)
	if worst > 5e-5*scale {
		t.Fatalf("float32 passes moved predictions by %g (scale %g), want ≤ 5e-5 relative", worst, scale)
	}
	if same {
		t.Fatal("float32 and float64 predictions are bit-identical: the float32 path was not used")
	}
}
