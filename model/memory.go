package model

import (
	"errors"
	"fmt"
)

// ErrMemory is returned when a fit would need more memory than the
// estimator's MemoryLimit allows. Nothing large has been allocated when it is
// returned: memory is planned before allocation.
var ErrMemory = errors.New("model: memory limit exceeded")

// bytesF64 is the size of n float64 values in bytes.
func bytesF64(n int64) int64 { return 8 * n }

// checkMemory compares a planned peak with a limit (0 means no limit).
func checkMemory(what string, need, limit int64) error {
	if limit < 0 {
		return fmt.Errorf("%w: memory limit %d bytes is negative", ErrInput, limit)
	}
	if limit > 0 && need > limit {
		return fmt.Errorf("%w: %s needs about %s, the limit is %s", ErrMemory, what, formatBytes(need), formatBytes(limit))
	}
	return nil
}

// formatBytes prints a byte count with a binary unit.
func formatBytes(b int64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := int64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTP"[exp])
}
