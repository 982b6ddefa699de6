package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFusedGaussianOrder checks that fusedGaussian, which maps four rows of
// a block and adds them to the accumulator before mapping the next four,
// gives the bits of the two passes it replaced: every row of the block
// mapped through exp with its dot product (expRowDot), then the block added
// by accumulateRows. Block heights cover groups of four with 0–3 rows left
// over, starting at row 11; M = 37 pads to 48 columns. It also checks the result
// against the explicit sum Σ_i k_i·(k_i·v), the tolerance 1e-13 relative to
// Σ_i |k_i|·|k_i·v| (a few hundred roundings of 2^−53 each).
func TestFusedGaussianOrder(t *testing.T) {
	if bestAccel == accelPortable {
		t.Skip("no AVX2 or AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(21, 22))
	const n, m, d, r0 = 80, 37, 9, 11
	x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
	k := Gaussian{Gamma: 0.3}
	full := naive(k, x, c)
	for _, a := range accels()[1:] {
		restore := setAccel(a)
		for _, rows := range []int{1, 3, 4, 5, 6, 7, 8, 13, 64} {
			op := NewOp(k, x, c, Options{Workers: 1})
			p := op.prepare()
			vp, _ := p.padded(v.RawMatrix())
			w := p.getWork(rows, 1)
			got := make([]float64, p.mp)
			p.fusedGaussian(w, r0, r0+rows, p.ng, vp, got)

			// The two passes, on a fresh block.
			w2 := p.getWork(rows, 1)
			p.dots(w2, r0, r0+rows)
			expRowDot := expRowDotAVX512
			if a == accelAVX2 {
				expRowDot = expRowDotAVX2
			}
			kv := make([]float64, rows)
			for i := range kv {
				kv[i] = expRowDot(&w2.blk[i*p.mp], &p.cn[0], &vp[0], p.mp, p.xn[r0+i], p.ng)
			}
			want := make([]float64, p.mp)
			p.accumulateRows(w2, w2.blk, kv, want)
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("%v rows=%d: column %d is %v, the two passes give %v", a, rows, j, got[j], want[j])
				}
			}
			for j := 0; j < m; j++ {
				var exact, scale float64
				for i := 0; i < rows; i++ {
					var kvi float64
					for l := 0; l < m; l++ {
						kvi += full.At(r0+i, l) * v.At(l, 0)
					}
					exact += full.At(r0+i, j) * kvi
					scale += math.Abs(full.At(r0+i, j) * kvi)
				}
				if math.Abs(got[j]-exact) > 1e-13*max(scale, 1e-300) {
					t.Fatalf("%v rows=%d: column %d is %v, explicit %v", a, rows, j, got[j], exact)
				}
			}
			putWorks([]*work{w, w2})
		}
		restore()
	}
}

// TestRowNorms checks the squared row norms prepare computes: the bits of
// the sequential one-accumulator sum (dot, the order of norms and of the
// sparse rows' norms, which the sparse-versus-dense tests of package model
// compare bit for bit), with 1 and 3 workers, for float64 rows with a
// stride and for float32 rows holding the same values; row counts leave 0–3
// rows after the groups of four.
func TestRowNorms(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, d := range []int{1, 3, 4, 7, 54, 785} {
		for _, n := range []int{1, 6, 300, 301} {
			stride := d + 2
			x := make([]float64, n*stride)
			x32 := make([]float32, n*d)
			for i := range n {
				for k := range d {
					v := float32(r.NormFloat64())
					x[i*stride+k], x32[i*d+k] = float64(v), v
				}
			}
			one, three, f32 := make([]float64, n), make([]float64, n), make([]float64, n)
			rowNorms(one, x, stride, d, 1)
			rowNorms(three, x, stride, d, 3)
			rowNorms(f32, x32, d, d, 2)
			for i := range n {
				row := x[i*stride : i*stride+d]
				want := dot(row, row)
				for _, got := range []float64{one[i], three[i], f32[i]} {
					if math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("d=%d n=%d row %d: 1 worker %v, 3 workers %v, float32 rows %v; want %v", d, n, i, one[i], three[i], f32[i], want)
					}
				}
			}
		}
	}
}
