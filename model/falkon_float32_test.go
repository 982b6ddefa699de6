package model

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
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

// TestFalkonFloat32Storage: Falkon{Float32Storage} on a float64 X is
// Falkon{Float32} on that X rounded to float32 (same sampled rows, same
// passes: kernel.TestDense32MatchesRoundedFloat64), bit for bit, and a
// *kernel.Dense32 X gives the same model again without the option; the
// plan counts X at 4 bytes a value (plus the caller's float64 X when Fit
// made the copy). Against the float64 fit on the unrounded X the
// predictions move by the float32 passes' error (TestFalkonFloat32, bound
// 5e-5) plus that of the rounded inputs and centers, |Δx| ≤ 2^−24|x|: for
// the Gaussian with γ = 0.3 on standard-normal data, a relative change
// of order γ·‖x‖²·2^−24 ≈ 1e-7 in each kernel value, far below; the same
// bound, 5e-5 relative to the largest prediction, holds (measured: 2.1e-5
// on AVX-512; 2.0e-6 of the decision values with three classes). Multi-class (one-vs-all outputs, three classes) runs the panel
// products; the labels are compared.
func TestFalkonFloat32Storage(t *testing.T) {
	x, y := krrTestData(3, 600, 5)
	ctx := context.Background()
	base := Falkon{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, M: 100, MaxIter: 10, Seed: 4}
	rounded := mat.DenseCopyOf(x)
	rounded.Apply(func(_, _ int, v float64) float64 { return float64(float32(v)) }, rounded)
	x32, err := kernel.Dense32Of(x)
	if err != nil {
		t.Fatal(err)
	}
	f64, stored, passes, given := base, base, base, base
	stored.Float32Storage = true
	passes.Float32 = true
	for _, c := range []struct {
		m *Falkon
		x mat.Matrix
	}{{&f64, x}, {&stored, x}, {&passes, rounded}, {&given, x32}} {
		if err := c.m.Fit(ctx, c.x, y); err != nil {
			t.Fatal(err)
		}
	}
	p64, _ := f64.Predict(x)
	ps, _ := stored.Predict(x)
	pp, _ := passes.Predict(x)
	pg, _ := given.Predict(x)
	if !slices.Equal(ps, pp) || !slices.Equal(ps, pg) {
		t.Fatal("float32 storage differs from float32 passes on the rounded X, or from a Dense32 X")
	}
	if a, _ := given.Predict(x32); !slices.Equal(a, mustPredict(t, &given, rounded)) {
		t.Error("Predict on float32 rows differs from Predict on the same values as float64")
	}
	var worst, scale float64
	for i := range p64 {
		worst = math.Max(worst, math.Abs(p64[i]-ps[i]))
		scale = math.Max(scale, math.Abs(p64[i]))
	}
	t.Logf("float32 storage vs float64: max |Δprediction| %.3g (largest prediction %.3g)", worst, scale)
	if worst > 5e-5*scale {
		t.Fatalf("float32 storage moved predictions by %g (scale %g), want ≤ 5e-5 relative", worst, scale)
	}
	n, d := x.Dims()
	if got, want := stored.Info().Plan.Data-given.Info().Plan.Data, int64(8*n*d); got != want {
		t.Errorf("plan with a float64 X copied to float32 counts %d bytes more than with a Dense32 X, want %d (the float64 X)", got, want)
	}
	if got, want := given.Info().Plan.Data, int64(4*n*d+8*n); got != want {
		t.Errorf("plan counts %d bytes of data for a Dense32 X, want %d", got, want)
	}
	if p, err := stored.Plan(x, 1); err != nil || p.Data != stored.Info().Plan.Data {
		t.Errorf("Plan before the fit: %d bytes of data (%v), the fit's %d", p.Data, err, stored.Info().Plan.Data)
	}

	// Multi-class: three classes by the sign pattern of the first two
	// features; float32 storage against float64 on the same labels.
	cls := make([]float64, n)
	for i := range cls {
		switch {
		case x.At(i, 0) > 0.3:
			cls[i] = 2
		case x.At(i, 1) > 0:
			cls[i] = 1
		}
	}
	c64, c32 := base, base
	c64.Task, c32.Task = Classification, Classification
	if err := c64.Fit(ctx, x, cls); err != nil {
		t.Fatal(err)
	}
	if err := c32.Fit(ctx, x32, cls); err != nil {
		t.Fatal(err)
	}
	d64, _ := c64.DecisionFunction(x)
	d32, _ := c32.DecisionFunction(x32)
	var dw, ds float64
	for i, v := range d64.RawMatrix().Data {
		dw = math.Max(dw, math.Abs(v-d32.RawMatrix().Data[i]))
		ds = math.Max(ds, math.Abs(v))
	}
	t.Logf("three classes: max |Δdecision| %.3g (largest %.3g)", dw, ds)
	if dw > 5e-5*ds {
		t.Fatalf("float32 storage moved decision values by %g (scale %g)", dw, ds)
	}
}

