package shard

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/internal/outfile"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Format names the manifest's format version of float64 shards.
const Format = "landmark-shards/1"

// Format2 names the manifest's format version that adds the element type
// (Manifest.Type): a manifest of float32 shards must carry it, so that a
// reader that knows only Format refuses the set at the manifest.
const Format2 = "landmark-shards/2"

// Type is the element type of a shard's X.
type Type string

// The element types of X. Targets are float64 in both.
const (
	// Float64 is the default: the layout of Format ("LMKSHRD1").
	Float64 Type = "float64"
	// Float32 stores X rounded to float32 (half the bytes to read; the
	// values read back are float32(x) exactly), in the row-interleaved
	// layout "LMKSHRD2".
	Float32 Type = "float32"
)

// ManifestName is the manifest's file name inside a shard folder.
const ManifestName = "manifest.json"

const (
	magic  = "LMKSHRD1" // header, X row-major float64, y float64
	magic2 = "LMKSHRD2" // header, element width, rows of X and y interleaved
)

// ErrFormat reports a malformed shard or manifest. It is datasets.ErrFormat
// (the one sentinel for malformed data files) and wraps ErrInput.
var ErrFormat = check.ErrFormat

// ErrChecksum reports a shard whose CRC-32 does not match its bytes: the
// file was damaged after it was written. It wraps ErrFormat, so
// errors.Is(err, ErrFormat) holds too.
var ErrChecksum = check.Sentinel("checksum mismatch", ErrFormat)

// ErrInput reports data or arguments WriteDir and Write refuse. It is
// check.ErrInput, the same error as datasets.ErrInput and model.ErrInput.
var ErrInput = check.ErrInput

// Manifest describes a sharded data set.
type Manifest struct {
	// Format is Format, or Format2 (required when Type is Float32).
	Format string `json:"format"`
	// Type is the element type of every shard's X: empty (Float64) or
	// Float32.
	Type Type `json:"type,omitempty"`
	// N is the number of rows, D the number of columns.
	N int `json:"n"`
	D int `json:"d"`
	// Task is "regression" or "classification".
	Task string `json:"task"`
	// Classes are the distinct labels, ascending (classification only).
	Classes []float64 `json:"classes,omitempty"`
	// Mean and Std are the per-column mean and standard deviation
	// (population, as datasets.Standardizer), YMean and YStd those of y.
	Mean  []float64 `json:"mean"`
	Std   []float64 `json:"std"`
	YMean float64   `json:"y_mean"`
	YStd  float64   `json:"y_std"`
	// Shards lists the shard files in row order.
	Shards []Entry `json:"shards"`
	// ZeroBased records that the rows came from a LIBSVM file with 0-based
	// feature indices (landmark data shard --zero-based): the shards hold
	// columns, so it changes nothing here, but a fit of them keeps it so
	// that landmark predict asks for the base of a LIBSVM file to predict
	// (a 0-based file without index 0 would read one column off).
	ZeroBased bool `json:"zero_based,omitempty"`
	// Features names X's columns when the source named them (a CSV
	// header), Target the target column; nil and "" otherwise. A fit of
	// the shards keeps them, so that landmark predict matches a CSV's
	// header to the features by name as it does for a fit of the file.
	Features []string `json:"features,omitempty"`
	Target   string   `json:"target,omitempty"`
	// ClassNames are the classes' names when the labels were text (a CSV
	// read with datasets.ReadOptions.TextLabels): the targets hold each
	// row's class index, so Classes is 0…k−1 and ClassNames[i] names
	// class i. Nil for numeric labels.
	ClassNames []string `json:"class_names,omitempty"`
	// Layout is the JSON of the datasets.Layout of the CSV read the rows
	// came from (which columns it dropped, where the target was), nil for
	// other sources. This package keeps it as given (package datasets
	// imports this one, so the type cannot be named here); a fit of the
	// shards decodes it, so that landmark predict takes a headerless CSV's
	// columns as the read did.
	Layout json.RawMessage `json:"layout,omitempty"`
}

// Entry is one shard of a Manifest.
type Entry struct {
	// File is the shard's path relative to the manifest's folder.
	File string `json:"file"`
	// Rows is its row count; FirstRow the global index of its first row.
	Rows     int `json:"rows"`
	FirstRow int `json:"first_row"`
}

