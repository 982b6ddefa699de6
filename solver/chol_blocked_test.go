package solver_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// spd returns BBᵀ + n·I for a random n×n B: well conditioned, so the
// factors of different algorithms agree to near machine precision.
func spd(r *rand.Rand, n int) *mat.Dense {
	b := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			b.Set(i, j, r.NormFloat64())
		}
	}
	var a mat.Dense
	a.Mul(b, b.T())
	for i := range n {
		a.Set(i, i, a.At(i, i)+float64(n))
	}
	return &a
}

// TestCholeskyBlocked checks the blocked factorization, with gonum's Syrk and
// with the kernel engine's update, against LAPACK's unblocked-by-us potrf on
// sizes around the panel width (256) and not multiples of it.
func TestCholeskyBlocked(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	engine := func(ctx context.Context, c, a *mat.Dense) error {
		return kernel.SubLowerGram(ctx, c, a, kernel.Options{})
	}
	for _, n := range []int{100, 513, 700} {
		a := spd(r, n)
		want, err := solver.CholeskyInPlace(mat.DenseCopyOf(a), solver.CholOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for name, up := range map[string]solver.LowerUpdate{"gonum": nil, "engine": engine} {
			got, err := solver.CholeskyBlocked(ctx, mat.DenseCopyOf(a), solver.CholOptions{}, up, 2)
			if err != nil {
				t.Fatal(err)
			}
			lw, lg := want.L(), got.L()
			scale := math.Sqrt(a.At(0, 0))
			for i := range n {
				for j := 0; j <= i; j++ {
					// Well-conditioned SPD: factors agree to 1e-12 relative to their scale.
					if d := math.Abs(lw.At(i, j) - lg.At(i, j)); d > 1e-12*scale {
						t.Fatalf("n=%d %s: L[%d,%d] = %v, potrf %v", n, name, i, j, lg.At(i, j), lw.At(i, j))
					}
				}
			}
			if got.Jitter != 0 {
				t.Fatalf("n=%d %s: jitter %g on an SPD matrix", n, name, got.Jitter)
			}
		}
	}
}

// TestCholeskyBlockedJitter: a PSD matrix of rank 3 fails without jitter and
// succeeds with it, as CholeskyInPlace does; cancellation is an error.
func TestCholeskyBlockedJitter(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	n := 600
	b := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			b.Set(i, j, r.NormFloat64())
		}
	}
	var a mat.Dense
	a.Mul(b, b.T())
	c, err := solver.CholeskyBlocked(context.Background(), &a, solver.CholOptions{}, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if c.Jitter <= 0 || c.Attempts < 2 {
		t.Fatalf("rank-3 matrix: jitter %g after %d attempts, want > 0 after ≥ 2", c.Jitter, c.Attempts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := solver.CholeskyBlocked(ctx, spd(r, n), solver.CholOptions{}, nil, 2); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}
