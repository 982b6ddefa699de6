package meka

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// bkaDense returns the dense block-diagonal approximation built directly
// from the kernel and the labels.
func bkaDense(k kernel.Kernel, x *mat.Dense, labels []int) *mat.Dense {
	g := denseKernel(k, x)
	n := len(labels)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if labels[i] != labels[j] {
				g.Set(i, j, 0)
			}
		}
	}
	return g
}

func TestBKAMatchesDense(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(31, 32))
	x, _ := blobs(3, 40, 3, 2, rng)
	n := 120
	k := kernel.Gaussian{Gamma: 0.3}
	b, err := FitBKA(ctx, x, k, BKAOptions{Clusters: 3}, rng)
	if err != nil {
		t.Fatal(err)
	}
	want := bkaDense(k, x, b.Partition().Labels)
	if e := bkaError(t, b, want); e > 1e-15 {
		t.Errorf("Rows differ from the dense block-diagonal kernel by %g", e)
	}
	// Memory is 8·Σn_s² plus 8n bookkeeping, exactly.
	var sum int64
	for _, ns := range b.Stats().Sizes {
		sum += int64(ns * ns)
	}
	if got := b.Bytes(); got != 8*sum+8*int64(n) {
		t.Errorf("Bytes = %d, want 8·Σn_s² + 8n = %d", got, 8*sum+8*int64(n))
	}
	v := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		v.Set(i, 0, rng.NormFloat64())
		v.Set(i, 1, rng.NormFloat64())
	}
	got := mat.NewDense(n, 2, nil)
	if err := b.Mul(ctx, got, v); err != nil {
		t.Fatal(err)
	}
	var wantMul mat.Dense
	wantMul.Mul(want, v)
	if e := relFro(got, &wantMul); e > 1e-13 {
		t.Errorf("Mul differs from dense product by %g", e)
	}
	const lambda = 1e-3
	sol, err := b.Solve(ctx, lambda, v)
	if err != nil {
		t.Fatal(err)
	}
	a := mat.DenseCopyOf(want)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+lambda*float64(n))
	}
	var ws mat.Dense
	if err := ws.Solve(a, v); err != nil {
		t.Fatal(err)
	}
	// Direct solves of a system with condition ≤ (‖G‖+λn)/λn ≈ 400: 1e-11.
	if e := relFro(sol.Alpha, &ws); e > 1e-11 {
		t.Errorf("Solve differs from dense solve by %g", e)
	}
	for s, j := range sol.Jitter {
		if j != 0 {
			t.Errorf("block %d needed jitter %g with λn = %g", s, j, lambda*float64(n))
		}
	}
	// The out-of-sample extension on the training points reproduces Mul
	// (k-means labels are nearest-centroid labels).
	pred := mat.NewDense(n, 2, nil)
	if err := b.CrossMul(ctx, pred, x, sol.Alpha); err != nil {
		t.Fatal(err)
	}
	if err := b.Mul(ctx, got, sol.Alpha); err != nil {
		t.Fatal(err)
	}
	if e := relFro(pred, got); e > 1e-12 {
		t.Errorf("CrossMul on the training points differs from Mul by %g", e)
	}
}

func TestBKABadInput(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(33, 34))
	x, part := blobs(2, 20, 2, 3, rng)
	k := kernel.Gaussian{Gamma: 1}
	if _, err := FitBKA(ctx, x, k, BKAOptions{Partition: part, MaxBytes: 1000}, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("memory budget: %v, want ErrInput", err)
	}
	if _, err := FitBKA(ctx, x, k, BKAOptions{Clusters: 41}, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("41 clusters for 40 points: %v, want ErrInput", err)
	}
	if _, err := FitBKA(ctx, x, kernel.Gaussian{Gamma: -1}, BKAOptions{Partition: part}, rng); err == nil {
		t.Error("negative γ accepted")
	}
	b, err := FitBKA(ctx, x, k, BKAOptions{Partition: part}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, lam := range []float64{0, -1, math.NaN()} {
		if _, err := b.Solve(ctx, lam, mat.NewDense(40, 1, nil)); !errors.Is(err, check.ErrInput) {
			t.Errorf("Solve(λ=%g): %v, want ErrInput", lam, err)
		}
	}
	if _, err := b.Solve(ctx, 1, mat.NewDense(39, 1, nil)); !errors.Is(err, check.ErrInput) {
		t.Errorf("Solve with 39 targets: %v, want ErrInput", err)
	}
}

// TestBKAMemoryCapWorkers: a cap that holds the blocks and one worker's
// scratch but not two runs on one worker and forms the same blocks (they do
// not depend on the worker count); one byte less than blocks + one scratch
// is refused with ErrMemory. Two clusters of 20 points in d = 50: blocks
// 8·(20² + 20²) = 6,400 bytes, a dense worker's scratch 8·20·50 = 8,000.
func TestBKAMemoryCapWorkers(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(35, 36))
	x, part := blobs(2, 20, 50, 3, rng)
	k := kernel.Gaussian{Gamma: 0.05}
	const plan, scratch = 6400, 8000
	free, err := FitBKA(ctx, x, k, BKAOptions{Partition: part, Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	capped, err := FitBKA(ctx, x, k, BKAOptions{Partition: part, Workers: 2, MaxBytes: plan + scratch}, nil)
	if err != nil {
		t.Fatalf("cap = blocks + one scratch: %v", err)
	}
	for s := range 2 {
		if !mat.Equal(free.Block(s), capped.Block(s)) {
			t.Errorf("block %d differs under the cap", s)
		}
	}
	if _, err := FitBKA(ctx, x, k, BKAOptions{Partition: part, Workers: 2, MaxBytes: plan + scratch - 1}, nil); !errors.Is(err, check.ErrMemory) || !strings.Contains(err.Error(), "6400 bytes") {
		t.Errorf("cap one byte short: %v, want ErrMemory naming the 6400 bytes", err)
	}
}

// TestBKADefaultClusters: the default c is the paper's 64 while balanced
// blocks (8n²/c bytes) fit half the budget, then grows as 16n²/MaxBytes,
// never above n. Values computed by hand from the rule: n = 92,681 is the
// last n with 16n²/2³¹ ≤ 64 (16·92,681² = 1.3743e11 ≤ 64·2³¹ = 1.3744e11);
// n = 1,000,000 needs ⌈16e12/2³¹⌉ = 7,451 clusters (blocks of ~134 rows).
func TestBKADefaultClusters(t *testing.T) {
	for _, c := range []struct {
		n    int
		max  int64
		want int
	}{
		{10, DefaultBKAMaxBytes, 10},
		{3000, DefaultBKAMaxBytes, 64},
		{92681, DefaultBKAMaxBytes, 64},
		{92682, DefaultBKAMaxBytes, 65},
		{1000000, DefaultBKAMaxBytes, 7451},
		{100, 1, 100},
	} {
		if got := bkaClusters(c.n, c.max); got != c.want {
			t.Errorf("n = %d, MaxBytes = %d: %d clusters, want %d", c.n, c.max, got, c.want)
		}
	}
}
