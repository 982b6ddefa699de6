package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFitSaveMissingFolder: fit --save into a folder that does not exist is
// refused before the fit, as every other output is (outfile.Check), naming
// the folder; it made the folder (and its parents) after the fit.
func TestFitSaveMissingFolder(t *testing.T) {
	dir := t.TempDir()
	code, so, se := lm(t, dir, "fit", "--dataset", "heart_scale", "--gamma", "0.1", "--progress", "never", "--save", "nodir/sub/h.lmk")
	const want = "landmark fit: --save: invalid input: output refused: nodir/sub/h.lmk: the folder nodir/sub does not exist\n"
	if code != 1 || se != want || so != "" {
		t.Errorf("exit %d, stderr %q, stdout %q; want exit 1, stderr %q and no fit", code, se, so, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "nodir")); !os.IsNotExist(err) {
		t.Errorf("nodir: %v, want it not made", err)
	}
}
