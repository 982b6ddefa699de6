//go:build !amd64

package kernel

func rowsPanel8x16AVX512(int, *float64, int, *float64, *float64) { panic("kernel: no AVX-512") }
func colsPanel8x16AVX512(int, *float64, int, *float64, *float64) { panic("kernel: no AVX-512") }

func rowsPanel6x8AVX2(int, *float64, int, *float64, *float64)       { panic("kernel: no AVX2") }
func rowsPanel4x8AVX2(int, *float64, int, *float64, *float64)       { panic("kernel: no AVX2") }
func rowsPanel2x8AVX2(int, *float64, int, *float64, *float64)       { panic("kernel: no AVX2") }
func colsPanel6x8AVX2(int, *float64, int, *float64, *float64)       { panic("kernel: no AVX2") }
func colsPanel4x8AVX2(int, *float64, int, *float64, *float64)       { panic("kernel: no AVX2") }
func colsPanel2x8AVX2(int, *float64, int, *float64, *float64)       { panic("kernel: no AVX2") }
func widenAVX512(*float64, *float32, int)                           { panic("kernel: no AVX-512") }
func widenAVX2(*float64, *float32, int)                             { panic("kernel: no AVX2") }
func keptDot4AVX512(int, *float32, int, *float64, *float64)         { panic("kernel: no AVX-512") }
func keptDot4AVX2(int, *float32, int, *float64, *float64)           { panic("kernel: no AVX2") }
func keptAxpy4AVX512(int, *[4]float64, *float32, int, *float64)     { panic("kernel: no AVX-512") }
func keptAxpy4AVX2(int, *[4]float64, *float32, int, *float64)       { panic("kernel: no AVX2") }
func dots4F32AVX512(int, *float32, int, *float64, *float64)         { panic("kernel: no AVX-512") }
func dots2F32AVX2(int, *float32, int, *float64, *float64)           { panic("kernel: no AVX2") }
func dots4F64AVX512(int, *float64, int, *float64, *float64)         { panic("kernel: no AVX-512") }
func dots2F64AVX2(int, *float64, int, *float64, *float64)           { panic("kernel: no AVX2") }
func axpy4F64AVX512(int, *[4]float64, *float64, int, *float64)      { panic("kernel: no AVX-512") }
func axpy4F64AVX2(int, *[4]float64, *float64, int, *float64)        { panic("kernel: no AVX2") }
func panelAxpy4F32AVX512(int, *float64, *float32, int, *float64)    { panic("kernel: no AVX-512") }
func panelAxpy4F64AVX512(int, *float64, *float64, int, *float64)    { panic("kernel: no AVX-512") }
func rowsPanel8x16F32AVX512(int, *float32, int, *float64, *float64) { panic("kernel: no AVX-512") }
func rowsPanel6x8F32AVX2(int, *float32, int, *float64, *float64)    { panic("kernel: no AVX2") }
func rowsPanel4x8F32AVX2(int, *float32, int, *float64, *float64)    { panic("kernel: no AVX2") }
func rowsPanel2x8F32AVX2(int, *float32, int, *float64, *float64)    { panic("kernel: no AVX2") }
func panelAxpy8F64AVX512(int, *float64, *float64, int, *float64)    { panic("kernel: no AVX-512") }
func axpy8F32AVX512(int, *[8]float64, *float32, int, *float64)      { panic("kernel: no AVX-512") }
func axpy8F64AVX512(int, *[8]float64, *float64, int, *float64)      { panic("kernel: no AVX-512") }
func panelAxpy4x16F32AVX2(int, *float64, *float32, int, *float64)   { panic("kernel: no AVX2") }
func panelAxpy4x16F64AVX2(int, *float64, *float64, int, *float64)   { panic("kernel: no AVX2") }
