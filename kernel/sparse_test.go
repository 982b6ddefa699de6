package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomCSR draws an n×d sparse matrix with about density·d non-zeros a row;
// row 0 is left empty (the zero vector, valid input).
func randomCSR(rng *rand.Rand, n, d int, density float64) testCSR {
	s := testCSR{r: n, c: d, indptr: []int{0}}
	for i := 0; i < n; i++ {
		for j := 0; j < d && i > 0; j++ {
			if rng.Float64() < density {
				s.indices = append(s.indices, int32(j))
				s.values = append(s.values, rng.NormFloat64())
			}
		}
		s.indptr = append(s.indptr, len(s.values))
	}
	return s
}

// TestSparseBlockMatchesDense compares SparseBlock with the dense Block on
// the densified rows. 1e-12 is the tolerance: the two paths sum the
// same products in different orders, so they agree to a few ulps of the
// O(10) distances here, far below it.
func TestSparseBlockMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	x := randomCSR(rng, 23, 40, 0.2)
	c := mat.NewDense(9, 40, nil)
	for i := range c.RawMatrix().Data {
		c.RawMatrix().Data[i] = rng.NormFloat64()
	}
	xd := DenseOf(x)
	for _, k := range []Kernel{
		Gaussian{Gamma: 0.05}, Laplacian{Gamma: 0.05},
		Polynomial{Degree: 3, Gamma: 0.1, Coef0: 1}, Sigmoid{Gamma: 0.1, Coef0: -0.5}, Linear{},
	} {
		want := mat.NewDense(23, 9, nil)
		k.Block(want, xd, c)
		got := mat.NewDense(23, 9, nil)
		if err := SparseBlock(k, got, x, c); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 23; i++ {
			for j := 0; j < 9; j++ {
				w, g := want.At(i, j), got.At(i, j)
				if math.Abs(g-w) > 1e-12*math.Max(1, math.Abs(w)) {
					t.Fatalf("%v: K[%d,%d] sparse %v dense %v", k, i, j, g, w)
				}
			}
		}
	}
	if err := SparseBlock(Linear{}, mat.NewDense(23, 8, nil), x, c); !errors.Is(err, ErrParam) {
		t.Fatalf("wrong dst shape: %v", err)
	}
}
