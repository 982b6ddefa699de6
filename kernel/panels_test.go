package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// Panels.SubMul and SubMulT against plain loops, on every path, for m and
// t across the tile edges (8 rows on AVX-512, 6 on AVX2, 16 columns) and
// strided operands: equal
// to 1e-13 relative to Σ|a||b| (sums of at most k = 37 products, each
// rounding ≤ 2^−53).
func TestPanels(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 16))
	const k = 37
	for _, m := range []int{1, 6, 8, 13} {
		for _, tc := range []int{2, 10, 16, 21} {
			a := randDense(r, m, k+3).RawMatrix()   // m×k inside a wider matrix
			at := randDense(r, k, m+5).RawMatrix()  // k×m inside a wider matrix
			b := randDense(r, k, tc+1).RawMatrix()  // k×t inside a wider matrix
			y0 := randDense(r, m, tc+2).RawMatrix() // m×t inside a wider matrix
			a.Cols, at.Cols, b.Cols, y0.Cols = k, m, tc, tc
			for _, acc := range accels() {
				restore := setAccel(acc)
				y1, y2 := cloneGeneral(y0), cloneGeneral(y0)
				p := PackPanels(b, make([]float64, 5))
				p.SubMul(y1, a)
				p.SubMulT(y2, at)
				restore()
				for i := range m {
					for c := range tc {
						var w1, s1, w2, s2 float64
						for j := range k {
							w1 += a.Data[i*a.Stride+j] * b.Data[j*b.Stride+c]
							s1 += math.Abs(a.Data[i*a.Stride+j] * b.Data[j*b.Stride+c])
							w2 += at.Data[j*at.Stride+i] * b.Data[j*b.Stride+c]
							s2 += math.Abs(at.Data[j*at.Stride+i] * b.Data[j*b.Stride+c])
						}
						y := y0.Data[i*y0.Stride+c]
						what := fmt.Sprintf("%v m=%d t=%d (%d,%d)", acc, m, tc, i, c)
						if d := math.Abs(y1.Data[i*y1.Stride+c] - (y - w1)); d > 1e-13*(s1+math.Abs(y)) {
							t.Fatalf("%s SubMul: off by %g", what, d)
						}
						if d := math.Abs(y2.Data[i*y2.Stride+c] - (y - w2)); d > 1e-13*(s2+math.Abs(y)) {
							t.Fatalf("%s SubMulT: off by %g", what, d)
						}
					}
					// Columns past t are untouched.
					if y1.Data[i*y1.Stride+tc] != y0.Data[i*y0.Stride+tc] || y2.Data[i*y2.Stride+tc] != y0.Data[i*y0.Stride+tc] {
						t.Fatalf("%v m=%d t=%d: column t written", acc, m, tc)
					}
				}
			}
		}
	}
}

func cloneGeneral(g blas64.General) blas64.General {
	g.Data = append([]float64(nil), g.Data...)
	return g
}
