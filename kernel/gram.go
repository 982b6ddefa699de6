package kernel

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// SubLowerGram sets the lower triangle (j ≤ i) of the m×m matrix c to
// c − a·aᵀ, with a m×k, leaving the strict upper triangle alone. It is the
// trailing update of a blocked Cholesky factorization (LAPACK's dsyrk step):
// Dense.SyrkLower with alpha = −1, beta = 1, on opt.Workers workers.
func SubLowerGram(ctx context.Context, c, a *mat.Dense, opt Options) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: SubLowerGram: %w", err)
	}
	if c == nil || a == nil {
		return fmt.Errorf("kernel: SubLowerGram: %w: nil matrix", check.ErrInput)
	}
	m, _ := a.Dims()
	if r, cc := c.Dims(); r != m || cc != m {
		return fmt.Errorf("kernel: SubLowerGram: %w: c is %d×%d, want %d×%d", check.ErrInput, r, cc, m, m)
	}
	return Dense{Workers: opt.Workers}.SyrkLower(ctx, false, -1, a, 1, c)
}
