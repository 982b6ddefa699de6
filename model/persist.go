package model

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/outfile"
	"github.com/landmark-ml/landmark/solver"
)

// ErrFormat is wrapped by every Load error about the file itself: not a
// Landmark file, truncated, corrupted (checksum mismatch, wrapping
// ErrChecksum), written by an unsupported format version (wrapping
// ErrVersion), of an unknown type, or with inconsistent contents.
var ErrFormat = binfmt.ErrFormat

// ErrChecksum is wrapped, together with ErrFormat, when a file's CRC-32C does
// not match its contents.
var ErrChecksum = binfmt.ErrChecksum

// ErrVersion is wrapped, together with ErrFormat, when a file was written in
// a format version this build does not read.
var ErrVersion = binfmt.ErrVersion

// The type tags of saved estimators.
const (
	tagKRR    = "model.KRR"
	tagFalkon = "model.Falkon"
	tagSVM    = "model.SVM"
	tagBKASVM = "model.BKASVM"
)

// Save writes a fitted estimator (*KRR with any of this package's backends,
// *Falkon, *SVM or *BKASVM) to w in Landmark's versioned, checksummed binary
// format (see the package documentation, "Saved models"). It returns
// ErrNotFitted for an estimator that has not been fitted. Load reads the file
// back into an estimator that predicts bit-identically.
func Save(w io.Writer, est Estimator) error {
	var e binfmt.Enc
	var tag string
	var err error
	switch m := est.(type) {
	case *KRR:
		tag, err = tagKRR, m.encode(&e)
	case *Falkon:
		tag, err = tagFalkon, m.encode(&e)
	case *SVM:
		tag, err = tagSVM, m.encode(&e)
	case *BKASVM:
		tag, err = tagBKASVM, m.encode(&e)
	default:
		return fmt.Errorf("model: save: estimator %T cannot be saved (KRR, Falkon, SVM or BKASVM)", est)
	}
	if err != nil {
		return fmt.Errorf("model: save %s: %w", tag, err)
	}
	return binfmt.Write(w, tag, e.Bytes())
}

// Load reads an estimator written by Save. The dynamic type of the result
// is the saved one (*KRR, *Falkon, *SVM or *BKASVM), fitted and with its
// configuration restored except for fields that cannot be saved (functions,
// samplers, approximation backends and validation data; see "Saved models" in
// the package documentation). Errors about the file wrap ErrFormat; nothing
// in a file can make Load panic, and memory grows only with the bytes read.
func Load(r io.Reader) (Estimator, error) {
	tag, payload, err := binfmt.Read(r)
	if err != nil {
		return nil, fmt.Errorf("model: load: %w", err)
	}
	return decodeEstimator(tag, payload)
}

func decodeEstimator(tag string, payload []byte) (Estimator, error) {
	d := binfmt.NewDec(payload)
	var est Estimator
	switch tag {
	case tagKRR:
		est = loadKRR(d)
	case tagFalkon:
		est = loadFalkon(d)
	case tagSVM:
		est = loadSVM(d)
	case tagBKASVM:
		est = loadBKASVM(d)
	default:
		return nil, fmt.Errorf("model: load: %w: type %q is not an estimator", ErrFormat, tag)
	}
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("model: load %s: %w", tag, err)
	}
	return est, nil
}

// Marshal is Save into a byte slice.
func Marshal(est Estimator) ([]byte, error) {
	var b bytes.Buffer
	if err := Save(&b, est); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Unmarshal is Load from a byte slice; the whole slice must be one file.
func Unmarshal(b []byte) (Estimator, error) {
	r := bytes.NewReader(b)
	est, err := Load(r)
	if err != nil {
		return nil, err
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("model: load: %w: %d bytes after the end of the file", ErrFormat, r.Len())
	}
	return est, nil
}

// SaveFile saves est to path atomically (outfile.Write): it writes a
// temporary file in the same directory, syncs it and renames it over path,
// so that path never holds a partial model; a symbolic link is written
// through. A new file gets mode 0644 less the umask.
func SaveFile(path string, est Estimator) error {
	b, err := Marshal(est)
	if err != nil {
		return err
	}
	if err := outfile.WriteBytes(path, b); err != nil {
		return fmt.Errorf("model: save: %w", err)
	}
	return nil
}

// LoadFile loads the estimator saved in path (see Load). Bytes after the
// end of the saved file are an error.
func LoadFile(path string) (Estimator, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("model: load: %w", err)
	}
	est, err := Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("%w (file %s)", err, path)
	}
	return est, nil
}

// errSaveUnfitted is returned when saving an estimator before Fit.
var errSaveUnfitted = fmt.Errorf("%w: only fitted estimators can be saved", ErrNotFitted)

// The shared field codecs.

func encTask(e *binfmt.Enc, t Task) { e.String(string(t)) }

func decTask(d *binfmt.Dec, resolved bool) Task {
	s := Task(d.String())
	if d.Err() != nil {
		return ""
	}
	r, err := s.resolve()
	if err != nil || (resolved && r != s) {
		d.Fail("task %q", s)
		return ""
	}
	return s
}

func encChol(e *binfmt.Enc, c solver.CholOptions) {
	e.Float(c.Jitter)
	e.Float(c.MaxJitter)
}

func decChol(d *binfmt.Dec) solver.CholOptions {
	return solver.CholOptions{Jitter: d.Float(), MaxJitter: d.Float()}
}

// decLabels reads class labels: at least two, finite and strictly ascending.
func decLabels(d *binfmt.Dec) Labels {
	c := d.Floats()
	if d.Err() != nil {
		return Labels{}
	}
	if len(c) < 2 {
		d.Fail("%d class labels", len(c))
		return Labels{}
	}
	for i, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) || (i > 0 && !(v > c[i-1])) {
			d.Fail("class labels not finite and strictly ascending")
			return Labels{}
		}
	}
	return Labels{Classes: c}
}

// encWeights writes a class-weight map in ascending key order.
func encWeights(e *binfmt.Enc, w map[float64]float64) {
	keys := make([]float64, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	vals := make([]float64, len(keys))
	for i, k := range keys {
		vals[i] = w[k]
	}
	e.Floats(keys)
	e.Floats(vals)
}

func decWeights(d *binfmt.Dec) map[float64]float64 {
	keys, vals := d.Floats(), d.Floats()
	if d.Err() != nil {
		return nil
	}
	if len(keys) != len(vals) {
		d.Fail("%d class-weight keys, %d values", len(keys), len(vals))
		return nil
	}
	if len(keys) == 0 {
		return nil
	}
	w := make(map[float64]float64, len(keys))
	for i, k := range keys {
		w[k] = vals[i]
	}
	return w
}

// decDims reads a non-negative int.
func decNonNeg(d *binfmt.Dec, what string) int {
	v := d.Int()
	if v < 0 {
		d.Fail("%s = %d", what, v)
		return 0
	}
	return v
}
