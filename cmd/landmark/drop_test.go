package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIDropPandasIndex: a CSV as pandas' df.to_csv writes it (an
// unnamed index column first) is refused by fit and by predict with the
// file, line 1 and --drop named; with --drop 0 fit and predict read it as
// the same file written with index=False: the predictions are the same
// bytes. Before, the index was fitted as a third feature without a word.
func TestCLIDropPandasIndex(t *testing.T) {
	dir := t.TempDir()
	var withIndex, plain strings.Builder
	withIndex.WriteString(",a,b,y\n")
	plain.WriteString("a,b,y\n")
	for i := range 40 {
		a, b := float64(i%7)/7, float64(i%5)/5
		row := fmt.Sprintf("%g,%g,%g\n", a, b, a-2*b)
		fmt.Fprintf(&withIndex, "%d,%s", i, row)
		plain.WriteString(row)
	}
	idx, pl := filepath.Join(dir, "idx.csv"), filepath.Join(dir, "plain.csv")
	for p, s := range map[string]string{idx: withIndex.String(), pl: plain.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fit := []string{"--gamma", "1", "--lambda", "1e-3", "--progress", "never"}
	const refusal = "idx.csv: line 1: header: column 0 has no name, as the index column pandas' to_csv writes (index=False leaves it out): drop it with --drop 0"
	if code, _, se := runCLI(append([]string{"fit", "--data", idx}, fit...)...); code != 1 || !strings.Contains(se, refusal) {
		t.Fatalf("fit without --drop: exit %d, stderr %q; want 1 and %q", code, se, refusal)
	}
	mIdx, mPlain := filepath.Join(dir, "idx.lmk"), filepath.Join(dir, "plain.lmk")
	if code, _, se := runCLI(append([]string{"fit", "--data", idx, "--drop", "0", "--save", mIdx}, fit...)...); code != 0 {
		t.Fatalf("fit --drop 0: exit %d: %s", code, se)
	}
	if code, _, se := runCLI(append([]string{"fit", "--data", pl, "--save", mPlain}, fit...)...); code != 0 {
		t.Fatalf("fit plain: exit %d: %s", code, se)
	}
	if code, _, se := runCLI("predict", "--model", mIdx, "--data", idx); code != 1 || !strings.Contains(se, refusal) {
		t.Fatalf("predict without --drop: exit %d, stderr %q; want 1 and %q", code, se, refusal)
	}
	code, got, se := runCLI("predict", "--model", mIdx, "--data", idx, "--drop", "0")
	if code != 0 {
		t.Fatalf("predict --drop 0: exit %d: %s", code, se)
	}
	code, want, se := runCLI("predict", "--model", mPlain, "--data", pl)
	if code != 0 {
		t.Fatalf("predict plain: exit %d: %s", code, se)
	}
	if got != want || strings.Count(got, "\n") != 40 {
		t.Errorf("predictions with --drop 0 differ from the file without the index:\n%s\nwant\n%s", got, want)
	}
}
