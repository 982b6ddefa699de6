//go:build !race

package precond

// raceEnabled says whether the tests run under the race detector (see
// race_test.go).
const raceEnabled = false
