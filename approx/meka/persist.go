package meka

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"gonum.org/v1/gonum/mat"
)

// tagMEKA is the type tag of a saved MEKA (see package model's "Saved
// models" documentation for the container). It keeps the name MEKA had
// before it moved to this package, so older files load.
const tagMEKA = "approx.MEKA"

// ErrFormat is wrapped by every error of LoadMap about a malformed,
// truncated, corrupted, wrong-version or wrong-type file. It is the same
// value as approx.ErrFormat and model.ErrFormat.
var ErrFormat = binfmt.ErrFormat

// SaveMap writes a fitted feature map to w in Landmark's versioned,
// checksummed binary format: a *Map here, any other map through
// approx.SaveMap (*approx.NystromMap, *approx.RFFMap). LoadMap reads it
// back; the loaded map transforms bit-identically.
func SaveMap(w io.Writer, m approx.FeatureMap) error {
	mk, ok := m.(*Map)
	if !ok {
		return approx.SaveMap(w, m)
	}
	var e binfmt.Enc
	if err := mk.encode(&e); err != nil {
		return fmt.Errorf("meka: save: %w", err)
	}
	return binfmt.Write(w, tagMEKA, e.Bytes())
}

// MarshalMap is SaveMap into a byte slice, for embedding in other files.
func MarshalMap(m approx.FeatureMap) ([]byte, error) {
	var b bytes.Buffer
	if err := SaveMap(&b, m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// LoadMap reads a feature map written by SaveMap or approx.SaveMap: a MEKA
// as a *Map, any other as approx.LoadMap returns it. Errors about the file
// wrap ErrFormat; nothing in the file can make it panic or allocate much
// more than the file's size.
func LoadMap(r io.Reader) (approx.FeatureMap, error) {
	// The file's bytes are kept as they are read (binfmt reads exactly
	// them), so that any other map goes to approx.LoadMap unchanged, with
	// its own format version.
	var file bytes.Buffer
	tag, d, err := binfmt.Open(io.TeeReader(r, &file), -1)
	if err != nil {
		return nil, fmt.Errorf("meka: load: %w", err)
	}
	if tag != tagMEKA {
		return approx.LoadMap(&file)
	}
	m := decodeMEKA(d)
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("meka: load %s: %w", tag, err)
	}
	return m, nil
}

// encode writes m for SaveMap in the order decodeMEKA reads it: the
// header, the per-cluster bases, the link matrix with its
// eigendecomposition (computed first; failing only matters for a
// PSD-fixed map), and the statistics.
func (m *Map) encode(e *binfmt.Enc) error {
	if err := m.eigen(); err != nil && m.opt.PSD {
		return err
	}
	if err := kernelbin.WriteKernel(e, m.kern); err != nil {
		return err
	}
	e.Int(m.n)
	e.Int(m.d)
	o := m.opt
	e.Int(o.Rank)
	e.Int(o.Clusters)
	e.Int(o.Landmarks)
	e.Float(o.Rho)
	e.Float(o.Epsilon)
	e.String(string(o.Strategy))
	e.Bool(o.PSD)
	e.Int64(o.MaxBytes)
	e.Int(o.Workers)
	if err := cluster.EncodePartition(e, m.part); err != nil {
		return err
	}
	c := len(m.members)
	e.Ints(m.off)
	for s := 0; s < c; s++ {
		// Landmarks are data rows: CSR when that is smaller (format
		// version 3), as the centroids.
		if err := points.Encode(e, m.z[s]); err != nil {
			return err
		}
		e.Dense(m.proj[s])
		e.Dense(m.w[s])
		e.Ints(m.lm[s])
	}
	e.Dense(mat.DenseCopyOf(m.l))
	// The eigendecomposition (always present here: computed above) is stored
	// so that a loaded map does not recompute it with other rounding.
	e.Bool(m.eigErr == nil && m.vecs != nil)
	if m.eigErr == nil && m.vecs != nil {
		e.Floats(m.vals)
		e.Dense(m.vecs)
		e.Dense(m.feat)
	}
	s := m.Stats()
	for _, t := range []int64{int64(s.ClusterTime), int64(s.BasisTime), int64(s.LinkTime), int64(s.EigenTime)} {
		e.Int64(t)
	}
	e.Ints(s.Sizes)
	e.Ints(s.Ranks)
	e.Int(s.RankDeficit)
	e.Int(s.Linked)
	e.Int(s.Thresholded)
	e.Float(s.MinEigenvalue)
	e.Int(s.NegativeEigenvalues)
	e.Bool(s.PSDFixed)
	return nil
}

// decodeMEKA reads a Map written by encode, in its order: the header
// (kernel, sizes, options, partition), the per-cluster bases, the link
// matrix with its eigendecomposition, and the statistics. It returns nil
// once d has failed (d.Err says why).
func decodeMEKA(d *binfmt.Dec) *Map {
	m := decodeMEKAHeader(d)
	if m == nil || !m.decodeBases(d) || !m.decodeLinks(d) {
		return nil
	}
	s := &m.stats
	s.ClusterTime, s.BasisTime = time.Duration(d.Int64()), time.Duration(d.Int64())
	s.LinkTime, s.EigenTime = time.Duration(d.Int64()), time.Duration(d.Int64())
	s.Sizes, s.Ranks = d.Ints(), d.Ints()
	s.RankDeficit, s.Linked, s.Thresholded = d.Int(), d.Int(), d.Int()
	s.MinEigenvalue, s.NegativeEigenvalues, s.PSDFixed = d.Float(), d.Int(), d.Bool()
	if d.Err() != nil {
		return nil
	}
	s.Bytes = m.bytes()
	return m
}

// decodeMEKAHeader reads the kernel, n and d, the options (checked as Fit
// resolves them) and the partition, or returns nil once d has failed.
func decodeMEKAHeader(d *binfmt.Dec) *Map {
	m := &Map{kern: kernelbin.ReadKernel(d), n: d.Int(), d: d.Int()}
	if d.Err() == nil && (m.kern == nil || m.n < 1 || m.d < 1) {
		d.Fail("meka: kernel %v, n = %d, d = %d", m.kern, m.n, m.d)
	}
	o := Options{Rank: d.Int(), Clusters: d.Int(), Landmarks: d.Int(), Rho: d.Float(), Epsilon: d.Float(),
		Strategy: RankStrategy(d.String()), PSD: d.Bool(), MaxBytes: d.Int64(), Workers: d.Int()}
	if d.Err() != nil {
		return nil
	}
	if _, err := o.resolve(m.n, m.kern); err != nil || o.Workers < 0 {
		d.Fail("meka options: %v", err)
		return nil
	}
	m.opt = o
	part := cluster.DecodePartition(d, m.n)
	if d.Err() != nil {
		return nil
	}
	if err := m.setPartition(part); err != nil {
		d.Fail("%v", err)
		return nil
	}
	return m
}

// decodeBases reads the block offsets and each cluster's landmarks,
// projection, basis W_s and landmark indices (MEKA's per-cluster low-rank
// bases), checking their shapes against the offsets and the partition. It
// reports whether decoding may go on.
func (m *Map) decodeBases(d *binfmt.Dec) bool {
	c := len(m.members)
	m.off = d.Ints()
	if d.Err() != nil {
		return false
	}
	if len(m.off) != c+1 || m.off[0] != 0 {
		d.Fail("meka: %d block offsets for %d clusters", len(m.off), c)
		return false
	}
	m.z = make([]*mat.Dense, c)
	m.proj = make([]*mat.Dense, c)
	m.w = make([]*mat.Dense, c)
	m.lm = make([][]int, c)
	for s := 0; s < c; s++ {
		if !m.decodeBasis(d, s) {
			return false
		}
	}
	return true
}

// decodeBasis reads cluster s's basis (see decodeBases) and reports
// whether decoding may go on.
func (m *Map) decodeBasis(d *binfmt.Dec, s int) bool {
	ks := m.off[s+1] - m.off[s]
	if ks < 0 {
		d.Fail("meka: block offsets decrease at cluster %d", s)
		return false
	}
	var z *mat.Dense
	if ks == 0 {
		z = d.Dense()
	} else {
		// Dense (any version) or CSR (version 3), present, finite, d wide.
		z = points.Decode(d, fmt.Sprintf("meka: landmarks of cluster %d", s), -1, m.d)
	}
	proj, w := d.Dense(), d.Dense()
	m.lm[s] = d.Ints()
	if d.Err() != nil {
		return false
	}
	if ks == 0 {
		if z != nil || proj != nil || w != nil {
			d.Fail("meka: cluster %d has rank 0 but a basis", s)
			return false
		}
		return true
	}
	ns := len(m.members[s])
	switch {
	case proj == nil || w == nil || proj.IsEmpty() || w.IsEmpty():
		d.Fail("meka: cluster %d of rank %d has no basis", s, ks)
	case proj.RawMatrix().Rows != z.RawMatrix().Rows || proj.RawMatrix().Cols != ks || !points.Finite(proj):
		d.Fail("meka: projection of cluster %d", s)
	case w.RawMatrix().Rows != ns || w.RawMatrix().Cols != ks || !points.Finite(w):
		d.Fail("meka: basis of cluster %d", s)
	}
	if d.Err() != nil {
		return false
	}
	m.z[s], m.proj[s], m.w[s] = z, proj, w
	return true
}

// decodeLinks reads the r×r link matrix L (r the total rank) and, when
// saved, its eigendecomposition (required for a PSD-fixed map), and
// reports whether decoding may go on.
func (m *Map) decodeLinks(d *binfmt.Dec) bool {
	r := m.off[len(m.members)]
	if r < 1 {
		d.Fail("meka: total rank 0")
		return false
	}
	l := d.Matrix("link matrix", r, r)
	if d.Err() != nil {
		return false
	}
	m.l = mat.NewSymDense(r, l.RawMatrix().Data)
	if d.Bool() {
		m.vals = d.Floats()
		m.vecs = d.Matrix("eigenvectors", r, r)
		m.feat = d.Matrix("features", r, -1)
		if d.Err() != nil {
			return false
		}
		if len(m.vals) != r {
			d.Fail("meka: %d eigenvalues for rank %d", len(m.vals), r)
			return false
		}
		m.eigOnce.Do(func() {}) // already decomposed
		m.stats.Eigendecomposed = true
	} else if d.Err() == nil && m.opt.PSD {
		d.Fail("meka: PSD-fixed approximation saved without its eigendecomposition")
		return false
	}
	return true
}
