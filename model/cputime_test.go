package model

import (
	"time"

	"github.com/landmark-ml/landmark/internal/cputime"
)

// processCPU returns the user + system CPU time the process has used so far
// (cputime.Process), for benchmarks that report CPU seconds beside wall time.
func processCPU() time.Duration { return cputime.Process() }
