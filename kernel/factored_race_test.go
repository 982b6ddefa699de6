//go:build race

package kernel

// raceBuild: the race detector makes sync.Pool drop and miss items at
// random, so allocation counts of pooled scratch are not the plan's.
const raceBuild = true
