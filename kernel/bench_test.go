package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMulTMul measures the fused K(X,C)ᵀ(K(X,C)v) of issue 2's benchmark
// (Gaussian, n = 100,000, M = 2,000, γ = 1/d) with the inner kernels this CPU
// selects ("simd") and with the portable Go code ("portable"). Flops are
// counted as 2nMd for the distance product plus 4nM for the two products
// with v (exp and the norm terms not counted), as for "landmark bench kernel".
func BenchmarkMulTMul(b *testing.B) {
	const n, m = 100_000, 2_000
	for _, d := range []int{8, 54, 784} {
		r := rand.New(rand.NewPCG(1, uint64(d)))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		dst := mat.NewDense(m, 1, nil)
		for _, mode := range []string{"simd", "portable"} {
			b.Run(fmt.Sprintf("d=%d/%s", d, mode), func(b *testing.B) {
				defer setSIMD(mode == "simd")()
				op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, Options{})
				if err := op.MulTMul(context.Background(), dst, v); err != nil { // packs C
					b.Fatal(err)
				}
				b.ResetTimer()
				for b.Loop() {
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
				}
				flops := float64(n) * m * (2*float64(d) + 4)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
