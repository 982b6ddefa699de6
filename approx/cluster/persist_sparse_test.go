package cluster

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/synth"
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
	x := synth.Sparse(rand.New(rand.NewPCG(11, 12)), n, d)
	xt := synth.Sparse(rand.New(rand.NewPCG(13, 14)), 60, d)
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
