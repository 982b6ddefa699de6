//go:build unix

package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// bigLIBSVM is n rows "i 1:i 2:2i", more than the 64 KiB the format sniffer
// looks at once n is above a few thousand.
func bigLIBSVM(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, "%d 1:%d 2:%d\n", i%2, i, 2*i)
	}
	return b.Bytes()
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestOpenInputFIFOReadsEveryRow feeds a FIFO whose name says nothing of
// the format: the sniffed bytes must be read again, so every one of the
// 20,000 rows (about 360 KB, over five times the sniffer's look-ahead)
// arrives, dense and sparse, plain and gzip.
func TestOpenInputFIFOReadsEveryRow(t *testing.T) {
	const n = 20000
	plain := bigLIBSVM(n)
	for _, tc := range []struct {
		name   string
		data   []byte
		sparse bool
	}{{"plain dense", plain, false}, {"gzip dense", gz(t, plain), false}, {"plain sparse", plain, true}, {"gzip sparse", gz(t, plain), true}} {
		t.Run(tc.name, func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "data")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			errc := make(chan error, 1)
			go func() {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					errc <- err
					return
				}
				_, err = f.Write(tc.data)
				f.Close()
				errc <- err
			}()
			in, err := OpenInput(context.Background(), fifo, Auto)
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			if in.Format != LIBSVM || !in.Stream {
				t.Fatalf("format %q stream %v, want libsvm and a stream", in.Format, in.Stream)
			}
			var rows int
			var y []float64
			var last float64
			if tc.sparse {
				x, ys, err := in.ReadSparse(context.Background(), 0)
				if err != nil {
					t.Fatal(err)
				}
				rows, y, last = len(ys), ys, x.ToDense().At(n-1, 1)
			} else {
				d, err := in.Read(context.Background(), ReadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				rows, y, last = d.Len(), d.Y, d.X.At(n-1, 1)
			}
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			// Row i is "i%2 1:i 2:2i": the first row's label is 0 and the
			// last row's second feature 2(n−1).
			if rows != n || y[0] != 0 || y[1] != 1 || last != 2*(n-1) {
				t.Fatalf("got %d rows, y[0:2] = %v, last x₂ = %g; want %d, [0 1], %d", rows, y[:2], last, n, 2*(n-1))
			}
			if _, err := in.Read(context.Background(), ReadOptions{}); !errors.Is(err, ErrInput) {
				t.Fatalf("second read of a stream: err = %v, want ErrInput", err)
			}
		})
	}
}

// TestOpenInputFIFOCancel: a FIFO with no writer blocks the open; the
// context's cancellation must end the wait.
func TestOpenInputFIFOCancel(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "nowriter.libsvm")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := ReadFileContext(ctx, fifo, ReadOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// A writer that connects but sends nothing blocks the read instead.
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer cancel2()
	w := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w <- f
		}
	}()
	time.AfterFunc(100*time.Millisecond, cancel2)
	_, err = ReadFileContext(ctx2, fifo, ReadOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked read: err = %v, want context.Canceled", err)
	}
	(<-w).Close()
}

