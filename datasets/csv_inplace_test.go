package datasets

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestReadCSVFileInPlace: a CSV file (uncompressed, regular) is read into
// an X allocated once, at the size its line count bounds, where a stream
// of the same bytes is read into chunks and copied into X at the end. The
// two give the same values; the file's X has at most two rows of spare
// room (the header line and the final newline are counted as lines); and
// the file read allocates at least 0.6·|X| less than the stream read, the
// copy it saves (|X| = 8 MB here: 20,000 rows × 50 features; the stream
// read allocates the chunks and X, the file read X alone, both the same
// line strings and targets). TotalAlloc counts every allocation, whatever
// the garbage collector does, so the difference is not timing-dependent.
func TestReadCSVFileInPlace(t *testing.T) {
	const n, d = 20000, 50
	var b bytes.Buffer
	for j := range d {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("y\n")
	for i := range n {
		for j := range d {
			fmt.Fprintf(&b, "%d,", (i+j)%10)
		}
		fmt.Fprintf(&b, "%d\n", i%2)
	}
	path := filepath.Join(t.TempDir(), "x.csv")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	alloc := func(read func() (*Dataset, error)) (*Dataset, uint64) {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		ds, err := read()
		runtime.ReadMemStats(&m1)
		if err != nil {
			t.Fatal(err)
		}
		return ds, m1.TotalAlloc - m0.TotalAlloc
	}
	file, fileAlloc := alloc(func() (*Dataset, error) { return ReadFile(path, ReadOptions{}) })
	stream, streamAlloc := alloc(func() (*Dataset, error) { return ReadCSV(bytes.NewReader(b.Bytes()), ReadOptions{}) })
	if r, c := file.X.Dims(); r != n || c != d || len(file.Y) != n {
		t.Fatalf("file: X %d×%d, %d targets", r, c, len(file.Y))
	}
	for i := range n {
		for j := range d {
			if file.X.At(i, j) != stream.X.At(i, j) || file.X.At(i, j) != float64((i+j)%10) {
				t.Fatalf("X[%d][%d] = %v, stream %v", i, j, file.X.At(i, j), stream.X.At(i, j))
			}
		}
		if file.Y[i] != stream.Y[i] {
			t.Fatalf("y[%d] = %v, stream %v", i, file.Y[i], stream.Y[i])
		}
	}
	raw := file.X.RawMatrix().Data
	if spare := cap(raw) - len(raw); spare > 2*d {
		t.Errorf("file X has %d values of spare room, want at most two rows (%d)", spare, 2*d)
	}
	const x = n * d * 8
	t.Logf("allocated: file read %.1f MB, stream read %.1f MB (X %.1f MB)", float64(fileAlloc)/1e6, float64(streamAlloc)/1e6, float64(x)/1e6)
	if float64(streamAlloc)-float64(fileAlloc) < 0.6*x {
		t.Errorf("the file read allocated %d bytes, the stream read %d: want at least 0.6·|X| = %.0f fewer", fileAlloc, streamAlloc, 0.6*x)
	}
}
