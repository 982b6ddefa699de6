package approx

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ErrFormat is wrapped by every error of LoadMap and LoadPartition about a
// malformed, truncated, corrupted, wrong-version or wrong-type file. It is
// the same value as model.ErrFormat.
var ErrFormat = binfmt.ErrFormat

// The type tags of saved approximations (see package model's "Saved models"
// documentation for the container).
const (
	tagNystrom   = "approx.NystromMap"
	tagRFF       = "approx.RFFMap"
	tagMEKA      = "approx.MEKA"
	tagPartition = "approx.Partition"
)

// SaveMap writes a fitted feature map (*NystromMap, *RFFMap or *MEKA) to w
// in Landmark's versioned, checksummed binary format. LoadMap reads it back;
// the loaded map transforms bit-identically.
func SaveMap(w io.Writer, m FeatureMap) error {
	var e binfmt.Enc
	var tag string
	var err error
	switch m := m.(type) {
	case *NystromMap:
		tag, err = tagNystrom, m.encode(&e)
	case *RFFMap:
		tag, err = tagRFF, m.encode(&e)
	case *MEKA:
		tag, err = tagMEKA, m.encode(&e)
	default:
		return fmt.Errorf("approx: save: feature map %T cannot be saved (NystromMap, RFFMap or MEKA)", m)
	}
	if err != nil {
		return fmt.Errorf("approx: save: %w", err)
	}
	return binfmt.Write(w, tag, e.Bytes())
}

// LoadMap reads a feature map written by SaveMap. Errors about the file wrap
// ErrFormat; nothing in the file can make it panic or allocate much more
// than the file's size.
func LoadMap(r io.Reader) (FeatureMap, error) {
	tag, d, err := binfmt.Open(r, -1) // read and checked whole first
	if err != nil {
		return nil, fmt.Errorf("approx: load: %w", err)
	}
	return decodeMap(tag, d)
}

// decodeMap decodes the payload of a feature-map file with the given tag.
func decodeMap(tag string, d *binfmt.Dec) (FeatureMap, error) {
	var m FeatureMap
	switch tag {
	case tagNystrom:
		m = decodeNystrom(d)
	case tagRFF:
		m = decodeRFF(d)
	case tagMEKA:
		m = decodeMEKA(d)
	default:
		return nil, fmt.Errorf("approx: load: %w: type %q is not a feature map", ErrFormat, tag)
	}
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("approx: load %s: %w", tag, err)
	}
	return m, nil
}

// SavePartition writes a k-means partition (centroids, labels, objective
// and, in sketch mode, the sketch) to w.
func SavePartition(w io.Writer, p *Partition) error {
	if p == nil || p.Centroids == nil {
		return fmt.Errorf("approx: save: empty partition")
	}
	var e binfmt.Enc
	if err := p.encode(&e); err != nil {
		return fmt.Errorf("approx: save: %w", err)
	}
	return binfmt.Write(w, tagPartition, e.Bytes())
}

// LoadPartition reads a partition written by SavePartition; Assign on it
// gives the same clusters as on the saved one.
func LoadPartition(r io.Reader) (*Partition, error) {
	tag, payload, err := binfmt.Read(r)
	if err != nil {
		return nil, fmt.Errorf("approx: load: %w", err)
	}
	if tag != tagPartition {
		return nil, fmt.Errorf("approx: load: %w: type %q, want %s", ErrFormat, tag, tagPartition)
	}
	d := binfmt.NewDec(payload)
	p := decodePartition(d, -1)
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("approx: load partition: %w", err)
	}
	return p, nil
}

