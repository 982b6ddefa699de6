package approx

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestSamplersSparseMatchDense: uniform, recursive RLS (fixed size and
// accelerated), BLESS and BLESS-R draw the same landmarks, with the same
// weights to 1e-10 relative, from CSR rows as from their dense copy (same
// seed). The leverage-score estimates differ only by the rounding of the
// kernel values (1e-16 relative), far from any sampling threshold.
func TestSamplersSparseMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	x, _, err := datasets.SparseRegression(500, 200, 8, rng)
	if err != nil {
		t.Fatal(err)
	}
	xd := x.ToDense()
	k := kernel.Gaussian{Gamma: 1.0 / 16} // squared distances ≈ 2·8 = 16
	for _, s := range []Sampler{Uniform{}, RecursiveRLS{}, RecursiveRLS{Accelerated: true}, BLESS{}, BLESSR{}} {
		a, err := s.Sample(context.Background(), x, k, 40, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("%T on CSR: %v", s, err)
		}
		b, err := s.Sample(context.Background(), xd, k, 40, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("%T dense: %v", s, err)
		}
		if !slices.Equal(a.Indices, b.Indices) || !mat.Equal(a.Points, b.Points) {
			t.Fatalf("%T: sparse and dense draws differ: %v vs %v", s, a.Indices, b.Indices)
		}
		for i := range a.Weights {
			if math.Abs(a.Weights[i]-b.Weights[i]) > 1e-10*math.Abs(b.Weights[i]) {
				t.Fatalf("%T: weight %d: %v vs %v", s, i, a.Weights[i], b.Weights[i])
			}
		}
	}
}

// TestTransformSparseColumns: the feature maps refuse a sparse row with a
// non-zero beyond the fitted dimension and read a CSR that only declares
// more columns as fitted-dimensional; RFF and Nyström features of CSR rows
// equal those of the dense rows to 1e-12.
func TestTransformSparseColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(93, 94))
	const d = 30
	x, _, err := datasets.SparseRegression(50, d, 4, rng)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 0.1}
	rff, err := RFF{Features: 40}.Fit(k, d, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	lm, err := Uniform{}.Sample(context.Background(), x, k, 10, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	ny, err := Nystrom{}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	beyond, _ := datasets.NewCSR(1, d+1, []int{0, 1}, []int32{d}, []float64{1})
	wide, _ := datasets.NewCSR(1, d+5, []int{0, 2}, []int32{1, 9}, []float64{1, 2})
	narrow, _ := datasets.NewCSR(1, d, []int{0, 2}, []int32{1, 9}, []float64{1, 2})
	for _, fm := range []FeatureMap{rff, ny} {
		r := fm.Dim()
		if err := fm.Transform(context.Background(), mat.NewDense(1, r, nil), beyond); !errors.Is(err, check.ErrInput) {
			t.Fatalf("%T: non-zero at column %d: %v", fm, d, err)
		}
		a, b := mat.NewDense(1, r, nil), mat.NewDense(1, r, nil)
		if err := fm.Transform(context.Background(), a, wide); err != nil {
			t.Fatalf("%T: wide CSR: %v", fm, err)
		}
		if err := fm.Transform(context.Background(), b, narrow); err != nil || !mat.Equal(a, b) {
			t.Fatalf("%T: wide CSR maps differently (%v)", fm, err)
		}
		fs, fd := mat.NewDense(50, r, nil), mat.NewDense(50, r, nil)
		if err := fm.Transform(context.Background(), fs, x); err != nil {
			t.Fatal(err)
		}
		if err := fm.Transform(context.Background(), fd, x.ToDense()); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(fs, fd, 1e-12) {
			t.Fatalf("%T: sparse and dense features differ", fm)
		}
	}
}
