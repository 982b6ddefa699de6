package model

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
)

// TestFalkonPrecondPrecision: the preconditioner's precision follows
// PrecondPrecision, automatic meaning float32 exactly when the data or the
// passes are float32 (Float32, Float32Storage or a *kernel.Dense32 X); an unknown value is ErrInput. With
// float64 passes solved tightly (ε = 1e-10, the package's choice for the
// exact Nyström solution; Tol 1e-12), the fits with the float64 and the
// float32 preconditioner predict the same values: within 1e-8 relative on
// the training rows (any fixed preconditioner has the same solution;
// precond's TestFalkon32SameSolution bounds the coefficients by
// ‖H⁻¹‖·(‖r32‖ + ‖r64‖); measured here: 6.7e-12, both in 49 iterations).
func TestFalkonPrecondPrecision(t *testing.T) {
	x, y := krrTestData(41, 600, 4)
	ctx := context.Background()
	g := kernel.Gaussian{Gamma: 0.3}
	for _, c := range []struct {
		f    Falkon
		want precond.Precision
	}{
		{Falkon{}, precond.PrecisionFloat64},
		{Falkon{Float32: true}, precond.PrecisionFloat32},
		{Falkon{Float32Storage: true}, precond.PrecisionFloat32},
		{Falkon{Float32: true, PrecondPrecision: precond.PrecisionFloat64}, precond.PrecisionFloat64},
		{Falkon{PrecondPrecision: precond.PrecisionFloat32}, precond.PrecisionFloat32},
		{Falkon{Float32: true, Preconditioner: PrecondJacobi}, ""},
	} {
		f := c.f
		f.Kernel, f.Lambda, f.M, f.MaxIter, f.Seed = g, 1e-4, 300, 5, 3
		if err := f.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		if got := f.Info().PrecondPrecision; got != c.want {
			t.Errorf("Float32 %v, Float32Storage %v, PrecondPrecision %q, %q: precision %q, want %q",
				c.f.Float32, c.f.Float32Storage, c.f.PrecondPrecision, c.f.Preconditioner, got, c.want)
		}
	}
	// Float32 data (a *kernel.Dense32 X) is float32 too, unless overridden.
	x32, err := kernel.Dense32Of(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []precond.Precision{"", precond.PrecisionFloat64} {
		f := Falkon{Kernel: g, Lambda: 1e-4, M: 300, MaxIter: 5, Seed: 3, PrecondPrecision: p}
		if err := f.Fit(ctx, x32, y); err != nil {
			t.Fatal(err)
		}
		want := map[precond.Precision]precond.Precision{"": precond.PrecisionFloat32, precond.PrecisionFloat64: precond.PrecisionFloat64}[p]
		if got := f.Info().PrecondPrecision; got != want {
			t.Errorf("Dense32 X, PrecondPrecision %q: precision %q, want %q", p, got, want)
		}
	}
	bad := Falkon{Kernel: g, Lambda: 1e-4, M: 30, PrecondPrecision: "float16"}
	if err := bad.Fit(ctx, x, y); !errors.Is(err, ErrInput) {
		t.Errorf("precision float16: err = %v, want ErrInput", err)
	}

	pred := map[precond.Precision][]float64{}
	for _, p := range []precond.Precision{precond.PrecisionFloat64, precond.PrecisionFloat32} {
		f := Falkon{Kernel: g, Lambda: 1e-4, M: 300, MaxIter: 300, Tol: 1e-12, Seed: 3, PrecondPrecision: p, Epsilon: 1e-10}
		if err := f.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s after %d iterations, residual %.3g, jitters %.3g %.3g", p, f.Info().Status, f.Info().Iterations, f.Info().Residual, f.Info().JitterT, f.Info().JitterA)
		out, err := f.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		pred[p] = out
	}
	var num, den float64
	for i, v := range pred[precond.PrecisionFloat64] {
		d := pred[precond.PrecisionFloat32][i] - v
		num += d * d
		den += v * v
	}
	e := math.Sqrt(num / den)
	t.Logf("predictions differ by %.3g relative", e)
	if e > 1e-8 {
		t.Errorf("float32 and float64 preconditioners: predictions differ by %.3g relative", e)
	}
}