// MarshalMap is SaveMap into a byte slice, for embedding in other files.
func MarshalMap(m FeatureMap) ([]byte, error) {
	var b bytes.Buffer
	if err := SaveMap(&b, m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// finite reports whether every entry of m is finite.
func finite(m *mat.Dense) bool {
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		for _, v := range m.RawRowView(i)[:c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}

// encEngine writes kernel engine options; Float32 since format version 4
// (a map fitted with float32 distance products transforms with them).
func encEngine(e *binfmt.Enc, o kernel.Options) {
	e.Int(o.Workers)
	e.Int(o.BlockRows)
	e.Bool(o.Float32)
}

func decEngine(d *binfmt.Dec) kernel.Options {
	o := kernel.Options{Workers: d.Int(), BlockRows: d.Int()}
	if d.Version() >= 4 {
		o.Float32 = d.Bool()
	}
	if o.Workers < 0 || o.BlockRows < 0 {
		d.Fail("engine options %+v", o)
	}
	return o
}

func (m *NystromMap) encode(e *binfmt.Enc) error {
	if err := kernelbin.WriteKernel(e, m.Kernel); err != nil {
		return err
	}
	if err := kernelbin.WriteData(e, m.Landmarks); err != nil { // CSR landmarks stay CSR (format version 3)
		return err
	}
	e.Dense(m.T)
	e.Floats(m.Values)
	e.Int(m.Dropped)
	encEngine(e, m.engine)
	e.Bool(m.qr)
	return nil
}

func decodeNystrom(d *binfmt.Dec) *NystromMap {
	k := kernelbin.ReadKernel(d)
	if d.Err() == nil && k == nil {
		d.Fail("nyström map without a kernel")
	}
	lm := kernelbin.ReadData(d, "landmarks", -1, -1) // dense (any version) or CSR (version 3)
	var mLm int
	if d.Err() == nil { // lm may be a typed nil after an error
		mLm, _ = lm.Dims()
	}
	t := d.Matrix("projection T", mLm, -1)
	m := &NystromMap{Kernel: k, Landmarks: lm, T: t, Values: d.Floats(), Dropped: d.Int()}
	m.engine = decEngine(d)
	m.qr = d.Bool()
	if m.Dropped < 0 {
		d.Fail("dropped = %d", m.Dropped)
	}
	return m
}

func (m *RFFMap) encode(e *binfmt.Enc) error {
	e.Dense(m.Omega)
	e.Floats(m.Offset)
	return nil
}

func decodeRFF(d *binfmt.Dec) *RFFMap {
	om := d.Matrix("frequencies", -1, -1)
	m := &RFFMap{Omega: om, Offset: d.Floats()}
	if d.Err() == nil && len(m.Offset) != om.RawMatrix().Rows {
		d.Fail("%d phases for %d frequencies", len(m.Offset), om.RawMatrix().Rows)
	}
	return m
}

// encRows writes a dense matrix of rows in the original feature space
// (k-means centroids, MEKA's landmark rows) as a CSR field when that field
// is smaller than the dense one, as it is for centroids and rows of sparse
// data, else as a dense field. Only entries whose bit pattern is +0 are left
// out of the CSR field, so the rows read back bit for bit (decRows). Both
// sizes are computed exactly before anything is written; the CSR arrays,
// built only when they win, hold fewer bytes than the dense matrix.
func encRows(e *binfmt.Enc, m *mat.Dense) error {
	if m == nil || m.IsEmpty() {
		e.Dense(m)
		return nil
	}
	r, c := m.Dims()
	if c > binfmt.MaxCSRCols {
		e.Dense(m)
		return nil
	}
	// The fields share the kind byte and the row and column counts; the
	// dense one then holds 8rc bytes, the CSR one the non-zero count, the
	// row counts, the index gaps and 8 bytes a value.
	nnz, size := 0, 0
	for i := 0; i < r; i++ {
		k, prev := 0, -1
		for j, v := range m.RawRowView(i) {
			if math.Float64bits(v) != 0 {
				size += uvarintLen(uint64(j-prev-1)) + 8
				prev = j
				k++
			}
		}
		size += uvarintLen(uint64(k))
		nnz += k
	}
	size += uvarintLen(uint64(nnz))
	if int64(size) >= 8*int64(r)*int64(c) {
		e.Dense(m)
		return nil
	}
	indptr := make([]int, 1, r+1)
	indices := make([]int32, 0, nnz)
	values := make([]float64, 0, nnz)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			if math.Float64bits(v) != 0 {
				indices = append(indices, int32(j))
				values = append(values, v)
			}
		}
		indptr = append(indptr, len(values))
	}
	return e.CSR(c, indptr, indices, values)
}

// uvarintLen is the length of v as an unsigned varint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// decRows reads a matrix written by encRows (or, in files before format
// version 3 and for dense rows, by Enc.Dense) as a dense matrix that must be
// present, finite and of the given shape (a negative dimension means any).
func decRows(d *binfmt.Dec, what string, rows, cols int) *mat.Dense {
	m := kernelbin.ReadData(d, what, rows, cols)
	if d.Err() != nil || m == nil {
		return nil
	}
	return kernel.DenseOf(m)
}

func (p *Partition) encode(e *binfmt.Enc) error {
	if err := encRows(e, p.Centroids); err != nil {
		return err
	}
	e.Ints(p.Labels)
	e.Floats(p.Objective)
	e.Dense(p.sketch)
	shared := p.assignTo == p.Centroids
	e.Bool(shared)
	if !shared {
		return encRows(e, p.assignTo)
	}
	return nil
}

// decodePartition reads a partition; n ≥ 0 requires exactly n labels.
func decodePartition(d *binfmt.Dec, n int) *Partition {
	cent := decRows(d, "centroids", -1, -1) // dense (any version) or CSR (version 3)
	if d.Err() != nil {
		return nil
	}
	k, dim := cent.Dims()
	p := &Partition{Centroids: cent, Labels: d.Ints(), Objective: d.Floats()}
	if d.Err() != nil {
		return nil
	}
	if n >= 0 && len(p.Labels) != n {
		d.Fail("partition has %d labels, want %d", len(p.Labels), n)
	}
	for i, l := range p.Labels {
		if l < 0 || l >= k {
			d.Fail("label %d of row %d out of [0, %d)", l, i, k)
			return nil
		}
	}
	if sk := d.Dense(); sk != nil {
		if sk.IsEmpty() || sk.RawMatrix().Cols != dim || !finite(sk) {
			d.Fail("bad sketch matrix")
			return nil
		}
		p.sketch = sk
	}
	if d.Bool() {
		if p.sketch != nil {
			d.Fail("sketched partition compares against the original centroids")
			return nil
		}
		p.assignTo = cent
	} else {
		want := dim
		if p.sketch != nil {
			want = p.sketch.RawMatrix().Rows
		}
		p.assignTo = decRows(d, "assignment centroids", k, want)
	}
	if d.Err() != nil {
		return nil
	}
	return p
}

func (m *MEKA) encode(e *binfmt.Enc) error {
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
	if err := m.part.encode(e); err != nil {
		return err
	}
	c := len(m.members)
	e.Ints(m.off)
	for s := 0; s < c; s++ {
		// Landmarks are data rows: CSR when that is smaller (format
		// version 3), as the centroids.
		if err := encRows(e, m.z[s]); err != nil {
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

func decodeMEKA(d *binfmt.Dec) *MEKA {
	m := &MEKA{kern: kernelbin.ReadKernel(d), n: d.Int(), d: d.Int()}
	if d.Err() == nil && (m.kern == nil || m.n < 1 || m.d < 1) {
		d.Fail("meka: kernel %v, n = %d, d = %d", m.kern, m.n, m.d)
	}
	o := MEKAOptions{Rank: d.Int(), Clusters: d.Int(), Landmarks: d.Int(), Rho: d.Float(), Epsilon: d.Float(),
		Strategy: RankStrategy(d.String()), PSD: d.Bool(), MaxBytes: d.Int64(), Workers: d.Int()}
	if d.Err() != nil {
		return nil
	}
	if _, err := o.resolve(m.n, m.kern); err != nil || o.Workers < 0 {
		d.Fail("meka options: %v", err)
		return nil
	}
	m.opt = o
	part := decodePartition(d, m.n)
	if d.Err() != nil {
		return nil
	}
	if err := m.setPartition(part); err != nil {
		d.Fail("%v", err)
		return nil
	}
	c := len(m.members)
	m.off = d.Ints()
	if d.Err() != nil {
		return nil
	}
	if len(m.off) != c+1 || m.off[0] != 0 {
		d.Fail("meka: %d block offsets for %d clusters", len(m.off), c)
		return nil
	}
	m.z = make([]*mat.Dense, c)
	m.proj = make([]*mat.Dense, c)
	m.w = make([]*mat.Dense, c)
	m.lm = make([][]int, c)
	for s := 0; s < c; s++ {
		ks := m.off[s+1] - m.off[s]
		if ks < 0 {
			d.Fail("meka: block offsets decrease at cluster %d", s)
			return nil
		}
		var z *mat.Dense
		if ks == 0 {
			z = d.Dense()
		} else {
			// Dense (any version) or CSR (version 3), present, finite, d wide.
			z = decRows(d, fmt.Sprintf("meka: landmarks of cluster %d", s), -1, m.d)
		}
		proj, w := d.Dense(), d.Dense()
		m.lm[s] = d.Ints()
		if d.Err() != nil {
			return nil
		}
		if ks == 0 {
			if z != nil || proj != nil || w != nil {
				d.Fail("meka: cluster %d has rank 0 but a basis", s)
				return nil
			}
			continue
		}
		ns := len(m.members[s])
		switch {
		case proj == nil || w == nil || proj.IsEmpty() || w.IsEmpty():
			d.Fail("meka: cluster %d of rank %d has no basis", s, ks)
		case proj.RawMatrix().Rows != z.RawMatrix().Rows || proj.RawMatrix().Cols != ks || !finite(proj):
			d.Fail("meka: projection of cluster %d", s)
		case w.RawMatrix().Rows != ns || w.RawMatrix().Cols != ks || !finite(w):
			d.Fail("meka: basis of cluster %d", s)
		}
		if d.Err() != nil {
			return nil
		}
		m.z[s], m.proj[s], m.w[s] = z, proj, w
	}
	r := m.off[c]
	if r < 1 {
		d.Fail("meka: total rank 0")
		return nil
	}
	l := d.Matrix("link matrix", r, r)
	if d.Err() != nil {
		return nil
	}
	m.l = mat.NewSymDense(r, l.RawMatrix().Data)
	if d.Bool() {
		m.vals = d.Floats()
		m.vecs = d.Matrix("eigenvectors", r, r)
		m.feat = d.Matrix("features", r, -1)
		if d.Err() != nil {
			return nil
		}
		if len(m.vals) != r {
			d.Fail("meka: %d eigenvalues for rank %d", len(m.vals), r)
			return nil
		}
		m.eigOnce.Do(func() {}) // already decomposed
		m.stats.Eigendecomposed = true
	} else if d.Err() == nil && m.opt.PSD {
		d.Fail("meka: PSD-fixed approximation saved without its eigendecomposition")
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
