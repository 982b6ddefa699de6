package shard

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomRows is rows×d standard-normal data (values with full float64
// mantissas, so rounding to float32 changes every one) and targets.
func randomRows(rows, d int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(rows, d, nil)
	y := make([]float64, rows)
	for i := range rows {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = rng.NormFloat64()
	}
	return x, y
}

// TestFloat32RoundTrip: a Float32 shard holds 4 bytes a value (its size is
// FileBytes), reads back X as float32(x) exactly — not x, which no value
// of normal data survives — and y unrounded; WriteDirWith writes format 2
// manifests with the type, whose statistics are those of the values
// written: a float64 set's of xs (x rounded), bit for bit, not x's (as
// they were before).
func TestFloat32RoundTrip(t *testing.T) {
	const rows, d = 37, 5
	x, y := randomRows(rows, d, 3)
	var buf bytes.Buffer
	if err := WriteAs(&buf, x, y, Float32); err != nil {
		t.Fatal(err)
	}
	if got, want := int64(buf.Len()), FileBytes(rows, d, Float32); got != want || want != 32+rows*(4*d+8)+4 {
		t.Fatalf("float32 shard is %d bytes, FileBytes says %d", got, want)
	}
	xs, ys, err := Read(bytes.NewReader(buf.Bytes()), rows, d)
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i := range rows {
		for j := range d {
			v := x.At(i, j)
			if xs.At(i, j) != float64(float32(v)) {
				t.Fatalf("x[%d,%d] read back %v, want float32(%v) = %v", i, j, xs.At(i, j), v, float32(v))
			}
			if xs.At(i, j) == v {
				same++
			}
		}
	}
	if same != 0 || !slices.Equal(ys, y) {
		t.Fatalf("%d values unrounded; targets equal: %v", same, slices.Equal(ys, y))
	}

	dir := t.TempDir()
	m, err := WriteDirWith(dir, x, y, Options{Rows: 10, Type: Float32})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ManifestName))
	back, err := ParseManifest(b)
	if err != nil || back.Format != Format2 || back.Type != Float32 || len(back.Shards) != 4 {
		t.Fatalf("manifest %+v, err %v", back, err)
	}
	ref, _ := WriteDir(t.TempDir(), xs, y, 10, false)
	if !slices.Equal(m.Mean, ref.Mean) || !slices.Equal(m.Std, ref.Std) || ref.Format != Format || ref.Type != "" {
		t.Fatalf("float32 statistics %v %v, float64 of the rounded rows %v %v (format %q)", m.Mean, m.Std, ref.Mean, ref.Std, ref.Format)
	}
	if x64, _ := WriteDir(t.TempDir(), x, y, 10, false); slices.Equal(m.Mean, x64.Mean) {
		t.Fatalf("float32 statistics are the unrounded x's: %v", m.Mean)
	}
	// A float32 manifest under format 1 is refused: a reader of format 1
	// only would misread its shards.
	bad := *back
	bad.Format = Format
	if err := bad.Validate(); !errors.Is(err, ErrFormat) {
		t.Fatalf("float32 manifest with format 1: err = %v", err)
	}
	bad.Format, bad.Type = Format2, "int8"
	if err := bad.Validate(); !errors.Is(err, ErrFormat) {
		t.Fatalf("element type int8: err = %v", err)
	}
	var js map[string]any
	raw, _ := json.Marshal(ref)
	json.Unmarshal(raw, &js)
	if _, ok := js["type"]; ok {
		t.Errorf("a float64 manifest writes a type field: %s", raw)
	}
}

