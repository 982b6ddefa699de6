package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Products with one right-hand side on kept float32 blocks (multi_kept.go)
// on every SIMD path that can keep blocks: against the same products of
// the kept values widened to float64 (the n×M matrix K32 of the rounded K)
// computed by gonum, and bit for bit the same for 1, 2 and 5 workers, all
// of K kept or part of it (the rest formed). Both sides sum the same
// float64 products of the same float32-rounded values, each in its own
// order: a sum of k terms in float64 is within γ_k = k·u/(1−k·u), u = 2^−53,
// of the exact one relative to the sum of the terms' magnitudes, and
// Kᵀ(K·v) nests sums of n and M terms, so the two differ by at most
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
	v, u := randDense(r, m, 1), randDense(r, n, 1)
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
				got := [3]*mat.Dense{mat.NewDense(n, 1, nil), mat.NewDense(m, 1, nil), mat.NewDense(m, 1, nil)}
				for _, err := range []error{op.Mul(ctx, got[0], v), op.MulT(ctx, got[1], u), op.MulTMul(ctx, got[2], v)} {
					if err != nil {
						t.Fatal(err)
					}
				}
				what := fmt.Sprintf("%v budget %d workers=%d (%d rows kept)", a, budget, workers, rows)
				checkClose(t, what+" K·v", got[0], kv, kvAbs, tol)
				checkClose(t, what+" Kᵀ·u", got[1], ktu, ktuAbs, tol)
				checkClose(t, what+" Kᵀ(K·v)", got[2], ktkv, ktkvAbs, tol)
				for i, g := range got {
					if first[i] == nil {
						first[i] = g
					} else if !mat.Equal(first[i], g) {
						t.Errorf("%s: product %d differs from one worker's", what, i)
					}
				}
			}
		}
		restore()
	}
}

// keptDots and keptAxpys on the SIMD paths match the portable loops on
// every row count 1..9 (groups of four and single rows): the same float64
// products of the same widened values, within 2·γ_mp (dots) and γ_rows
// (axpys, each element's chain of at most 9 FMAs) relative to the
// magnitudes.
func TestKeptKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	const mp = 48
	for _, acc := range accels() {
		if acc == accelPortable {
			continue
		}
		for rows := 1; rows <= 9; rows++ {
			a := make([]float32, rows*mp)
			for i := range a {
				a[i] = float32(r.NormFloat64())
			}
			v, s := make([]float64, mp), make([]float64, rows)
			for i := range v {
				v[i] = r.NormFloat64()
			}
			for i := range s {
				s[i] = r.NormFloat64()
			}
			got, want := make([]float64, 2*rows), make([]float64, 2*rows)
			keptDots(acc, a, rows, mp, v, got, 2)
			keptDots(accelPortable, a, rows, mp, v, want, 2)
			for i := range rows {
				var mag float64
				for j := range mp {
					mag += math.Abs(float64(a[i*mp+j]) * v[j])
				}
				if d := math.Abs(got[2*i] - want[2*i]); d > 2*mp*0x1p-52*mag {
					t.Errorf("%v rows=%d: dot %d = %v, want %v", acc, rows, i, got[2*i], want[2*i])
				}
			}
			y0 := make([]float64, mp)
			for i := range y0 {
				y0[i] = r.NormFloat64()
			}
			gy, wy := append([]float64(nil), y0...), append([]float64(nil), y0...)
			keptAxpys(acc, a, mp, s, gy)
			keptAxpys(accelPortable, a, mp, s, wy)
			for j := range mp {
				mag := math.Abs(y0[j])
				for i := range rows {
					mag += math.Abs(s[i] * float64(a[i*mp+j]))
				}
				if d := math.Abs(gy[j] - wy[j]); d > 2*float64(rows+1)*0x1p-53*mag {
					t.Errorf("%v rows=%d: axpy y[%d] = %v, want %v", acc, rows, j, gy[j], wy[j])
				}
			}
		}
	}
}
