package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMulTMul measures the fused K(X,C)ᵀ(K(X,C)v) of issue 2's benchmark
// (Gaussian, n = 100,000, M = 2,000, γ = 1/d) with each set of inner kernels
// this CPU can run (avx512, avx2, portable Go), and in float32 mode. Flops are
// counted as 2nMd for the distance product plus 4nM for the two products
// with v (exp and the norm terms not counted), as for "landmark bench kernel".
func BenchmarkMulTMul(b *testing.B) {
	const n, m = 100_000, 2_000
	for _, d := range []int{8, 54, 784} {
		r := rand.New(rand.NewPCG(1, uint64(d)))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		dst := mat.NewDense(m, 1, nil)
		type mode struct {
			a   accel
			f32 bool
		}
		modes := []mode{{bestAccel, true}}
		for a := bestAccel; a >= accelPortable; a-- {
			modes = append(modes, mode{a, false})
		}
		for _, md := range modes {
			name := md.a.String()
			if md.f32 {
				name += "-f32"
			}
			b.Run(fmt.Sprintf("d=%d/%s", d, name), func(b *testing.B) {
				defer setAccel(md.a)()
				op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, Options{Float32: md.f32})
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
