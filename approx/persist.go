package approx

import (
	"bytes"
	"fmt"
	"io"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/kernel"
)

// ErrFormat is wrapped by every error of LoadMap about a malformed,
// truncated, corrupted, wrong-version or wrong-type file. It is the same
// value as model.ErrFormat.
var ErrFormat = binfmt.ErrFormat

// The type tags of saved approximations (see package model's "Saved models"
// documentation for the container).
const (
	tagNystrom = "approx.NystromMap"
	tagRFF     = "approx.RFFMap"
	// tagMEKA is package meka's tag: LoadMap names meka.LoadMap for it.
	tagMEKA = "approx.MEKA"
)

// SaveMap writes a fitted feature map (*NystromMap or *RFFMap) to w in
// Landmark's versioned, checksummed binary format. LoadMap reads it back;
// the loaded map transforms bit-identically. MEKA maps are saved by
// meka.SaveMap, which also takes the maps of this package.
func SaveMap(w io.Writer, m FeatureMap) error {
	var e binfmt.Enc
	var tag string
	var err error
	switch m := m.(type) {
	case *NystromMap:
		tag, err = tagNystrom, m.encode(&e)
	case *RFFMap:
		tag, err = tagRFF, m.encode(&e)
	default:
		return fmt.Errorf("approx: save: feature map %T cannot be saved here (NystromMap or RFFMap; meka.SaveMap for MEKA)", m)
	}
	if err != nil {
		return fmt.Errorf("approx: save: %w", err)
	}
	return binfmt.Write(w, tag, e.Bytes())
}

// LoadMap reads a feature map written by SaveMap (meka.LoadMap also reads
// MEKA maps). Errors about the file wrap
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
		return nil, fmt.Errorf("approx: load: %w: a saved MEKA map: read it with meka.LoadMap", ErrFormat)
	default:
		return nil, fmt.Errorf("approx: load: %w: type %q is not a feature map", ErrFormat, tag)
	}
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("approx: load %s: %w", tag, err)
	}
	return m, nil
}

// MarshalMap is SaveMap into a byte slice, for embedding in other files.
func MarshalMap(m FeatureMap) ([]byte, error) {
	var b bytes.Buffer
	if err := SaveMap(&b, m); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
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
