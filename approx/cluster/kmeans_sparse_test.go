package cluster

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestKMeansSparseMatchesDense: k-means on sparse rows gives the dense run's
// partition (same labels: the distances differ only in rounding, far from
// any tie on this data) and centroids to 1e-12, in plain, subsample and
// sketch modes; Assign on sparse rows reproduces the labels.
func TestKMeansSparseMatchesDense(t *testing.T) {
	x := synth.Sparse(rand.New(rand.NewPCG(1, 2)), 300, 80)
	xd := kernel.DenseOf(x)
	for _, km := range []KMeans{{K: 5}, {K: 4, Subsample: 120}, {K: 4, Sketch: 10}} {
		ps, err := km.Fit(context.Background(), x, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		pd, err := km.Fit(context.Background(), xd, rand.New(rand.NewPCG(3, 4)))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ps.Labels, pd.Labels) {
			t.Fatalf("%+v: labels differ", km)
		}
		if !mat.EqualApprox(ps.Centroids, pd.Centroids, 1e-12) {
			t.Fatalf("%+v: centroids differ", km)
		}
		for i := range ps.Objective {
			if math.Abs(ps.Objective[i]-pd.Objective[i]) > 1e-10*pd.Objective[i] {
				t.Fatalf("%+v: objective %d: %v vs %v", km, i, ps.Objective[i], pd.Objective[i])
			}
		}
		lab, err := ps.Assign(x)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lab, ps.Labels) {
			t.Fatalf("%+v: Assign on sparse rows differs from Fit's labels", km)
		}
	}
	p, _ := KMeans{K: 3}.Fit(context.Background(), x, rand.New(rand.NewPCG(3, 4)))
	if _, err := p.Assign(kernel.NewCSRRows(81, []int{0, 1}, []int32{80}, []float64{1})); !errors.Is(err, check.ErrInput) {
		t.Fatalf("81 columns against 80: %v", err)
	}
	if _, err := (KMeans{K: 2}).Fit(context.Background(), kernel.NewCSRRows(5, []int{0, 2}, []int32{1, 1}, []float64{1, 2}), rand.New(rand.NewPCG(1, 1))); !errors.Is(err, check.ErrInput) {
		t.Fatalf("repeated index: %v", err)
	}
}

// kmMeansScratch is the means step as it was before the sums moved into
// the centroids' rows: a separate K×d accumulator from +0, members added in
// row order, multiplied by the reciprocal count; rows without members kept.
func kmMeansScratch(c *mat.Dense, x *mat.Dense, lab []int) {
	k, d := c.Dims()
	sum := make([]float64, k*d)
	cnt := make([]int, k)
	for i, l := range lab {
		for t, v := range x.RawRowView(i) {
			sum[l*d+t] += v
		}
		cnt[l]++
	}
	for j := 0; j < k; j++ {
		if cnt[j] == 0 {
			continue
		}
		inv := 1 / float64(cnt[j])
		for t := range d {
			c.Set(j, t, sum[j*d+t]*inv)
		}
	}
}

// The in-place means (dense and sparse rows) are bit-identical to a
// separate accumulator's, keep the old row of a cluster without members,
// and keep −0 where every member is −0 (the sums start from +0, so
// +0 + −0 = +0 exactly as the accumulator gives).
func TestKMeansMeansInPlace(t *testing.T) {
	x := synth.Sparse(rand.New(rand.NewPCG(31, 32)), 97, 60)
	xd := kernel.DenseOf(x)
	xd.Set(5, 7, math.Copysign(0, -1))
	rng := rand.New(rand.NewPCG(33, 34))
	lab := make([]int, 97)
	for i := range lab {
		lab[i] = rng.IntN(4) // cluster 4 of 5 stays empty
	}
	old := mat.NewDense(5, 60, nil)
	for i := range old.RawMatrix().Data {
		old.RawMatrix().Data[i] = rng.NormFloat64()
	}
	want := mat.DenseCopyOf(old)
	kmMeansScratch(want, xd, lab)
	dense, sparse := mat.DenseCopyOf(old), mat.DenseCopyOf(old)
	kmMeans(dense, xd, lab)
	kmMeansSparse(sparse, x, lab)
	for _, got := range []*mat.Dense{dense, sparse} {
		for i, v := range got.RawMatrix().Data {
			if math.Float64bits(v) != math.Float64bits(want.RawMatrix().Data[i]) {
				t.Fatalf("entry %d: %v, want %v", i, v, want.RawMatrix().Data[i])
			}
		}
	}
	if !mat.Equal(dense.RowView(4), old.RowView(4)) {
		t.Fatal("the empty cluster's centroid changed")
	}
}
