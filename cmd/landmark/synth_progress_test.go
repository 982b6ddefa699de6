package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestDataSynthTextProgress: data synth text takes --progress as the other
// long commands do: always (and auto when stderr is not a terminal, as
// here) a line when the draw and each file are done (and per 65,536 rows,
// covered by datasets' TestWriteSyntheticTextProgress), never none, and a
// bad value is a usage error. Before, --progress was an unknown flag.
func TestDataSynthTextProgress(t *testing.T) {
	dir := t.TempDir()
	args := []string{"data", "synth", "text", "tr.svm", "te.svm", "--rows", "40", "--test-rows", "10", "--dim", "500", "--nnz", "6"}
	line := `\(elapsed [0-9.]+[mµn]?s, \S+ rows/s, (draw|write) ETA 0s\)`
	want := regexp.MustCompile(`^data synth text: drew 50/50 rows ` + line + `\n` +
		`data synth text: wrote 40/40 rows to tr.svm ` + line + `\n` +
		`data synth text: wrote 10/10 rows to te.svm ` + line + `\n$`)
	for _, mode := range []string{"always", "auto"} {
		code, so, se := lm(t, dir, append(args, "--progress", mode)...)
		if code != 0 || !want.MatchString(se) || !strings.Contains(so, "wrote tr.svm: 40 rows") {
			t.Errorf("--progress %s: exit %d, stderr\n%s", mode, code, se)
		}
	}
	if code, _, se := lm(t, dir, append(args, "--progress", "never")...); code != 0 || se != "" {
		t.Errorf("--progress never: exit %d, stderr %q", code, se)
	}
	if code, _, se := lm(t, dir, append(args, "--progress", "alway")...); code != 2 || !strings.Contains(se, `did you mean "always"`) {
		t.Errorf("--progress alway: exit %d, stderr %q", code, se)
	}
}
