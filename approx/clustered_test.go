package approx

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// clDense is K(x, x) through the kernel engine.
func clDense(t *testing.T, x *mat.Dense, k kernel.Kernel) *mat.Dense {
	t.Helper()
	n, _ := x.Dims()
	kd := mat.NewDense(n, n, nil)
	if err := kernel.NewOp(k, x, x, kernel.Options{}).Block(context.Background(), kd); err != nil {
		t.Fatal(err)
	}
	return kd
}

// clRelErr is ‖K − K̃‖_F/‖K‖_F for the full-rank standard Nyström map from lm.
func clRelErr(t *testing.T, x, kd *mat.Dense, k kernel.Kernel, lm *Landmarks) float64 {
	t.Helper()
	m, err := Nystrom{}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	return nyFrob(kd, nyApprox(t, m, x, x)) / mat.Norm(kd, 2)
}

func TestKMeansCentersAreCentroids(t *testing.T) {
	x, _ := synth.Dense(rand.New(rand.NewPCG(1, 1)), 500, 3, 5)
	lm, err := KMeansCenters{}.Sample(context.Background(), x, kernel.Gaussian{Gamma: 1}, 7, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cluster.KMeans{K: 7}.Fit(context.Background(), x, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(lm.Points, p.Centroids) || lm.Indices != nil || lm.Weights != nil {
		t.Fatal("landmarks are not the k-means centroids of the same seed")
	}
}

func TestRandomizedClusteredSketchDim(t *testing.T) {
	cases := []struct {
		s    RandomizedClustered
		d, p int
	}{
		{RandomizedClustered{}, 784, 79}, // ⌈0.1·784⌉
		{RandomizedClustered{}, 5, 5},    // min(d, 16)
		{RandomizedClustered{}, 54, 16},  // ⌈5.4⌉ raised to 16
		{RandomizedClustered{Compression: 0.1}, 54, 6},
		{RandomizedClustered{Compression: 0.5}, 9, 5},
		{RandomizedClustered{Dim: 12, Compression: 0.5}, 9, 12},
	}
	for _, c := range cases {
		if got := c.s.SketchDim(c.d); got != c.p {
			t.Errorf("%+v d=%d: p = %d, want %d", c.s, c.d, got, c.p)
		}
	}
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for _, s := range []RandomizedClustered{{Dim: -1}, {Compression: 2}, {Compression: -0.1}} {
		if _, err := s.Sample(context.Background(), x, nil, 2, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, check.ErrInput) {
			t.Errorf("%+v: err = %v", s, err)
		}
	}
	if _, err := (KMeansCenters{}).Sample(context.Background(), x, kernel.Gaussian{}, 2, rand.New(rand.NewPCG(1, 1))); !errors.Is(err, check.ErrInput) {
		t.Errorf("invalid kernel: err = %v", err)
	}
}

// TestClusteredNystromAccuracy checks the accuracy claim of Pourkamali-Anaraki
// & Becker (their Fig. 4–5): k-means landmarks approximate K better than
// uniform ones, and the randomized sketch loses little of that. On 10
// Gaussian blobs in 40 dimensions, sketched to p = 8 (γ = 0.2).
func TestClusteredNystromAccuracy(t *testing.T) {
	x, _ := synth.Dense(rand.New(rand.NewPCG(6, 6)), 800, 40, 10)
	k := kernel.Gaussian{Gamma: 1.0 / 400}
	ctx := context.Background()
	kd := clDense(t, x, k)
	var eu, ek, ec float64
	const seeds = 3
	for s := uint64(0); s < seeds; s++ {
		for _, c := range []struct {
			smp Sampler
			acc *float64
		}{{Uniform{}, &eu}, {KMeansCenters{}, &ek}, {RandomizedClustered{Compression: 0.2}, &ec}} {
			lm, err := c.smp.Sample(ctx, x, k, 20, rand.New(rand.NewPCG(s, 3)))
			if err != nil {
				t.Fatal(err)
			}
			*c.acc += clRelErr(t, x, kd, k, lm) / seeds
		}
	}
	t.Logf("relative Frobenius error, M = 20: uniform %.4f, k-means %.4f, randomized clustered %.4f", eu, ek, ec)
	if !(ek < eu) {
		t.Errorf("k-means error %g not below uniform %g", ek, eu)
	}
	// "Little accuracy lost": within 25% of plain k-means and still below
	// uniform. The paper's Fig. 5 shows the sketched error within a few
	// percent of the unsketched at γ = 0.2.
	if !(ec < 1.25*ek && ec < eu) {
		t.Errorf("randomized clustered error %g vs k-means %g, uniform %g", ec, ek, eu)
	}
}

// TestClusteredNystromMNIST repeats the accuracy check on 1,000 MNIST test
// images (scaled to [0, 1]), the paper's high-dimensional case, with the
// default compression γ = 0.1 (p = 79 of d = 784).
func TestClusteredNystromMNIST(t *testing.T) {
	if testing.Short() {
		t.Skip("reads MNIST")
	}
	path, ok := datasets.SharedPath("mnist.test.libsvm.gz")
	if !ok {
		t.Skip("mnist.test.libsvm.gz not found")
	}
	ds, err := datasets.ReadLIBSVMFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, d := ds.X.Dims()
	x := mat.NewDense(1000, d, nil)
	for i := 0; i < 1000; i++ {
		row := x.RawRowView(i)
		for j, v := range ds.X.RawRowView(i * 10) {
			row[j] = v / 255
		}
	}
	// γ = 1/(2σ²) with σ² ≈ half the mean squared distance between MNIST
	// images in [0, 1] (about 100): a kernel that is neither ≈ I nor ≈ 11ᵀ.
	k := kernel.Gaussian{Gamma: 0.02}
	ctx := context.Background()
	kd := clDense(t, x, k)
	var eu, ek, ec float64
	const seeds = 1
	for s := uint64(0); s < seeds; s++ {
		for _, c := range []struct {
			smp Sampler
			acc *float64
		}{{Uniform{}, &eu}, {KMeansCenters{}, &ek}, {RandomizedClustered{}, &ec}} {
			lm, err := c.smp.Sample(ctx, x, k, 50, rand.New(rand.NewPCG(s, 3)))
			if err != nil {
				t.Fatal(err)
			}
			*c.acc += clRelErr(t, x, kd, k, lm) / seeds
		}
	}
	t.Logf("MNIST relative Frobenius error, M = 50: uniform %.4f, k-means %.4f, randomized clustered %.4f", eu, ek, ec)
	if !(ek < eu && ec < eu && ec < 1.25*ek) {
		t.Errorf("errors: uniform %g, k-means %g, randomized clustered %g", eu, ek, ec)
	}
}