// Validate checks the manifest's internal consistency.
func (m *Manifest) Validate() error {
	if m.Format == "" {
		// Another JSON file given where a manifest or a data file goes.
		return fmt.Errorf("shard: %w: no \"format\" key: not a shard manifest (landmark data shard writes one; data files are read as LIBSVM or CSV, and a .json path as a manifest)", ErrFormat)
	}
	if m.Format != Format && m.Format != Format2 {
		return fmt.Errorf("shard: %w: manifest format %q, want %q or %q", ErrFormat, m.Format, Format, Format2)
	}
	switch m.Type {
	case "", Float64:
	case Float32:
		if m.Format != Format2 {
			return fmt.Errorf("shard: %w: manifest of %s shards has format %q, want %q", ErrFormat, m.Type, m.Format, Format2)
		}
	default:
		return fmt.Errorf("shard: %w: manifest element type %q, want %q or %q", ErrFormat, m.Type, Float64, Float32)
	}
	if m.N < 1 || m.D < 1 || len(m.Shards) < 1 {
		return fmt.Errorf("shard: %w: manifest has n = %d, d = %d, %d shards", ErrFormat, m.N, m.D, len(m.Shards))
	}
	if m.Task != "regression" && m.Task != "classification" {
		return fmt.Errorf("shard: %w: manifest task %q", ErrFormat, m.Task)
	}
	if len(m.Mean) != m.D || len(m.Std) != m.D {
		return fmt.Errorf("shard: %w: manifest statistics have %d/%d columns, want %d", ErrFormat, len(m.Mean), len(m.Std), m.D)
	}
	if err := m.validateColumns(); err != nil {
		return fmt.Errorf("shard: %w: manifest: %w", ErrFormat, err)
	}
	next := 0
	for i, e := range m.Shards {
		if e.Rows < 1 || e.FirstRow != next || e.File == "" {
			return fmt.Errorf("shard: %w: manifest shard %d (%q) has rows %d at %d, want first row %d", ErrFormat, i, e.File, e.Rows, e.FirstRow, next)
		}
		next += e.Rows
	}
	if next != m.N {
		return fmt.Errorf("shard: %w: shards hold %d rows, manifest says %d", ErrFormat, next, m.N)
	}
	return nil
}

// validateColumns checks the source's names: one feature name a column,
// and class names only for classes 0…k−1 of a classification, one name a
// class, none repeated. Its error carries no sentinel: Validate wraps it
// in ErrFormat, a write in ErrInput.
func (m *Manifest) validateColumns() error {
	if m.Features != nil && len(m.Features) != m.D {
		return fmt.Errorf("%d feature names for d = %d", len(m.Features), m.D)
	}
	if m.ClassNames == nil {
		return nil
	}
	if m.Task != "classification" || len(m.ClassNames) != len(m.Classes) {
		return fmt.Errorf("%d class names for %d classes (task %s)", len(m.ClassNames), len(m.Classes), m.Task)
	}
	seen := make(map[string]bool, len(m.ClassNames))
	for i, c := range m.Classes {
		if c != float64(i) {
			return fmt.Errorf("named classes must be the class indices 0…%d, but class %d is %g", len(m.Classes)-1, i, c)
		}
		if seen[m.ClassNames[i]] {
			return fmt.Errorf("class name %q is repeated", m.ClassNames[i])
		}
		seen[m.ClassNames[i]] = true
	}
	return nil
}

