package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lm runs landmark in process in dir (t.Chdir: the test must not be
// parallel) and returns its exit code, stdout and stderr.
func lm(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	t.Chdir(dir)
	var so, se bytes.Buffer
	code := dispatch(context.Background(), args, &so, &se)
	return code, so.String(), se.String()
}

// firstLine returns the first line of s that starts with prefix, without
// its newline.
func firstLine(s, prefix string) string {
	for l := range strings.Lines(s) {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimSuffix(l, "\n")
		}
	}
	return ""
}

// TestAUCOneClass: scoring labels of one class (or of more than two) prints
// the AUC as undefined, with the reason, where it printed "auc NaN"; the
// command still succeeds and prints the other metrics. heart_scale's 120
// rows labelled 1 are the one-class file; its first 150 rows with -1
// relabelled 2 hold two classes the model never saw plus none it did
// (auc defined), and the 270 rows with the first -1 relabelled 2 hold
// three.
func TestAUCOneClass(t *testing.T) {
	dir := t.TempDir()
	if code, _, se := lm(t, dir, "data", "convert", "heart_scale", "heart.libsvm", "--progress", "never"); code != 0 {
		t.Fatal(se)
	}
	b, err := os.ReadFile(filepath.Join(dir, "heart.libsvm"))
	if err != nil {
		t.Fatal(err)
	}
	var pos, three []string
	relabelled := false
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(l, "1 ") {
			pos = append(pos, l)
		}
		if !relabelled && strings.HasPrefix(l, "-1 ") {
			l, relabelled = "2"+l[2:], true
		}
		three = append(three, l)
	}
	if len(pos) != 120 {
		t.Fatalf("%d rows labelled 1, want heart_scale's 120", len(pos))
	}
	writeFile := func(name string, lines []string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("pos.libsvm", pos)
	writeFile("three.libsvm", three)
	fit := []string{"fit", "--data", "heart.libsvm", "--gamma", "0.1", "--progress", "never"}
	if code, _, se := lm(t, dir, append(fit, "--save", "heart.lmk")...); code != 0 {
		t.Fatal(se)
	}
	const one = "auc undefined (only one class in the labels, 1; ROC AUC needs two)"
	const notTwo = "auc undefined (the labels are not two classes; ROC AUC needs exactly two)"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"predict", []string{"predict", "--model", "heart.lmk", "--data", "pos.libsvm", "--out", "p.txt"}, one},
		{"predict three", []string{"predict", "--model", "heart.lmk", "--data", "three.libsvm", "--out", "p.txt"}, "auc undefined (the labels hold 3 classes; ROC AUC needs exactly two)"},
		{"fit --test-data", append(fit, "--test-data", "pos.libsvm"), notTwo},
	} {
		code, so, se := lm(t, dir, append(c.args, "--progress", "never")...)
		line := firstLine(so+se, "test (")
		if c.args[0] == "predict" {
			line = firstLine(se, "120 rows;") + firstLine(se, "270 rows;")
		}
		if code != 0 || !strings.Contains(line, c.want) || strings.Contains(line, "NaN") || !strings.Contains(line, "accuracy ") || !strings.Contains(line, ", f1 ") {
			t.Errorf("%s: exit %d, want %q beside the other metrics; got\nstdout %s\nstderr %s", c.name, code, c.want, so, se)
		}
	}

	// predict shard by shard (over --memory) scores the same way.
	if code, _, se := lm(t, dir, "data", "shard", "pos.libsvm", "shards", "--rows", "50", "--progress", "never"); code != 0 {
		t.Fatal(se)
	}
	code, _, se := lm(t, dir, "predict", "--model", "heart.lmk", "--data", "shards/manifest.json", "--memory", "1K", "--out", "p.txt", "--progress", "never")
	if line := firstLine(se, "120 rows;"); code != 0 || !strings.Contains(line, one) || strings.Contains(line, "NaN") {
		t.Errorf("predict shard by shard: exit %d, want %q; stderr\n%s", code, one, se)
	}

	// run's test line.
	spec := "name: onecls\ntask: binary\ndataset: {path: heart.libsvm, test_path: pos.libsvm}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.01}\ncv: {folds: 2, metric: accuracy}\nseed: 1\noutput: out\n"
	if err := os.WriteFile(filepath.Join(dir, "s.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	code, so, se := lm(t, dir, "run", "s.yaml", "--progress", "never")
	if line := firstLine(so, "test ("); code != 0 || !strings.Contains(line, notTwo) || strings.Contains(line, "NaN") {
		t.Errorf("run: exit %d, want %q in the test line; stdout\n%s\nstderr %s", code, notTwo, so, se)
	}
}
