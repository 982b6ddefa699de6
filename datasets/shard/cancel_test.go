package shard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestWriteDirContextCancel: a cancelled context stops WriteDirContext
// between shards with an error wrapping context.Canceled (landmark data
// shard's Ctrl-C, exit status 130), and leaves no output: the shards
// written so far are removed, no manifest is written, and a folder the
// call created is removed. Before, data shard ignored Ctrl-C while writing
// and finished the set. An existing folder and its other files stay; a
// live context writes all 4 shards and the manifest.
func TestWriteDirContextCancel(t *testing.T) {
	x := mat.NewDense(7, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
	y := []float64{1, 2, 1, 2, 1, 2, 1}
	for _, existing := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "set")
		keep := filepath.Join(dir, "notes.txt")
		if existing {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		written := 0
		_, err := WriteDirContext(ctx, dir, x, y, Options{Rows: 2, Progress: func(done, total int) {
			written = done
			if done == 2 {
				cancel() // after the second of 4 shards
			}
		}})
		cancel()
		if !errors.Is(err, context.Canceled) || written != 2 {
			t.Fatalf("existing folder %v: err %v after %d shards; want context.Canceled after 2", existing, err, written)
		}
		entries, _ := os.ReadDir(dir)
		switch {
		case existing && (len(entries) != 1 || entries[0].Name() != "notes.txt"):
			t.Fatalf("cancelled in an existing folder: it holds %v, want only notes.txt", entries)
		case !existing:
			if _, serr := os.Stat(dir); !os.IsNotExist(serr) {
				t.Fatalf("cancelled: the folder it created is left (%d entries, %v)", len(entries), serr)
			}
		}
	}
	dir := filepath.Join(t.TempDir(), "set")
	m, err := WriteDirContext(context.Background(), dir, x, y, Options{Rows: 2})
	if err != nil || len(m.Shards) != 4 {
		t.Fatalf("live context: %v, manifest %+v", err, m)
	}
	if _, err := os.Stat(filepath.Join(dir, ManifestName)); err != nil {
		t.Fatal(err)
	}
}

// TestWriteDirReplacesSet: a set written where one already is replaces it:
// 7 rows in shards of 1 (7 shards), then in shards of 3 (3 shards) leave
// the manifest, the 3 new shards and notes.txt, the new set reading back
// whole; before, the old set's shards 3 to 6 stayed beside it. Stopped
// after its first shard over the 7-shard set, a new set leaves neither
// set: no manifest (before, the old manifest stayed, naming 7 shards of 1
// row of which the first now held 3 rows) and no shard, notes.txt kept.
func TestWriteDirReplacesSet(t *testing.T) {
	x := mat.NewDense(7, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14})
	y := []float64{1, 2, 1, 2, 1, 2, 1}
	dir := filepath.Join(t.TempDir(), "set")
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var s []string
		for _, e := range entries {
			s = append(s, e.Name())
		}
		return s
	}
	if _, err := WriteDirWith(dir, x, y, Options{Rows: 1}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDirWith(dir, x, y, Options{Rows: 3}); err != nil {
		t.Fatal(err)
	}
	want := []string{ManifestName, "notes.txt", "shard-00000.lmks", "shard-00001.lmks", "shard-00002.lmks"}
	if got := names(); !slices.Equal(got, want) {
		t.Fatalf("after replacing 7 shards by 3: %v, want %v", got, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(b)
	if err != nil || len(m.Shards) != 3 || m.N != 7 {
		t.Fatalf("manifest %+v, %v", m, err)
	}
	for _, e := range m.Shards {
		f, err := os.Open(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		xs, _, err := Read(f, e.Rows, 2)
		f.Close()
		if err != nil || xs.At(0, 0) != x.At(e.FirstRow, 0) {
			t.Fatalf("%s: %v", e.File, err)
		}
	}
	if _, err := WriteDirWith(dir, x, y, Options{Rows: 1}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	_, err = WriteDirContext(ctx, dir, x, y, Options{Rows: 3, Progress: func(done, _ int) { cancel() }})
	cancel()
	if got := names(); !errors.Is(err, context.Canceled) || !slices.Equal(got, []string{"notes.txt"}) {
		t.Fatalf("stopped over a set: err %v, folder %v; want context.Canceled, [notes.txt]", err, got)
	}
}

// TestWriteDirFailureLeavesNothing: a shard that cannot be written (its
// name is taken by a folder) fails WriteDirWith and leaves no output, as a
// cancellation does: the shard written before it is removed, no manifest
// (before, shard-00000.lmks stayed).
func TestWriteDirFailureLeavesNothing(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	y := []float64{1, 2, 1, 2}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "shard-00001.lmks"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := WriteDirWith(dir, x, y, Options{Rows: 2})
	entries, _ := os.ReadDir(dir)
	if err == nil || len(entries) != 1 || entries[0].Name() != "shard-00001.lmks" {
		t.Fatalf("err %v, folder %v; want an error and only the blocking folder", err, entries)
	}
}

// TestWriteDirKeepsOtherManifest: a folder whose manifest.json is not a
// shard set's (landmark run writes one in its output folder) is refused
// with ErrInput and the file stays as it was, no shard written; before,
// the set's manifest replaced it.
func TestWriteDirKeepsOtherManifest(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ManifestName)
	if err := os.WriteFile(p, []byte(`{"name": "a run"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(2, 1, []float64{1, 2})
	_, err := WriteDirWith(dir, x, []float64{1, 2}, Options{Rows: 1})
	b, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if !errors.Is(err, ErrInput) || string(b) != `{"name": "a run"}` || len(entries) != 1 {
		t.Fatalf("err %v, manifest.json %q, %d files; want ErrInput, the file kept, nothing written", err, b, len(entries))
	}
}

// TestWriteDirOneClassKeepsSet: a classification write whose y holds one
// class is refused (ErrInput) before the folder is touched: a set already
// there stays whole, and a missing folder is not made. Before, the check
// came after the old set's manifest was removed and the folder made, so
// the refusal left the old set without its manifest (and an empty folder).
func TestWriteDirOneClassKeepsSet(t *testing.T) {
	x := mat.NewDense(4, 1, []float64{1, 2, 3, 4})
	dir := filepath.Join(t.TempDir(), "set")
	old, err := WriteDir(dir, x, []float64{1, 2, 1, 2}, 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteDir(dir, x, []float64{1, 1, 1, 1}, 2, true); !errors.Is(err, ErrInput) {
		t.Fatalf("one class: err %v, want ErrInput", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatalf("the old set's manifest is gone: %v", err)
	}
	m, err := ParseManifest(b)
	if err != nil || len(m.Shards) != len(old.Shards) {
		t.Fatalf("the old manifest reads %v, %v; want its %d shards", m, err, len(old.Shards))
	}
	for _, e := range m.Shards {
		if _, err := os.Stat(filepath.Join(dir, e.File)); err != nil {
			t.Errorf("old shard: %v", err)
		}
	}
	fresh := filepath.Join(t.TempDir(), "fresh")
	if _, err := WriteDir(fresh, x, []float64{1, 1, 1, 1}, 2, true); !errors.Is(err, ErrInput) {
		t.Fatalf("one class, new folder: err %v, want ErrInput", err)
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("one class: the folder was made (%v)", err)
	}
}
