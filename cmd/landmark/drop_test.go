package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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
	const refusal = "idx.csv: line 1: header: column 0 has no name, as the index column pandas' to_csv writes (index=False leaves it out) and the row names of R's write.csv (row.names = FALSE leaves them out): drop it with --drop 0"
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

// TestCLILayoutSaved: a model keeps how fit took the columns of a CSV
// without a header, and predict without --drop or --target takes a file's
// columns the same way. Column 0 dropped: the same columns predict as with
// --drop 0; the rows without their target (by position those read the row
// number and a as the features and b as the target, and were predicted
// without a word) are refused naming both widths, since a file one column
// narrower could as well lack column 0, and predict with --drop 0; the
// features alone (a, b) predict as they are. The
// label first (--target 0, as the
// headerless MNIST CSVs have it): the same columns predict as with
// --target 0 (by position the last feature was read as the target and the
// label as a feature), and so do the rows without their label. A file of
// another width is refused naming both widths, the exit status 1 and
// nothing written.
func TestCLILayoutSaved(t *testing.T) {
	dir := t.TempDir()
	var train, withY, noY, first, firstTest, ab strings.Builder
	for i := range 40 {
		a, b := float64(i%7)/7, float64(i%5)/5
		fmt.Fprintf(&train, "%d,%g,%g,%g\n", i, a, b, a-2*b)
		fmt.Fprintf(&first, "%g,%g,%g\n", a-2*b, a, b)
		if i < 12 {
			fmt.Fprintf(&withY, "%d,%g,%g,%g\n", 500+i, a, b, a-2*b)
			fmt.Fprintf(&noY, "%d,%g,%g\n", 500+i, a, b)
			fmt.Fprintf(&firstTest, "%g,%g,%g\n", a-2*b, a, b)
			fmt.Fprintf(&ab, "%g,%g\n", a, b)
		}
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	for name, s := range map[string]string{"tr.csv": train.String(), "withy.csv": withY.String(), "noy.csv": noY.String(),
		"first.csv": first.String(), "firsttest.csv": firstTest.String(), "ab.csv": ab.String()} {
		if err := os.WriteFile(path(name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fit := func(data, model string, args ...string) {
		t.Helper()
		if code, _, se := runCLI(append([]string{"fit", "--data", path(data), "--header", "no", "--gamma", "1", "--lambda", "1e-3", "--progress", "never", "--save", path(model)}, args...)...); code != 0 {
			t.Fatalf("fit %v: exit %d: %s", args, code, se)
		}
	}
	pred := func(model, data string, args ...string) (int, string, string) {
		return runCLI(append([]string{"predict", "--model", path(model), "--data", path(data), "--header", "no", "--progress", "never"}, args...)...)
	}
	check := func(model, data string, want string, args ...string) {
		t.Helper()
		if code, got, se := pred(model, data, args...); code != 0 || got != want {
			t.Errorf("predict %s %v: exit %d (%s), predictions\n%s\nwant\n%s", data, args, code, se, got, want)
		}
	}
	fit("tr.csv", "drop.lmk", "--drop", "0")
	code, want, se := pred("drop.lmk", "withy.csv", "--drop", "0")
	if code != 0 || strings.Count(want, "\n") != 12 {
		t.Fatalf("predict --drop 0: exit %d, %d lines: %s", code, strings.Count(want, "\n"), se)
	}
	check("drop.lmk", "withy.csv", want)
	if code, got, se := pred("drop.lmk", "noy.csv"); code != 1 || got != "" || !strings.Contains(se, "noy.csv: line 1: 3 columns, where the model's training file had 4 (the target in column 3, column(s) 0 dropped) and 2 features: give this file's --drop and --target (narrower, it may lack its target or a dropped column)") {
		t.Errorf("dropped column, no target: exit %d, stdout %q, stderr %q; want 1, nothing, the widths", code, got, se)
	}
	check("drop.lmk", "noy.csv", want, "--drop", "0")
	check("drop.lmk", "ab.csv", want)
	fit("first.csv", "first.lmk", "--target", "0")
	code, wantFirst, se := pred("first.lmk", "firsttest.csv", "--target", "0")
	if code != 0 || strings.Count(wantFirst, "\n") != 12 || wantFirst != want {
		t.Fatalf("label first, predict --target 0: exit %d (%s): predictions\n%s\nwant those of the same rows with column 0 dropped\n%s", code, se, wantFirst, want)
	}
	check("first.lmk", "firsttest.csv", want)
	check("first.lmk", "ab.csv", want)
	if code, got, se := pred("first.lmk", "withy.csv"); code != 1 || got != "" || !strings.Contains(se, "withy.csv: line 1: 4 columns, where the model's training file had 3 (the target in column 0) and 2 features: give this file's --drop and --target (YAML") {
		t.Errorf("label first, 4 columns: exit %d, stdout %q, stderr %q; want 1, nothing, the widths", code, got, se)
	}
}

// TestCLIShardKeepsColumns: data shard keeps how it read a CSV's columns
// (the features' and target's names, the dropped columns, the target's
// position), so that a model fitted on the shards predicts files as the
// model fitted on the CSV does, byte for byte: with a header (id dropped
// by name, the label second), and without one (column 0 dropped, the
// label first: by position the label was read as a feature and the last
// feature as the target, without a word). Before, the first was refused
// ("missing feature column(s) x1…"), the second predicted wrongly; now a
// headerless file without its label but with the index (one column
// narrower after a drop) is refused naming the widths, as for the CSV
// model. data info prints the names and the layout the manifest keeps.
func TestCLIShardKeepsColumns(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	var named, plain, noLabel strings.Builder
	named.WriteString("id,y,a,b\n")
	for i := range 40 {
		a, b := float64(i%7)/7, float64(i%5)/5
		fmt.Fprintf(&named, "%d,%g,%g,%g\n", 700+i, a-2*b, a, b)
		fmt.Fprintf(&plain, "%d,%g,%g,%g\n", 700+i, a-2*b, a, b)
		fmt.Fprintf(&noLabel, "%d,%g,%g\n", 700+i, a, b)
	}
	for name, s := range map[string]string{"named.csv": named.String(), "plain.csv": plain.String(), "nolabel.csv": noLabel.String()} {
		if err := os.WriteFile(path(name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fitArgs := []string{"--gamma", "1", "--lambda", "1e-3", "--progress", "never"}
	for _, c := range []struct {
		file                    string
		read                    []string
		source, target, feature string // data info's lines, spaces collapsed
	}{
		{"named.csv", []string{"--drop", "id", "--target", "y"}, `source: a CSV of 4 columns with a header: target column 1, dropped 0 "id" (columns from 0)`, `target "y": mean`, "\n2 b "},
		{"plain.csv", []string{"--header", "no", "--drop", "0", "--target", "0"}, "source: a CSV of 4 columns without a header: target column 1, dropped 0 (columns from 0)", "target y: mean", "\n2 x2 "},
	} {
		sd := path("shards-" + c.file)
		if _, se, err := runDataArgs(append([]string{"shard", path(c.file), sd, "--rows", "15", "--progress", "never"}, c.read...)...); err != nil {
			t.Fatalf("%s: data shard: %v (%s)", c.file, err, se)
		}
		info, _, err := runDataArgs("info", filepath.Join(sd, "manifest.json"))
		flat := regexp.MustCompile(` +`).ReplaceAllString(info, " ") // tabwriter's padding
		if err != nil || !strings.Contains(flat, c.source) || !strings.Contains(flat, c.target) || !strings.Contains(flat, c.feature) {
			t.Errorf("%s: data info: %v\n%s\nwant %q, %q, %q", c.file, err, info, c.source, c.target, c.feature)
		}
		fileModel, shardModel := path(c.file+".lmk"), path(c.file+".shards.lmk")
		if code, _, se := runCLI(append(append([]string{"fit", "--data", path(c.file), "--save", fileModel}, c.read...), fitArgs...)...); code != 0 {
			t.Fatalf("%s: fit the file: exit %d: %s", c.file, code, se)
		}
		if code, _, se := runCLI(append([]string{"fit", "--data", filepath.Join(sd, "manifest.json"), "--save", shardModel}, fitArgs...)...); code != 0 {
			t.Fatalf("%s: fit the shards: exit %d: %s", c.file, code, se)
		}
		code, want, se := runCLI("predict", "--model", fileModel, "--data", path(c.file), "--progress", "never")
		if code != 0 || strings.Count(want, "\n") != 40 {
			t.Fatalf("%s: predict with the file's model: exit %d, %d lines: %s", c.file, code, strings.Count(want, "\n"), se)
		}
		if code, got, se := runCLI("predict", "--model", shardModel, "--data", path(c.file), "--progress", "never"); code != 0 || got != want {
			t.Errorf("%s: predict with the shards' model: exit %d (%s), predictions\n%s\nwant the file model's\n%s", c.file, code, se, got, want)
		}
	}
	code, got, se := runCLI("predict", "--model", path("plain.csv.shards.lmk"), "--data", path("nolabel.csv"), "--progress", "never")
	if code != 1 || got != "" || !strings.Contains(se, "nolabel.csv: line 1: 3 columns, where the model's training file had 4 (the target in column 1, column(s) 0 dropped) and 2 features") {
		t.Errorf("shards' model, the rows without their label: exit %d, stdout %q, stderr %q; want 1, nothing, the widths", code, got, se)
	}
}
