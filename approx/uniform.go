package approx

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

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
// sparse: only the m chosen rows are expanded to dense landmarks.
func (Uniform) Sample(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error) {
	x := dataOf(xIn)
	if err := checkData(x); err != nil {
		return nil, fmt.Errorf("approx: uniform: %w", err)
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
	idx := sampleWithoutReplacement(n, m, rng)
	return &Landmarks{Points: landmarkRows(x, idx), Indices: idx}, nil
}

// sampleWithoutReplacement returns m distinct integers of [0, n), uniformly,
// sorted ascending. It runs a partial Fisher–Yates shuffle on a virtual
// identity array, remembering only the swapped positions, so it costs O(m)
// memory and time whatever n is. The map is only looked up, never iterated,
// so the result depends on rng alone.
func sampleWithoutReplacement(n, m int, rng *rand.Rand) []int {
	swapped := make(map[int]int, 2*m)
	at := func(i int) int {
		if v, ok := swapped[i]; ok {
			return v
		}
		return i
	}
	idx := make([]int, m)
	for i := 0; i < m; i++ {
		j := i + rng.IntN(n-i)
		vi, vj := at(i), at(j)
		idx[i] = vj
		swapped[j] = vi
		swapped[i] = vj
	}
	slices.Sort(idx)
	return idx
}
