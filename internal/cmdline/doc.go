// Package cmdline is the command-line plumbing shared by the landmark command
// and the benchmarks it runs (internal/bench): flag sets that return errors
// instead of exiting, the ErrUsage sentinel (exit status 2), and the
// --progress writer with its work clock and ETA.
package cmdline
