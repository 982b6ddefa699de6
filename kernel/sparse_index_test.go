package kernel

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestSparseIndexMatchesColumns: the inverted-index columns equal
// SparseColumns' scatter/gather columns bit for bit (the same products summed
// in the same column order, without the exact-zero terms), on row ranges that
// start and end inside the matrix, for points with and without shared
// columns (and an empty one); other kernels are refused.
func TestSparseIndexMatchesColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	x := randomCSR(rng, 57, 300, 0.05)
	y := randomCSR(rng, 9, 300, 0.08)
	yp, yi, yv := y.CSR()
	buf := make([]float64, 300)
	for _, k := range sparseKernels() {
		ix, ok := NewSparseIndex(k, x)
		switch k.(type) {
		case Gaussian, Linear, Polynomial, Sigmoid:
			if !ok {
				t.Fatalf("%v: not indexed", k)
			}
		default:
			if ok || ix != nil {
				t.Fatalf("%v: indexed", k)
			}
			continue
		}
		c := NewSparseColumns(k, x)
		for j := 0; j < 9; j++ {
			for _, rr := range [][2]int{{0, 57}, {5, 31}, {40, 57}, {56, 57}} {
				want, got := make([]float64, rr[1]-rr[0]), make([]float64, rr[1]-rr[0])
				c.Column(want, rr[0], yi[yp[j]:yp[j+1]], yv[yp[j]:yp[j+1]], buf)
				for r := range got {
					got[r] = -7 // Column must overwrite
				}
				ix.Column(got, rr[0], yi[yp[j]:yp[j+1]], yv[yp[j]:yp[j+1]])
				for r := range want {
					if got[r] != want[r] {
						t.Fatalf("%v: point %d row %d: index %v, gather %v", k, j, rr[0]+r, got[r], want[r])
					}
				}
				// Row j of X as the point, by RowColumn.
				xp, xi, xv := x.CSR()
				c.Column(want, rr[0], xi[xp[j]:xp[j+1]], xv[xp[j]:xp[j+1]], buf)
				ix.RowColumn(got, rr[0], j)
				for r := range want {
					if got[r] != want[r] {
						t.Fatalf("%v: row %d as the point, row %d: index %v, gather %v", k, j, rr[0]+r, got[r], want[r])
					}
				}
			}
		}
		// The point with no non-zeros.
		want, got := make([]float64, 57), make([]float64, 57)
		c.Column(want, 0, nil, nil, buf)
		ix.Column(got, 0, nil, nil)
		for r := range want {
			if got[r] != want[r] {
				t.Fatalf("%v: empty point, row %d: %v vs %v", k, r, got[r], want[r])
			}
		}
	}
}

// TestSparseIndexBytes: everything NewSparseIndex allocates (the runtime's
// cumulative allocation count, temporaries included) stays within
// SparseIndexBytes, on a matrix with many distinct columns (the bound's worst
// case is every column distinct).
func TestSparseIndexBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	x := randomCSR(rng, 500, 20000, 0.002)
	n, _ := x.Dims()
	_, _, v := x.CSR()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ix, _ := NewSparseIndex(Gaussian{Gamma: 1}, x)
	runtime.ReadMemStats(&after)
	got, bound := after.TotalAlloc-before.TotalAlloc, SparseIndexBytes(n, len(v))
	if int64(got) > bound {
		t.Errorf("NewSparseIndex allocated %d bytes, bound %d (%d rows, %d non-zeros, %d columns)", got, bound, n, len(v), len(ix.cols))
	}
	t.Logf("allocated %d of %d bytes (%d non-zeros, %d distinct columns)", got, bound, len(v), len(ix.cols))
}
