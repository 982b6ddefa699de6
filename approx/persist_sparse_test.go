package approx

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
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

// nonZeros counts the entries of m whose bit pattern is not +0.
func nonZeros(m *mat.Dense) int {
	r, _ := m.Dims()
	n := 0
	for i := 0; i < r; i++ {
		for _, v := range m.RawRowView(i) {
			if math.Float64bits(v) != 0 {
				n++
			}
		}
	}
	return n
}

// encodePartitionV2 writes p as files before format version 3 did: every
// matrix dense.
func encodePartitionV2(t *testing.T, p *Partition) []byte {
	t.Helper()
	var e binfmt.Enc
	e.Dense(p.Centroids)
	e.Ints(p.Labels)
	e.Floats(p.Objective)
	e.Dense(p.sketch)
	shared := p.assignTo == p.Centroids
	e.Bool(shared)
	if !shared {
		e.Dense(p.assignTo)
	}
	var b bytes.Buffer
	if err := binfmt.Write(&b, tagPartition, e.Bytes()); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A partition of sparse rows (300 rows over 5,000 columns, about 8
// non-zeros a row) saves its centroids as CSR: the file holds at most
// 8 + 3 bytes a centroid non-zero (value, index gap of at most 3 varint
// bytes below 2²¹ columns) plus the labels (one byte each below 64
// clusters), the objective and 1 KiB of headers and small fields, far
// below the 8·K·d bytes of the dense centroids. Reloaded, the centroids
// are bit-identical and Assign gives the same labels on sparse and dense
// rows; the same partition written as before version 3 (dense) still loads
// to the same centroids. In sketch mode the sketch itself (±1/√p, no zeros)
// stays dense.
func TestSaveLoadSparsePartition(t *testing.T) {
	const n, d = 300, 5000
	x := sparseBlobs(rand.New(rand.NewPCG(11, 12)), n, d)
	xt := sparseBlobs(rand.New(rand.NewPCG(13, 14)), 60, d)
	for _, km := range []KMeans{{K: 6}, {K: 4, Sketch: 8}} {
		p, err := km.Fit(context.Background(), x, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		k, _ := p.Centroids.Dims()
		nz := nonZeros(p.Centroids)
		var buf bytes.Buffer
		if err := SavePartition(&buf, p); err != nil {
			t.Fatal(err)
		}
		size := buf.Len()
		bound := 11*nz + n + 8*len(p.Objective) + 1024
		if km.Sketch > 0 {
			bound += 8 * km.Sketch * d
		}
		t.Logf("sketch %d: %d centroid non-zeros of %d, file %d bytes (dense centroids %d bytes)", km.Sketch, nz, k*d, size, 8*k*d)
		if size > bound {
			t.Errorf("sketch %d: file of %d bytes, want ≤ %d", km.Sketch, size, bound)
		}
		old := encodePartitionV2(t, p)
		if len(old) < 8*k*d {
			t.Fatalf("dense encoding of %d bytes", len(old))
		}
		for name, b := range map[string][]byte{"v3": buf.Bytes(), "dense": old} {
			got, err := LoadPartition(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("sketch %d, %s: %v", km.Sketch, name, err)
			}
			if !sameBitsDense(got.Centroids, p.Centroids) || !slices.Equal(got.Labels, p.Labels) || !slices.Equal(got.Objective, p.Objective) {
				t.Fatalf("sketch %d, %s: reloaded partition differs", km.Sketch, name)
			}
			for _, xx := range []mat.Matrix{xt, kernel.DenseOf(xt)} {
				want, err1 := p.Assign(xx)
				have, err2 := got.Assign(xx)
				if err1 != nil || err2 != nil || !slices.Equal(have, want) {
					t.Fatalf("sketch %d, %s, %T: Assign after load differs (%v, %v)", km.Sketch, name, xx, err1, err2)
				}
			}
		}
	}
}

// encRows chooses the smaller field exactly and loses nothing: a matrix
// without zeros is written dense, sparser ones as CSR, −0 entries are kept
// (only the +0 bit pattern is left out), and an all-zero matrix is a CSR
// field of no non-zeros. Every field here opens with 3 one-byte varints
// (kind, rows, cols); then dense holds 8rc bytes and CSR the non-zero
// count, a count per row, a gap per non-zero (one byte each here) and
// 8 bytes a value — the expected sizes are counted that way.
func TestEncRows(t *testing.T) {
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
		if err := encRows(&e, c.m); err != nil {
			t.Fatal(err)
		}
		if len(e.Bytes()) != c.size {
			t.Errorf("%s: %d bytes, want %d", c.name, len(e.Bytes()), c.size)
		}
		r, cols := c.m.Dims()
		d := binfmt.NewDec(e.Bytes())
		got := decRows(d, c.name, r, cols)
		if err := d.Done(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !sameBitsDense(got, c.m) {
			t.Errorf("%s: read back differently", c.name)
		}
	}
}

// MEKA on sparse rows saves its landmark rows (data rows, dense in memory)
// as CSR: the file is far below the dense landmarks' 8·d bytes a row, and
// the reloaded map transforms sparse rows bit-identically.
func TestSaveLoadSparseMEKA(t *testing.T) {
	const n, d = 200, 20000
	x := sparseBlobs(rand.New(rand.NewPCG(21, 22)), n, d)
	xt := sparseBlobs(rand.New(rand.NewPCG(23, 24)), 30, d)
	m, err := FitMEKA(context.Background(), x, kernel.Gaussian{Gamma: 0.1}, MEKAOptions{Rank: 5, Clusters: 3}, rand.New(rand.NewPCG(5, 6)))
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
