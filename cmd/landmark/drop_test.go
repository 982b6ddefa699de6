package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIDropPandasIndex: a CSV as pandas' df.to_csv writes it (an
// unnamed index column first) is refused by fit with the file, line 1 and
// --drop named; with --drop 0 fit reads it as the same file written with
// index=False, and predict, with --drop 0 or without (the model keeps the
// drop: the unnamed column by its name), gives the same bytes as the plain
// model on the plain file; --drop= (none) is refused as fit was. Before,
// the index was fitted as a third feature without a word.
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
	if code, _, se := runCLI("predict", "--model", mIdx, "--data", idx, "--drop="); code != 1 || !strings.Contains(se, refusal) {
		t.Fatalf("predict --drop=: exit %d, stderr %q; want 1 and %q", code, se, refusal)
	}
	code, want, se := runCLI("predict", "--model", mPlain, "--data", pl)
	if code != 0 {
		t.Fatalf("predict plain: exit %d: %s", code, se)
	}
	for _, args := range [][]string{{"--drop", "0"}, nil} {
		code, got, se := runCLI(append([]string{"predict", "--model", mIdx, "--data", idx}, args...)...)
		if code != 0 {
			t.Fatalf("predict %v: exit %d: %s", args, code, se)
		}
		if got != want || strings.Count(got, "\n") != 40 {
			t.Errorf("predictions with %v differ from the file without the index:\n%s\nwant\n%s", args, got, want)
		}
	}
}

// TestCLIDropSaved: a model fitted on a CSV without a header, its column 0
// dropped, predicts a file of the same columns without --drop as with
// --drop 0 (the model keeps the drop), and refuses the same rows without
// their target (3 columns), naming both widths and --drop: taken by
// position those read the row number and a as the two features and b as
// the target, and predicted without a word (the numbers of a model fitted
// on a and b, from the row number and a). With --drop 0 that file gives
// the predictions of the file with targets.
func TestCLIDropSaved(t *testing.T) {
	dir := t.TempDir()
	var train, withY, noY strings.Builder
	for i := range 40 {
		a, b := float64(i%7)/7, float64(i%5)/5
		fmt.Fprintf(&train, "%d,%g,%g,%g\n", i, a, b, a-2*b)
		if i < 12 {
			fmt.Fprintf(&withY, "%d,%g,%g,%g\n", 500+i, a, b, a-2*b)
			fmt.Fprintf(&noY, "%d,%g,%g\n", 500+i, a, b)
		}
	}
	tr, wy, ny, m := filepath.Join(dir, "tr.csv"), filepath.Join(dir, "withy.csv"), filepath.Join(dir, "noy.csv"), filepath.Join(dir, "m.lmk")
	for p, s := range map[string]string{tr: train.String(), wy: withY.String(), ny: noY.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, se := runCLI("fit", "--data", tr, "--header", "no", "--drop", "0", "--gamma", "1", "--lambda", "1e-3", "--progress", "never", "--save", m); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se)
	}
	pred := func(data string, args ...string) (int, string, string) {
		return runCLI(append([]string{"predict", "--model", m, "--data", data, "--header", "no", "--progress", "never"}, args...)...)
	}
	code, want, se := pred(wy, "--drop", "0")
	if code != 0 || strings.Count(want, "\n") != 12 {
		t.Fatalf("predict --drop 0: exit %d, %d lines: %s", code, strings.Count(want, "\n"), se)
	}
	if code, got, se := pred(wy); code != 0 || got != want {
		t.Errorf("predict without --drop: exit %d (%s), predictions\n%s\nwant\n%s", code, se, got, want)
	}
	const refusal = "noy.csv: line 1: 3 columns, where the model's training file had 4 and dropped column(s) 0 of them: give the columns to drop from this file (--drop"
	if code, got, se := pred(ny); code != 1 || got != "" || !strings.Contains(se, refusal) {
		t.Errorf("predict, no target, without --drop: exit %d, stdout %q, stderr %q; want 1, nothing, %q", code, got, se, refusal)
	}
	if code, got, se := pred(ny, "--drop", "0"); code != 0 || got != want {
		t.Errorf("predict, no target, --drop 0: exit %d (%s), predictions\n%s\nwant\n%s", code, se, got, want)
	}
}
