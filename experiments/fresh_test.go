package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoveOutputs: a fresh run removes the previous run's log, tables,
// summary, manifest and plots, and nothing else of the folder.
func TestRemoveOutputs(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{logName, "results.csv", "results.json", "summary.md", "manifest.json",
		"cv_rmse_vs_lambda.png", "cv_rmse_vs_lambda.svg", "nystrom_error_vs_m.png", "notes.txt", "figure.png"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeOutputs(dir); err != nil {
		t.Fatal(err)
	}
	es, _ := os.ReadDir(dir)
	var left []string
	for _, e := range es {
		left = append(left, e.Name())
	}
	if got := strings.Join(left, " "); got != "figure.png notes.txt" {
		t.Fatalf("left %s, want figure.png notes.txt", got)
	}
	// A folder that does not exist yet has nothing to remove.
	if err := removeOutputs(filepath.Join(dir, "new")); err != nil {
		t.Fatal(err)
	}
}
