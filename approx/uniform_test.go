package approx

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// levRandMatrix returns an n×d matrix of standard normal entries.
func levRandMatrix(n, d int, rng *rand.Rand) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, rng.NormFloat64())
		}
	}
	return x
}

func TestUniformDistinctSortedAndRows(t *testing.T) {
	x := levRandMatrix(50, 3, rand.New(rand.NewPCG(1, 2)))
	lm, err := Uniform{}.Sample(context.Background(), x, kernel.Gaussian{Gamma: 1}, 20, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if len(lm.Indices) != 20 || lm.Weights != nil {
		t.Fatalf("got %d indices, weights %v", len(lm.Indices), lm.Weights)
	}
	for i, r := range lm.Indices {
		if r < 0 || r >= 50 || (i > 0 && r <= lm.Indices[i-1]) {
			t.Fatalf("indices not distinct ascending in range: %v", lm.Indices)
		}
		if !mat.Equal(lm.Points.(*mat.Dense).RowView(i), x.RowView(r)) {
			t.Fatalf("landmark %d is not row %d of X", i, r)
		}
	}
	// m = n returns every row.
	all, err := Uniform{}.Sample(context.Background(), x, nil, 50, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range all.Indices {
		if r != i {
			t.Fatalf("m = n: index %d is %d", i, r)
		}
	}
}

// Each row must be picked with probability m/n. Over T draws the count of a
// row is Binomial(T, m/n); we check every count is within 5 standard
// deviations (a false alarm has probability < 1e-4 over the 20 rows).
func TestUniformIsUniform(t *testing.T) {
	const n, m, trials = 20, 5, 4000
	x := levRandMatrix(n, 2, rand.New(rand.NewPCG(1, 1)))
	rng := rand.New(rand.NewPCG(7, 8))
	counts := make([]int, n)
	for range trials {
		lm, err := Uniform{}.Sample(context.Background(), x, nil, m, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range lm.Indices {
			counts[r]++
		}
	}
	p := float64(m) / n
	mean, sd := trials*p, math.Sqrt(trials*p*(1-p))
	for i, c := range counts {
		if math.Abs(float64(c)-mean) > 5*sd {
			t.Errorf("row %d picked %d times, want %.0f ± %.0f", i, c, mean, 5*sd)
		}
	}
}

func TestUniformDeterministic(t *testing.T) {
	x := levRandMatrix(1000, 2, rand.New(rand.NewPCG(1, 1)))
	a, _ := Uniform{}.Sample(context.Background(), x, nil, 100, rand.New(rand.NewPCG(9, 9)))
	b, _ := Uniform{}.Sample(context.Background(), x, nil, 100, rand.New(rand.NewPCG(9, 9)))
	for i := range a.Indices {
		if a.Indices[i] != b.Indices[i] {
			t.Fatal("same seed gave different samples")
		}
	}
}

func TestUniformBadInput(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 1))
	x := levRandMatrix(10, 2, rng)
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.NaN())
	cases := []struct {
		name string
		x    *mat.Dense
		k    kernel.Kernel
		m    int
		rng  *rand.Rand
	}{
		{"m=0", x, nil, 0, rng},
		{"m>n", x, nil, 11, rng},
		{"nan", nan, nil, 2, rng},
		{"empty", &mat.Dense{}, nil, 1, rng},
		{"nil x", nil, nil, 1, rng},
		{"bad kernel", x, kernel.Gaussian{Gamma: -1}, 2, rng},
		{"nil rng", x, nil, 2, nil},
	}
	for _, c := range cases {
		_, err := Uniform{}.Sample(ctx, c.x, c.k, c.m, c.rng)
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if c.name != "bad kernel" && !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: %v does not wrap check.ErrInput", c.name, err)
		}
		if c.name == "bad kernel" && !errors.Is(err, kernel.ErrParam) {
			t.Errorf("%s: %v does not wrap kernel.ErrParam", c.name, err)
		}
	}
}
