package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCSRRowsOf compares the conversion entry by entry with the dense
// matrix (At of the result equals x at every (i, j)), checks that only the
// non-zeros are stored, in ascending columns, in exactly sized arrays, and
// that NonZeros agrees with a brute-force count on dense, sparse and
// generic matrices.
func TestCSRRowsOf(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d = 13, 7
	x := mat.NewDense(n, d, nil)
	want := 0
	for i := range n {
		for j := range d {
			switch rng.IntN(3) {
			case 0:
				x.Set(i, j, rng.NormFloat64())
				want++
			case 1:
				x.Set(i, j, math.Copysign(0, -1)) // −0 is zero: not stored
			}
		}
	}
	for j := range d { // row 4 all zeros: an empty row
		if x.At(4, j) != 0 {
			want--
		}
		x.Set(4, j, 0)
	}
	if got := NonZeros(x); got != want {
		t.Fatalf("NonZeros(dense) = %d, brute force %d", got, want)
	}
	s := CSRRowsOf(x)
	if r, c := s.Dims(); r != n || c != d {
		t.Fatalf("dims %d×%d, want %d×%d", r, c, n, d)
	}
	indptr, indices, values := s.CSR()
	if len(values) != want || cap(values) != want || cap(indices) != want {
		t.Errorf("stored %d values (cap %d, indices cap %d), want exactly %d", len(values), cap(values), cap(indices), want)
	}
	for i := range n {
		for p := indptr[i]; p < indptr[i+1]; p++ {
			if values[p] == 0 || p > indptr[i] && indices[p] <= indices[p-1] {
				t.Errorf("row %d position %d: value %v column %d (after %d)", i, p, values[p], indices[p], indices[max(p-1, 0)])
			}
		}
		for j := range d {
			if s.At(i, j) != x.At(i, j) {
				t.Errorf("At(%d,%d) = %v, dense %v", i, j, s.At(i, j), x.At(i, j))
			}
		}
	}
	if got := NonZeros(s); got != want {
		t.Errorf("NonZeros(sparse) = %d, want %d", got, want)
	}
	if got := NonZeros(x.T()); got != want {
		t.Errorf("NonZeros(generic) = %d, want %d", got, want)
	}
	// An explicitly stored zero is not a non-zero.
	z := NewCSRRows(3, []int{0, 2, 2}, []int32{0, 2}, []float64{0, 5})
	if got := NonZeros(z); got != 1 {
		t.Errorf("NonZeros with a stored zero = %d, want 1", got)
	}
}

// TestDenseRow: every row of a CSRRows scattered by DenseRow equals the
// dense row it was built from, over a buffer that held other values.
func TestDenseRow(t *testing.T) {
	x := mat.NewDense(3, 4, []float64{0, 1.5, 0, -2, 0, 0, 0, 0, 3, 0, 4, 0})
	s := CSRRowsOf(x)
	row := []float64{9, 9, 9, 9}
	for i := range 3 {
		DenseRow(row, s, i)
		if !mat.Equal(mat.NewVecDense(4, row), x.RowView(i)) {
			t.Errorf("row %d: %v, want %v", i, row, mat.Row(nil, i, x))
		}
	}
}
