package experiments

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestMapRows(t *testing.T) {
	// Streaming rows of φ(X)φ(X)ᵀ equal the dense product (5,000 rows span
	// two column blocks of 4,096), from dense and from CSR X.
	rng := rand.New(rand.NewPCG(1, 1))
	x := mat.NewDense(5000, 3, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	k := kernel.Gaussian{Gamma: 0.3}
	ctx := context.Background()
	lm, err := approx.Uniform{}.Sample(ctx, x, k, 15, rng)
	if err != nil {
		t.Fatal(err)
	}
	nm, err := approx.Nystrom{}.Fit(ctx, x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	phi := mat.NewDense(5000, nm.Dim(), nil)
	if err := nm.Transform(ctx, phi, x); err != nil {
		t.Fatal(err)
	}
	idx := []int{4999, 0, 17, 4096, 4095}
	got := mat.NewDense(len(idx), 5000, nil)
	if err := (&mapRows{f: nm, x: x}).Rows(ctx, got, idx); err != nil {
		t.Fatal(err)
	}
	for a, i := range idx {
		for j := 0; j < 5000; j++ {
			want := mat.Dot(phi.RowView(i), phi.RowView(j))
			// Same products, different blocking: rounding only.
			if math.Abs(got.At(a, j)-want) > 1e-12 {
				t.Fatalf("row %d col %d: %g, want %g", i, j, got.At(a, j), want)
			}
		}
	}
	// The same rows from X held as CSR (the sparse path's block slicing).
	xs, err := datasets.CSRFromDense(x)
	if err != nil {
		t.Fatal(err)
	}
	gotS := mat.NewDense(len(idx), 5000, nil)
	if err := (&mapRows{f: nm, x: xs}).Rows(ctx, gotS, idx); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(gotS, got, 1e-12) {
		t.Error("rows from CSR X differ from rows from dense X")
	}
	if err := (&mapRows{f: nm, x: x}).Rows(ctx, mat.NewDense(1, 5000, nil), []int{5000}); !errors.Is(err, check.ErrInput) {
		t.Errorf("row out of range: %v", err)
	}
}

// LoadApproximationData reads what the spec names: a bundled test part is
// its own rows (pendigits.test: 3,498, not the 7,494 of its training part),
// a training part its rows without the test part, and subsample keeps that
// many of them.
func TestLoadApproximationDataRows(t *testing.T) {
	for _, tc := range []struct {
		name      string
		subsample int
		rows      int
	}{{"pendigits.test", 0, 3498}, {"pendigits", 0, 7494}, {"pendigits", 500, 500}} {
		s := &Spec{Name: "a", Dataset: DatasetSpec{Name: tc.name, Subsample: tc.subsample},
			Approximation: &ApproximationSpec{Kernel: kernel.Spec{Type: "gaussian", Gamma: 1}, Methods: []string{"bka"}}}
		d, err := LoadApproximationData(t.Context(), s)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := d.X.Dims(); n != tc.rows || d.Storage != StorageDense || d.StorageWhy != "auto: bundled sets are dense" {
			t.Errorf("%s (subsample %d): %d rows, storage %s (%s); want %d rows, dense", tc.name, tc.subsample, n, d.Storage, d.StorageWhy, tc.rows)
		}
	}
}
