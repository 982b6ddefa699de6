package examples_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// smooth returns a seeded train/test pair of datasets.Smooth (y = f(x) + ε on
// [−1, 1]^2, noise σ = 0.1 unless noiseless), the problem most regression
// tests here use: small enough for exact KRR, smooth enough that every
// backend should get close to the noise floor.
func smooth(t *testing.T, nTrain, nTest int, noiseless bool, seed uint64) (train, test *datasets.Dataset) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	d, err := datasets.Smooth{N: nTrain + nTest, Noiseless: noiseless}.Generate(rng)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, d.Len())
	for i := range idx {
		idx[i] = i
	}
	train, err = d.Subset(idx[:nTrain])
	if err != nil {
		t.Fatal(err)
	}
	test, err = d.Subset(idx[nTrain:])
	if err != nil {
		t.Fatal(err)
	}
	return train, test
}

// rmse is the root-mean-square difference of two equal-length slices.
func rmse(t *testing.T, a, b []float64) float64 {
	t.Helper()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("rmse of lengths %d and %d", len(a), len(b))
	}
	var s float64
	for i := range a {
		s += (a[i] - b[i]) * (a[i] - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}

// accuracy is the fraction of equal entries.
func accuracy(t *testing.T, y, pred []float64) float64 {
	t.Helper()
	if len(y) != len(pred) || len(y) == 0 {
		t.Fatalf("accuracy of lengths %d and %d", len(y), len(pred))
	}
	ok := 0
	for i := range y {
		if y[i] == pred[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(y))
}

// maxRelDiff is max_i |a_i − b_i| / max(1, max_i |b_i|).
func maxRelDiff(a, b []float64) float64 {
	scale, diff := 1.0, 0.0
	for i := range b {
		scale = math.Max(scale, math.Abs(b[i]))
	}
	for i := range a {
		diff = math.Max(diff, math.Abs(a[i]-b[i]))
	}
	return diff / scale
}

// gram returns K(a, b) evaluated entry by entry with k.Eval: the brute-force
// reference the estimators' blocked engines are compared with.
func gram(k kernel.Kernel, a, b *mat.Dense) *mat.Dense {
	ra, _ := a.Dims()
	rb, _ := b.Dims()
	g := mat.NewDense(ra, rb, nil)
	for i := range ra {
		for j := range rb {
			g.Set(i, j, k.Eval(a.RawRowView(i), b.RawRowView(j)))
		}
	}
	return g
}

// rows returns the rows idx of x as a new dense matrix.
func rows(x *mat.Dense, idx []int) *mat.Dense {
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		out.SetRow(i, x.RawRowView(r))
	}
	return out
}
