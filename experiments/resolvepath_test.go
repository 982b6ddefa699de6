package experiments

import (
	"os"
	"path/filepath"
	"testing"
)

// TestResolvePathHome: a data path "~/f.csv" in a spec is the file in the
// home folder, as the shell and pandas' read_csv take it (YAML has no
// shell to expand it); "~" elsewhere in a path is a letter.
func TestResolvePathHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.WriteFile(filepath.Join(home, "f.csv"), []byte("a,y\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := resolvePath(t.TempDir(), "~/f.csv")
	if err != nil || got != filepath.Join(home, "f.csv") {
		t.Errorf("~/f.csv: %q, %v; want %q", got, err, filepath.Join(home, "f.csv"))
	}
	if _, err := resolvePath(t.TempDir(), "a~/f.csv"); err == nil {
		t.Error("a~/f.csv found: ~ inside a path is not the home folder")
	}
}
