package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPredictPositional: predict refuses positional arguments (usage
// error, exit 2) before any work; with svm-predict's habit, "landmark
// predict --model M --data D out.txt", the out.txt was ignored and the
// predictions went to stdout with exit 0. A missing flag is named alone.
func TestPredictPositional(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--model", "m.lmk", "--data", "d.csv", "out.txt"}, "landmark predict: usage: unexpected argument out.txt: predict takes its files as flags (svm-predict's TEST MODEL OUTPUT are --data TEST --model MODEL --out OUTPUT)\n"},
		{[]string{"predict", "d.csv", "m.lmk", "out.txt"}, "landmark predict: usage: unexpected arguments d.csv m.lmk out.txt: predict takes its files as flags (svm-predict's TEST MODEL OUTPUT are --data TEST --model MODEL --out OUTPUT)\n"},
		{[]string{"predict", "--model", "m.lmk"}, "landmark predict: usage: need --data FILE (- for standard input)\n"},
		{[]string{"predict", "--data", "d.csv"}, "landmark predict: usage: need --model FILE\n"},
	} {
		code, so, se := lm(t, dir, c.args...)
		if code != 2 || se != c.want || so != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2, stderr %q", c.args, code, se, so, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("out.txt: %v", err)
	}
}
