package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// TestFitKeepsDrop: a fit on a CSV read with drop keeps what was dropped
// (FitResult.Dropped: column 0 of 4, no header), a saved fit loads it back,
// and ReadInput reads a file to predict through it: a file of the training
// width (with its target) loses column 0 as the training file did; one
// without the target (3 columns, which by position alone reads the row
// index and a as the features and b as the target: the misread this
// replaces) is an ErrInput error asking for the drop; an explicit empty
// Drop drops nothing. A saved record no read makes (a column past the
// width, columns not ascending, names not one a column) is ErrSaved.
func TestFitKeepsDrop(t *testing.T) {
	dir := t.TempDir()
	var train, withY, noY strings.Builder
	for i := range 30 {
		a, b := float64(i%7)/7, float64(i%5)/5
		fmt.Fprintf(&train, "%d,%g,%g,%g\n", i, a, b, a+2*b)
		if i < 10 {
			fmt.Fprintf(&withY, "%d,%g,%g,%g\n", 100+i, a, b, a+2*b)
			fmt.Fprintf(&noY, "%d,%g,%g\n", 100+i, a, b)
		}
	}
	for name, s := range map[string]string{"tr.csv": train.String(), "withy.csv": withY.String(), "noy.csv": noY.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := decodeIn(t, "name: d\ndataset: {path: tr.csv, header: no, drop: [0]}\ntask: regression\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.001}\n", dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := &datasets.FittedDrop{Columns: []int{0}, Width: 4}
	if !reflect.DeepEqual(res.Dropped, want) || res.Dim != 2 {
		t.Fatalf("Dropped = %+v, Dim %d; want %+v, 2", res.Dropped, res.Dim, want)
	}
	p := filepath.Join(dir, "m.lmk")
	if err := res.SaveFile(p, s); err != nil {
		t.Fatal(err)
	}
	fit, err := LoadFitFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fit.Dropped, want) {
		t.Fatalf("loaded Dropped = %+v, want %+v", fit.Dropped, want)
	}
	read := func(name string, drop []string) (mat.Matrix, []float64, error) {
		in, err := datasets.OpenInput(context.Background(), filepath.Join(dir, name), datasets.CSV)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		x, y, _, err := fit.ReadInput(context.Background(), in, datasets.ReadOptions{Header: datasets.HeaderAbsent, Drop: drop}, p)
		return x, y, err
	}
	x, y, err := read("withy.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := mat.Col(nil, 0, x); got[3] != 3.0/7 || len(y) != 10 || y[3] != 3.0/7+2*3.0/5 {
		t.Errorf("withy.csv: column a %v, y %v: column 0 not dropped", got, y)
	}
	if _, _, err := read("noy.csv", nil); !errors.Is(err, datasets.ErrInput) || !strings.Contains(err.Error(), "3 columns, where the model's training file had 4") {
		t.Errorf("noy.csv without a drop: %v, want ErrInput on the widths", err)
	}
	x, y, err = read("noy.csv", []string{})
	if err != nil {
		t.Fatal(err)
	}
	if got := mat.Col(nil, 0, x); got[3] != 103 || y == nil {
		t.Errorf("noy.csv, Drop empty: column 0 %v, y %v; want the index read as a feature (nothing dropped)", got, y)
	}
	raw, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const saved = `"dropped":{"columns":[0],"width":4}`
	if !strings.Contains(string(raw), saved) {
		t.Fatalf("saved header lacks %s", saved)
	}
	for _, bad := range []string{`"dropped":{"columns":[4],"width":4}`, `"dropped":{"columns":[2,1],"width":4}`, `"dropped":{"columns":[0],"width":4,"names":["a","b"]}`, `"dropped":{"columns":[],"width":4}`} {
		if _, err := LoadFit(strings.NewReader(strings.Replace(string(raw), saved, bad, 1))); !errors.Is(err, ErrSaved) {
			t.Errorf("%s: %v, want ErrSaved", bad, err)
		}
	}
}
