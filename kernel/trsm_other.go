//go:build !amd64

package kernel

func trsmRows8x16AVX512(int, *float64, int, *float64, *float64, int, bool) {
	panic("kernel: no AVX-512")
}
func trsmRows8x32F32AVX512(int, *float32, int, *float32, *float32, int, bool) {
	panic("kernel: no AVX-512")
}