// TestTruncatedGzip cuts a gzip file at every 97th byte and in its trailer: each cut must be
// reported as truncated compressed data (ErrTruncated), never as a parse
// error on a line of the cut-off text.
func TestTruncatedGzip(t *testing.T) {
	full := gz(t, bigLIBSVM(3000))
	dir := t.TempDir()
	var cuts []int
	for cut := 2; cut < len(full); cut += 97 { // two bytes make the gzip magic
		cuts = append(cuts, cut)
	}
	// Inside the 8-byte trailer (CRC-32 and size) too.
	cuts = append(cuts, len(full)-8, len(full)-5, len(full)-1)
	for _, cut := range cuts {
		p := filepath.Join(dir, "cut.libsvm.gz")
		if err := os.WriteFile(p, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(p, ReadOptions{})
		if !errors.Is(err, ErrTruncated) || strings.Contains(err.Error(), "line") || !strings.Contains(err.Error(), p) {
			t.Fatalf("cut at %d of %d: err = %v, want ErrTruncated naming the file and no line", cut, len(full), err)
		}
		if _, _, err := ReadLIBSVMSparseFile(context.Background(), p, 0); !errors.Is(err, ErrTruncated) {
			t.Fatalf("sparse, cut at %d: err = %v, want ErrTruncated", cut, err)
		}
	}
}

// TestTruncatedBzip2 cuts testdata/small.libsvm.bz2 (its stream spans the
// whole file) at every 7th byte: ErrTruncated or, where the cut leaves a
// damaged block, a corrupt-data error; never a parse error on a line.
func TestTruncatedBzip2(t *testing.T) {
	full, err := os.ReadFile("testdata/small.libsvm.bz2")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for cut := 4; cut < len(full); cut += 7 {
		p := filepath.Join(dir, "cut.libsvm.bz2")
		if err := os.WriteFile(p, full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(p, ReadOptions{})
		if err == nil || strings.Contains(err.Error(), "line") || !(errors.Is(err, ErrTruncated) || strings.Contains(err.Error(), "corrupt bzip2 data")) {
			t.Fatalf("cut at %d of %d: err = %v, want a truncated or corrupt bzip2 stream", cut, len(full), err)
		}
	}
}

// TestBOMEverywhere: a UTF-8 byte order mark before LIBSVM or CSV data is
// skipped, whether the format is named, sniffed, or the data gzip'd.
func TestBOMEverywhere(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, text string }{
		{"a.libsvm", "\ufeff1 1:2 2:3\n-1 2:4\n"},
		{"a", "\ufeff1 1:2 2:3\n-1 2:4\n"},
		{"b.csv", "\ufeffx1,x2,y\n2,3,1\n0,4,-1\n"},
		{"b", "\ufeffx1,x2,y\n2,3,1\n0,4,-1\n"},
	} {
		for _, z := range []bool{false, true} {
			p := filepath.Join(dir, tc.name)
			b := []byte(tc.text)
			if z {
				p += ".gz"
				b = gz(t, b)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			d, err := ReadFile(p, ReadOptions{})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if d.Len() != 2 || d.X.At(0, 0) != 2 || d.X.At(1, 1) != 4 || d.Y[1] != -1 {
				t.Fatalf("%s: rows %d, X %v, y %v", p, d.Len(), d.X.RawMatrix().Data, d.Y)
			}
		}
	}
	if _, err := ReadLIBSVM(strings.NewReader("\ufeff1 1:2\n"), 0); err != nil {
		t.Fatalf("ReadLIBSVM with a BOM: %v", err)
	}
}

// TestHeaderGuess: the first line is a header only when none of its fields
// is a number; a first row with NA, ? or 1e400 is data, and fails naming
// line 1; every decision is told to Notify.
func TestHeaderGuess(t *testing.T) {
	for _, tc := range []struct {
		text, want, note string
		rows             int
	}{
		{"a,b,y\n1,2,3\n", "", "read as the header", 1},
		{"1,2,3\n4,5,6\n", "", "every field is a number", 2},
		{"NA,2,3\n4,5,6\n", `line 1: column 0: value "NA" is not a number (pandas' read_csv reads it as a missing value (NaN), and R writes NA for one; missing values are not supported: drop or impute those rows first) (read as data`, `not numbers: "NA"`, 0},
		{"1,?,3\n4,5,6\n", `line 1: column 1: value "?" is not a number`, "2 of 3 fields are numbers", 0},
		{"1e400,2,3\n4,5,6\n", `line 1: column 0: value "1e400" is out of range`, "every field is a number", 0},
	} {
		var notes []string
		d, err := Read(strings.NewReader(tc.text), ReadOptions{Format: CSV, Notify: func(s string) { notes = append(notes, s) }})
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrFormat) {
				t.Errorf("%q: err = %v, want %q", tc.text, err, tc.want)
			}
		} else if err != nil || d.Len() != tc.rows {
			t.Errorf("%q: err %v, rows %v, want %d", tc.text, err, d, tc.rows)
		}
		if len(notes) != 1 || !strings.Contains(notes[0], tc.note) {
			t.Errorf("%q: notes %q, want one with %q", tc.text, notes, tc.note)
		}
	}
	// Told the mode, the reader does not explain itself.
	var notes []string
	if _, err := Read(strings.NewReader("1,2,3\n"), ReadOptions{Format: CSV, Header: HeaderAbsent, Notify: func(s string) { notes = append(notes, s) }}); err != nil || notes != nil {
		t.Errorf("header no: err %v, notes %q", err, notes)
	}
}

// TestDetectFormatRefusesStreams: detecting a stream's format would eat
// the bytes looked at, so DetectFormat refuses unless the name decides.
func TestDetectFormatRefusesStreams(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "data")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if _, err := DetectFormat(fifo); !errors.Is(err, ErrInput) {
		t.Fatalf("err = %v, want ErrInput", err)
	}
	if f, err := DetectFormat(fifo + ".csv"); err != nil || f != CSV {
		t.Fatalf("named .csv: %q %v", f, err)
	}
}

