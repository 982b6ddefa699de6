package experiments

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

// TestOneClassFoldsWarned: 40 rows of which 3 (rows 5, 17, 33) are class
// 1, 5 stratified folds: the classes are dealt in turn (37 zeros, then
// the ones to the 38th–40th places: folds 3, 4, 5), so folds 1 and 2 test
// on zeros only and Notify hears which, and that 3 folds keep the class
// in every test fold; summary.md says the CV auc is undefined rather than
// NaN. With 3 folds nothing is said. Before, the CV auc was a bare NaN.
func TestOneClassFoldsWarned(t *testing.T) {
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
	if err := os.WriteFile(filepath.Join(dir, "tiny.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const warn = "warning: cross-validation: 2 of 5 test folds (folds 1, 2) hold one class only: auc is undefined there, so every point's CV auc is undefined (NaN in results.csv), as scikit-learn's roc_auc_score refuses such a fold; the least populated class, 1, has 3 rows for 5 folds: cv: {folds: 3} keeps it in every test fold"
	for _, c := range []struct {
		folds int
		want  []string
	}{{5, []string{warn}}, {3, nil}} {
		s := decodeIn(t, fmt.Sprintf("name: tiny\ntask: binary\ndataset: {path: tiny.csv}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.01}\ncv: {folds: %d, metric: auc}\nseed: 1\n", c.folds), dir)
		out := t.TempDir()
		var warned []string
		if _, err := Run(context.Background(), s, Options{Out: out, Notify: func(m string) {
			if strings.HasPrefix(m, "warning:") {
				warned = append(warned, m)
			}
		}}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(warned, c.want) {
			t.Errorf("%d folds: warned\n%q\nwant\n%q", c.folds, warned, c.want)
		}
		md, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil {
			t.Fatal(err)
		}
		undefined := strings.Contains(string(md), "CV auc undefined (a test fold's labels are not two classes; 5 fits)")
		if undefined != (c.folds == 5) || strings.Contains(string(md), "NaN ± NaN") {
			t.Errorf("%d folds: summary.md best line:\n%s", c.folds, md)
		}
	}
}

// TestOneClassFoldsFix: the remedy named depends on the labels: a class of
// one row cannot be in every test fold; unstratified folds over classes
// of 2 rows each call for stratification; repeats are named (repeat 2's
// fold 1 holds rows 0 and 1, both class 0).
func TestOneClassFoldsFix(t *testing.T) {
	name := labelNamer([]string{"B", "M"})
	two := [][]datasets.Fold{{{Test: []int{0, 1}}, {Test: []int{2, 3}}}}
	if got, want := oneClassFolds([]float64{0, 0, 1, 1}, two, false, name), `warning: cross-validation: 2 of 2 test folds (folds 1, 2) hold one class only: auc is undefined there, so every point's CV auc is undefined (NaN in results.csv), as scikit-learn's roc_auc_score refuses such a fold; stratified folds (cv: {stratified: true}) keep both classes in every test fold`; got != want {
		t.Errorf("unstratified:\n%s\nwant\n%s", got, want)
	}
	one := [][]datasets.Fold{{{Test: []int{0, 2}}, {Test: []int{1}}}, {{Test: []int{0, 1}}, {Test: []int{2}}}}
	if got, want := oneClassFolds([]float64{0, 0, 1}, one, true, name), `warning: cross-validation: 3 of 4 test folds (folds 2 of repeat 1, 1 of repeat 2, 2 of repeat 2) hold one class only: auc is undefined there, so every point's CV auc is undefined (NaN in results.csv), as scikit-learn's roc_auc_score refuses such a fold; the least populated class, "M", has 1 row: no cross-validation tests on it in every fold`; got != want {
		t.Errorf("one row:\n%s\nwant\n%s", got, want)
	}
	if got := oneClassFolds([]float64{0, 1, 0, 1}, [][]datasets.Fold{{{Test: []int{0, 1}}, {Test: []int{2, 3}}}}, true, name); got != "" {
		t.Errorf("both classes in every fold: %q", got)
	}
}
