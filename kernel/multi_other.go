//go:build !amd64

package kernel

func rowsPanel8x16AVX512(int, *float64, int, *float64, *float64) { panic("kernel: no AVX-512") }
func colsPanel8x16AVX512(int, *float64, int, *float64, *float64) { panic("kernel: no AVX-512") }
