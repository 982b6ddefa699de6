//go:build !amd64

package kernel

func l1Tile8x16AVX512(int, *float64, *float64, *float64, int, float64) { panic("kernel: no AVX-512") }
func l1Tile3x16AVX2(int, *float64, *float64, *float64, int, float64)   { panic("kernel: no AVX2") }
func l1Tile2x16AVX2(int, *float64, *float64, *float64, int, float64)   { panic("kernel: no AVX2") }