// TestOpenInputDirectory: a directory is no data file (ErrInput); one
// holding a shard manifest (landmark data shard's OUTDIR) names the
// manifest to give instead.
func TestOpenInputDirectory(t *testing.T) {
	dir := t.TempDir()
	plain, shards := filepath.Join(dir, "plain"), filepath.Join(dir, "shards")
	for _, d := range []string{plain, shards} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shards, "manifest.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenInput(context.Background(), plain, Auto)
	if !errors.Is(err, ErrInput) || !strings.HasSuffix(err.Error(), plain+" is a directory, not a data file") {
		t.Errorf("plain directory: %v", err)
	}
	_, err = OpenInput(context.Background(), shards, Auto)
	if want := "it holds shards: give their manifest, " + filepath.Join(shards, "manifest.json"); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
		t.Errorf("directory of shards: %v, want %q", err, want)
	}
}

// TestBinaryFileRefused: the binary formats users bring instead of text
// (a spreadsheet, numpy, Parquet, Arrow, HDF5, MATLAB, a pickle, other
// compressions) are refused by name with how to write LIBSVM or CSV from
// them, gzip-compressed too, whatever --format says; before, their first
// bytes were read as a LIBSVM label ("label "PK\x03\x04…" is not a
// number"). Text that merely starts with a magic's letters (a CSV header
// "PAR1,PAR2,y") is read as text.
func TestBinaryFileRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ name, data, want string }{
		{"a.xlsx", "PK\x03\x04\x14\x00", "an Excel workbook, not text"},
		{"a.npz", "PK\x03\x04\x14\x00", "a numpy .npz archive"},
		{"a.zip", "PK\x03\x04\x14\x00", "a zip archive"},
		{"x.npy", "\x93NUMPY\x01\x00v\x00", "a numpy .npy array"},
		{"t.parquet", "PAR1\x15\x04\x15", "a Parquet file"},
		{"t.feather", "ARROW1\x00\x00\xff", "an Arrow or Feather file"},
		{"d.h5", "\x89HDF\r\n\x1a\n\x00", "an HDF5 file (or a MATLAB v7.3 .mat)"},
		{"d.mat", "MATLAB 5.0 MAT-file, Platform: GLNXA64", "a MATLAB .mat file"},
		{"m.pkl", "\x80\x04\x95\x10\x00", "a Python pickle (joblib)"},
		{"d.csv.xz", "\xfd7zXZ\x00\x00", "xz-compressed"},
		{"d.csv.zst", "\x28\xb5\x2f\xfd\x04", "zstd-compressed"},
		{"d.7z", "7z\xbc\xaf\x27\x1c\x00", "a 7-Zip archive"},
	} {
		for _, gz := range []bool{false, true} {
			data := []byte(c.data)
			if gz {
				var b bytes.Buffer
				w := gzip.NewWriter(&b)
				w.Write(data)
				w.Close()
				data = b.Bytes()
			}
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, f := range []Format{Auto, CSV} {
				_, err := ReadFile(p, ReadOptions{Format: f})
				if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "the data is "+c.want) || !strings.Contains(err.Error(), "Landmark reads LIBSVM and CSV") {
					t.Errorf("%s (gzip %v, format %q): %v, want ErrFormat naming %q", c.name, gz, f, err, c.want)
				}
			}
		}
	}
	d, err := Read(strings.NewReader("PAR1,PAR2,y\n1,2,3\n"), ReadOptions{Format: CSV})
	if err != nil || !slices.Equal(d.Features, []string{"PAR1", "PAR2"}) {
		t.Errorf("a CSV header naming PAR1: %v (features %v)", err, d.Features)
	}
}

// TestOpenInputURL: a URL given as data (pandas' read_csv fetches them)
// is no local file: the error says so and how to get it, instead of "no
// such file or directory"; other missing files keep the system's error.
func TestOpenInputURL(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"https://example.com/heart.csv", "download it first (curl -LO https://example.com/heart.csv)"},
		{"S3://bucket/x.csv", "copy it here first"},
	} {
		_, err := OpenInput(context.Background(), c.path, Auto)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.path+" is a URL: Landmark reads local files and standard input; "+c.want) {
			t.Errorf("%s: %v", c.path, err)
		}
	}
	_, err := OpenInput(context.Background(), filepath.Join(t.TempDir(), "absent.csv"), Auto)
	if !errors.Is(err, os.ErrNotExist) || errors.Is(err, ErrInput) {
		t.Errorf("a missing file: %v, want the not-exist error", err)
	}
}
