//go:build unix

package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// signalChild sets up main's interrupt context, says "ready", waits for the
// first SIGINT, says "cancelled", then stands for work that is slow to wind
// down (a minute; the test kills it sooner either way) and exits 0.
func signalChild() {
	ctx, stop := interruptContext()
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("cancelled")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// TestSecondInterrupt: the first SIGINT cancels the commands' context (the
// process goes on to stop cleanly); a second SIGINT ends the process at
// once, killed by the signal (the shell reports 130), as users expect of a
// second Ctrl-C. Before, every later SIGINT was swallowed and the process
// ran its wind-down to the end (this child: exit 0 after a minute).
func TestSecondInterrupt(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), testSignalEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("child said %q (%v), want %q", lines.Text(), lines.Err(), want)
		}
	}
	expect("ready")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	expect("cancelled")
	// The default action is restored by a goroutine right after the
	// cancellation, so SIGINT is sent again every 100 ms until the child
	// dies; one still alive after 5 s of them swallows SIGINT (before the
	// fix it slept its minute out). The bound is a failure cut-off, not a
	// speed assertion.
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	cutoff := time.After(5 * time.Second)
	var werr error
wait:
	for {
		if err := cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Fatal(err)
		}
		select {
		case werr = <-done:
			break wait
		case <-tick.C:
		case <-cutoff:
			cmd.Process.Kill()
			<-done
			t.Fatal("SIGINTs after the first did not end the process (killed after 5 s of them)")
		}
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		t.Fatalf("child exited with %v; want killed by SIGINT", werr)
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Fatalf("child: %v; want killed by SIGINT", ee)
	}
}
