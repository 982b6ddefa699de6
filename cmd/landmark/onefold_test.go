package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunOneClassFold: landmark run with 5 stratified folds over 3 rows of
// class 1 in 40 warns on stderr which test folds hold one class, and
// prints the best point's CV auc as undefined, not "NaN ± NaN".
func TestRunOneClassFold(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,y\n")
	for i := range 40 {
		l := 0
		if i == 5 || i == 17 || i == 33 {
			l = 1
		}
		fmt.Fprintf(&b, "%g,%d\n", float64(i)/40, l)
	}
	spec := "name: tiny\ntask: binary\ndataset: {path: tiny.csv}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.01}\ncv: {folds: 5, metric: auc}\nseed: 1\n"
	for name, s := range map[string]string{"tiny.csv": b.String(), "spec.yaml": spec} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, so, se := runCLI("run", filepath.Join(dir, "spec.yaml"), "--out", filepath.Join(dir, "out"), "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, se)
	}
	if want := "landmark: warning: cross-validation: 2 of 5 test folds (folds 1, 2) hold one class only"; !strings.Contains(se, want) {
		t.Errorf("stderr lacks %q:\n%s", want, se)
	}
	if want := "best (no grid): CV auc undefined (a test fold holds one class) over 5 fits"; !strings.Contains(so, want) || strings.Contains(so, "NaN") {
		t.Errorf("stdout lacks %q (or says NaN):\n%s", want, so)
	}
}
