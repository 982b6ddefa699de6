package points

import (
	"math"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"gonum.org/v1/gonum/mat"
)

// sameBitsDense reports whether a and b have the same shape and the same
// bit pattern in every entry (−0 and +0 differ).
func sameBitsDense(a, b *mat.Dense) bool {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	for i := 0; i < ra; i++ {
		x, y := a.RawRowView(i), b.RawRowView(i)
		for j := range x {
			if math.Float64bits(x[j]) != math.Float64bits(y[j]) {
				return false
			}
		}
	}
	return true
}

// Encode chooses the smaller field exactly and loses nothing: a matrix
// without zeros is written dense, sparser ones as CSR, −0 entries are kept
// (only the +0 bit pattern is left out), and an all-zero matrix is a CSR
// field of no non-zeros. Every field here opens with 3 one-byte varints
// (kind, rows, cols); then dense holds 8rc bytes and CSR the non-zero
// count, a count per row, a gap per non-zero (one byte each here) and
// 8 bytes a value — the expected sizes are counted that way.
func TestEncode(t *testing.T) {
	negZero := math.Copysign(0, -1)
	sparse := mat.NewDense(2, 40, nil)
	sparse.Set(0, 3, 1.5)
	sparse.Set(1, 39, -2)
	nz := mat.NewDense(3, 50, nil)
	nz.Set(0, 0, negZero)
	nz.Set(2, 49, 7)
	oneZero := mat.NewDense(1, 20, nil)
	for j := 1; j < 20; j++ {
		oneZero.Set(0, j, float64(j))
	}
	for _, c := range []struct {
		name string
		m    *mat.Dense
		size int
	}{
		{"full", mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6}), 3 + 8*6},
		{"sparse", sparse, 3 + 1 + 2 + 2*(1+8)},
		{"negative zero", nz, 3 + 1 + 3 + 2*(1+8)},
		{"half", mat.NewDense(1, 4, []float64{1, 0, 2, 0}), 3 + 1 + 1 + 2*(1+8)}, // dense: 3 + 32
		// 19 non-zeros of 20: CSR would take 1 + 1 + 19·9 = 173 bytes, dense 160.
		{"one zero of twenty", oneZero, 3 + 8*20},
		{"zero", mat.NewDense(2, 5, nil), 3 + 1 + 2},
	} {
		var e binfmt.Enc
		if err := Encode(&e, c.m); err != nil {
			t.Fatal(err)
		}
		if len(e.Bytes()) != c.size {
			t.Errorf("%s: %d bytes, want %d", c.name, len(e.Bytes()), c.size)
		}
		r, cols := c.m.Dims()
		d := binfmt.NewDec(e.Bytes())
		got := Decode(d, c.name, r, cols)
		if err := d.Done(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !sameBitsDense(got, c.m) {
			t.Errorf("%s: read back differently", c.name)
		}
	}
}
