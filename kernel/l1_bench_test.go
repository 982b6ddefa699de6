package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkLaplacian measures the Laplacian kernel's fused pass
// K(X,C)ᵀ(K(X,C)v) (n = 10,000, M = 2,000, γ = 1/d) with each set of inner
// kernels this CPU can run; "portable" is the scalar Go path the SIMD tiles
// replaced. It reports G feature-pairs (n·M·d) per CPU-second of the process
// (cpu-s/op is the CPU time of all threads: on a shared machine the fair
// measure). Run with -count to interleave the paths:
//
//	go test ./kernel -run '^$' -bench 'Laplacian$' -count 3
func BenchmarkLaplacian(b *testing.B) {
	const n, m = 10_000, 2_000
	for _, d := range []int{8, 54, 784} {
		r := rand.New(rand.NewPCG(2, uint64(d)))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		dst := mat.NewDense(m, 1, nil)
		for a := bestAccel; a >= accelPortable; a-- {
			if d == 784 && a == accelPortable {
				continue // 16 s a call
			}
			b.Run(fmt.Sprintf("d=%d/%s", d, a), func(b *testing.B) {
				defer setAccel(a)()
				op := NewOp(Laplacian{Gamma: 1 / float64(d)}, x, c, Options{})
				if err := op.MulTMul(context.Background(), dst, v); err != nil { // packs C
					b.Fatal(err)
				}
				b.ResetTimer()
				c0 := processCPU()
				for b.Loop() {
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
				}
				cpu := float64(processCPU()-c0) / 1e9 / float64(b.N)
				b.ReportMetric(float64(n)*m*float64(d)/cpu/1e9, "Gpairs/cpu-s")
				b.ReportMetric(cpu, "cpu-s/op")
			})
		}
	}
}

// BenchmarkLaplacianBlock measures Laplacian.Block (1,000 × 2,000, d = 54,
// one goroutine) with each set of inner kernels: G feature-pairs per
// CPU-second of the thread.
func BenchmarkLaplacianBlock(b *testing.B) {
	const n, m, d = 1_000, 2_000, 54
	r := rand.New(rand.NewPCG(3, d))
	x, c := randDense(r, n, d), randDense(r, m, d)
	dst := mat.NewDense(n, m, nil)
	k := Laplacian{Gamma: 1.0 / d}
	for a := bestAccel; a >= accelPortable; a-- {
		b.Run(fmt.Sprintf("d=%d/%s", d, a), func(b *testing.B) {
			defer setAccel(a)()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0 := threadCPU()
			for b.Loop() {
				k.Block(dst, x, c)
			}
			cpu := float64(threadCPU()-c0) / 1e9 / float64(b.N)
			b.ReportMetric(float64(n)*m*d/cpu/1e9, "Gpairs/cpu-s")
			b.ReportMetric(cpu, "cpu-s/op")
		})
	}
}

// BenchmarkLaplacianSparseX times the fused pass Kᵀ(K v) of the Laplacian
// with CSR X (n = 4,000, M = 1,000 dense centers) against the same X held
// dense, at densities below and above sparseDenseFrom: below it the sparse
// merge runs, above it the blocks are expanded to dense for the L1 tiles.
//
//	go test ./kernel -run '^$' -bench 'LaplacianSparseX' -benchtime 2x
func BenchmarkLaplacianSparseX(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, m = 4000, 1000
	for _, d := range []int{54, 784} {
		for _, dens := range []float64{0.05, 0.2} {
			s := fastCSR(rng, n, d, dens)
			xd := mat.DenseCopyOf(s)
			c := mat.DenseCopyOf(xd.Slice(0, m, 0, d))
			v := randDense(rng, m, 1)
			dst := mat.NewDense(m, 1, nil)
			for _, mode := range []string{"csr", "dense"} {
				var x mat.Matrix = s
				if mode == "dense" {
					x = xd
				}
				b.Run(fmt.Sprintf("d=%d/density=%.2f/%s", d, dens, mode), func(b *testing.B) {
					op := NewOp(Laplacian{Gamma: 1 / float64(d)}, x, c, Options{})
					c0 := processCPU()
					for b.Loop() {
						if err := op.MulTMul(context.Background(), dst, v); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(processCPU()-c0)/1e9/float64(b.N), "cpu-s/op")
				})
			}
		}
	}
}
