package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkFalkonKeep times Falkon fits with K_nM's blocks recomputed at
// every pass (NeverCacheKnm) and kept (CacheKnm) on 30,000 standard normal
// rows, M = 1,000, 20 CG iterations, γ = 0.5/d, one output (labels ±1)
// and ten (labels 0…9, one-vs-all): where keeping starts to pay, the
// measurement behind autoKeepMinDim (docs/performance.md, "Falkon's K_nM
// kept in float64"). Run with -benchtime 2x and compare the best.
func BenchmarkFalkonKeep(b *testing.B) {
	const n, m = 30000, 1000
	for _, d := range []int{16, 32, 64, 128, 256} {
		rng := rand.New(rand.NewPCG(1, uint64(d)))
		x := mat.NewDense(n, d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		for _, outputs := range []int{1, 10} {
			y := make([]float64, n)
			for i := range y {
				if outputs == 1 {
					y[i] = float64(2*(i%2) - 1)
				} else {
					y[i] = float64(i % 10)
				}
			}
			for _, kept := range []bool{false, true} {
				name := fmt.Sprintf("d=%d/t=%d/kept=%v", d, outputs, kept)
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						f := Falkon{Kernel: kernel.Gaussian{Gamma: 0.5 / float64(d)}, Lambda: 1e-6, M: m, MaxIter: 20, Tol: 1e-300,
							Task: Classification, CacheKnm: kept, NeverCacheKnm: !kept}
						if err := f.Fit(context.Background(), x, y); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
