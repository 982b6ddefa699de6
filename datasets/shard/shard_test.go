package shard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestRoundTripAndManifest(t *testing.T) {
	x := mat.NewDense(7, 3, nil)
	y := make([]float64, 7)
	for i := range 7 {
		for j := range 3 {
			x.Set(i, j, float64(i*3+j)+0.25)
		}
		y[i] = float64(i % 2)
	}
	dir := t.TempDir()
	m, err := WriteDir(dir, x, y, 3, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Shards) != 3 || m.Shards[2].Rows != 1 || m.Shards[2].FirstRow != 6 {
		t.Fatalf("shards %+v, want rows 3,3,1", m.Shards)
	}
	// Column 0 is 0.25, 3.25, …, 18.25: mean 9.25, population std 3·√4 = 6.
	if m.Mean[0] != 9.25 || m.Std[0] != 6 || len(m.Classes) != 2 {
		t.Fatalf("mean %v std %v classes %v", m.Mean, m.Std, m.Classes)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseManifest(b); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, m.Shards[1].File))
	if err != nil {
		t.Fatal(err)
	}
	xs, ys, err := Read(bytes.NewReader(raw), 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(xs, x.Slice(3, 6, 0, 3)) || ys[0] != y[3] || ys[2] != y[5] {
		t.Fatalf("shard 1 read back %v %v", mat.Formatted(xs), ys)
	}
	raw[40] ^= 1
	if _, _, err := Read(bytes.NewReader(raw), 3, 3); !errors.Is(err, ErrFormat) {
		t.Fatalf("corrupted shard: err = %v, want ErrFormat", err)
	}
	if _, _, err := Read(bytes.NewReader(raw[:30]), 0, 0); !errors.Is(err, ErrFormat) {
		t.Fatalf("truncated shard: err = %v, want ErrFormat", err)
	}
	m.Shards[1].FirstRow = 4
	if err := m.Validate(); !errors.Is(err, ErrFormat) {
		t.Fatalf("gap in manifest: err = %v, want ErrFormat", err)
	}
}

// TestWriteDirBadInput: WriteDir refuses, with ErrInput and before writing
// anything, rows ≤ 0, mismatched targets, non-finite values and a
// single-class classification.
func TestWriteDirBadInput(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	y := []float64{1, 2, 3}
	nan := mat.DenseCopyOf(x)
	nan.Set(1, 1, math.NaN())
	for name, f := range map[string]func(dir string) error{
		"rows 0":         func(dir string) error { _, err := WriteDir(dir, x, y, 0, false); return err },
		"rows -1":        func(dir string) error { _, err := WriteDir(dir, x, y, -1, false); return err },
		"short y":        func(dir string) error { _, err := WriteDir(dir, x, y[:2], 2, false); return err },
		"NaN in x":       func(dir string) error { _, err := WriteDir(dir, nan, y, 2, false); return err },
		"Inf in y":       func(dir string) error { _, err := WriteDir(dir, x, []float64{1, math.Inf(1), 3}, 2, false); return err },
		"one class":      func(dir string) error { _, err := WriteDir(dir, x, []float64{1, 1, 1}, 2, true); return err },
		"Write, short y": func(dir string) error { return Write(io.Discard, x, y[:1]) },
	} {
		dir := filepath.Join(t.TempDir(), "out")
		if err := f(dir); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
		if _, err := os.Stat(filepath.Join(dir, ManifestName)); err == nil {
			t.Errorf("%s: a manifest was written", name)
		}
	}
}

// WriteDirProgress reports each shard once it is on disk, in order, with
// the total, and writes the same files and manifest as WriteDir.
func TestWriteDirProgress(t *testing.T) {
	x := mat.NewDense(7, 2, nil)
	y := make([]float64, 7)
	for i := range 7 {
		x.Set(i, 0, float64(i))
		x.Set(i, 1, float64(-i))
		y[i] = float64(i)
	}
	dir := t.TempDir()
	var calls [][2]int
	m, err := WriteDirProgress(dir, x, y, 3, false, func(done, total int) {
		if _, err := os.Stat(filepath.Join(dir, shardFile(done))); err != nil {
			t.Errorf("shard %d reported before it was written: %v", done, err)
		}
		calls = append(calls, [2]int{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || calls[0] != [2]int{1, 3} || calls[2] != [2]int{3, 3} || len(m.Shards) != 3 {
		t.Errorf("progress calls %v for %d shards, want 1/3, 2/3, 3/3", calls, len(m.Shards))
	}
	ref := t.TempDir()
	if _, err := WriteDir(ref, x, y, 3, false); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ManifestName, shardFile(1), shardFile(3)} {
		a, _ := os.ReadFile(filepath.Join(dir, f))
		b, _ := os.ReadFile(filepath.Join(ref, f))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs from WriteDir's", f)
		}
	}
}

// shardFile is the file name of shard k (1-based).
func shardFile(k int) string { return fmt.Sprintf("shard-%05d.lmks", k-1) }

// TestReadEveryFlippedByte flips each byte of a shard in turn (xor 0xff):
// no flip may be read back as data. A flip in the payload or the stored
// CRC-32 is an 8-bit burst, which CRC-32 detects in every position (it
// detects every burst of at most 32 bits), so each of those must be
// ErrChecksum naming both sums; a flip in the 24-byte header changes the
// magic or the claimed size and must be ErrFormat.
func TestReadEveryFlippedByte(t *testing.T) {
	x := mat.NewDense(3, 3, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9.5})
	y := []float64{-1, 0, 1}
	var buf bytes.Buffer
	if err := Write(&buf, x, y); err != nil {
		t.Fatal(err)
	}
	raw := buf.Bytes()
	if want := 24 + 8*(9+3) + 4; len(raw) != want {
		t.Fatalf("shard is %d bytes, want %d", len(raw), want)
	}
	for i := range raw {
		raw[i] ^= 0xff
		_, _, err := Read(bytes.NewReader(raw), 3, 3)
		raw[i] ^= 0xff
		switch {
		case err == nil:
			t.Fatalf("byte %d flipped: read back without error", i)
		case i >= 24 && !errors.Is(err, ErrChecksum):
			t.Fatalf("byte %d flipped: err = %v, want ErrChecksum", i, err)
		case i >= 24 && !strings.Contains(err.Error(), "stored "):
			t.Fatalf("byte %d flipped: err = %v does not give the sums", i, err)
		case !errors.Is(err, ErrFormat):
			t.Fatalf("byte %d flipped: err = %v, want ErrFormat", i, err)
		}
	}
	if _, _, err := Read(bytes.NewReader(raw), 3, 3); err != nil {
		t.Fatalf("restored shard: %v", err)
	}
}
