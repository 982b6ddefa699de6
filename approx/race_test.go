//go:build race

package approx

// raceBuild: the race detector makes sync.Pool drop and miss items at
// random, so the allocations of pooled scratch (kernel.Dense's packing
// buffers) are not the plan's.
const raceBuild = true
