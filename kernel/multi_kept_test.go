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

// Products with t = 1, 2, 5, 8 (multi_kept.go), 9 (AVX-512: the panel
// tiles) and 11 (both paths: the tiles) right-hand sides on kept float32 blocks on every SIMD path that can keep
// blocks: against the same products of
// the kept values widened to float64 (the n×M matrix K32 of the rounded K)
// computed by gonum, and bit for bit the same for 1, 2 and 5 workers, all
// of K kept or part of it (the rest formed). Both sides sum the same
// float64 products of the same float32-rounded values, each in its own
// order: a sum of k terms in float64 is within γ_k = k·u/(1−k·u), u = 2^−53,
// of the exact one relative to the sum of the terms' magnitudes, and
// Kᵀ(K·V) nests sums of n and M terms, so the two differ by at most
// 2·γ_{n+M+2} times the product of |K32|, |v| (n + M + 2 = 242 here: a
// tolerance of 5.4e-14 relative). Where blocks are not kept the reference
// is the formed float64 K, the products' own (the Op's Block). Block rows
// of 24 and n = 203 leave a last block of 11 rows: two groups of four rows
// and three single rows in the kernels.
func TestKeptOneRHS(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	const n, m, d = 203, 37, 30
	x, c := randDense(r, n, d), randDense(r, m, d)
	k := Gaussian{Gamma: 0.5 / d}
	tol := 2 * float64(n+m+2) * 0x1p-53
	tol /= 1 - float64(n+m+2)*0x1p-53
	ctx := context.Background()
	for _, a := range accels() {
		restore := setAccel(a)
		probe := NewOp(k, x, c, Options{BlockRows: 24})
		if probe.KeepRows(1<<30) == 0 {
			restore()
			continue // keeping blocks needs AVX-512 or AVX2
		}
		for _, tc := range []int{1, 2, 5, 8, 9, 11} {
			v, u := randDense(r, m, tc), randDense(r, n, tc)
			for _, budget := range []int64{probe.KeepBytes(72), 1 << 30} {
				var first [3]*mat.Dense
				for _, workers := range []int{1, 2, 5} {
					op := NewOp(k, x, c, Options{BlockRows: 24, Workers: workers})
					rows, err := op.Keep32(ctx, budget)
					if err != nil || rows == 0 {
						t.Fatalf("%v: Keep32 kept %d rows: %v", a, rows, err)
					}
					// K32: the kept rows widened, the others formed.
					k32 := mat.NewDense(n, m, nil)
					if err := op.Block(ctx, k32); err != nil {
						t.Fatal(err)
					}
					mp := op.shape().mp
					for i := range rows {
						for j := range m {
							k32.Set(i, j, float64(op.kept.data[i*mp+j]))
						}
					}
					kv, ktu, ktkv, kvAbs, ktuAbs, ktkvAbs := multiRef(k32, v, u)
					got := [3]*mat.Dense{mat.NewDense(n, tc, nil), mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil)}
					for _, err := range []error{op.Mul(ctx, got[0], v), op.MulT(ctx, got[1], u), op.MulTMul(ctx, got[2], v)} {
						if err != nil {
							t.Fatal(err)
						}
					}
					what := fmt.Sprintf("%v t=%d budget %d workers=%d (%d rows kept)", a, tc, budget, workers, rows)
					checkClose(t, what+" K·V", got[0], kv, kvAbs, tol)
					checkClose(t, what+" Kᵀ·U", got[1], ktu, ktuAbs, tol)
					checkClose(t, what+" Kᵀ(K·V)", got[2], ktkv, ktkvAbs, tol)
					for i, g := range got {
						if first[i] == nil {
							first[i] = g
						} else if !mat.Equal(first[i], g) {
							t.Errorf("%s: product %d differs from one worker's", what, i)
						}
					}
				}
			}
		}
		restore()
	}
}

