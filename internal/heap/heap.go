// Package heap measures what a piece of code allocates on the Go heap, for
// the tests that hold allocations to a memory plan (the project's rule:
// memory is planned before allocating, n·M, M² and block terms, under a
// cap the user sets), and reads the page flags and sizes of the memory
// mappings that hold a buffer (Mapping). It is imported by tests only.
//
// The measure is runtime.MemStats.TotalAlloc across the code: every byte
// allocated, however short-lived and on whichever goroutine, so a buffer
// made and dropped inside the code counts although the live heap would not
// show it. It includes what other goroutines allocate meanwhile (none, in
// a test that runs nothing in parallel) and the rounding of each object up
// to its size class (whole 8 KiB pages for large ones).
package heap

import (
	"runtime"
	"testing"
)

// Allocated returns the bytes allocated on the heap while run runs; an
// error from run fails tb at once. It does not collect first, so buffers
// kept between calls (package scratch's slots, sync.Pools) are found where
// run left them the previous time: with the collector off
// (debug.SetGCPercent(-1)), a repeated call measures what reuse leaves.
func Allocated(tb testing.TB, run func() error) int64 {
	tb.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := run()
	runtime.ReadMemStats(&after)
	if err != nil {
		tb.Fatal(err)
	}
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// AllocatedFresh is Allocated after two collections, which empty what
// buffers are kept between calls (a weak pointer is cleared by the first,
// a sync.Pool's victim cache by the second), so that run allocates its
// scratch anew: the measure a plan for a first call must bound.
func AllocatedFresh(tb testing.TB, run func() error) int64 {
	tb.Helper()
	runtime.GC()
	runtime.GC()
	return Allocated(tb, run)
}
