//go:build !race

package approx

// raceBuild is false without the race detector (race_test.go).
const raceBuild = false
