package precond

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// TestLowerGram compares lowerGram with LAPACK's lauum (gonum) on sizes below,
// at and across the 256-row panel, and checks the strict upper triangle is
// left alone.
func TestLowerGram(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{1, 7, 256, 600} {
		w := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				w.Set(i, j, r.NormFloat64())
			}
		}
		want := mat.DenseCopyOf(w)
		wr := want.RawMatrix()
		lapackgonum.Implementation{}.Dlauum(blas.Lower, n, wr.Data, wr.Stride)
		got := mat.DenseCopyOf(w)
		if err := lowerGram(context.Background(), got); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := range n {
				g, e := got.At(i, j), want.At(i, j)
				if j > i {
					e = w.At(i, j) // untouched
				}
				// Sums of up to n products of standard normals: 1e-12·n absolute.
				if math.Abs(g-e) > 1e-12*float64(n)*(1+math.Abs(e)) {
					t.Fatalf("n=%d (%d,%d): got %v want %v", n, i, j, g, e)
				}
			}
		}
	}
}

// TestMirrorLower: the upper triangle becomes the transpose of the lower one
// and the lower triangle and diagonal are unchanged, on sizes around the
// 64-element tile (more than one row of tiles per worker at 200).
func TestMirrorLower(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{1, 5, 64, 65, 200} {
		a := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				a.Set(i, j, r.NormFloat64())
			}
		}
		orig := mat.DenseCopyOf(a)
		if err := mirrorLower(context.Background(), a.RawMatrix().Data, n, a.RawMatrix().Stride); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for j := range n {
				want := orig.At(i, j)
				if j > i {
					want = orig.At(j, i)
				}
				if a.At(i, j) != want {
					t.Fatalf("n=%d: a[%d,%d] = %v, want %v", n, i, j, a.At(i, j), want)
				}
			}
		}
	}
}
