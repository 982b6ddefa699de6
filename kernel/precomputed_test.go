package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// precomputedOf returns the rows [i | K_i] of a random symmetric n×n
// matrix K (some entries 0, so that CSR leaves them out) and the query rows
// [0 | Q_i] of a random m×n one.
func precomputedOf(rng *rand.Rand, n, m int) (k, train, q, query *mat.Dense) {
	k = mat.NewDense(n, n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			v := rng.NormFloat64()
			if rng.IntN(4) == 0 {
				v = 0
			}
			k.Set(i, j, v)
			k.Set(j, i, v)
		}
	}
	q = mat.NewDense(m, n, nil)
	for i := range m {
		for j := range n {
			q.Set(i, j, rng.NormFloat64())
		}
	}
	train, query = mat.NewDense(n, n+1, nil), mat.NewDense(m, n+1, nil)
	for i := range n {
		train.Set(i, 0, float64(i+1))
		copy(train.RawRowView(i)[1:], k.RawRowView(i))
	}
	for i := range m {
		copy(query.RawRowView(i)[1:], q.RawRowView(i))
	}
	return k, train, q, query
}

// TestPrecomputedValues: Eval, Block and Diag read K(x, x_j) from x's row
// at the serial of x_j — K_ij between training rows, Q_ij for a query row —
// on dense rows and, through SparsePairColumn and SparseColumns, on CSR
// rows (entries of 0 not stored read as 0); rows taken out of order keep
// their serials. A bad serial gives NaN.
func TestPrecomputedValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k, train, q, query := precomputedOf(rng, 23, 7)
	var p Precomputed
	sub := mat.NewDense(3, 24, nil) // training rows 9, 2, 17, in that order
	for r, i := range []int{9, 2, 17} {
		sub.SetRow(r, train.RawRowView(i))
	}
	got := mat.NewDense(7, 3, nil)
	p.Block(got, query, sub)
	for i := range 7 {
		for r, j := range []int{9, 2, 17} {
			if got.At(i, r) != q.At(i, j) || p.Eval(query.RawRowView(i), sub.RawRowView(r)) != q.At(i, j) {
				t.Fatalf("query %d, training row %d: %v, want %v", i, j, got.At(i, r), q.At(i, j))
			}
		}
	}
	diag := make([]float64, 3)
	p.Diag(diag, sub)
	for r, j := range []int{9, 2, 17} {
		if diag[r] != k.At(j, j) {
			t.Errorf("diag %d: %v, want %v", j, diag[r], k.At(j, j))
		}
	}
	xs, ts := CSRRowsOf(query), CSRRowsOf(train)
	col := make([]float64, 7)
	buf := make([]float64, 24)
	tp, ti, tv := ts.CSR()
	for j := range 23 {
		SparsePairColumn(p, col, xs, 0, ts, j)
		for i, v := range col {
			if v != q.At(i, j) {
				t.Fatalf("SparsePairColumn query %d, row %d: %v, want %v", i, j, v, q.At(i, j))
			}
		}
		NewSparseColumns(p, CSRRowsOf(train)).Column(col[:1], j, ti[tp[j]:tp[j+1]], tv[tp[j]:tp[j+1]], buf)
		if col[0] != k.At(j, j) {
			t.Fatalf("SparseColumns row %d: %v, want K_jj %v", j, col[0], k.At(j, j))
		}
	}
	bad := mat.DenseCopyOf(sub)
	bad.Set(1, 0, 2.5)
	if v := p.Eval(query.RawRowView(0), bad.RawRowView(1)); !math.IsNaN(v) {
		t.Errorf("serial 2.5: %v, want NaN", v)
	}
	p.Diag(diag, bad)
	if !math.IsNaN(diag[1]) || math.IsNaN(diag[0]) {
		t.Errorf("diag with serial 2.5 in row 1: %v", diag)
	}
}

// TestCheckPrecomputed: serial numbers must be integers from 1 to d−1, in
// dense and CSR rows; the first bad row is named.
func TestCheckPrecomputed(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	_, train, _, _ := precomputedOf(rng, 10, 1)
	if err := CheckPrecomputed(train); err != nil {
		t.Fatal(err)
	}
	if err := CheckPrecomputed(CSRRowsOf(train)); err != nil {
		t.Fatal(err)
	}
	for _, s := range []float64{0, 11, 1.5, -3, math.NaN()} {
		bad := mat.DenseCopyOf(train)
		bad.Set(4, 0, s)
		for _, x := range []mat.Matrix{bad, CSRRowsOf(bad)} {
			err := CheckPrecomputed(x)
			if !errors.Is(err, ErrParam) || !strings.Contains(err.Error(), "row 4 has serial number") {
				t.Errorf("serial %v (%T): err = %v", s, x, err)
			}
		}
	}
	if err := CheckPrecomputed(mat.NewDense(3, 1, []float64{1, 2, 3})); !errors.Is(err, ErrParam) {
		t.Errorf("one column: err = %v", err)
	}
}
