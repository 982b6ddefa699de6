package kernel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/cputime"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkSparseCentersManpages times the fused Gaussian product Kᵀ(K v)
// (γ = 1) of the manpages training rows (2,500, d = 2²⁰ hashed text, 255
// non-zeros a row) against M = 2,000 of them held CSR, the shape of the
// manpages Falkon fit in docs/performance.md, "Falkon on wide sparse text", with the heavy columns of
// the centers (at least M/div entries) dense for div = 0 (the scatter
// alone), 4, 8, 16, 32. Skipped without the shared data set.
func BenchmarkSparseCentersManpages(b *testing.B) {
	ctx := context.Background()
	path, ok := datasets.SharedPath("manpages.train.libsvm.gz")
	if !ok {
		b.Skip("manpages.train.libsvm.gz not found")
	}
	x, _, err := datasets.ReadLIBSVMSparseFile(ctx, path, 0)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := x.Dims()
	const m = 2000
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i * n / m
	}
	c := kernel.SubsetRows(x, idx)
	v := mat.NewDense(m, 1, nil)
	for i := range m {
		v.Set(i, 0, float64(i%7)-3)
	}
	dst := mat.NewDense(m, 1, nil)
	defer func(h int) { *kernel.HeavyDiv = h }(*kernel.HeavyDiv)
	for _, div := range []int{0, 4, 8, 16, 32} {
		b.Run(fmt.Sprintf("div=%d", div), func(b *testing.B) {
			*kernel.HeavyDiv = div
			op := kernel.NewOp(kernel.Gaussian{Gamma: 1}, x, c, kernel.Options{})
			if err := op.MulTMul(ctx, dst, v); err != nil {
				b.Fatal(err)
			}
			c0 := int64(cputime.Process())
			for b.Loop() {
				if err := op.MulTMul(ctx, dst, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(int64(cputime.Process())-c0)/1e9/float64(b.N), "cpu-s/op")
		})
	}
}
