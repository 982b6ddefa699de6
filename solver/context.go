package solver

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
)

// nilContext refuses a nil ctx at an exported entry, which would otherwise
// panic at the first cancellation check, with an error wrapping
// check.ErrInput (model.ErrInput) that names the routine: "solver: what:
// invalid input: nil context (pass context.Background())".
func nilContext(ctx context.Context, what string) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("solver: %s: %w", what, err)
	}
	return nil
}
