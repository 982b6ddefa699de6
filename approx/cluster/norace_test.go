//go:build !race

package cluster

// raceBuild is false without the race detector (race_test.go).
const raceBuild = false
