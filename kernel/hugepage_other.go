//go:build !linux

package kernel

// adviseHuge does nothing off Linux (transparent huge pages are a Linux
// madvise hint; see hugepage_linux.go).
func adviseHuge[T float32 | float64](s []T, collapse bool) {}
