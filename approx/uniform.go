package approx

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Uniform samples m distinct rows of X uniformly at random (without
// replacement): the classic Nyström baseline. It does not look at the kernel
// beyond validating it. The zero value is ready to use.
type Uniform struct{}

var _ Sampler = Uniform{}

// Sample returns m distinct rows of x chosen uniformly, in ascending row order,
// with nil Weights. It needs 1 ≤ m ≤ n; a kernel may be nil. Sparse x stays
// sparse: only the m chosen rows are expanded to dense landmarks. A float32
// x (*kernel.Dense32) is read in place: the landmarks are its rows as
// float64, with no float64 copy of x.
func (Uniform) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: uniform: %w", err)
	}
	var x mat.Matrix
	if x32, ok := xIn.(*kernel.Dense32); ok {
		if err := x32.CheckFinite("X"); err != nil {
			return nil, fmt.Errorf("approx: uniform: %w", err)
		}
		x = x32
	} else {
		x = points.Data(xIn)
		if err := points.Check(x); err != nil {
			return nil, fmt.Errorf("approx: uniform: %w", err)
		}
	}
	if k != nil {
		if err := k.Validate(); err != nil {
			return nil, fmt.Errorf("approx: uniform: %w", err)
		}
	}
	if rng == nil {
		return nil, fmt.Errorf("approx: uniform: %w: nil random source", check.ErrInput)
	}
	n, _ := x.Dims()
	if m < 1 || m > n {
		return nil, fmt.Errorf("approx: uniform: %w: m = %d landmarks, want 1 ≤ m ≤ n = %d", check.ErrInput, m, n)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	idx := points.Sample(n, m, rng)
	return &Landmarks{Points: points.Landmarks(x, idx), Indices: idx}, nil
}
