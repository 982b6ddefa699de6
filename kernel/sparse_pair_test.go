package kernel

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sparseKernels are the four kernels with a merge form, plus a kernel
// without one (wrapped so it is none of them) to cover the Eval fallback.
func sparseKernels() []Kernel {
	return []Kernel{
		Gaussian{Gamma: 0.05}, Laplacian{Gamma: 0.05},
		Polynomial{Degree: 3, Gamma: 0.1, Coef0: 1}, Sigmoid{Gamma: 0.1, Coef0: -0.5}, Linear{},
		evalOnly{Gaussian{Gamma: 0.05}},
	}
}

// evalOnly hides the concrete type of a kernel.
type evalOnly struct{ Kernel }

// TestSparsePairMatchesDense compares SparsePairBlock (merge on both sides)
// with the dense Block on the densified rows, and SparseDiag with Diag. The
// tolerance 1e-12 is the issue's: the paths sum the same terms in different
// orders (and the dense Gaussian expands ‖x‖²+‖y‖²−2x·y), a few ulps of the
// O(10) distances here. Row 0 of each matrix is empty.
func TestSparsePairMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	x := randomCSR(rng, 37, 50, 0.15)
	y := randomCSR(rng, 11, 50, 0.3)
	xd, yd := DenseOf(x), DenseOf(y)
	for _, k := range sparseKernels() {
		want := mat.NewDense(37, 11, nil)
		k.Block(want, xd, yd)
		for _, w := range []int{1, 3} {
			got := mat.NewDense(37, 11, nil)
			if err := SparsePairBlock(context.Background(), k, got, x, y, Options{Workers: w}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 37; i++ {
				for j := 0; j < 11; j++ {
					wv, g := want.At(i, j), got.At(i, j)
					if math.Abs(g-wv) > 1e-12*math.Max(1, math.Abs(wv)) {
						t.Fatalf("%v workers %d: K[%d,%d] sparse %v dense %v", k, w, i, j, g, wv)
					}
				}
			}
		}
		wd, gd := make([]float64, 37), make([]float64, 37)
		k.Diag(wd, xd)
		SparseDiag(k, gd, x)
		for i := range wd {
			if math.Abs(gd[i]-wd[i]) > 1e-12*math.Max(1, math.Abs(wd[i])) {
				t.Fatalf("%v: diag %d sparse %v dense %v", k, i, gd[i], wd[i])
			}
		}
	}
	if err := SparsePairBlock(context.Background(), Linear{}, mat.NewDense(37, 10, nil), x, y, Options{}); !errors.Is(err, ErrParam) {
		t.Fatalf("wrong dst shape: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SparsePairBlock(ctx, Linear{}, mat.NewDense(37, 11, nil), x, y, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// TestSparseMergeExact checks the merges on vectors whose results are exact
// in floating point: x = (1 at 0, 2 at 3, −1 at 7), y = (4 at 3, 5 at 5, 1 at 9).
func TestSparseMergeExact(t *testing.T) {
	xi, xv := []int32{0, 3, 7}, []float64{1, 2, -1}
	yi, yv := []int32{3, 5, 9}, []float64{4, 5, 1}
	if got := SparseDot(xi, xv, yi, yv); got != 8 {
		t.Fatalf("dot %v, want 8", got)
	}
	// (1)² + (2−4)² + (−1)² + 5² + 1² = 1+4+1+25+1.
	if got := SparseSqDist(xi, xv, yi, yv); got != 32 {
		t.Fatalf("squared distance %v, want 32", got)
	}
	// 1 + 2 + 1 + 5 + 1.
	if got := SparseL1Dist(xi, xv, yi, yv); got != 10 {
		t.Fatalf("L1 distance %v, want 10", got)
	}
	if SparseDot(nil, nil, yi, yv) != 0 || SparseSqDist(nil, nil, yi, yv) != 42 {
		t.Fatal("empty row is the zero vector")
	}
}

// TestSubsetRows checks that SubsetRows copies the chosen rows.
func TestSubsetRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randomCSR(rng, 9, 12, 0.4)
	idx := []int{4, 0, 4, 8}
	s := SubsetRows(x, idx)
	if r, c := s.Dims(); r != 4 || c != 12 {
		t.Fatalf("dims %d×%d", r, c)
	}
	want, got := DenseOf(x), DenseOf(s)
	for r, i := range idx {
		for j := 0; j < 12; j++ {
			if got.At(r, j) != want.At(i, j) || s.At(r, j) != want.At(i, j) {
				t.Fatalf("row %d (of %d) column %d", r, i, j)
			}
		}
	}
}

// TestSparseColumnsMatchMerge compares the scatter/gather columns with the
// merge form (1e-12, as above: the Gaussian's expanded distance loses a few
// ulps of the O(10) squared norms), and checks that the scratch vector is
// left zero.
func TestSparseColumnsMatchMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	x := randomCSR(rng, 29, 40, 0.2)
	y := randomCSR(rng, 6, 40, 0.3)
	yp, yi, yv := y.CSR()
	buf := make([]float64, 40)
	for _, k := range sparseKernels() {
		c := NewSparseColumns(k, x)
		for j := 0; j < 6; j++ {
			want, got := make([]float64, 20), make([]float64, 20)
			SparsePairColumn(k, want, x, 5, y, j)
			c.Column(got, 5, yi[yp[j]:yp[j+1]], yv[yp[j]:yp[j+1]], buf)
			for r := range want {
				if math.Abs(got[r]-want[r]) > 1e-12*math.Max(1, math.Abs(want[r])) {
					t.Fatalf("%v: column %d row %d: gather %v merge %v", k, j, 5+r, got[r], want[r])
				}
			}
			for _, v := range buf {
				if v != 0 {
					t.Fatal("scratch not cleared")
				}
			}
		}
	}
}
