//go:build unix

package model

import (
	"syscall"
	"time"
)

// processCPU returns the user + system CPU time the process has used so far
// (getrusage), for benchmarks that report CPU seconds beside wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
