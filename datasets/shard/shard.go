package shard

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/outfile"
	"gonum.org/v1/gonum/mat"
)

// Format names the manifest's format version.
const Format = "landmark-shards/1"

// ManifestName is the manifest's file name inside a shard folder.
const ManifestName = "manifest.json"

const magic = "LMKSHRD1"

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
	// Format is Format.
	Format string `json:"format"`
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
	if m.Format != Format {
		return fmt.Errorf("shard: %w: manifest format %q, want %q", ErrFormat, m.Format, Format)
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

// Write writes one shard of rows×d data and its targets to w.
func Write(w io.Writer, x *mat.Dense, y []float64) error {
	rows, d := x.Dims()
	if len(y) != rows {
		return fmt.Errorf("shard: %w: %d targets for %d rows", ErrInput, len(y), rows)
	}
	h := crc32.NewIEEE()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
	var buf [8]byte
	bw.WriteString(magic)
	for _, v := range []uint64{uint64(rows), uint64(d)} {
		binary.LittleEndian.PutUint64(buf[:], v)
		bw.Write(buf[:])
	}
	put := func(v float64) {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(v))
		bw.Write(buf[:])
	}
	for i := range rows {
		for _, v := range x.RawRowView(i) {
			put(v)
		}
	}
	for _, v := range y {
		put(v)
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

// Read reads one shard, checking its size against want (rows, d; zero
// skips the check) and its checksum: a damaged shard is an error wrapping
// ErrChecksum (or ErrFormat when the damage hits the header or length),
// never a partial result. Read does not know the file's name; a caller
// reading a file wraps the error with it.
func Read(r io.Reader, wantRows, wantD int) (*mat.Dense, []float64, error) {
	h := crc32.NewIEEE()
	br := bufio.NewReaderSize(r, 1<<16)
	head := make([]byte, 24)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, nil, fmt.Errorf("shard: %w: header: %w", ErrFormat, err)
	}
	h.Write(head)
	if string(head[:8]) != magic {
		return nil, nil, fmt.Errorf("shard: %w: not a shard (magic %q)", ErrFormat, head[:8])
	}
	rows, d := binary.LittleEndian.Uint64(head[8:]), binary.LittleEndian.Uint64(head[16:])
	if rows < 1 || d < 1 || rows > 1<<40 || d > 1<<24 || rows*d > 1<<34 {
		return nil, nil, fmt.Errorf("shard: %w: shard claims %d×%d", ErrFormat, rows, d)
	}
	if wantRows > 0 && (int(rows) != wantRows || int(d) != wantD) {
		return nil, nil, fmt.Errorf("shard: %w: shard is %d×%d, manifest says %d×%d", ErrFormat, rows, d, wantRows, wantD)
	}
	data := make([]float64, rows*d+rows)
	buf := make([]byte, 8*4096)
	for i := 0; i < len(data); {
		k := min(len(data)-i, 4096)
		if _, err := io.ReadFull(br, buf[:8*k]); err != nil {
			return nil, nil, fmt.Errorf("shard: %w: truncated shard: %w", ErrFormat, err)
		}
		h.Write(buf[:8*k])
		for j := range k {
			data[i+j] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:]))
		}
		i += k
	}
	sum := h.Sum32()
	var tail [4]byte
	if _, err := io.ReadFull(br, tail[:]); err != nil {
		return nil, nil, fmt.Errorf("shard: %w: missing checksum: %w", ErrFormat, err)
	}
	if binary.LittleEndian.Uint32(tail[:]) != sum {
		return nil, nil, fmt.Errorf("shard: %w (stored %08x, computed %08x)", ErrChecksum, binary.LittleEndian.Uint32(tail[:]), sum)
	}
	nd := int(rows * d)
	return mat.NewDense(int(rows), int(d), data[:nd:nd]), data[nd:], nil
}

// WriteDir writes x (n×d) and y as shards of at most rows rows into dir
// (created if needed) with their manifest, and returns the manifest. The
// column statistics are computed here, on write: the writer already passes
// over every row once, so no second (distributed) pass is needed.
func WriteDir(dir string, x *mat.Dense, y []float64, rows int, classification bool) (*Manifest, error) {
	return WriteDirProgress(dir, x, y, rows, classification, nil)
}

// WriteDirProgress is WriteDir that calls progress, when non-nil, after
// each shard is written, with the number of shards written so far and
// their total.
func WriteDirProgress(dir string, x *mat.Dense, y []float64, rows int, classification bool, progress func(done, total int)) (*Manifest, error) {
	n, d := x.Dims()
	if len(y) != n || n < 1 {
		return nil, fmt.Errorf("shard: %w: %d targets for %d rows", ErrInput, len(y), n)
	}
	if rows < 1 {
		return nil, fmt.Errorf("shard: %w: %d rows per shard, want ≥ 1", ErrInput, rows)
	}
	for i := range n {
		for _, v := range x.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("shard: %w: row %d has a non-finite value", ErrInput, i)
			}
		}
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return nil, fmt.Errorf("shard: %w: target %d is not finite", ErrInput, i)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	m := &Manifest{Format: Format, N: n, D: d, Task: "regression", Mean: make([]float64, d), Std: make([]float64, d)}
	if classification {
		m.Task = "classification"
		m.Classes = slices.Compact(slices.Sorted(slices.Values(y)))
		if len(m.Classes) < 2 {
			return nil, fmt.Errorf("shard: %w: classification needs two classes, y has %d", ErrInput, len(m.Classes))
		}
	}
	for i := range n {
		for j, v := range x.RawRowView(i) {
			m.Mean[j] += v
		}
		m.YMean += y[i]
	}
	for j := range m.Mean {
		m.Mean[j] /= float64(n)
	}
	m.YMean /= float64(n)
	for i := range n {
		for j, v := range x.RawRowView(i) {
			m.Std[j] += (v - m.Mean[j]) * (v - m.Mean[j])
		}
		m.YStd += (y[i] - m.YMean) * (y[i] - m.YMean)
	}
	for j := range m.Std {
		m.Std[j] = math.Sqrt(m.Std[j] / float64(n))
	}
	m.YStd = math.Sqrt(m.YStd / float64(n))
	for s, r0 := 0, 0; r0 < n; s, r0 = s+1, r0+rows {
		r1 := min(n, r0+rows)
		e := Entry{File: fmt.Sprintf("shard-%05d.lmks", s), Rows: r1 - r0, FirstRow: r0}
		// Each shard, and the manifest last, is written whole or not at
		// all (outfile.Write: temporary file and rename).
		err := outfile.Write(filepath.Join(dir, e.File), func(w io.Writer) error {
			return Write(w, x.Slice(r0, r1, 0, d).(*mat.Dense), y[r0:r1])
		})
		if err != nil {
			return nil, fmt.Errorf("shard: %w", err)
		}
		m.Shards = append(m.Shards, e)
		if progress != nil {
			progress(len(m.Shards), (n+rows-1)/rows)
		}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	if err := outfile.WriteBytes(filepath.Join(dir, ManifestName), append(b, '\n')); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	return m, nil
}