// keptRows on the SIMD paths matches its portable loops for every row
// count 1..9 (groups of four and single rows) and t = 1..3: the same
// float64 products of the same widened values in another order, so the
// dots within 2·γ_mp and the axpys (each element a chain of at most
// rows + 1 terms) within 2·γ_{rows+1} of each other relative to the
// magnitudes (γ_k ≈ k·2^−53).
func TestKeptKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	const mp = 48
	for _, acc := range accels() {
		if acc == accelPortable {
			continue
		}
		for tc := 1; tc <= 3; tc++ {
			for rows := 1; rows <= 9; rows++ {
				a := make([]float32, rows*mp)
				for i := range a {
					a[i] = float32(r.NormFloat64())
				}
				vc, y0 := make([]float64, tc*mp), make([]float64, tc*mp)
				for i := range vc {
					vc[i], y0[i] = r.NormFloat64(), r.NormFloat64()
				}
				gkv, wkv := make([]float64, tc*rows), make([]float64, tc*rows)
				gy, wy := append([]float64(nil), y0...), append([]float64(nil), y0...)
				keptRows(acc, a, rows, mp, tc, vc, gkv, gy, nil)
				keptRows(accelPortable, a, rows, mp, tc, vc, wkv, wy, nil)
				for c := range tc {
					for i := range rows {
						var mag float64
						for j := range mp {
							mag += math.Abs(float64(a[i*mp+j]) * vc[c*mp+j])
						}
						if d := math.Abs(gkv[c*rows+i] - wkv[c*rows+i]); d > 2*mp*0x1p-52*mag {
							t.Errorf("%v t=%d rows=%d: dot (%d, %d) = %v, want %v", acc, tc, rows, i, c, gkv[c*rows+i], wkv[c*rows+i])
						}
					}
					for j := range mp {
						mag := math.Abs(y0[c*mp+j])
						for i := range rows {
							mag += math.Abs(wkv[c*rows+i] * float64(a[i*mp+j]))
						}
						// The two kv differ by the dots' bound above, which
						// the magnitudes of the dots' terms times |a| cover.
						var magKV float64
						for i := range rows {
							var m2 float64
							for q := range mp {
								m2 += math.Abs(float64(a[i*mp+q]) * vc[c*mp+q])
							}
							magKV += 2 * mp * 0x1p-52 * m2 * math.Abs(float64(a[i*mp+j]))
						}
						if d := math.Abs(gy[c*mp+j] - wy[c*mp+j]); d > 2*float64(rows+1)*0x1p-52*mag+magKV {
							t.Errorf("%v t=%d rows=%d: y[%d, %d] = %v, want %v", acc, tc, rows, c, j, gy[c*mp+j], wy[c*mp+j])
						}
					}
				}
				// The axpys alone, from the same coefficients.
				gy2, wy2 := append([]float64(nil), y0...), append([]float64(nil), y0...)
				keptRows(acc, a, rows, mp, tc, nil, wkv, gy2, nil)
				keptRows(accelPortable, a, rows, mp, tc, nil, wkv, wy2, nil)
				for j := range gy2 {
					c := j / mp
					mag := math.Abs(y0[j])
					for i := range rows {
						mag += math.Abs(wkv[c*rows+i] * float64(a[i*mp+j%mp]))
					}
					if d := math.Abs(gy2[j] - wy2[j]); d > 2*float64(rows+1)*0x1p-53*mag {
						t.Errorf("%v t=%d rows=%d: axpy y[%d] = %v, want %v", acc, tc, rows, j, gy2[j], wy2[j])
					}
				}
			}
		}
	}
}

// What the kept products with few right-hand sides allocate (V column-major
// and as a panel, the partial sums, the works), all blocks kept or some, is
// at most ScratchBytes(max(t, 2)), which a FALKON fit keeping blocks plans.
func TestKeptScratchBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	const n, m, d = 500, 70, 40
	x, c := randDense(r, n, d), randDense(r, m, d)
	if NewOp(Gaussian{Gamma: 0.01}, x, c, Options{}).KeepRows(1<<30) == 0 {
		t.Skip("keeping blocks needs AVX-512 or AVX2")
	}
	ctx := context.Background()
	for _, tc := range []int{1, 2, keptMaxT(useAccel)} {
		v, u := randDense(r, m, tc), randDense(r, n, tc)
		for _, workers := range []int{1, 2} {
			for _, budget := range []int64{1 << 30, NewOp(Gaussian{Gamma: 0.01}, x, c, Options{}).KeepBytes(n / 2)} {
				op := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{Workers: workers})
				if _, err := op.Keep32(ctx, budget); err != nil {
					t.Fatal(err)
				}
				if err := op.MulTMul(ctx, mat.NewDense(m, tc, nil), v); err != nil { // prepares the Op
					t.Fatal(err)
				}
				for name, f := range map[string]func() error{
					"Mul":     func() error { return op.Mul(ctx, mat.NewDense(n, tc, nil), v) },
					"MulT":    func() error { return op.MulT(ctx, mat.NewDense(m, tc, nil), u) },
					"MulTMul": func() error { return op.MulTMul(ctx, mat.NewDense(m, tc, nil), v) },
				} {
					runtime.GC()
					runtime.GC()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					if err := f(); err != nil {
						t.Fatal(err)
					}
					runtime.ReadMemStats(&after)
					got := int64(after.TotalAlloc - before.TotalAlloc)
					if plan := op.ScratchBytes(max(tc, 2)); got > plan {
						t.Errorf("t=%d workers=%d budget %d: %s allocated %d bytes, ScratchBytes %d", tc, workers, budget, name, got, plan)
					}
				}
			}
		}
	}
}

// keptRows allocates nothing on the SIMD paths: its lanes and coefficients
// stay on its stack (the kernels are //go:noescape, called directly). It
// allocated the lanes once a call and the coefficients once every four
// rows and right-hand side before: 2,669 allocations a product at
// n = 10,000, t = 1 (BenchmarkMulTMulKept -benchmem).
func TestKeptRowsNoAlloc(t *testing.T) {
	const rows, mp, tc = 9, 48, 2
	a := make([]float32, rows*mp)
	vc, kv, y := make([]float64, tc*mp), make([]float64, tc*rows), make([]float64, tc*mp)
	for i := range a {
		a[i] = float32(i%7) - 3
	}
	for i := range vc {
		vc[i] = float64(i%5) - 2
	}
	for _, acc := range accels() {
		if acc == accelPortable {
			continue
		}
		if n := testing.AllocsPerRun(20, func() { keptRows(acc, a, rows, mp, tc, vc, kv, y, nil) }); n != 0 {
			t.Errorf("%v: %v allocations a call, want 0", acc, n)
		}
	}
}