// ParseManifest decodes and validates a manifest.
func ParseManifest(b []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("shard: %w: manifest: %w", ErrFormat, err)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Write writes one shard of rows×d data and its targets to w, as float64
// (the layout of Format).
func Write(w io.Writer, x *mat.Dense, y []float64) error {
	return WriteAs(w, x, y, Float64)
}

// WriteAs writes one shard of rows×d data and its targets to w with X's
// element type t: Float64 (empty means it) writes Write's layout, Float32
// X rounded to float32 in the row-interleaved layout of Format2 (doc.go);
// a finite value beyond float32's range is then an error (wrapping
// kernel.ErrFloat32Range) naming its row and column, before anything is
// written.
func WriteAs(w io.Writer, x *mat.Dense, y []float64, t Type) error {
	rows, d := x.Dims()
	if len(y) != rows {
		return fmt.Errorf("shard: %w: %d targets for %d rows", ErrInput, len(y), rows)
	}
	width, err := widthOf(t)
	if err != nil {
		return err
	}
	if width == 4 {
		if err := kernel.CheckFloat32Range(x); err != nil {
			return fmt.Errorf("shard: X, which a float32 shard stores rounded to float32: %w", err)
		}
	}
	h := crc32.NewIEEE()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
	var buf [8]byte
	put64 := func(v uint64) {
		binary.LittleEndian.PutUint64(buf[:], v)
		bw.Write(buf[:])
	}
	put := func(v float64) { put64(math.Float64bits(v)) }
	if width == 8 {
		bw.WriteString(magic)
		put64(uint64(rows))
		put64(uint64(d))
		for i := range rows {
			for _, v := range x.RawRowView(i) {
				put(v)
			}
		}
		for _, v := range y {
			put(v)
		}
	} else {
		bw.WriteString(magic2)
		put64(uint64(rows))
		put64(uint64(d))
		put64(uint64(width))
		for i := range rows {
			for _, v := range x.RawRowView(i) {
				binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(float32(v)))
				bw.Write(buf[:4])
			}
			put(y[i])
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	binary.LittleEndian.PutUint32(buf[:4], h.Sum32())
	if _, err := w.Write(buf[:4]); err != nil {
		return fmt.Errorf("shard: %w", err)
	}
	return nil
}

// widthOf is the bytes of one element of X of type t.
func widthOf(t Type) (int, error) {
	switch t {
	case "", Float64:
		return 8, nil
	case Float32:
		return 4, nil
	}
	return 0, fmt.Errorf("shard: %w: element type %q, want %q or %q", ErrInput, t, Float64, Float32)
}

// Read reads one shard, checking its size against want (rows, d; zero
// skips the check) and its checksum: a damaged shard is an error wrapping
// ErrChecksum (or ErrFormat when the damage hits the header or length),
// never a partial result. Float32 shards are read back widened to float64
// (each value float32(x) exactly). Read does not know the file's name; a
// caller reading a file wraps the error with it.
func Read(r io.Reader, wantRows, wantD int) (*mat.Dense, []float64, error) {
	s, err := newStream(r, wantRows, wantD)
	if err != nil {
		return nil, nil, err
	}
	x := hugemem.Float64s(s.rows * s.d) // read on every pass: 2 MiB pages (datasets.newDense)
	y := make([]float64, s.rows)
	for at := 0; at < s.rows; {
		yb := y[at:]
		if s.ver == 1 {
			// X, then y decoded as the stream reads it at the end.
			yb, s.keepY = nil, y
		}
		k, err := s.Read(x[at*s.d:], yb)
		if err != nil {
			return nil, nil, err
		}
		at += k
	}
	return mat.NewDense(s.rows, s.d, x), y, nil
}

// Options are WriteDirWith's choices.
type Options struct {
	// Rows is the number of rows per shard (≥ 1; the last shard may hold
	// fewer).
	Rows int
	// Classification records the distinct labels as the manifest's
	// Classes and the task "classification" (regression otherwise).
	Classification bool
	// Type is the element type of X in the shards: Float64 (empty means
	// it) or Float32 (manifest format Format2).
	Type Type
	// Progress, when non-nil, is called after each shard is written, with
	// the number of shards written so far and their total.
	Progress func(done, total int)
	// ZeroBased is recorded as the manifest's ZeroBased: the rows were
	// read from a LIBSVM file with 0-based indices.
	ZeroBased bool
	// Features, Target, ClassNames and Layout are recorded as the
	// manifest's fields of those names (see Manifest): the source's column
	// names, its class names when the labels were text (y then holds class
	// indices 0…k−1), and the JSON of its datasets.Layout.
	Features   []string
	Target     string
	ClassNames []string
	Layout     json.RawMessage
}

// WriteDir writes x (n×d) and y as shards of at most rows rows into dir
// (created if needed) with their manifest, and returns the manifest. The
// column statistics are computed here, on write: the writer already passes
// over every row once, so no second (distributed) pass is needed.
func WriteDir(dir string, x *mat.Dense, y []float64, rows int, classification bool) (*Manifest, error) {
	return WriteDirWith(dir, x, y, Options{Rows: rows, Classification: classification})
}

// WriteDirProgress is WriteDir that calls progress, when non-nil, after
// each shard is written, with the number of shards written so far and
// their total.
func WriteDirProgress(dir string, x *mat.Dense, y []float64, rows int, classification bool, progress func(done, total int)) (*Manifest, error) {
	return WriteDirWith(dir, x, y, Options{Rows: rows, Classification: classification, Progress: progress})
}

// WriteDirWith is WriteDir with every choice in opt, the element type
// among them. The statistics are those of the values written: x as given
// for float64 shards, x rounded to float32 for float32 shards (before
// 2026-11-27 they were x's as given, whatever the element type, so that
// a streamed fit's gamma scale differed from the in-memory fit's).
func WriteDirWith(dir string, x *mat.Dense, y []float64, opt Options) (*Manifest, error) {
	return WriteDirContext(context.Background(), dir, x, y, opt)
}

// WriteDirContext is WriteDirWith that stops between shards when ctx is
// cancelled, with an error wrapping ctx.Err(), and then, as after any
// error writing a shard or the manifest, leaves no output: the shards it
// wrote are removed, the manifest is not written, and dir is removed when
// this call created it (files already in it stay). (A failed write left
// the shards written before it.)
//
// A set already in dir (a manifest) is replaced, never overlaid: its
// manifest is removed before the first shard is written (so that it never
// names the new shards, which overwrite its own of the same names), and
// its other shards once the new manifest is written. Stopped, the call
// removes them too: the old set is gone, the new one not written. Before,
// a smaller set left the old one's extra shards beside its own, and a
// stopped one left the old manifest naming shards it had overwritten or
// removed.
func WriteDirContext(ctx context.Context, dir string, x *mat.Dense, y []float64, opt Options) (*Manifest, error) {
	if ctx == nil {
		return nil, fmt.Errorf("shard: %w: nil context", ErrInput)
	}
	if err := checkDirInput(x, y, opt); err != nil {
		return nil, err
	}
	m, err := newManifest(x, y, opt)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	set, err := beginSet(dir)
	if err != nil {
		return nil, err
	}
	columnStats(m, x, y, opt.Type)
	if err := writeShards(ctx, dir, m, x, y, opt); err != nil {
		return set.undo(m, err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return set.undo(m, err)
	}
	if err := outfile.WriteBytes(filepath.Join(dir, ManifestName), append(b, '\n')); err != nil {
		return set.undo(m, err)
	}
	set.dropOld(m)
	return m, nil
}

// checkDirInput refuses what WriteDirContext cannot write, before anything
// is written: targets that do not match the rows, rows per shard < 1, an
// unknown element type, a non-finite value, and for float32 shards a value
// beyond float32's range.
func checkDirInput(x *mat.Dense, y []float64, opt Options) error {
	n, _ := x.Dims()
	if len(y) != n || n < 1 {
		return fmt.Errorf("shard: %w: %d targets for %d rows", ErrInput, len(y), n)
	}
	if opt.Rows < 1 {
		return fmt.Errorf("shard: %w: %d rows per shard, want ≥ 1", ErrInput, opt.Rows)
	}
	if _, err := widthOf(opt.Type); err != nil {
		return err
	}
	for i := range n {
		for _, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("shard: %w: row %d has a non-finite value", ErrInput, i)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return fmt.Errorf("shard: %w: target %d is not finite", ErrInput, i)
		}
	}
	if opt.Type == Float32 {
		if err := kernel.CheckFloat32Range(x); err != nil {
			return fmt.Errorf("shard: X, which float32 shards store rounded to float32: %w", err)
		}
	}
	return nil
}

// setWrite is a set being written into a folder in place of the set
// already there, if any (DropSet): undone, it leaves no partial set.
type setWrite struct {
	dir string
	// created says the folder was made for this set.
	created bool
	// dropOld removes the old set's shards that the new set does not name
	// (all of them for nil).
	dropOld func(written *Manifest)
}

// beginSet makes dir when it is missing and drops the set in it (DropSet).
func beginSet(dir string) (*setWrite, error) {
	_, statErr := os.Stat(dir)
	set := &setWrite{dir: dir, created: os.IsNotExist(statErr)}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	dropOld, err := DropSet(dir)
	if err != nil {
		return nil, err
	}
	set.dropOld = dropOld
	return set, nil
}

// undo removes the shards of m written so far, the set this one was to
// replace, and the folder when beginSet made it (only when empty), and
// returns err as WriteDirContext's error.
func (s *setWrite) undo(m *Manifest, err error) (*Manifest, error) {
	for _, e := range m.Shards {
		os.Remove(filepath.Join(s.dir, e.File))
	}
	s.dropOld(nil)
	if s.created {
		os.Remove(s.dir) // only when empty
	}
	return nil, fmt.Errorf("shard: %w", err)
}

// newManifest is the manifest of x and y without its shards and
// statistics: format, size, task and, for classification, the classes
// (at least two).
func newManifest(x *mat.Dense, y []float64, opt Options) (*Manifest, error) {
	n, d := x.Dims()
	m := &Manifest{Format: Format, N: n, D: d, Task: "regression", Mean: make([]float64, d), Std: make([]float64, d), ZeroBased: opt.ZeroBased,
		Features: slices.Clone(opt.Features), Target: opt.Target, ClassNames: slices.Clone(opt.ClassNames), Layout: slices.Clone(opt.Layout)}
	if opt.Type == Float32 {
		m.Format, m.Type = Format2, Float32
	}
	if opt.Classification {
		m.Task = "classification"
		m.Classes = slices.Compact(slices.Sorted(slices.Values(y)))
		if len(m.Classes) < 2 {
			return nil, fmt.Errorf("shard: %w: classification needs two classes, y has %d", ErrInput, len(m.Classes))
		}
	}
	if opt.ClassNames != nil && !opt.Classification {
		return nil, fmt.Errorf("shard: %w: class names for a regression", ErrInput)
	}
	if opt.Layout != nil && !json.Valid(opt.Layout) {
		return nil, fmt.Errorf("shard: %w: layout is not JSON", ErrInput)
	}
	// The names are checked as ParseManifest will check them.
	if err := m.validateColumns(); err != nil {
		return nil, fmt.Errorf("shard: %w: %w", ErrInput, err)
	}
	return m, nil
}

// columnStats sets m's column and target means and population standard
// deviations, by two passes over the rows (the means, then the squared
// deviations from them). They are those of the values the shards hold:
// float32 shards' rounded values (exactly, in float64), so that a fit that
// standardizes or takes gamma scale from the manifest sees what a fit on
// the rows read back does.
func columnStats(m *Manifest, x *mat.Dense, y []float64, t Type) {
	n, _ := x.Dims()
	round := func(v float64) float64 { return v }
	if t == Float32 {
		round = func(v float64) float64 { return float64(float32(v)) }
	}
	for i := range n {
		for j, v := range x.RawRowView(i) {
			m.Mean[j] += round(v)
		}
		m.YMean += y[i]
	}
	for j := range m.Mean {
		m.Mean[j] /= float64(n)
	}
	m.YMean /= float64(n)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			v = round(v)
			m.Std[j] += (v - m.Mean[j]) * (v - m.Mean[j])
		}
		m.YStd += (y[i] - m.YMean) * (y[i] - m.YMean)
	}
	for j := range m.Std {
		m.Std[j] = math.Sqrt(m.Std[j] / float64(n))
	}
	m.YStd = math.Sqrt(m.YStd / float64(n))
}