// TestStreamBlocks reads shards of both types in blocks of 1, 4 and 1000
// rows, with and without targets: the rows equal Read's, BytesRead ends at
// the file's size, and the stream then says io.EOF.
func TestStreamBlocks(t *testing.T) {
	const rows, d = 23, 3
	x, y := randomRows(rows, d, 5)
	for _, typ := range []Type{Float64, Float32} {
		var buf bytes.Buffer
		if err := WriteAs(&buf, x, y, typ); err != nil {
			t.Fatal(err)
		}
		raw := buf.Bytes()
		wx, wy, err := Read(bytes.NewReader(raw), rows, d)
		if err != nil {
			t.Fatal(err)
		}
		for _, block := range []int{1, 4, 1000} {
			for _, targets := range []bool{false, true} {
				s, err := NewStream(bytes.NewReader(raw), int64(len(raw)), rows, d, targets)
				if err != nil {
					t.Fatal(err)
				}
				if s.Type() != typ {
					t.Fatalf("type %q, want %q", s.Type(), typ)
				}
				gx := make([]float64, 0, rows*d)
				var gy []float64
				bx, by := make([]float64, block*d), make([]float64, block)
				for {
					var yb []float64
					if targets {
						yb = by
					}
					k, err := s.Read(bx, yb)
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("%s, block %d: %v", typ, block, err)
					}
					gx = append(gx, bx[:k*d]...)
					if targets {
						gy = append(gy, by[:k]...)
					}
				}
				if !slices.Equal(gx, wx.RawMatrix().Data) || targets && !slices.Equal(gy, wy) {
					t.Fatalf("%s, block %d, targets %v: streamed rows differ from Read's", typ, block, targets)
				}
				if s.BytesRead() != int64(len(raw)) {
					t.Fatalf("%s: read %d bytes of %d", typ, s.BytesRead(), len(raw))
				}
			}
		}
	}
}

// TestStreamCorruption: a flipped byte in the first row of a shard of
// three blocks is found when the stream ends — the blocks before are
// returned, the last call fails with ErrChecksum and returns no rows —
// in both formats, with or without targets read ahead; a flipped target
// of format 1 read ahead is found too; a wrong size is ErrFormat at once.
func TestStreamCorruption(t *testing.T) {
	const rows, d = 12, 2
	x, y := randomRows(rows, d, 9)
	for _, typ := range []Type{Float64, Float32} {
		var buf bytes.Buffer
		WriteAs(&buf, x, y, typ)
		for _, at := range []int{int(headerBytes(2)) + 1, buf.Len() - 9} {
			raw := bytes.Clone(buf.Bytes())
			raw[at] ^= 0x10
			for _, targets := range []bool{false, true} {
				s, err := NewStream(bytes.NewReader(raw), int64(len(raw)), rows, d, targets)
				if err != nil {
					t.Fatal(err)
				}
				bx, by := make([]float64, 4*d), make([]float64, 4)
				if !targets {
					by = nil
				}
				var errs []error
				var ks []int
				for range 3 {
					k, err := s.Read(bx, by)
					ks, errs = append(ks, k), append(errs, err)
				}
				if errs[0] != nil || errs[1] != nil || !errors.Is(errs[2], ErrChecksum) || ks[2] != 0 {
					t.Fatalf("%s, byte %d, targets %v: reads %v, errors %v; want 4, 4 then ErrChecksum", typ, at, targets, ks, errs)
				}
				if _, err := s.Read(bx, by); !errors.Is(err, ErrChecksum) {
					t.Fatalf("error not sticky: %v", err)
				}
			}
		}
		raw := buf.Bytes()
		if _, err := NewStream(bytes.NewReader(raw[:len(raw)-1]), int64(len(raw)-1), rows, d, false); !errors.Is(err, ErrFormat) {
			t.Fatalf("%s: truncated shard: err = %v", typ, err)
		}
	}
}

// TestCRC32Combine: the checksum of A‖B from those of A and B equals
// crc32.ChecksumIEEE of the concatenation, for lengths 0, 1, 7, 8, 1000
// and 65,537 of either part (the exponent's bits all exercised).
func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, la := range []int{0, 1, 7, 1000, 65537} {
		for _, lb := range []int{0, 1, 8, 1000, 65537} {
			a, b := make([]byte, la), make([]byte, lb)
			for i := range a {
				a[i] = byte(rng.Uint32())
			}
			for i := range b {
				b[i] = byte(rng.Uint32())
			}
			want := crc32.ChecksumIEEE(append(slices.Clone(a), b...))
			if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(lb)); got != want {
				t.Errorf("|A| = %d, |B| = %d: combined %08x, want %08x", la, lb, got, want)
			}
		}
	}
}
