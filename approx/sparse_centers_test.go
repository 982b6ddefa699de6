package approx

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestRowSamplersReturnCSR: the samplers that return data rows hand back
// CSR rows (*kernel.CSRRows) for CSR X — copies of exactly the rows named
// by Indices — and dense rows for dense X; on CSR X at least a quarter
// non-zero they hand back dense rows (kernel.PreferDenseCenters).
func TestRowSamplersReturnCSR(t *testing.T) {
	rng := rand.New(rand.NewPCG(101, 102))
	x, _, err := datasets.SparseRegression(300, 200, 8, rng) // density 0.04
	if err != nil {
		t.Fatal(err)
	}
	xd := x.ToDense()
	k := kernel.Gaussian{Gamma: 1.0 / 16}
	for _, s := range []Sampler{Uniform{}, ExactRLS{}, RecursiveRLS{}, RecursiveRLS{Accelerated: true}, BLESS{}, BLESSR{}} {
		lm, err := s.Sample(context.Background(), x, k, 30, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatalf("%T: %v", s, err)
		}
		pts, ok := lm.Points.(*kernel.CSRRows)
		if !ok {
			t.Fatalf("%T on CSR X: points are %T, want *kernel.CSRRows", s, lm.Points)
		}
		if r, c := pts.Dims(); r != len(lm.Indices) || c != 200 {
			t.Fatalf("%T: points %d×%d for %d indices", s, r, c, len(lm.Indices))
		}
		want := mat.NewDense(len(lm.Indices), 200, nil)
		for j, i := range lm.Indices {
			want.SetRow(j, xd.RawRowView(i))
		}
		if !mat.Equal(kernel.DenseOf(pts), want) {
			t.Fatalf("%T: CSR landmarks are not the rows named by Indices", s)
		}
		ld, err := s.Sample(context.Background(), xd, k, 30, rand.New(rand.NewPCG(7, 8)))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := ld.Points.(*mat.Dense); !ok {
			t.Fatalf("%T on dense X: points are %T", s, ld.Points)
		}
	}
	dense, _, err := datasets.SparseRegression(100, 20, 6, rng) // density 0.3
	if err != nil {
		t.Fatal(err)
	}
	lm, err := Uniform{}.Sample(context.Background(), dense, nil, 10, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lm.Points.(*mat.Dense); !ok {
		t.Fatalf("CSR X of density 0.3: points are %T, want dense", lm.Points)
	}
}

// TestNystromSparseLandmarks: a Nyström map on CSR landmarks (standard and
// QR) transforms CSR and dense rows as the map on the same landmarks held
// dense, to 1e-12 relative (the kernel values differ by summation order
// only); saved and loaded, it keeps its landmarks CSR and transforms to the
// same bits.
func TestNystromSparseLandmarks(t *testing.T) {
	rng := rand.New(rand.NewPCG(103, 104))
	x, _, err := datasets.SparseRegression(300, 500, 10, rng)
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 1.0 / 20}
	ctx := context.Background()
	lm, err := Uniform{}.Sample(ctx, x, k, 40, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lm.Points.(kernel.Sparse); !ok {
		t.Fatalf("landmarks %T", lm.Points)
	}
	lmDense := &Landmarks{Points: kernel.DenseOf(lm.Points), Indices: lm.Indices}
	for _, qr := range []bool{false, true} {
		sm, err := Nystrom{QR: qr}.Fit(ctx, x, k, lm)
		if err != nil {
			t.Fatal(err)
		}
		dm, err := Nystrom{QR: qr}.Fit(ctx, x, k, lmDense)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := sm.Landmarks.(kernel.Sparse); !ok {
			t.Fatalf("qr %v: map landmarks %T, want CSR", qr, sm.Landmarks)
		}
		if sm.Dim() != dm.Dim() {
			t.Fatalf("qr %v: dims %d and %d", qr, sm.Dim(), dm.Dim())
		}
		got, want := mat.NewDense(300, sm.Dim(), nil), mat.NewDense(300, dm.Dim(), nil)
		if err := sm.Transform(ctx, got, x); err != nil {
			t.Fatal(err)
		}
		if err := dm.Transform(ctx, want, x.ToDense()); err != nil {
			t.Fatal(err)
		}
		// The eigenvectors of W are compared through φ: 1e-9 absolute on
		// features of size ~1 leaves room for the conditioning of W's
		// smallest kept eigenvalues (floor 1e-10·λ_max).
		if !mat.EqualApprox(got, want, 1e-9) {
			t.Fatalf("qr %v: sparse-landmark features differ from dense-landmark ones", qr)
		}
		var buf bytes.Buffer
		if err := SaveMap(&buf, sm); err != nil {
			t.Fatal(err)
		}
		back, err := LoadMap(&buf)
		if err != nil {
			t.Fatal(err)
		}
		bm := back.(*NystromMap)
		if _, ok := bm.Landmarks.(kernel.Sparse); !ok {
			t.Fatalf("loaded landmarks %T, want CSR", bm.Landmarks)
		}
		again := mat.NewDense(300, bm.Dim(), nil)
		if err := bm.Transform(ctx, again, x); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(again, got) {
			t.Fatalf("qr %v: loaded map transforms differently", qr)
		}
	}
}

// TestKMeansWideSparseRefused: k-means centroids of wide sparse data are
// dense K×d; with K = 100 at d = 10⁷ (8 GB for the centroids, the
// data 6 rows × 2 non-zeros) Fit refuses with ErrMemory naming the bytes,
// before allocating, and so do the k-means samplers; a MaxBytes that holds
// the plan lets a small case through.
func TestKMeansWideSparseRefused(t *testing.T) {
	const d = 10_000_000
	indptr := []int{0}
	var indices []int32
	var values []float64
	for i := 0; i < 200; i++ {
		indices = append(indices, int32(i), int32(d-1-i))
		values = append(values, 1, float64(i))
		indptr = append(indptr, len(values))
	}
	x, err := datasets.NewCSR(200, d, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	_, err = cluster.KMeans{K: 100}.Fit(context.Background(), x, rng)
	if !errors.Is(err, check.ErrMemory) || !strings.Contains(err.Error(), "bytes") {
		t.Fatalf("K = 100 at d = 10⁷: %v, want ErrMemory naming the bytes", err)
	}
	for _, s := range []Sampler{KMeansCenters{}, RandomizedClustered{Dim: 4}} {
		if _, err := s.Sample(context.Background(), x, nil, 100, rng); !errors.Is(err, check.ErrMemory) {
			t.Fatalf("%T: %v, want ErrMemory", s, err)
		}
	}
	// K = 2: the plan holds at least the dense 2×10⁷ centroids (160 MB)
	// and stays under the 2 GiB default MaxBytes, so the check lets it
	// through (not run: the planned bytes are what the check compares).
	if need := (cluster.KMeans{K: 2}).PlanBytes(200, d); need > cluster.DefaultKMeansMaxBytes || need < 2*d*8 {
		t.Fatalf("K = 2 plan %d bytes", need)
	}
}