// Bad float32 input is refused with ErrInput: a value beyond float32's
// range in a float64 X (it would round to ±Inf), a NaN in a Dense32, and
// a label count that does not match.
func TestFalkonFloat32StorageBadInput(t *testing.T) {
	x, y := krrTestData(3, 50, 2)
	ctx := context.Background()
	big := mat.DenseCopyOf(x)
	big.Set(4, 1, 1e39)
	m := Falkon{Lambda: 1e-3, M: 10, Float32Storage: true}
	if err := m.Fit(ctx, big, y); !errors.Is(err, ErrInput) || !errors.Is(err, kernel.ErrFloat32Range) || !strings.Contains(err.Error(), "row 4, column 1: 1e+39 rounds to an infinity in float32") {
		t.Errorf("1e39: err = %v, want ErrInput and kernel.ErrFloat32Range naming row 4, column 1", err)
	}
	v := make([]float32, 100)
	v[7] = float32(math.NaN())
	x32, err := kernel.NewDense32(50, 2, v)
	if err != nil {
		t.Fatal(err)
	}
	if err := (&Falkon{Lambda: 1e-3, M: 10}).Fit(ctx, x32, y); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "X[3,1]") {
		t.Errorf("NaN: err = %v, want ErrInput naming X[3,1]", err)
	}
	ok, _ := kernel.Dense32Of(x)
	if err := (&Falkon{Lambda: 1e-3, M: 10}).Fit(ctx, ok, y[:49]); !errors.Is(err, ErrInput) {
		t.Errorf("49 labels for 50 rows: err = %v, want ErrInput", err)
	}
}

