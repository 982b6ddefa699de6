package kernel

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestAddPartialsOrder: addPartials sums every element as 0 + p₀ + p₁ + p₂,
// in the partials' order. With p₀ = 1e16, p₁ = 1, p₂ = −1e16 that order
// gives exactly 0 (1e16 + 1 rounds back to 1e16, the spacing of doubles
// there being 2), while p₁ added last, or p₀ + p₂ first, gives 1; with
// p₀ = −0 alone the sum is +0 (0 + (−0)). Checked for a contiguous
// destination (stride t) and for one with a wider stride, whose extra
// column must stay untouched, with t = 1 and t = 2 and partials longer than
// m·t (the padded rows of reduce).
func TestAddPartialsOrder(t *testing.T) {
	const m = 3
	for _, tc := range []struct{ t, stride int }{{1, 1}, {2, 2}, {1, 2}, {2, 3}} {
		partial := make([][]float64, 3)
		for s := range partial {
			partial[s] = make([]float64, m*tc.t+5) // longer, as reduce's padded partials
		}
		for k := 0; k < m*tc.t; k++ {
			partial[0][k], partial[1][k], partial[2][k] = 1e16, 1, -1e16
		}
		// Element (1, 0): p₀ = −0 and nothing else, so the sum is +0.
		partial[0][tc.t], partial[1][tc.t], partial[2][tc.t] = math.Copysign(0, -1), 0, 0
		data := make([]float64, m*tc.stride)
		for i := range data {
			data[i] = 7 // stale values: overwritten in the t columns, kept in the rest
		}
		dst := blas64.General{Rows: m, Cols: tc.t, Stride: tc.stride, Data: data}
		addPartials(dst, m, tc.t, partial)
		for i := 0; i < m; i++ {
			for j := 0; j < tc.stride; j++ {
				got := data[i*tc.stride+j]
				want := 0.0
				if j >= tc.t {
					want = 7
				}
				if math.Float64bits(got) != math.Float64bits(want) {
					t.Errorf("t=%d stride=%d: (%d, %d) = %v, want %v", tc.t, tc.stride, i, j, got, want)
				}
			}
		}
	}
}

// TestSegmentSumsClearsRecycled: the partial sums of reduce come from a
// recycled buffer that is not cleared before the pass (getSums); each
// segment's partial is cleared by the worker that sums it. A buffer full
// of NaN is put in sumsSlot before MulTMul, MulT and the Laplacian's and
// the multi-column MulTMul; each must give the bits of the same product
// computed with a fresh buffer (sumsSlot emptied), with 1 and 2 workers,
// and those bits must agree across worker counts (the segments fix the
// order). n = 2,000 rows in 8-row blocks make 250 blocks in 128 segments.
func TestSegmentSumsClearsRecycled(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	const n, m, d = 2000, 37, 6
	x, c := randDense(r, n, d), randDense(r, m, d)
	v, u := randDense(r, m, 3), randDense(r, n, 1)
	ctx := context.Background()
	poison := func() {
		b := make([]float64, 1<<16)
		for i := range b {
			b[i] = math.NaN()
		}
		sumsSlot.Put(&b)
	}
	fresh := func() { sumsSlot.Get(0) } // takes the slot's buffer, leaving it empty
	type product struct {
		name string
		k    Kernel
		cols int
		run  func(op *Op, dst *mat.Dense) error
	}
	products := []product{
		{"MulTMul", Gaussian{Gamma: 0.3}, 1, func(op *Op, dst *mat.Dense) error {
			return op.MulTMul(ctx, dst, mat.DenseCopyOf(v.Slice(0, m, 0, 1)))
		}},
		{"MulTMul t=3", Gaussian{Gamma: 0.3}, 3, func(op *Op, dst *mat.Dense) error { return op.MulTMul(ctx, dst, v) }},
		{"MulT", Gaussian{Gamma: 0.3}, 1, func(op *Op, dst *mat.Dense) error { return op.MulT(ctx, dst, u) }},
		{"Laplacian MulTMul", Laplacian{Gamma: 0.2}, 1, func(op *Op, dst *mat.Dense) error {
			return op.MulTMul(ctx, dst, mat.DenseCopyOf(v.Slice(0, m, 0, 1)))
		}},
	}
	for _, pr := range products {
		var first []float64
		for _, workers := range []int{1, 2} {
			var got [2][]float64
			for i, setup := range []func(){fresh, poison} {
				op := NewOp(pr.k, x, c, Options{Workers: workers, BlockRows: 8})
				setup()
				dst := mat.NewDense(m, pr.cols, nil)
				if err := pr.run(op, dst); err != nil {
					t.Fatalf("%s: %v", pr.name, err)
				}
				got[i] = dst.RawMatrix().Data
			}
			for j := range got[0] {
				if math.IsNaN(got[1][j]) || math.Float64bits(got[0][j]) != math.Float64bits(got[1][j]) {
					t.Fatalf("%s, %d workers: element %d is %v after a recycled NaN buffer, %v after a fresh one", pr.name, workers, j, got[1][j], got[0][j])
				}
			}
			if first == nil {
				first = got[0]
				continue
			}
			for j := range first {
				if math.Float64bits(first[j]) != math.Float64bits(got[0][j]) {
					t.Fatalf("%s: element %d is %v with 2 workers, %v with 1", pr.name, j, got[0][j], first[j])
				}
			}
		}
	}
}
