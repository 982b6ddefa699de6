//go:build !amd64

package kernel

// prefetchT1 does nothing off amd64 (tileLoop's prefetch of the next panel
// of centers is a hint).
func prefetchT1(*byte, int) {}
