package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLITextLabels: a CSV whose labels are text ("B"/"M", as the
// Wisconsin breast cancer file; three iris names) fits with task auto as
// classification, and predict prints the names: exactly the numeric
// file's predictions (the same rows labelled 0/1, or 0/1/2, in the names'
// sorted order) with each number replaced by its name. fit says the rule
// ("2 distinct text labels {"B", "M"}"); a test file's text labels are
// scored as the training classes. Task regression refuses the first text
// label with the file and line; the file's shards (data shard keeps the
// names) predict shard by shard with the names and the file's scores, and
// shards of numeric labels are refused. Before, "M" was an error whatever
// the task.
func TestCLITextLabels(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		names []string
		rule  string
	}{
		{[]string{"B", "M"}, `2 distinct text labels {"B", "M"}`},
		{[]string{"setosa", "versicolor", "virginica"}, `3 distinct text labels {"setosa", "versicolor", "virginica"}`},
	} {
		var text, num strings.Builder
		text.WriteString("a,b,label\n")
		num.WriteString("a,b,label\n")
		k := len(c.names)
		for i := range 60 {
			a, b := float64(i%7)/7, float64(i%11)/11
			class := int(float64(k)*(a+b)/2) % k
			fmt.Fprintf(&text, "%g,%g,%s\n", a, b, c.names[class])
			fmt.Fprintf(&num, "%g,%g,%d\n", a, b, class)
		}
		tp, np := filepath.Join(dir, "text.csv"), filepath.Join(dir, "num.csv")
		for p, s := range map[string]string{tp: text.String(), np: num.String()} {
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		fit := []string{"--gamma", "4", "--lambda", "1e-3", "--progress", "never"}
		mt, mn := filepath.Join(dir, "text.lmk"), filepath.Join(dir, "num.lmk")
		code, so, se := runCLI(append([]string{"fit", "--data", tp, "--test-data", tp, "--save", mt}, fit...)...)
		if code != 0 || !strings.Contains(so+se, c.rule) {
			t.Fatalf("%v: fit text: exit %d, output %q %q; want the rule %q", c.names, code, so, se, c.rule)
		}
		if code, _, se := runCLI(append([]string{"fit", "--data", np, "--task", "auto", "--save", mn}, fit...)...); code != 0 {
			t.Fatalf("fit numeric: exit %d: %s", code, se)
		}
		code, got, se := runCLI("predict", "--model", mt, "--data", tp)
		if code != 0 {
			t.Fatalf("predict text: exit %d: %s", code, se)
		}
		if !strings.Contains(se, "60 rows; against the file's targets: ") {
			t.Errorf("predict text: no scores against the text labels: %q", se)
		}
		code, nums, se := runCLI("predict", "--model", mn, "--data", np)
		if code != 0 {
			t.Fatalf("predict numeric: exit %d: %s", code, se)
		}
		var want strings.Builder
		for _, l := range strings.Fields(nums) {
			var k int
			if _, err := fmt.Sscan(l, &k); err != nil {
				t.Fatalf("numeric prediction %q: %v", l, err)
			}
			want.WriteString(c.names[k] + "\n")
		}
		if got != want.String() {
			t.Errorf("%v: predictions\n%s\nwant (the numeric model's, named)\n%s", c.names, got, want.String())
		}
		for _, n := range c.names {
			if !strings.Contains(got, n+"\n") {
				t.Errorf("%v: no row predicted %s: the test does not exercise every name", c.names, n)
			}
		}
		// Shard by shard (a manifest over --memory, internal/cmdline's
		// PredictShards) the labels are the names too: the text file's
		// rows as shards (their targets class indices, the manifest
		// naming them), predicted by the text model and scored against
		// their labels as the file's are. Before, the class numbers were
		// printed, and data shard refused the text labels.
		sd := filepath.Join(dir, fmt.Sprintf("shards%d", k))
		if _, _, err := runDataArgs("shard", tp, sd, "--rows", "25", "--progress", "never"); err != nil {
			t.Fatal(err)
		}
		_, _, fileScores := runCLI("predict", "--model", mt, "--data", tp, "--out", filepath.Join(dir, "p.txt"), "--progress", "never")
		code, sh, se := runCLI("predict", "--model", mt, "--data", filepath.Join(sd, "manifest.json"), "--memory", "100", "--output", "labels", "--progress", "never")
		if code != 0 || !strings.Contains(se, "predicting shard by shard") || sh != want.String() {
			t.Errorf("%v: predict on shards: exit %d, stderr %q, output\n%s\nwant\n%s", c.names, code, se, sh, want.String())
		}
		if score := fileScores[strings.Index(fileScores, "against the file's targets"):]; !strings.Contains(se, score) {
			t.Errorf("%v: predict on shards scored %q, the file %q", c.names, se, score)
		}
		// The numeric file's shards: their labels are numbers, the
		// model's text, refused as the numeric file is.
		nd := filepath.Join(dir, fmt.Sprintf("numshards%d", k))
		if _, _, err := runDataArgs("shard", np, nd, "--rows", "25", "--progress", "never"); err != nil {
			t.Fatal(err)
		}
		if code, sh, se := runCLI("predict", "--model", mt, "--data", filepath.Join(nd, "manifest.json"), "--progress", "never"); code != 1 || sh != "" || !strings.Contains(se, "has numeric labels, the model's were text") {
			t.Errorf("%v: predict numeric shards: exit %d, output %q, stderr %q; want 1, nothing, the labels' kinds", c.names, code, sh, se)
		}
	}
	code, _, se := runCLI("fit", "--data", filepath.Join(dir, "text.csv"), "--task", "regression", "--gamma", "1", "--lambda", "1e-3")
	if want := `text.csv: line 2: column "label": value "setosa" is not a number (text labels are classes, for a classification task only`; code != 1 || !strings.Contains(se, want) {
		t.Errorf("fit --task regression: exit %d, stderr %q; want 1 and %q", code, se, want)
	}
}
