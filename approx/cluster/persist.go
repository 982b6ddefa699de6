package cluster

import (
	"fmt"
	"io"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/binfmt"
)

// ErrFormat is wrapped by every error of LoadPartition about a malformed,
// truncated, corrupted, wrong-version or wrong-type file. It is the same
// value as approx.ErrFormat and model.ErrFormat.
var ErrFormat = binfmt.ErrFormat

// tagPartition is the type tag of a saved partition (see package model's
// "Saved models" documentation for the container). It keeps the name the
// partition had before it moved to this package, so older files load.
const tagPartition = "approx.Partition"

// SavePartition writes a k-means partition (centroids, labels, objective
// and, in sketch mode, the sketch) to w.
func SavePartition(w io.Writer, p *Partition) error {
	if p == nil || p.Centroids == nil {
		return fmt.Errorf("cluster: save: empty partition")
	}
	var e binfmt.Enc
	if err := EncodePartition(&e, p); err != nil {
		return fmt.Errorf("cluster: save: %w", err)
	}
	return binfmt.Write(w, tagPartition, e.Bytes())
}

// LoadPartition reads a partition written by SavePartition; Assign on it
// gives the same clusters as on the saved one.
func LoadPartition(r io.Reader) (*Partition, error) {
	tag, d, err := binfmt.Open(r, -1) // read and checked whole first
	if err != nil {
		return nil, fmt.Errorf("cluster: load: %w", err)
	}
	if tag != tagPartition {
		return nil, fmt.Errorf("cluster: load: %w: type %q, want %s", ErrFormat, tag, tagPartition)
	}
	p := DecodePartition(d, -1)
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("cluster: load partition: %w", err)
	}
	return p, nil
}

// EncodePartition writes p's fields into e. It exists for the saved files
// of this module that hold a partition inline (package meka's); binfmt is
// internal, so nothing outside the module can call it — use SavePartition.
func EncodePartition(e *binfmt.Enc, p *Partition) error {
	if err := points.Encode(e, p.Centroids); err != nil {
		return err
	}
	e.Ints(p.Labels)
	e.Floats(p.Objective)
	e.Dense(p.sketch)
	shared := p.target() == p.Centroids
	e.Bool(shared)
	if !shared {
		return points.Encode(e, p.target())
	}
	return nil
}

// DecodePartition reads the fields EncodePartition wrote; n ≥ 0 requires
// exactly n labels. Like EncodePartition it serves this module's files only.
func DecodePartition(d *binfmt.Dec, n int) *Partition {
	cent := points.Decode(d, "centroids", -1, -1) // dense (any version) or CSR (version 3)
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
		if sk.IsEmpty() || sk.RawMatrix().Cols != dim || !points.Finite(sk) {
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
		p.assignTo = points.Decode(d, "assignment centroids", k, want)
	}
	if d.Err() != nil {
		return nil
	}
	return p
}
