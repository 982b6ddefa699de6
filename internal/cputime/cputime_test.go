package cputime

import (
	"runtime"
	"testing"
	"time"
)

// spin burns CPU on the calling goroutine until d of CPU time has passed by
// clock (or wall time 20·d, so a broken clock cannot hang the test).
func spin(clock func() time.Duration, d time.Duration) {
	start, wall := clock(), time.Now()
	x := 1.0
	for clock()-start < d && time.Since(wall) < 20*d {
		for range 10000 {
			x = x*1.0000001 + 1e-9
		}
	}
	_ = x
}

// TestClocksAdvance: on Linux, macOS and Windows both clocks read a
// positive time that grows by at least the 50 ms of CPU spent spinning on
// a locked thread, and the thread's time never exceeds the process's
// (read after it: the process includes the thread).
func TestClocksAdvance(t *testing.T) {
	switch runtime.GOOS {
	case "linux", "darwin", "windows", "freebsd":
	default:
		t.Skip("no CPU clock read on " + runtime.GOOS)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const d = 50 * time.Millisecond
	p0, t0 := Process(), Thread()
	spin(Thread, d)
	t1 := Thread()
	p1 := Process() // read after t1: the process's time includes the thread's

	if t1-t0 < d || p1-p0 < d {
		t.Errorf("after spinning %v: thread clock +%v, process clock +%v, want both ≥ %v", d, t1-t0, p1-p0, d)
	}
	if t1 > p1 {
		t.Errorf("thread time %v exceeds the process's %v", t1, p1)
	}
}
