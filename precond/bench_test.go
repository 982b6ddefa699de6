package precond

import (
	"context"
	"math/rand/v2"
	"testing"

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
