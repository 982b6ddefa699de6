package kernel

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSubLowerGram compares with c − a·aᵀ computed by gonum, on sizes that
// are not multiples of the chunk or the vector width; the strict upper
// triangle must be untouched.
func TestSubLowerGram(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][2]int{{1, 1}, {5, 3}, {130, 17}, {300, 64}} {
		m, k := sz[0], sz[1]
		a, c := randDense(r, m, k), randDense(r, m, m)
		orig := mat.DenseCopyOf(c)
		var want mat.Dense
		want.Mul(a, a.T())
		if err := SubLowerGram(context.Background(), c, a, Options{}); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				exp := orig.At(i, j)
				if j <= i {
					exp -= want.At(i, j)
				}
				// 1e-12 relative to the size of the products (sums of k terms).
				if math.Abs(c.At(i, j)-exp) > 1e-12*float64(k)*(1+math.Abs(exp)) {
					t.Fatalf("m=%d k=%d (%d,%d): got %v want %v", m, k, i, j, c.At(i, j), exp)
				}
			}
		}
	}
	if err := SubLowerGram(context.Background(), mat.NewDense(3, 2, nil), mat.NewDense(3, 2, nil), Options{}); err == nil {
		t.Fatal("non-square c: no error")
	}
}
