package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// weightedProducts is what MulTMulWeighted is checked on: an Op or a
// Factored.
type weightedProducts interface {
	Block(ctx context.Context, dst *mat.Dense) error
	MulTMul(ctx context.Context, dst, v *mat.Dense) error
	MulTMulWeighted(ctx context.Context, dst, v *mat.Dense, w []float64) error
}

// weightedRef returns Kᵀ·diag(w)·K·V and its magnitude bound |K|ᵀ·w·|K|·|V|
// from K formed by Block.
func weightedRef(k *mat.Dense, w []float64, v *mat.Dense) (want, bound *mat.Dense) {
	var wk, ka, wka, va mat.Dense
	wk.Apply(func(i, _ int, x float64) float64 { return w[i] * x }, k)
	ka.Apply(func(_, _ int, x float64) float64 { return math.Abs(x) }, k)
	wka.Apply(func(i, _ int, x float64) float64 { return w[i] * x }, &ka)
	va.Apply(func(_, _ int, x float64) float64 { return math.Abs(x) }, v)
	var kv, kva mat.Dense
	kv.Mul(&wk, v)
	kva.Mul(&wka, &va)
	want, bound = new(mat.Dense), new(mat.Dense)
	want.Mul(k.T(), &kv)
	bound.Mul(ka.T(), &kva)
	return want, bound
}

// TestMulTMulWeighted checks MulTMulWeighted on every pass MulTMul takes —
// the fused Gaussian pass (with the Strassen distances at d = 520), its
// float32 blocks, kept float32 and float64 rows (all of them, and a part
// with the rest formed; float64 ones in sub-blocks of 8 rows), the
// Laplacian's fused pass, the generic product (polynomial),
// the panel tiles (t = 3), sparse X and the factored passes — on each SIMD
// path, against Kᵀ·diag(w)·K·V from the K that Block forms (weights in
// [0, 2), every seventh 0). The bounds are relative to |K|ᵀw|K||V|:
// 1e-11 for float64 passes (sums of n + m ≈ 240 terms, 240·2^−53 ≈ 3e-14,
// with room for the passes' K differing from Block's by the distance
// products' order: Strassen's level moves a distance by up to ~1e-13
// relative at d = 520), 3e-5 for float32 K (K rounded to float32, 2^−24
// ≈ 6e-8 a value, sums of up to 32 float32 terms: sum32Rows). With every
// weight 1 the result must be MulTMul's to the bit.
func TestMulTMulWeighted(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(41, 9))
	const n, m = 203, 37
	w := make([]float64, n)
	ones := make([]float64, n)
	for i := range w {
		w[i], ones[i] = 2*r.Float64(), 1
		if i%7 == 0 {
			w[i] = 0
		}
	}
	x, c := randDense(r, n, 12), randDense(r, m, 12)
	xw, cw := randDense(r, n, 520), randDense(r, m, 520)
	sx := randomCSR(r, n, 40, 0.2)
	sc := mat.NewDense(m, 40, nil)
	for i := range m {
		for j := range 40 {
			if r.Float64() < 0.3 {
				sc.Set(i, j, r.NormFloat64())
			}
		}
	}
	xf := oneHotData(r, n)
	cf := factoredCenters(r, xf, m)
	g := Gaussian{Gamma: 0.05}
	type config struct {
		name string
		make func() (weightedProducts, error)
		tol  float64
	}
	opOf := func(k Kernel, x, c mat.Matrix, opt Options) func() (weightedProducts, error) {
		return func() (weightedProducts, error) { return NewOp(k, x, c, opt), nil }
	}
	kept := func(budget func(*Op) int64) func() (weightedProducts, error) {
		return func() (weightedProducts, error) {
			op := NewOp(g, x, c, Options{BlockRows: 24, Float32: true})
			rows, err := op.Keep32(ctx, budget(op))
			if err == nil && rows == 0 {
				return nil, nil // keeping blocks needs a SIMD path
			}
			return op, err
		}
	}
	kept64 := func(budget func(*Op) int64) func() (weightedProducts, error) {
		return func() (weightedProducts, error) {
			op := NewOp(g, x, c, Options{BlockRows: 24})
			rows, err := op.Keep64(ctx, budget(op))
			if err == nil && rows == 0 {
				return nil, nil
			}
			return op, err
		}
	}
	// Kept float64 blocks run in sub-blocks of one tile (8 rows), so that
	// the weights' row offsets within a block are exercised.
	defer func(b int) { keptSubBytes = b }(keptSubBytes)
	keptSubBytes = 1
	configs := []config{
		{"gaussian", opOf(g, x, c, Options{BlockRows: 24}), 1e-11},
		{"gaussian d=520 (strassen)", opOf(Gaussian{Gamma: 1.0 / 520}, xw, cw, Options{BlockRows: 32}), 1e-11},
		{"gaussian float32", opOf(g, x, c, Options{BlockRows: 24, Float32: true}), 3e-5},
		{"gaussian kept", kept(func(o *Op) int64 { return 1 << 30 }), 3e-5},
		{"gaussian kept 72 rows", kept(func(o *Op) int64 { return o.KeepBytes(72) }), 3e-5},
		{"gaussian kept64", kept64(func(o *Op) int64 { return 1 << 30 }), 1e-11},
		{"gaussian kept64 72 rows", kept64(func(o *Op) int64 { return o.KeepBytes64(72) }), 1e-11},
		{"laplacian", opOf(Laplacian{Gamma: 0.1}, x, c, Options{BlockRows: 24}), 1e-11},
		{"polynomial", opOf(Polynomial{Degree: 2, Gamma: 0.1}, x, c, Options{BlockRows: 24}), 1e-11},
		{"gaussian sparse", opOf(g, sx, sc, Options{BlockRows: 24}), 1e-11},
		{"factored gaussian", func() (weightedProducts, error) { return NewFactored(g, xf, cf, nil, Options{BlockRows: 16}) }, 1e-11},
		{"factored laplacian", func() (weightedProducts, error) {
			return NewFactored(Laplacian{Gamma: 0.1}, xf, cf, nil, Options{BlockRows: 16})
		}, 1e-11},
	}
	for _, a := range accels() {
		restore := setAccel(a)
		for _, cf := range configs {
			op, err := cf.make()
			if err != nil {
				t.Fatalf("%v %s: %v", a, cf.name, err)
			}
			if op == nil {
				continue
			}
			k := mat.NewDense(n, m, nil)
			if err := op.Block(ctx, k); err != nil {
				t.Fatal(err)
			}
			for _, tc := range []int{1, 3} {
				what := fmt.Sprintf("%v %s t=%d", a, cf.name, tc)
				v := randDense(r, m, tc)
				got, plain, unit := mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil)
				if err := op.MulTMulWeighted(ctx, got, v, w); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				want, bound := weightedRef(k, w, v)
				checkClose(t, what+" Kᵀ·W·K·V", got, want, bound, cf.tol)
				if err := op.MulTMul(ctx, plain, v); err != nil {
					t.Fatal(err)
				}
				if err := op.MulTMulWeighted(ctx, unit, v, ones); err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(plain, unit) {
					t.Errorf("%s: weights all 1 differ from MulTMul", what)
				}
			}
		}
		restore()
	}
	op := NewOp(g, x, c, Options{})
	dst, v := mat.NewDense(m, 1, nil), randDense(r, m, 1)
	for _, bad := range [][]float64{w[:n-1], append([]float64{math.NaN()}, w[1:]...)} {
		if err := op.MulTMulWeighted(ctx, dst, v, bad); !errors.Is(err, check.ErrInput) {
			t.Errorf("bad weights: err = %v, want ErrInput", err)
		}
	}
}