func mustPredict(t *testing.T, m *Falkon, x mat.Matrix) []float64 {
	t.Helper()
	p, err := m.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// CacheKnm with float32 passes keeps K_nM's blocks in float32 (all of it
// without a limit, the first blocks within MemoryLimit): the fit differs
// from the recomputing one by the float32 rounding of the kept values
// (2^−24 relative) carried through 10 CG iterations; the same 5e-5 bound
// as the float32 passes' own (TestFalkonFloat32) holds with room. The plan
// counts the kept bytes, 4 a value of the rows kept, M rounded up to the
// panel width (32 in float32 mode).
func TestFalkonKeep32(t *testing.T) {
	x, y := krrTestData(3, 600, 5)
	ctx := context.Background()
	base := Falkon{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, M: 100, MaxIter: 10, Seed: 4, Float32: true, BlockRows: 64}
	if err := base.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	want, _ := base.Predict(x)
	full, part := base, base
	full.CacheKnm, part.CacheKnm = true, true
	if err := full.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if kernel.Accel() == "portable" {
		// K_nM is kept in float32 on the AVX-512 and AVX2 tiles only; the
		// portable path falls back to the float64 cache of K_nM whole
		// (8 bytes a value: n·M, plus n·t for the products), all or
		// nothing, so the limit that leaves room for 400 rows keeps none.
		// Those fits form the same values; the cached products sum them in
		// the engine GEMM's order, not the passes': predictions agree to
		// round-off carried through 10 iterations (1.7e-13 relative on
		// machine F; bound 1e-11).
		if got, want := full.Info().Plan.Cache, int64(8*(600*100+600)); !full.Info().CachedKnm || got != want {
			t.Errorf("portable: kept %d bytes (cached %v), want the float64 cache: %d", got, full.Info().CachedKnm, want)
		}
		part.MemoryLimit = full.Info().Plan.Total - 4*128*200
		if err := part.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		if part.Info().CachedKnm || part.Info().Plan.Cache != 0 {
			t.Errorf("portable, with the limit: kept %d bytes (cached %v), want none", part.Info().Plan.Cache, part.Info().CachedKnm)
		}
		for _, f := range []*Falkon{&full, &part} {
			if d := maxRelDiff(mustPredict(t, f, x), want); d > 1e-11 {
				t.Errorf("portable: kept %d bytes: predictions differ from the recomputing fit's by %g", f.Info().Plan.Cache, d)
			}
		}
		return
	}
	if !full.Info().CachedKnm {
		t.Fatal("float32 passes with CacheKnm and no limit kept nothing")
	}
	if got := full.Info().Plan.Cache; got != 4*600*128 {
		t.Errorf("plan keeps %d bytes, want all 600 rows: %d", got, 4*600*128)
	}
	part.MemoryLimit = full.Info().Plan.Total - 4*128*200 // room for 400 of the 600 rows
	if err := part.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if got := part.Info().Plan.Cache; !part.Info().CachedKnm || got != 4*384*128 {
		t.Errorf("with the limit: kept %d bytes (cached %v), want 384 rows (6 blocks of 64): %d", got, part.Info().CachedKnm, 4*384*128)
	}
	for _, f := range []*Falkon{&full, &part} {
		got, _ := f.Predict(x)
		var worst, scale float64
		for i := range want {
			worst = math.Max(worst, math.Abs(got[i]-want[i]))
			scale = math.Max(scale, math.Abs(want[i]))
		}
		t.Logf("kept %d bytes: max |Δprediction| %.3g (scale %.3g)", f.Info().Plan.Cache, worst, scale)
		if worst > 5e-5*scale {
			t.Errorf("kept K_nM moved predictions by %g (scale %g)", worst, scale)
		}
	}
}

// TestFalkonFloat32Range: with Float32 passes over float64 X, a finite
// value that rounds to an infinity in float32 (1e39 > MaxFloat32 ≈
// 3.4e38) is refused, naming its row and column, in X and in the
// validation X — before, the fit returned no error, ran no CG iteration
// and predicted 0 on every row (the passes' distances to the row were
// NaN). Controls: 1e20 (finite in float32) still fits with Float32, and
// 1e39 fits with float64 passes, predicting the first training row within
// 0.1 of its target (a smooth target, λ = 1e-6, 50 centers; the far row
// only moves its own prediction).
func TestFalkonFloat32Range(t *testing.T) {
	const n, d = 200, 3
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, math.Sin(float64(7*i+3*j+1)))
		}
		y[i] = x.At(i, 0)
	}
	with := func(v float64) *mat.Dense {
		xb := mat.DenseCopyOf(x)
		xb.Set(5, 1, v)
		return xb
	}
	fit := func(xb *mat.Dense, f32 bool, val *ValidationSet) (*Falkon, error) {
		m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-6, M: 50, Seed: 1, Float32: f32, Validation: val}
		return m, m.Fit(context.Background(), xb, y)
	}
	_, err := fit(with(1e39), true, nil)
	if !errors.Is(err, kernel.ErrFloat32Range) || !errors.Is(err, ErrInput) || !strings.HasPrefix(err.Error(), "model: falkon: X, ") || !strings.Contains(err.Error(), "row 5, column 1") {
		t.Errorf("X with 1e39, Float32: got %v", err)
	}
	_, err = fit(x, true, &ValidationSet{X: with(-1e39), Y: y})
	if !errors.Is(err, kernel.ErrFloat32Range) || !strings.Contains(err.Error(), "falkon: validation X, ") || !strings.Contains(err.Error(), "row 5, column 1") {
		t.Errorf("validation X with -1e39, Float32: got %v", err)
	}
	for _, tc := range []struct {
		v   float64
		f32 bool
	}{{1e20, true}, {1e39, false}} {
		m, err := fit(with(tc.v), tc.f32, nil)
		if err != nil {
			t.Fatalf("%g, Float32 %v: %v", tc.v, tc.f32, err)
		}
		p, err := m.Predict(x.Slice(0, 1, 0, d))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(p[0]-y[0]) > 0.1 {
			t.Errorf("%g, Float32 %v: predicted %g for row 0, target %g", tc.v, tc.f32, p[0], y[0])
		}
	}
}
