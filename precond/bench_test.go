package precond

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/cputime"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkBuildFalkon builds the preconditioner from the Gaussian K_MM of
// M = 2,000 random points in 10 dimensions (γ = 1/10); GFLOP/s counts the
// M³ flops of its two Cholesky factorizations and LᵀL. "landmark bench
// linalg" runs it at M = 2,000, 5,000 and 10,000.
func BenchmarkBuildFalkon(b *testing.B) {
	for _, p := range []Precision{PrecisionFloat64, PrecisionFloat32} {
		b.Run(string(p), func(b *testing.B) { benchBuild(b, 2000, p) })
	}
}

// BenchmarkBuildFalkon10k is BenchmarkBuildFalkon at M = 10,000 (1.6 GB
// in float64; for CPU times and profiles of one build: go test -run X
// -bench BuildFalkon10k/float32 -benchtime 1x -cpuprofile …).
func BenchmarkBuildFalkon10k(b *testing.B) {
	for _, p := range []Precision{PrecisionFloat64, PrecisionFloat32} {
		b.Run(string(p), func(b *testing.B) { benchBuild(b, 10000, p) })
	}
}

func benchBuild(b *testing.B, m int, prec Precision) {
	r := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(m, 10, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	k := mat.NewDense(m, m, nil)
	if err := kernel.NewOp(kernel.Gaussian{Gamma: 0.1}, x, x, kernel.Options{}).Block(context.Background(), k); err != nil {
		b.Fatal(err)
	}
	for i := range m {
		for j := range i {
			k.Set(i, j, k.At(j, i))
		}
	}
	kmm := mat.NewDense(m, m, nil)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		kmm.Copy(k)
		b.StartTimer()
		if _, err := BuildFalkon(kmm, 10*m, 1e-6, Options{Precision: prec}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m)*float64(m)*float64(m)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkMulKMM times Falkon.MulKMM, the product with K_MM that the
// Nyström operator applies once per CG iteration, at M = 10,000 with t = 1
// (regression, binary) and 10 (mnist's classes) right-hand sides. It reads
// K_MM's strict upper triangle, M(M−1)/2 float64 values: GB/s is that read
// per wall second, GB/cpu-s per CPU second of the process (the machine may
// be shared). K_MM here is a random symmetric matrix (MulKMM does not need
// it positive definite), so no build runs. One case:
//
//	go test ./precond -run '^$' -bench 'MulKMM/t=1$' -benchtime 20x
func BenchmarkMulKMM(b *testing.B) {
	const m = 10000
	r := rand.New(rand.NewPCG(3, 4))
	k := mat.NewDense(m, m, nil)
	raw := k.RawMatrix()
	diag := make([]float64, m)
	for i := range m {
		for j := i; j < m; j++ {
			raw.Data[i*raw.Stride+j] = r.Float64() - 0.5
		}
		diag[i] = raw.Data[i*raw.Stride+i]
	}
	f := &Falkon{kmm: k, diag: diag}
	for _, t := range []int{1, 10} {
		b.Run(fmt.Sprintf("t=%d", t), func(b *testing.B) {
			v, dst := mat.NewDense(m, t, nil), mat.NewDense(m, t, nil)
			for i := range v.RawMatrix().Data {
				v.RawMatrix().Data[i] = r.NormFloat64()
			}
			read := 8 * float64(m) * float64(m-1) / 2
			cpu0 := cpuSeconds()
			b.ResetTimer()
			for range b.N {
				if err := f.MulKMM(dst, v); err != nil {
					b.Fatal(err)
				}
			}
			cpu := cpuSeconds() - cpu0
			b.ReportMetric(read*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			b.ReportMetric(read*float64(b.N)/cpu/1e9, "GB/cpu-s")
			b.ReportMetric(cpu/float64(b.N)*1e3, "cpu-ms/op")
		})
	}
}

// cpuSeconds returns the user and system CPU time of the process so far.
func cpuSeconds() float64 { return cputime.Process().Seconds() }
