package approx

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// clLoad reads a shared dataset, keeping the first n rows and scaling all
// values by 1/scale; the benchmark is skipped when the file is absent.
func clLoad(b *testing.B, name string, n int, scale float64) *mat.Dense {
	b.Helper()
	path, ok := datasets.SharedPath(name)
	if !ok {
		b.Skipf("%s not found", name)
	}
	ds, err := datasets.ReadFile(path, datasets.ReadOptions{MaxRows: n})
	if err != nil {
		b.Fatal(err)
	}
	x := ds.X
	x.Scale(1/scale, x)
	return x
}

// BenchmarkKMeansCadata times k-means Nyström landmarks (M = 100) on all of
// cadata (standardized is not needed for timing).
func BenchmarkKMeansCadata(b *testing.B) {
	x := clLoad(b, "cadata.libsvm.gz", 0, 1)
	for b.Loop() {
		if _, err := (KMeansCenters{}).Sample(context.Background(), x, nil, 100, rand.New(rand.NewPCG(1, 1))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClusteredMNIST compares plain k-means Nyström with randomized
// clustered Nyström (default compression p/d = 0.1) on 20,000 MNIST training
// images scaled to [0, 1], M = 200 landmarks; each reports the relative
// Frobenius error of the resulting Nyström approximation on 500 sampled rows
// (metric "relfrob").
func BenchmarkClusteredMNIST(b *testing.B) {
	x := clLoad(b, "mnist.train.libsvm.gz", 20000, 255)
	k := kernel.Gaussian{Gamma: 0.02}
	for _, c := range []struct {
		name string
		s    Sampler
	}{{"uniform", Uniform{}}, {"kmeans", KMeansCenters{}}, {"clustered", RandomizedClustered{}}} {
		b.Run(c.name, func(b *testing.B) {
			var lm *Landmarks
			for b.Loop() {
				var err error
				lm, err = c.s.Sample(context.Background(), x, k, 200, rand.New(rand.NewPCG(1, 1)))
				if err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(clBenchErr(b, x, k, lm, 500), "relfrob")
		})
	}
}

// clBenchErr is the relative Frobenius error of standard Nyström from lm on
// rows sampled rows of K(x, x).
func clBenchErr(b *testing.B, x *mat.Dense, k kernel.Kernel, lm *Landmarks, rows int) float64 {
	ctx := context.Background()
	m, err := Nystrom{}.Fit(ctx, x, k, lm)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := x.Dims()
	idx := rand.New(rand.NewPCG(9, 9)).Perm(n)[:rows]
	xs := points.Gather(x, idx)
	kd := mat.NewDense(rows, n, nil)
	if err := kernel.NewOp(k, xs, x, kernel.Options{}).Block(ctx, kd); err != nil {
		b.Fatal(err)
	}
	fs := mat.NewDense(rows, m.Dim(), nil)
	fx := mat.NewDense(n, m.Dim(), nil)
	if err := m.Transform(ctx, fs, xs); err != nil {
		b.Fatal(err)
	}
	if err := m.Transform(ctx, fx, x); err != nil {
		b.Fatal(err)
	}
	var kt mat.Dense
	kt.Mul(fs, fx.T())
	return nyFrob(kd, &kt) / mat.Norm(kd, 2)
}