// writeShards writes x and y as shards of opt.Rows rows into dir, each
// whole or not at all (outfile.Write: temporary file and rename), adding
// each to m.Shards once written and reporting it to opt.Progress; it stops
// before a shard when ctx is cancelled, with ctx's error.
func writeShards(ctx context.Context, dir string, m *Manifest, x *mat.Dense, y []float64, opt Options) error {
	n, d := x.Dims()
	rows := opt.Rows
	for s, r0 := 0, 0; r0 < n; s, r0 = s+1, r0+rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		r1 := min(n, r0+rows)
		e := Entry{File: fmt.Sprintf("shard-%05d.lmks", s), Rows: r1 - r0, FirstRow: r0}
		err := outfile.Write(filepath.Join(dir, e.File), func(w io.Writer) error {
			return WriteAs(w, x.Slice(r0, r1, 0, d).(*mat.Dense), y[r0:r1], opt.Type)
		})
		if err != nil {
			return err
		}
		m.Shards = append(m.Shards, e)
		if opt.Progress != nil {
			opt.Progress(len(m.Shards), (n+rows-1)/rows)
		}
	}
	return nil
}

// DropSet readies dir for a new set written over one already there (a
// manifest): it removes that manifest now, so that it never names the new
// set's shards (which overwrite its own of the same names), and returns
// done, which removes the old set's shard files that the written set
// (its manifest once written) does not name, or all of them when written
// is nil (the new set was not written). A dir without a manifest has
// nothing to drop: done does nothing. Only plain file names ending in
// .lmks are removed, never a path a manifest names elsewhere. A
// manifest.json that is not a shard manifest (a landmark run folder's) is
// an error wrapping ErrInput, and stays.
func DropSet(dir string) (done func(written *Manifest), err error) {
	p := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return func(*Manifest) {}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	m, err := ParseManifest(b)
	if err != nil {
		// Another program's manifest.json (landmark run writes one in its
		// output folder): not ours to replace (it was overwritten).
		return nil, fmt.Errorf("shard: %w: %s holds a %s that is not a shard set's (%w): choose another folder", ErrInput, dir, ManifestName, err)
	}
	var old []string
	for _, e := range m.Shards {
		if filepath.Base(e.File) == e.File && strings.HasSuffix(e.File, ".lmks") {
			old = append(old, e.File)
		}
	}
	if err := os.Remove(p); err != nil {
		return nil, fmt.Errorf("shard: replacing the set in %s: %w", dir, err)
	}
	return func(written *Manifest) {
		for _, f := range old {
			if written == nil || !slices.ContainsFunc(written.Shards, func(e Entry) bool { return e.File == f }) {
				os.Remove(filepath.Join(dir, f))
			}
		}
	}, nil
}
