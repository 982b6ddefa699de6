package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShardOutDirIsFile: data shard and data synth higgs refuse an OUTDIR
// that is a file before reading or drawing anything, and leave it as it
// was; before, data shard read the whole input and then failed with
// "IN: shard: mkdir OUTDIR: not a directory", naming the input.
func TestShardOutDirIsFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "m.lmk"), []byte("model"), 0o644); err != nil {
		t.Fatal(err)
	}
	const want = "landmark data: invalid input: output refused: m.lmk exists and is not a folder (OUTDIR is the folder the shards and manifest.json go in)\n"
	for _, args := range [][]string{
		{"data", "shard", "heart_scale", "m.lmk", "--rows", "100"},
		{"data", "synth", "higgs", "m.lmk", "--rows", "10", "--shard-rows", "5"},
	} {
		code, so, se := lm(t, dir, args...)
		if code != 1 || se != want || so != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 1 and %q alone", args, code, se, so, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "m.lmk")); string(b) != "model" {
		t.Errorf("m.lmk now holds %q", b)
	}
}
