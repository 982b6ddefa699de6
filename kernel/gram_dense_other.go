//go:build !amd64

package kernel

func gemm8x16PfAVX512(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX-512") }

func gemm8x32F32PfAVX512(int, *float32, *float32, *float32, int, bool) { panic("kernel: no AVX-512") }

func gemm8x32F32AVX2(int, *float32, *float32, *float32, int, bool) { panic("kernel: no AVX2") }

func gemm8x16SyrkPfAVX512(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX-512") }

func gemm8x16SyrkNegPfAVX512(int, *float64, *float64, *float64, int, bool) {
	panic("kernel: no AVX-512")
}

func gemm8x32F32SyrkPfAVX512(int, *float32, *float32, *float32, int, bool) {
	panic("kernel: no AVX-512")
}

func gemm8x32F32SyrkNegPfAVX512(int, *float32, *float32, *float32, int, bool) {
	panic("kernel: no AVX-512")
}
