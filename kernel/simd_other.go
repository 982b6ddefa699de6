//go:build !amd64

package kernel

// hasAVX512 and hasAVX2 are false off amd64: the portable code is used.
const (
	hasAVX512 = false
	hasAVX2   = false
)

func gemm8x16AVX512(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX-512") }
func expRowAVX512(*float64, *float64, int, float64, float64)      { panic("kernel: no AVX-512") }
func expRowDotAVX512(*float64, *float64, *float64, int, float64, float64) float64 {
	panic("kernel: no AVX-512")
}
func axpyAVX512(int, float64, *float64, *float64)           { panic("kernel: no AVX-512") }
func axpyRoundAVX512(int, float64, *float64, *float64)      { panic("kernel: no AVX-512") }
func axpy4AVX512(int, *[4]float64, *float64, int, *float64) { panic("kernel: no AVX-512") }

func gemm8x32F32AVX512(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX-512") }

func gemm4x8AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func expRowAVX2(*float64, *float64, int, float64, float64)     { panic("kernel: no AVX2") }
func expRowDotAVX2(*float64, *float64, *float64, int, float64, float64) float64 {
	panic("kernel: no AVX2")
}
func axpyAVX2(int, float64, *float64, *float64)           { panic("kernel: no AVX2") }
func axpyRoundAVX2(int, float64, *float64, *float64)      { panic("kernel: no AVX2") }
func axpy4AVX2(int, *[4]float64, *float64, int, *float64) { panic("kernel: no AVX2") }
