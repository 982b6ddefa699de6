package check

import "fmt"

// ErrMemory is wrapped by every refusal to fit because the planned peak
// memory exceeds a user's cap; it is returned before the large allocations.
// It wraps ErrInput: the data do not fit the caller's settings.
var ErrMemory = fmt.Errorf("%w: memory limit exceeded", ErrInput)

// Memory compares a planned peak of need bytes with limit (0 means no limit)
// and names both in the error: "what needs N bytes (X GiB), the limit is M
// bytes (Y GiB)". A negative limit is an ErrInput.
func Memory(what string, need, limit int64) error {
	if limit < 0 {
		return fmt.Errorf("%w: memory limit %d bytes is negative", ErrInput, limit)
	}
	if limit > 0 && need > limit {
		return fmt.Errorf("%w: %s needs %d bytes (%s), the limit is %d bytes (%s)", ErrMemory, what, need, FormatBytes(need), limit, FormatBytes(limit))
	}
	return nil
}

// FormatBytes prints a byte count with a binary unit (KiB, MiB, ...).
func FormatBytes(b int64) string {
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
