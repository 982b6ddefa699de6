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
// seed); k-means and randomized clustered Nyström find the same centroids to
// 1e-12. The leverage-score estimates differ only by the rounding of the
// kernel values (1e-16 relative), far from any sampling threshold.
func TestSamplersSparseMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(91, 92))
	x, _, err := datasets.SparseRegression(500, 200, 8, rng)
	if err != nil {
		t.Fatal(err)
	}
	xd := x.ToDense()
	k := kernel.Gaussian{Gamma: 1.0 / 16} // squared distances ≈ 2·8 = 16
	for _, s := range []Sampler{Uniform{}, RecursiveRLS{}, RecursiveRLS{Accelerated: true}, BLESS{}, BLESSR{},
		KMeansCenters{}, RandomizedClustered{}, RandomizedClustered{Dim: 8}} {
		a, err := s.Sample(context.Background(), x, k, 40, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("%T on CSR: %v", s, err)
		}
		b, err := s.Sample(context.Background(), xd, k, 40, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatalf("%T dense: %v", s, err)
		}
		same := mat.Equal(a.Points, b.Points) // data rows, copied
		if a.Indices == nil {
			same = mat.EqualApprox(a.Points, b.Points, 1e-12) // centroids, summed
		}
		if !slices.Equal(a.Indices, b.Indices) || !same {
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

// TestQualitySparseMatchesDense: the error measures keep CSR data sparse and
// agree with the dense path, and both agree with the definition. With
// rows = n, RelFrobeniusError on CSR rows equals ‖K − K̃‖_F/‖K‖_F formed
// from the full kernel matrix by naive loops to 1e-10 relative (the engine's
// ‖x‖² + ‖c‖² − 2x·c and the naive ‖x − c‖² differ by round-off only). On a
// sampled subset, CSR and dense give the same Frobenius and spectral errors to
// 1e-10 relative (the same rng draws the same rows; Lanczos then sees
// matrices equal to round-off). The feature rows come from a CSR transform
// too (NewFeatureRows).
func TestQualitySparseMatchesDense(t *testing.T) {
	ctx := context.Background()
	x, _, err := datasets.SparseRegression(300, 120, 6, rand.New(rand.NewPCG(17, 18)))
	if err != nil {
		t.Fatal(err)
	}
	xd := x.ToDense()
	n, _ := xd.Dims()
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 1.0 / 12}, kernel.Laplacian{Gamma: 0.1}, kernel.Polynomial{Gamma: 0.2, Coef0: 1, Degree: 2}} {
		lm, err := Uniform{}.Sample(ctx, x, k, 30, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		nm, err := Nystrom{}.Fit(ctx, x, k, lm)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := NewFeatureRows(ctx, nm, x)
		if err != nil {
			t.Fatal(err)
		}
		rd, err := NewFeatureRows(ctx, nm, xd)
		if err != nil {
			t.Fatal(err)
		}
		// The definition, from the full matrices.
		phi := mat.NewDense(n, nm.Dim(), nil)
		if err := nm.Transform(ctx, phi, xd); err != nil {
			t.Fatal(err)
		}
		var kt mat.Dense
		kt.Mul(phi, phi.T())
		var num, den float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				v := k.Eval(xd.RawRowView(i), xd.RawRowView(j))
				num += (v - kt.At(i, j)) * (v - kt.At(i, j))
				den += v * v
			}
		}
		want := math.Sqrt(num / den)
		got, err := RelFrobeniusError(ctx, x, k, rs, n, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(got-want) <= 1e-10*want) || !(want > 1e-4) {
			t.Errorf("%v: Frobenius error on CSR, all rows: %.15g, from the full matrices %.15g", k, got, want)
		}
		fs, err := RelFrobeniusError(ctx, x, k, rs, 100, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		fd, err := RelFrobeniusError(ctx, xd, k, rd, 100, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(fs-fd) <= 1e-10*fd) {
			t.Errorf("%v: sampled Frobenius error: CSR %.15g, dense %.15g", k, fs, fd)
		}
		ss, err := SpectralError(ctx, x, k, rs, 150, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		sd, err := SpectralError(ctx, xd, k, rd, 150, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(ss.Error-sd.Error) <= 1e-10*sd.Error) || !(math.Abs(ss.Norm-sd.Norm) <= 1e-10*sd.Norm) || !(sd.Error > 0) {
			t.Errorf("%v: spectral error: CSR %.15g (‖K‖ %.15g), dense %.15g (‖K‖ %.15g)", k, ss.Error, ss.Norm, sd.Error, sd.Norm)
		}
		t.Logf("%v: Frobenius %.6g (definition %.6g), sampled %.6g, spectral %.6g of ‖K‖ %.6g", k, got, want, fs, ss.Error, ss.Norm)
	}
}
