package model

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

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
	tagSVR    = "model.SVR"
	// tagOneClass is saved since format version 8 (a type of its own: no
	// other payload changed).
	tagOneClass = "model.OneClassSVM"
)

// Save writes a fitted estimator (*KRR with any of this package's backends,
// *Falkon, *SVM, *BKASVM, *SVR or *OneClassSVM) to w in Landmark's versioned, checksummed binary
// format (see the package documentation, "Saved models"). It returns
// ErrNotFitted for an estimator that has not been fitted. Load reads the file
// back into an estimator that predicts bit-identically.
func Save(w io.Writer, est Estimator) error {
	return save(w, est, "")
}

// save is Save; path names the file in errors ("" for a writer).
func save(w io.Writer, est Estimator, path string) error {
	var tag string
	var enc func(*binfmt.Enc) error
	switch m := est.(type) {
	case *KRR:
		tag, enc = tagKRR, m.encode
	case *Falkon:
		tag, enc = tagFalkon, m.encode
	case *SVM:
		tag, enc = tagSVM, m.encode
	case *BKASVM:
		tag, enc = tagBKASVM, m.encode
	case *SVR:
		tag, enc = tagSVR, m.encode
	case *OneClassSVM:
		tag, enc = tagOneClass, m.encode
	default:
		return fmt.Errorf("model: save%s: %w: estimator %T cannot be saved (KRR, Falkon, SVM, BKASVM, SVR or OneClassSVM)", at(path), ErrInput, est)
	}
	// The payload is streamed: encoded once to count its bytes, once to
	// write them (see binfmt.WriteFunc), never held whole in memory.
	if err := binfmt.WriteFunc(w, tag, enc); err != nil {
		return fmt.Errorf("model: save%s: %s: %w", at(path), typeName(tag), err)
	}
	return nil
}

// at is " path" for error messages, or "" when there is no path.
func at(path string) string {
	if path == "" {
		return ""
	}
	return " " + path
}

// typeName is the estimator type a tag names, without the package:
// "KRR" for "model.KRR".
func typeName(tag string) string { return strings.TrimPrefix(tag, "model.") }

// Load reads an estimator written by Save. The dynamic type of the result
// is the saved one (*KRR, *Falkon, *SVM, *BKASVM, *SVR or *OneClassSVM), fitted and with its
// configuration restored except for fields that cannot be saved (functions,
// samplers, approximation backends and validation data; see "Saved models" in
// the package documentation). Errors about the file wrap ErrFormat; nothing
// in a file can make Load panic, and memory grows only with the bytes read.
// When r's size is known (a *bytes.Reader, *bytes.Buffer, *strings.Reader
// or *os.File) the file is decoded as it is read, without holding it in
// memory; otherwise it is read whole and checked first.
func Load(r io.Reader) (Estimator, error) {
	return load(r, inputSize(r), "")
}

// inputSize returns the bytes r holds from its current position, or −1 when
// that cannot be known without reading.
func inputSize(r io.Reader) int64 {
	switch v := r.(type) {
	case interface{ Len() int }:
		return int64(v.Len())
	case *os.File:
		fi, err := v.Stat()
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		at, err := v.Seek(0, io.SeekCurrent)
		if err != nil || at > fi.Size() {
			return -1
		}
		return fi.Size() - at
	}
	return -1
}

// load is Load of the size bytes r holds (−1: unknown); path names the
// file in errors ("" for a reader). Errors read "model: load PATH: TYPE:
// what went wrong".
func load(r io.Reader, size int64, path string) (Estimator, error) {
	tag, d, err := binfmt.Open(r, size)
	if err != nil {
		return nil, fmt.Errorf("model: load%s: %w", at(path), err)
	}
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
	case tagSVR:
		est = loadSVR(d)
	case tagOneClass:
		est = loadOneClass(d)
	default:
		d.Fail("type %q is not an estimator", tag)
	}
	// Done reads and checks the checksum: a corrupt file is reported as
	// such even when the decoder failed first.
	if err := d.Done(); err != nil {
		return nil, fmt.Errorf("model: load%s: %s: %w", at(path), typeName(tag), err)
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
// through. A new file gets mode 0644 less the umask. The model is streamed
// to the file (see Save), never held whole in memory.
func SaveFile(path string, est Estimator) error {
	var saveErr error
	err := outfile.Write(path, func(w io.Writer) error {
		saveErr = save(w, est, path)
		return saveErr
	})
	switch {
	case saveErr != nil:
		return saveErr // already "model: save PATH: …"
	case err != nil:
		return fmt.Errorf("model: save %s: %w", path, err)
	}
	return nil
}

// LoadFile loads the estimator saved in path (see Load), decoding it as it
// is read. Bytes after the end of the saved file are an error.
func LoadFile(path string) (Estimator, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("model: load: %w", err) // *PathError names the file
	}
	defer f.Close()
	est, err := load(f, inputSize(f), path)
	if err != nil {
		return nil, err
	}
	var one [1]byte
	if n, _ := f.Read(one[:]); n != 0 {
		return nil, fmt.Errorf("model: load %s: %w: bytes after the end of the file", path, ErrFormat)
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

// decClassWeights reads KRR's or Falkon's class weights (decWeights) and
// checks them against the saved task and classes: none for regression,
// each finite and > 0 on one of the classes.
func decClassWeights(d *binfmt.Dec, task Task, l Labels) map[float64]float64 {
	w := decWeights(d)
	if w == nil || d.Err() != nil {
		return w
	}
	if task != Classification {
		d.Fail("class weights on a regression model")
		return nil
	}
	for c, v := range w {
		if _, ok := slices.BinarySearch(l.Classes, c); !ok || !(v > 0) || math.IsInf(v, 0) {
			d.Fail("class weight %g for label %g (classes %v)", v, c, l.Classes)
			return nil
		}
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
