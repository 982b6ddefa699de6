//go:build !unix

package model

import "time"

// processCPU is not measured off Unix: benchmarks report 0 CPU seconds.
func processCPU() time.Duration { return 0 }
