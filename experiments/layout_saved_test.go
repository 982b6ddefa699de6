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

// TestFitKeepsLayout: a fit on a CSV read with drop keeps how it took the
// columns (FitResult.Layout: 4 columns, the target last, column 0 dropped,
// no header), a saved fit loads it back, and ReadInput reads a file to
// predict through it: with its target, column 0 is dropped as in the
// training file; without it (3 columns, which by position alone read the
// row number and a as the features and b as the target: the misread this
// replaces) it is an ErrInput error naming both widths (it could as well
// lack column 0), and with Drop [0] the rows come unlabelled; an explicit
// empty Drop drops nothing; 2 columns are the features alone (a and b,
// unlabelled), and 1 column is an ErrInput error naming the widths. A
// saved layout no read makes (a dropped column past the width, or the
// target's, columns not ascending, names without a header, no feature
// left) is ErrSaved.
func TestFitKeepsLayout(t *testing.T) {
	dir := t.TempDir()
	var train, withY, noY, ab strings.Builder
	for i := range 30 {
		a, b := float64(i%7)/7, float64(i%5)/5
		fmt.Fprintf(&train, "%d,%g,%g,%g\n", i, a, b, a+2*b)
		if i < 10 {
			fmt.Fprintf(&withY, "%d,%g,%g,%g\n", 100+i, a, b, a+2*b)
			fmt.Fprintf(&noY, "%d,%g,%g\n", 100+i, a, b)
			fmt.Fprintf(&ab, "%g,%g\n", a, b)
		}
	}
	for name, s := range map[string]string{"tr.csv": train.String(), "withy.csv": withY.String(), "noy.csv": noY.String(), "ab.csv": ab.String(), "one.csv": "1\n3\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := decodeIn(t, "name: d\ndataset: {path: tr.csv, header: no, drop: [0]}\ntask: regression\nestimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.001}\n", dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	want := &datasets.Layout{Width: 4, Target: 3, Dropped: []int{0}}
	if !reflect.DeepEqual(res.Layout, want) || res.Dim != 2 {
		t.Fatalf("Layout = %+v, Dim %d; want %+v, 2", res.Layout, res.Dim, want)
	}
	p := filepath.Join(dir, "m.lmk")
	if err := res.SaveFile(p, s); err != nil {
		t.Fatal(err)
	}
	fit, err := LoadFitFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fit.Layout, want) {
		t.Fatalf("loaded Layout = %+v, want %+v", fit.Layout, want)
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
		t.Errorf("noy.csv: %v, want ErrInput on the widths", err)
	}
	x, y, err = read("noy.csv", []string{"0"})
	if err != nil {
		t.Fatal(err)
	}
	if got := mat.Col(nil, 0, x); got[3] != 3.0/7 || y != nil {
		t.Errorf("noy.csv: column a %v, y %v: column 0 not dropped, or b read as the target", got, y)
	}
	x, y, err = read("ab.csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mat.Col(nil, 0, x), mat.Col(nil, 1, x); a[3] != 3.0/7 || b[3] != 3.0/5 || y != nil {
		t.Errorf("ab.csv: columns a %v, b %v, y %v; want the features alone, unlabelled", a, b, y)
	}
	if _, _, err := read("one.csv", nil); !errors.Is(err, datasets.ErrInput) || !strings.Contains(err.Error(), "1 columns, where the model's training file had 4 (the target in column 3, column(s) 0 dropped) and 2 features") {
		t.Errorf("one.csv: %v, want ErrInput on the widths", err)
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
	const saved = `"layout":{"width":4,"target":3,"dropped":[0]}`
	if !strings.Contains(string(raw), saved) {
		t.Fatalf("saved header lacks %s", saved)
	}
	for _, bad := range []string{
		`"layout":{"width":4,"target":3,"dropped":[4]}`, `"layout":{"width":4,"target":3,"dropped":[3]}`,
		`"layout":{"width":4,"target":3,"dropped":[2,1]}`, `"layout":{"width":4,"target":3,"dropped":[0],"names":["i"]}`,
		`"layout":{"width":3,"target":2,"dropped":[0,1]}`, `"layout":{"width":4,"target":4}`, `"layout":{"width":0,"target":-1}`,
	} {
		if _, err := LoadFit(strings.NewReader(strings.Replace(string(raw), saved, bad, 1))); !errors.Is(err, ErrSaved) {
			t.Errorf("%s: %v, want ErrSaved", bad, err)
		}
	}
}
