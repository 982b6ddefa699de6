package approx

import "github.com/landmark-ml/landmark/internal/check"

// ErrInput is wrapped by every error about bad data or options passed to
// this package (model.ErrInput is the same error).
var ErrInput = check.ErrInput

// ErrMemory is wrapped by a refusal to build an approximation whose planned
// memory exceeds the caller's cap (MaxBytes); it is returned before the large
// allocations. model.ErrMemory is the same error.
var ErrMemory = check.ErrMemory
