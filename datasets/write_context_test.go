package datasets

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestWriteFileContextCancelled: a cancelled write fails with
// context.Canceled and leaves neither the file nor a temporary file (before,
// WriteFile could not be stopped: landmark data convert ignored Ctrl-C once
// the input was read and wrote the whole output).
func TestWriteFileContextCancelled(t *testing.T) {
	d := &Dataset{X: mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6}), Y: []float64{1, -1, 1}}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, name := range []string{"out.csv", "out.libsvm", "out.csv.gz"} {
		dir := t.TempDir()
		err := WriteFileContext(ctx, filepath.Join(dir, name), d, WriteOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err %v, want context.Canceled", name, err)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: the folder holds %d entries after a cancelled write (first %q), want none", name, len(ents), ents[0].Name())
		}
	}
	// Not cancelled: the same bytes as WriteCSV.
	p := filepath.Join(t.TempDir(), "ok.csv")
	if err := WriteFileContext(context.Background(), p, d, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	var want bytes.Buffer
	if err := WriteCSV(&want, d, 0); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("file %q, WriteCSV %q", got, want.Bytes())
	}
}

// TestContextWriter: writes pass through until ctx is done, then fail with
// ctx.Err() and write nothing.
func TestContextWriter(t *testing.T) {
	var b bytes.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	w := ContextWriter(ctx, &b)
	if n, err := w.Write([]byte("abc")); n != 3 || err != nil {
		t.Fatalf("write before cancel: %d, %v", n, err)
	}
	cancel()
	if n, err := w.Write([]byte("def")); n != 0 || !errors.Is(err, context.Canceled) {
		t.Fatalf("write after cancel: %d, %v; want 0, context.Canceled", n, err)
	}
	if b.String() != "abc" {
		t.Errorf("buffer %q, want %q", b.String(), "abc")
	}
}

// laterCtx is a context that turns cancelled at its Err call number at
// (counting from 1): a cancellation in the middle of a write, deterministic.
type laterCtx struct {
	context.Context
	calls, at int
}

func (c *laterCtx) Err() error {
	c.calls++
	if c.calls >= c.at {
		return context.Canceled
	}
	return nil
}

// TestWriteFileContextMidWrite: cancelled after the write has begun (the
// third ctx check: the one before the write, then the first buffered
// write passes), the write stops with context.Canceled, and the temporary
// file is removed. 5,000 rows make several 64 KiB LIBSVM and 4 KiB CSV
// buffers, so the writer is called more than twice.
func TestWriteFileContextMidWrite(t *testing.T) {
	n := 5000
	x := mat.NewDense(n, 4, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range 4 {
			x.Set(i, j, float64(i*4+j)+0.123456789)
		}
		y[i] = float64(i % 2)
	}
	d := &Dataset{X: x, Y: y}
	for _, name := range []string{"out.csv", "out.libsvm"} {
		dir := t.TempDir()
		ctx := &laterCtx{Context: context.Background(), at: 3}
		err := WriteFileContext(ctx, filepath.Join(dir, name), d, WriteOptions{})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: err %v, want context.Canceled", name, err)
		}
		if ctx.calls < 3 {
			t.Fatalf("%s: ctx checked %d times, want the cancellation reached mid-write", name, ctx.calls)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%s: the folder holds %d entries after a cancelled write (first %q), want none", name, len(ents), ents[0].Name())
		}
	}
}
