//go:build !race

package solver

// raceEnabled says whether the tests run under the race detector (see
// race_test.go).
const raceEnabled = false
