package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestReadProgressBytes: ProgressBytes is called where Progress is, with the
// rows, the bytes of the file consumed so far (non-decreasing, short of the
// size at the first batch of a file much larger than the read buffers, the
// whole file at the end) and the file's size; for a gzip file the bytes and
// size are compressed bytes; for Read on a stream the size is unknown (0).
func TestReadProgressBytes(t *testing.T) {
	// 70,000 rows of 5 long values (≈ 8 MB): one batch of ProgressRows and
	// the end.
	var buf bytes.Buffer
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 70000 {
		fmt.Fprintf(&buf, "%d", i%2)
		for j := 1; j <= 5; j++ {
			fmt.Fprintf(&buf, " %d:%.17g", j, r.Float64())
		}
		buf.WriteByte('\n')
	}
	dir := t.TempDir()
	plain := filepath.Join(dir, "big.libsvm")
	if err := os.WriteFile(plain, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var rows []int
	var got []ReadProgress
	opt := ReadOptions{Progress: func(n int) { rows = append(rows, n) }, ProgressBytes: func(p ReadProgress) { got = append(got, p) }}
	d, err := ReadFileContext(context.Background(), plain, opt)
	if err != nil || d.Len() != 70000 {
		t.Fatalf("read: %v", err)
	}
	size := int64(buf.Len())
	if !slices.Equal(rows, []int{ProgressRows, 70000}) || len(got) != 2 {
		t.Fatalf("Progress calls %v, ProgressBytes calls %v", rows, got)
	}
	if got[0].Rows != ProgressRows || got[0].Size != size || got[0].Bytes <= 0 || got[0].Bytes >= size {
		t.Errorf("first batch %+v: want %d rows, 0 < bytes < size %d", got[0], ProgressRows, size)
	}
	if got[1] != (ReadProgress{Rows: 70000, Bytes: size, Size: size}) {
		t.Errorf("last call %+v: want all %d bytes of the file", got[1], size)
	}

	// Compressed: the bytes are the file's (compressed) bytes.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(buf.Bytes()[:bytes.IndexByte(buf.Bytes()[100000:], '\n')+100001])
	zw.Close()
	comp := filepath.Join(dir, "small.libsvm.gz")
	if err := os.WriteFile(comp, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got = nil
	if _, err := ReadFile(comp, ReadOptions{ProgressBytes: func(p ReadProgress) { got = append(got, p) }}); err != nil {
		t.Fatal(err)
	}
	if n := int64(gz.Len()); len(got) != 1 || got[0].Bytes != n || got[0].Size != n {
		t.Errorf("gzip file of %d bytes: calls %+v", n, got)
	}

	// A stream: the bytes read, size unknown.
	got = nil
	if _, err := Read(bytes.NewReader(gz.Bytes()), ReadOptions{Format: LIBSVM, ProgressBytes: func(p ReadProgress) { got = append(got, p) }}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Bytes != int64(gz.Len()) || got[0].Size != 0 {
		t.Errorf("stream: calls %+v, want %d bytes and size 0", got, gz.Len())
	}
}
