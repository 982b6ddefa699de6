package experiments

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFitTextLabels: a spec on a CSV with text labels (task auto) fits a
// binary classifier on classes B = 0 and M = 1, keeps the names through
// Save and LoadFit, and names them (ClassName; the label 1 is "M", a
// label beyond the names is the number). A saved fit whose names do not
// cover the model's classes is refused as malformed.
func TestFitTextLabels(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,diagnosis\n")
	for i := range 20 {
		l := "B"
		if i%2 == 1 {
			l = "M"
		}
		b.WriteString(strings.Repeat("1", 1+i%3) + "," + l + "\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "bc.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := decodeIn(t, "name: bc\ntask: auto\ndataset: {path: bc.csv}\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.01}\nseed: 1\n", dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Task != TaskBinary || res.TaskRule != `2 distinct text labels {"B", "M"}` || !slices.Equal(res.ClassNames, []string{"B", "M"}) {
		t.Fatalf("task %q rule %q classes %q", res.Task, res.TaskRule, res.ClassNames)
	}
	if !slices.Equal(res.Classes(), []float64{0, 1}) {
		t.Errorf("model classes %v, want [0 1]", res.Classes())
	}
	var buf bytes.Buffer
	if err := res.Save(&buf, s); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFit(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.ClassNames, res.ClassNames) || back.ClassName(1) != "M" || back.ClassName(0) != "B" || back.ClassName(2) != "2" {
		t.Errorf("loaded: classes %q, names of 0, 1, 2: %q %q %q", back.ClassNames, back.ClassName(0), back.ClassName(1), back.ClassName(2))
	}
	bad := bytes.Replace(buf.Bytes(), []byte(`"class_names":["B","M"]`), []byte(`"class_names":["B"]`), 1)
	if bytes.Equal(bad, buf.Bytes()) {
		t.Fatal("class_names not found in the saved header")
	}
	_, err = LoadFit(bytes.NewReader(bad))
	if want := "experiments: load fit: not a saved landmark fit: the model's class 1 is not one of the 1 class names"; err == nil || err.Error() != want || !errors.Is(err, ErrSaved) {
		t.Errorf("names short of the classes: err %v, want %s", err, want)
	}
}
