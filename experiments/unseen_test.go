package experiments

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnseenLabelsWarned: a test file with labels the training data lacks
// is scored as before, but Notify hears them with their counts: text
// labels by name (X twice, A once: 3 of 7 rows), numeric labels by value
// (3 once, 7 twice); a test file of seen labels and a regression fit are
// not warned about. Before, nothing was said.
func TestUnseenLabelsWarned(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"train.csv":    "a,y\n1,B\n2,M\n3,B\n4,M\n5,B\n6,M\n",
		"test.csv":     "a,y\n1,B\n2,X\n3,M\n4,A\n5,X\n6,B\n7,M\n",
		"seen.csv":     "a,y\n1,B\n2,M\n",
		"numtrain.csv": "a,y\n1,0\n2,1\n3,2\n4,0\n5,1\n6,2\n",
		"numtest.csv":  "a,y\n1,0\n2,7\n3,3\n4,7\n",
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ train, test, task, want string }{
		{"train.csv", "test.csv", "auto", `warning: 3 of 7 rows of the test data have labels the training data lacks: "A" (1 row), "X" (2 rows): the model cannot predict them, so they are scored as errors`},
		{"numtrain.csv", "numtest.csv", "multiclass", "warning: 3 of 4 rows of the test data have labels the training data lacks: 3 (1 row), 7 (2 rows): the model cannot predict them, so they are scored as errors"},
		{"train.csv", "seen.csv", "auto", ""},
		{"numtrain.csv", "numtest.csv", "regression", ""},
	} {
		s := decodeIn(t, "name: u\ntask: "+c.task+"\ndataset: {path: "+c.train+", test_path: "+c.test+"}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.01}\ncv: {folds: 2}\nseed: 1\n", dir)
		var warned []string
		_, err := Run(context.Background(), s, Options{Out: t.TempDir(), Notify: func(m string) {
			if strings.HasPrefix(m, "warning:") {
				warned = append(warned, m)
			}
		}})
		if err != nil {
			t.Fatalf("%s/%s: %v", c.train, c.test, err)
		}
		var want []string
		if c.want != "" {
			want = []string{c.want}
		}
		if !slices.Equal(warned, want) {
			t.Errorf("%s/%s task %s: warned\n%q\nwant\n%q", c.train, c.test, c.task, warned, want)
		}
	}
	if got := UnseenLabels([]float64{2, 0, 5, 5}, []float64{0, 1, 2}); len(got) != 1 || got[0].Label != 5 || got[0].Count != 2 {
		t.Errorf("UnseenLabels: %v, want [{5 2}]", got)
	}
}
