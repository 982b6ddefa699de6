package precond

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// preconditionArgs refuses, at a Precondition method's entry, a nil
// context and a nil dst or r (they would panic, the context at the first
// cancellation check a caller's preconditioner makes), with an error
// wrapping ErrInput that names the preconditioner: "precond: what: …".
func preconditionArgs(ctx context.Context, what string, dst, r *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("precond: %s: %w", what, err)
	}
	if dst == nil || r == nil {
		return fmt.Errorf("precond: %s: %w: nil dst or r", what, ErrInput)
	}
	return nil
}
