//go:build !linux

package hugemem

// probeFaults returns 0 (unknown) where there is no THP advice to choose.
func probeFaults() float64 { return 0 }
