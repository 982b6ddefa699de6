//go:build !race

package kernel

// raceBuild reports a -race build (see factored_race_test.go).
const raceBuild = false
