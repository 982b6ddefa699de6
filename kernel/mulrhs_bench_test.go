package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMulManyRHS times K(X, C)·V with many right-hand sides, the shape
// of a Nyström feature transform (V = T, M×r) and of multi-output fits:
// n = 20,000, d = 54, M = 1,000, t = 10 and 1,000, reported as GFLOP/s of
// the product alone (2·n·M·t); and the multi-output pass K(X, C)ᵀ(K(X, C)·V)
// of a ten-class fit (t = 10, 4·n·M·t). Run with LANDMARK_SIMD=avx2 for the
// AVX2 tiles on an AVX-512 CPU.
func BenchmarkMulManyRHS(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, m = 20000, 54, 1000
	x, c := mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	for _, a := range []*mat.Dense{x, c} {
		for i := range a.RawMatrix().Data {
			a.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	for _, t := range []int{10, 1000} {
		v := mat.NewDense(m, t, nil)
		for i := range v.RawMatrix().Data {
			v.RawMatrix().Data[i] = rng.NormFloat64()
		}
		dst := mat.NewDense(n, t, nil)
		op := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{})
		b.Run(fmt.Sprintf("t=%d", t), func(b *testing.B) {
			for range b.N {
				if err := op.Mul(context.Background(), dst, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(n)*m*float64(t)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		if t > 16 {
			continue
		}
		out := mat.NewDense(m, t, nil)
		b.Run(fmt.Sprintf("MulTMul/t=%d", t), func(b *testing.B) {
			for range b.N {
				if err := op.MulTMul(context.Background(), out, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(4*float64(n)*m*float64(t)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
