//go:build !linux

package cputime

import "time"

// Thread returns the process's CPU time (Process): this system has no
// per-thread clock the syscall package reaches.
func Thread() time.Duration { return Process() }
