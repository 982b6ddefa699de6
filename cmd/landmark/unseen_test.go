package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIPredictUnseenLabels: predict on a file holding labels the model
// never saw (text X twice beside B and M; numeric 5 once beside 0 and 1)
// warns on stderr naming them with their counts, and still writes every
// prediction (4 and 3 lines). Before, the rows were scored silently.
func TestCLIPredictUnseenLabels(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"train.csv":    "a,y\n1,B\n2,M\n3,B\n4,M\n",
		"test.csv":     "a,y\n1,B\n2,X\n3,M\n4,X\n",
		"numtrain.csv": "a,y\n1,0\n2,1\n3,0\n4,1\n",
		"numtest.csv":  "a,y\n1,0\n2,5\n3,1\n",
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		train, test string
		lines       int
		want        string
	}{
		{"train.csv", "test.csv", 4, `predict: warning: 2 of 4 rows of ` + filepath.Join(dir, "test.csv") + ` have labels the training data lacks: "X" (2 rows): the model cannot predict them, so they are scored as errors`},
		{"numtrain.csv", "numtest.csv", 3, `predict: warning: 1 of 3 rows of ` + filepath.Join(dir, "numtest.csv") + ` have labels the training data lacks: 5 (1 row): the model cannot predict them, so they are scored as errors`},
	} {
		m := filepath.Join(dir, c.train+".lmk")
		if code, _, se := runCLI("fit", "--data", filepath.Join(dir, c.train), "--gamma", "1", "--lambda", "1e-2", "--progress", "never", "--save", m); code != 0 {
			t.Fatalf("fit %s: exit %d: %s", c.train, code, se)
		}
		code, so, se := runCLI("predict", "--model", m, "--data", filepath.Join(dir, c.test))
		if code != 0 || strings.Count(so, "\n") != c.lines || !strings.Contains(se, c.want+"\n") {
			t.Errorf("predict %s: exit %d, %d lines, stderr\n%s\nwant 0, %d lines and\n%s", c.test, code, strings.Count(so, "\n"), se, c.lines, c.want)
		}
	}
}
