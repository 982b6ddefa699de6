// Package cputime reads the CPU time a process or thread has used, for the
// benchmarks that run on shared machines, where CPU time is a steadier
// measure of work than wall time (docs/performance.md states which one
// each table uses).
//
// Process is the user + system time of all the process's threads: getrusage
// on Unix systems, GetProcessTimes on Windows. Thread is the calling
// thread's (lock the goroutine to its thread around a measurement):
// CLOCK_THREAD_CPUTIME_ID on Linux, and the process's time elsewhere. Both
// return 0 where the system cannot tell, so that a benchmark still runs.
package cputime
