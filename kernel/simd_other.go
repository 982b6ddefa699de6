//go:build !amd64

package kernel

// hasAVX512 and hasAVX2 are false off amd64: the portable code is used.
const (
	hasAVX512 = false
	hasAVX2   = false
)

func gemm8x16PanelsPfAVX512(int, int, *float64, *float64, *float64, int, *float64, int) {
	panic("kernel: no AVX-512")
}

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
func gemm6x8AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func expRowAVX2(*float64, *float64, int, float64, float64)     { panic("kernel: no AVX2") }
func expRowDotAVX2(*float64, *float64, *float64, int, float64, float64) float64 {
	panic("kernel: no AVX2")
}
func axpyAVX2(int, float64, *float64, *float64)           { panic("kernel: no AVX2") }
func axpyRoundAVX2(int, float64, *float64, *float64)      { panic("kernel: no AVX2") }
func axpy4AVX2(int, *[4]float64, *float64, int, *float64) { panic("kernel: no AVX2") }

func fmaPeakAVX2(int)                                           { panic("kernel: no AVX2") }
func fmaPeakAVX512(int)                                         { panic("kernel: no AVX-512") }
func gemm1x16AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm2x16AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm3x16AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm4x16AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm5x16AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm6x16AVX2(int, *float64, *float64, *float64, int, bool) { panic("kernel: no AVX2") }

func gemm1x16HAVX2(int, *float64, *float64, *float64, int, bool, int) { panic("kernel: no AVX2") }
func gemm2x16HAVX2(int, *float64, *float64, *float64, int, bool, int) { panic("kernel: no AVX2") }
func gemm3x16HAVX2(int, *float64, *float64, *float64, int, bool, int) { panic("kernel: no AVX2") }
func gemm4x16HAVX2(int, *float64, *float64, *float64, int, bool, int) { panic("kernel: no AVX2") }
func gemm5x16HAVX2(int, *float64, *float64, *float64, int, bool, int) { panic("kernel: no AVX2") }
func gemm6x16HAVX2(int, *float64, *float64, *float64, int, bool, int) { panic("kernel: no AVX2") }

func gemm1x32F32AVX2(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm2x32F32AVX2(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm3x32F32AVX2(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm4x32F32AVX2(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm5x32F32AVX2(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX2") }
func gemm6x32F32AVX2(int, *float32, *float32, *float64, int, bool) { panic("kernel: no AVX2") }

func gemm8x32F32to32AVX512(int, *float32, *float32, *float32, int) { panic("kernel: no AVX-512") }
func expRowDotF32AVX512(*float32, *float32, *float32, int, float32, float32) float32 {
	panic("kernel: no AVX-512")
}
func axpy4F32AVX512(int, *[4]float32, *float32, int, *float32) { panic("kernel: no AVX-512") }
func flush32AVX512(int, *float32, *float64)                    { panic("kernel: no AVX-512") }

func gemm1x32F32to32AVX2(int, *float32, *float32, *float32, int) { panic("kernel: no AVX2") }
func gemm2x32F32to32AVX2(int, *float32, *float32, *float32, int) { panic("kernel: no AVX2") }
func gemm3x32F32to32AVX2(int, *float32, *float32, *float32, int) { panic("kernel: no AVX2") }
func gemm4x32F32to32AVX2(int, *float32, *float32, *float32, int) { panic("kernel: no AVX2") }
func gemm5x32F32to32AVX2(int, *float32, *float32, *float32, int) { panic("kernel: no AVX2") }
func gemm6x32F32to32AVX2(int, *float32, *float32, *float32, int) { panic("kernel: no AVX2") }
func expRowDotF32AVX2(*float32, *float32, *float32, int, float32, float32) float32 {
	panic("kernel: no AVX2")
}
func axpy4F32AVX2(int, *[4]float32, *float32, int, *float32) { panic("kernel: no AVX2") }
func flush32AVX2(int, *float32, *float64)                    { panic("kernel: no AVX2") }

// The summing tiles and the one-pass packer of strassenDots (strassen_tiles.go).

func gemm8x16SumPfAVX512(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX-512")
}
func packSumsAVX512(*float64, int, *float64, int, int, int) { panic("kernel: no AVX-512") }
func packSumsAVX2(*float64, int, *float64, int, int, int)   { panic("kernel: no AVX2") }

func gemm1x16SumAVX2(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm2x16SumAVX2(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm3x16SumAVX2(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm4x16SumAVX2(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm5x16SumAVX2(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm6x16SumAVX2(int, *float64, *float64, *float64, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm1x16HSumAVX2(int, *float64, *float64, *float64, int, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm2x16HSumAVX2(int, *float64, *float64, *float64, int, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm3x16HSumAVX2(int, *float64, *float64, *float64, int, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm4x16HSumAVX2(int, *float64, *float64, *float64, int, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm5x16HSumAVX2(int, *float64, *float64, *float64, int, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}
func gemm6x16HSumAVX2(int, *float64, *float64, *float64, int, int, *float64, *float64, int, *float64) {
	panic("kernel: no AVX2")
}

func sqNorms8AVX512(*float64, int, int, *[8]float64) { panic("kernel: no AVX-512") }
func sqNorms8AVX2(*float64, int, int, *[8]float64)   { panic("kernel: no AVX2") }

func gemm8x16PanelsKbPfAVX512(int, int, int, *float64, *float64, *float64, int, bool, *float64, int) {
	panic("kernel: no AVX-512")
}
