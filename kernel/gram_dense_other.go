//go:build !amd64

package kernel

func gemm8x16PfAVX512(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX-512") }