// TestKeptRowsWeighted checks keptRows' weights on each path (the portable
// loop is reached only through this call: kept blocks need a SIMD path)
// against y = Σ_i wt_i·(a_i·v)·a_i summed here in float64, for 1…9 rows
// (groups of four and single rows) and t = 1, 2; the bound is the sums'
// 2·(mp + rows)·2^−53 relative to their magnitudes.
func TestKeptRowsWeighted(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	const mp = 32
	for _, acc := range accels() {
		for rows := 1; rows <= 9; rows++ {
			for tc := 1; tc <= 2; tc++ {
				a := make([]float32, rows*mp)
				for i := range a {
					a[i] = float32(r.NormFloat64())
				}
				vc := make([]float64, tc*mp)
				for i := range vc {
					vc[i] = r.NormFloat64()
				}
				wt := make([]float64, rows)
				for i := range wt {
					wt[i] = 2 * r.Float64()
				}
				kv, y := make([]float64, tc*rows), make([]float64, tc*mp)
				keptRows(acc, a, rows, mp, tc, vc, kv, y, wt)
				for c := range tc {
					for j := range mp {
						var want, bound float64
						for i := range rows {
							var s, sa float64
							for q := range mp {
								s += float64(a[i*mp+q]) * vc[c*mp+q]
								sa += math.Abs(float64(a[i*mp+q]) * vc[c*mp+q])
							}
							want += wt[i] * s * float64(a[i*mp+j])
							bound += wt[i] * sa * math.Abs(float64(a[i*mp+j]))
						}
						if d := math.Abs(y[c*mp+j] - want); d > 2*float64(mp+rows)*0x1p-53*bound {
							t.Fatalf("%v rows=%d t=%d: y[%d,%d] = %v, want %v", acc, rows, tc, c, j, y[c*mp+j], want)
						}
					}
				}
			}
		}
	}
}
