package kernel

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// testCSR is a minimal Sparse matrix for tests; datasets.CSR is the real one.
type testCSR struct {
	r, c    int
	indptr  []int
	indices []int32
	values  []float64
}

func (s testCSR) Dims() (int, int) { return s.r, s.c }
func (s testCSR) At(i, j int) float64 {
	for p := s.indptr[i]; p < s.indptr[i+1]; p++ {
		if int(s.indices[p]) == j {
			return s.values[p]
		}
	}
	return 0
}
func (s testCSR) T() mat.Matrix { return mat.Transpose{Matrix: s} }
func (s testCSR) CSR() ([]int, []int32, []float64) {
	return s.indptr, s.indices, s.values
}

var _ Sparse = testCSR{}

func TestDenseOfKeepsDenseAndCopiesOthers(t *testing.T) {
	d := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	if got := DenseOf(d); got != d {
		t.Fatal("DenseOf copied a *mat.Dense; the dense path must not copy")
	}
	if DenseOf(nil) != nil {
		t.Fatal("DenseOf(nil) is not nil")
	}
	// Row 1 is empty (the zero vector), which is valid sparse input.
	s := testCSR{r: 3, c: 4, indptr: []int{0, 2, 2, 3}, indices: []int32{0, 3, 2}, values: []float64{1.5, -2, 7}}
	want := mat.NewDense(3, 4, []float64{1.5, 0, 0, -2, 0, 0, 0, 0, 0, 0, 7, 0})
	if got := DenseOf(s); !mat.Equal(got, want) {
		t.Fatalf("DenseOf(csr) = %v, want %v", mat.Formatted(got), mat.Formatted(want))
	}
	// A generic mat.Matrix (here a transpose view) is copied element by element.
	tr := DenseOf(d.T())
	if r, c := tr.Dims(); r != 3 || c != 2 || tr.At(2, 1) != 6 || tr.At(0, 1) != 4 {
		t.Fatalf("DenseOf(d.T()) = %v", mat.Formatted(tr))
	}
}

func TestNewOpSparseInputMatchesDense(t *testing.T) {
	s := testCSR{r: 3, c: 4, indptr: []int{0, 2, 2, 3}, indices: []int32{0, 3, 2}, values: []float64{1.5, -2, 7}}
	c := mat.NewDense(2, 4, []float64{1, 0, 0.5, -1, 0, 2, 0, 3})
	k := Gaussian{Gamma: 0.3}
	got := mat.NewDense(3, 2, nil)
	if err := NewOp(k, s, c, Options{}).Block(t.Context(), got); err != nil {
		t.Fatal(err)
	}
	// exp(-γ‖x−c‖²) computed entry by entry from the sparse rows.
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			var d2 float64
			for f := 0; f < 4; f++ {
				e := s.At(i, f) - c.At(j, f)
				d2 += e * e
			}
			if want := math.Exp(-0.3 * d2); math.Abs(got.At(i, j)-want) > 1e-14 {
				t.Fatalf("K[%d,%d] = %v, want %v", i, j, got.At(i, j), want)
			}
		}
	}
}
