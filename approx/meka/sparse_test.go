package meka

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestBKASparseMatchesDense: FitBKA on CSR rows finds the dense fit's
// partition (k-means on CSR rows, far from any tie on these blobs) and forms
// the same diagonal blocks to 1e-12 relative; the blocks equal the kernel
// evaluated entry by entry; Rows and CrossMul (dense new points) agree too.
// 300 rows in 3 clusters makes blocks of about 100 rows, above points.Chunk
// (64), so the chunked sparse path is exercised across a chunk boundary.
func TestBKASparseMatchesDense(t *testing.T) {
	ctx := context.Background()
	x := synth.Sparse(rand.New(rand.NewPCG(21, 22)), 300, 80)
	xd := kernel.DenseOf(x)
	k := kernel.Gaussian{Gamma: 1.0 / 40}
	bs, err := FitBKA(ctx, x, k, BKAOptions{Clusters: 3}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	bd, err := FitBKA(ctx, xd, k, BKAOptions{Clusters: 3}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(bs.Partition().Labels, bd.Partition().Labels) {
		t.Fatal("sparse and dense partitions differ")
	}
	big := false
	for s := range bs.Stats().Sizes {
		gs, gd := bs.Block(s), bd.Block(s)
		mem := bs.Members(s)
		big = big || len(mem) > points.Chunk
		if !mat.EqualApprox(gs, gd, 1e-12) {
			t.Errorf("block %d differs between CSR and dense", s)
		}
		for i, a := range mem {
			for j, b := range mem {
				want := k.Eval(xd.RawRowView(a), xd.RawRowView(b))
				if math.Abs(gs.At(i, j)-want) > 1e-12 {
					t.Fatalf("block %d entry (%d, %d): %v, kernel %v", s, i, j, gs.At(i, j), want)
				}
			}
		}
	}
	if !big {
		t.Fatalf("no cluster larger than points.Chunk = %d (sizes %v): the chunk boundary is not exercised", points.Chunk, bs.Stats().Sizes)
	}
	idx := []int{0, 7, 150, 299}
	rs, rd := mat.NewDense(len(idx), 300, nil), mat.NewDense(len(idx), 300, nil)
	if err := bs.Rows(ctx, rs, idx); err != nil {
		t.Fatal(err)
	}
	if err := bd.Rows(ctx, rd, idx); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(rs, rd, 1e-12) {
		t.Error("Rows differ between CSR and dense")
	}
	alpha := mat.NewDense(300, 2, nil)
	for i := range 300 {
		alpha.Set(i, 0, float64(i%7)-3)
		alpha.Set(i, 1, 1)
	}
	xnew := mat.DenseCopyOf(xd.Slice(10, 30, 0, 80))
	cs, cd := mat.NewDense(20, 2, nil), mat.NewDense(20, 2, nil)
	if err := bs.CrossMul(ctx, cs, xnew, alpha); err != nil {
		t.Fatal(err)
	}
	if err := bd.CrossMul(ctx, cd, xnew, alpha); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(cs, cd, 1e-12) {
		t.Error("CrossMul differs between CSR and dense")
	}
	// One right-hand side takes the engine's one-column path.
	a1 := mat.DenseCopyOf(alpha.Slice(0, 300, 0, 1))
	c1 := mat.NewDense(20, 1, nil)
	if err := bs.CrossMul(ctx, c1, xnew, a1); err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(c1, cd.Slice(0, 20, 0, 1), 1e-12) {
		t.Error("CrossMul with one column differs between CSR and dense")
	}
}

// TestMEKASparsePlan: MEKA's memory plan counts one cluster's rows as CSR
// arrays (12 bytes per non-zero) for sparse X, not as a dense copy. On
// 2,000 × 10,000 rows with 20 non-zeros each in 2 clusters, a dense copy
// of the larger cluster is ≥ 1,000 × 10,000 × 8 = 80 MB, while its CSR
// rows take under 0.3 MB; the rest of the plan (landmarks 2·40 × 10,000
// doubles = 6.4 MB, W, L) is small. So a 64 MB cap admits the CSR fit and
// refuses the dense one, naming the bytes.
func TestMEKASparsePlan(t *testing.T) {
	ctx := context.Background()
	x, _, err := datasets.SparseRegression(2000, 10000, 20, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 1.0 / 40}
	opt := Options{Rank: 20, Clusters: 2, MaxBytes: 64 << 20}
	if _, err := Fit(ctx, x, k, opt, rand.New(rand.NewPCG(1, 2))); err != nil {
		t.Fatalf("CSR under a 64 MB cap: %v", err)
	}
	_, err = Fit(ctx, x.ToDense(), k, opt, rand.New(rand.NewPCG(1, 2)))
	if !errors.Is(err, check.ErrMemory) {
		t.Fatalf("dense under a 64 MB cap: %v, want ErrMemory", err)
	}
	t.Logf("dense: %v", err)
}
