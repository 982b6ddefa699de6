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
			p.norms(0, p.n) // X's norms, as the products sum them first
			vp, _ := p.padded(v.RawMatrix())
			w := p.getWork(rows, 1)
			got := make([]float64, p.mp)
			p.fusedGaussian(w, r0, r0+rows, p.ng, vp, got, nil, nil)

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
			x, x32 := normRowsData(r, n, d, stride)
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

// TestExpRowDotOrder pins the summation order of expRowDotAVX512's dot
// product: vector g (values 8g … 8g+7) of the mapped row is added by FMA to
// partial g mod 2, lane by lane, in order of g; then the two partials are
// added, then the upper four lanes to the lower four, then lanes 2–3 to
// 0–1, then lane 1 to lane 0. The kernel runs five vectors a step in two
// steps a loop and two vectors a step after them; the lengths cover loops
// with 0–4 steps of two left over (n/16 mod 5), the order of the four-vector
// loop it replaced (2026-11-27), whose bits it keeps.
func TestExpRowDotOrder(t *testing.T) {
	if bestAccel < accelAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{16, 32, 48, 64, 80, 96, 160, 176, 208, 2000, 2048} {
		row, cc, v := make([]float64, n), make([]float64, n), make([]float64, n)
		for j := range row {
			row[j], cc[j], v[j] = r.NormFloat64(), 3+r.NormFloat64(), r.NormFloat64()
		}
		got := expRowDotAVX512(&row[0], &cc[0], &v[0], n, 2, -0.3)
		var p [2][8]float64
		for g := 0; g < n/8; g++ {
			for l := range 8 {
				p[g%2][l] = math.FMA(row[8*g+l], v[8*g+l], p[g%2][l])
			}
		}
		var s [8]float64
		for l := range s {
			s[l] = p[0][l] + p[1][l]
		}
		var a [4]float64
		for l := range a {
			a[l] = s[l] + s[l+4]
		}
		b0, b1 := a[0]+a[2], a[1]+a[3]
		if want := b0 + b1; math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("n=%d: expRowDotAVX512 returned %v, the order above gives %v", n, got, want)
		}
	}
}
