package shard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestManifestNames: the source's names given to WriteDirWith (feature
// and target names, text labels' class names, a CSV layout's JSON) are
// written to the manifest and read back as given; names WriteDirWith
// cannot record consistently are refused before anything is written
// (ErrInput), and a manifest edited into the same states is refused by
// ParseManifest (ErrFormat): feature names other than one a column,
// class names for a regression, other than one a class, repeated, or
// naming classes other than the indices 0…k−1, a layout that is not JSON.
func TestManifestNames(t *testing.T) {
	x := mat.NewDense(6, 2, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	y := []float64{0, 1, 2, 0, 1, 2}
	layout := json.RawMessage(`{"width":4,"target":0,"dropped":[3]}`)
	opt := Options{Rows: 4, Classification: true, Features: []string{"a", "b"}, Target: "species",
		ClassNames: []string{"setosa", "versicolor", "virginica"}, Layout: layout}
	dir := t.TempDir()
	m, err := WriteDirWith(dir, x, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range []*Manifest{m, back} {
		if !reflect.DeepEqual(got.Features, opt.Features) || got.Target != "species" || !reflect.DeepEqual(got.ClassNames, opt.ClassNames) ||
			!reflect.DeepEqual(got.Classes, []float64{0, 1, 2}) {
			t.Errorf("manifest names: features %q, target %q, class names %q, classes %v", got.Features, got.Target, got.ClassNames, got.Classes)
		}
		var l, want any
		if err := json.Unmarshal(got.Layout, &l); err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(layout, &want)
		if !reflect.DeepEqual(l, want) {
			t.Errorf("layout %s, want %s", got.Layout, layout)
		}
	}
	opt.Features[0] = "changed"
	if m.Features[0] != "a" {
		t.Error("the manifest shares the caller's feature names")
	}
	opt.Features[0] = "a"

	for _, c := range []struct {
		name string
		edit func(o *Options, y []float64) []float64
		want string
	}{
		{"one feature name", func(o *Options, y []float64) []float64 { o.Features = []string{"a"}; return y }, "1 feature names for d = 2"},
		{"regression", func(o *Options, y []float64) []float64 { o.Classification = false; return y }, "class names for a regression"},
		{"two names, three classes", func(o *Options, y []float64) []float64 { o.ClassNames = o.ClassNames[:2]; return y }, "2 class names for 3 classes"},
		{"repeated", func(o *Options, y []float64) []float64 { o.ClassNames = []string{"a", "b", "a"}; return y }, `class name "a" is repeated`},
		{"not indices", func(o *Options, y []float64) []float64 { return []float64{1, 2, 3, 1, 2, 3} }, "named classes must be the class indices 0…2, but class 0 is 1"},
		{"layout not JSON", func(o *Options, y []float64) []float64 { o.Layout = json.RawMessage(`{"width":`); return y }, "layout is not JSON"},
	} {
		o := opt
		yc := c.edit(&o, append([]float64(nil), y...))
		d := filepath.Join(t.TempDir(), "out")
		_, err := WriteDirWith(d, x, yc, o)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: WriteDirWith: %v, want ErrInput with %q", c.name, err, c.want)
		}
		if _, serr := os.Stat(d); !os.IsNotExist(serr) {
			t.Errorf("%s: the refused write left %s (%v)", c.name, d, serr)
		}
	}

	edit := func(f func(m map[string]any)) []byte {
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		f(raw)
		out, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name string
		f    func(m map[string]any)
		want string
	}{
		{"three feature names", func(m map[string]any) { m["features"] = []string{"a", "b", "c"} }, "3 feature names for d = 2"},
		{"regression", func(m map[string]any) { m["task"] = "regression"; delete(m, "classes") }, "3 class names for 0 classes (task regression)"},
		{"classes not indices", func(m map[string]any) { m["classes"] = []float64{0, 1, 5} }, "class 2 is 5"},
		{"repeated", func(m map[string]any) { m["class_names"] = []string{"x", "y", "y"} }, `class name "y" is repeated`},
	} {
		_, err := ParseManifest(edit(c.f))
		if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ParseManifest: %v, want ErrFormat with %q", c.name, err, c.want)
		}
	}
	// A manifest without names (every one written before they were kept)
	// reads as before.
	plain := edit(func(m map[string]any) {
		for _, k := range []string{"features", "target", "class_names", "layout"} {
			delete(m, k)
		}
		m["classes"] = []float64{0, 1, 2}
	})
	if m, err := ParseManifest(plain); err != nil || m.Features != nil || m.ClassNames != nil || m.Layout != nil {
		t.Errorf("a manifest without names: %+v, %v", m, err)
	}
}

// TestParseManifestOtherJSON: a JSON file that is no manifest (pandas'
// to_json, given where the data goes: a .json path is read as a manifest)
// says so instead of naming an empty format.
func TestParseManifestOtherJSON(t *testing.T) {
	_, err := ParseManifest([]byte(`{"a":{"0":1.5},"y":{"0":2}}`))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), `no "format" key: not a shard manifest`) {
		t.Errorf("pandas JSON: %v", err)
	}
}
