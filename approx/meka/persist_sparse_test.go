package meka

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/kernel"
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

// MEKA on sparse rows saves its landmark rows (data rows, dense in memory)
// as CSR: the file is far below the dense landmarks' 8·d bytes a row, and
// the reloaded map transforms sparse rows bit-identically.
func TestSaveLoadSparseMEKA(t *testing.T) {
	const n, d = 200, 20000
	x := synth.Sparse(rand.New(rand.NewPCG(21, 22)), n, d)
	xt := synth.Sparse(rand.New(rand.NewPCG(23, 24)), 30, d)
	m, err := Fit(context.Background(), x, kernel.Gaussian{Gamma: 0.1}, Options{Rank: 5, Clusters: 3}, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, z := range m.z {
		if z != nil {
			r, _ := z.Dims()
			rows += r
		}
	}
	b, err := MarshalMap(m)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d landmark rows (dense %d bytes), file %d bytes", rows, 8*rows*d, len(b))
	// Dense landmarks alone would take 8·d bytes a row; the file of a
	// sparse fit must hold less than one dense row a cluster besides them
	// (the centroids are sparse too).
	if len(b) >= 8*d*len(m.z) {
		t.Fatalf("file of %d bytes for %d sparse landmark rows", len(b), rows)
	}
	got, err := LoadMap(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	a := mat.NewDense(30, m.Dim(), nil)
	c := mat.NewDense(30, m.Dim(), nil)
	if err := m.Transform(context.Background(), a, xt); err != nil {
		t.Fatal(err)
	}
	if err := got.Transform(context.Background(), c, xt); err != nil {
		t.Fatal(err)
	}
	if !sameBitsDense(a, c) {
		t.Fatal("reloaded MEKA transforms differently")
	}
}
