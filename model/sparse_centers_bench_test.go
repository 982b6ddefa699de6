package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkSparseCentersReal times the fused Gaussian product Kᵀ(K v) on
// real column distributions, centers held CSR or dense: mnist (10,000 test
// rows, pixels / 255, density 0.19, M = 1,000 of its rows) and the
// news20-shaped SyntheticText (4,000 rows, d = 1,355,191, Zipf columns,
// M = 500; dense centers only where they fit, they take 5.4 GB here, so
// the text case times the sparse form alone).
func BenchmarkSparseCentersReal(b *testing.B) {
	ctx := context.Background()
	run := func(name string, x kernel.Sparse, c kernel.Sparse, dense bool, g float64) {
		m, _ := c.Dims()
		v := mat.NewDense(m, 1, nil)
		for i := range m {
			v.Set(i, 0, float64(i%7)-3)
		}
		dst := mat.NewDense(m, 1, nil)
		forms := []mat.Matrix{c}
		if dense {
			forms = append(forms, kernel.DenseOf(c))
		}
		for _, cm := range forms {
			b.Run(fmt.Sprintf("%s/%s", name, CenterForm(cm)[:5]), func(b *testing.B) {
				op := kernel.NewOp(kernel.Gaussian{Gamma: g}, x, cm, kernel.Options{})
				if err := op.MulTMul(ctx, dst, v); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if err := op.MulTMul(ctx, dst, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
	if p, ok := datasets.SharedPath("mnist.test.libsvm.gz"); ok {
		x, _, err := datasets.ReadLIBSVMSparseFile(ctx, p, 784)
		if err != nil {
			b.Fatal(err)
		}
		scale := make([]float64, 784)
		for j := range scale {
			scale[j] = 1.0 / 255
		}
		if x, err = x.ScaleColumns(scale); err != nil {
			b.Fatal(err)
		}
		idx := make([]int, 1000)
		for i := range idx {
			idx[i] = i * 10
		}
		c := kernel.SubsetRows(x, idx)
		b.Logf("mnist centers: density %.3f", density(c))
		run("mnist", x, c, true, 0.02)
	}
	x, _, err := datasets.SyntheticText(rand.New(rand.NewPCG(1, 2)), datasets.TextOptions{Rows: 4000})
	if err != nil {
		b.Fatal(err)
	}
	idx := make([]int, 500)
	for i := range idx {
		idx[i] = i * 8
	}
	c := kernel.SubsetRows(x, idx)
	b.Logf("text centers: density %.2g", density(c))
	run("text", x, c, false, 1)
}

func density(c kernel.Sparse) float64 {
	m, d := c.Dims()
	p, _, _ := c.CSR()
	return float64(p[m]) / float64(m) / float64(d)
}
