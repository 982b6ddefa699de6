//go:build race

package solver

// raceEnabled says whether the tests run under the race detector, whose
// sync.Pool drops a random share of what is put back (allocation tests
// that rely on a pool are skipped).
const raceEnabled = true
