package experiments

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"gonum.org/v1/gonum/mat"
)

// namedShards reads the CSV file at path as landmark data shard does
// (opt, text labels as classes) and writes its rows as shards of 50 rows
// into dir with the names the read gave; it returns the manifest's path.
func namedShards(t *testing.T, path, dir string, opt datasets.ReadOptions) string {
	t.Helper()
	opt.TextLabels = true
	d, err := datasets.ReadFile(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	so := shard.Options{Rows: 50, Classification: true, Features: d.Features, Target: d.Target, ClassNames: d.Classes}
	if so.Layout, err = json.Marshal(d.Layout); err != nil {
		t.Fatal(err)
	}
	if _, err := shard.WriteDirWith(dir, d.X, d.Y, so); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, shard.ManifestName)
}

// TestShardsKeepNames: shards of a CSV keep what a fit of the file keeps,
// so that a fit of the shards is the fit of the file. The file is
// headerless, an index column first (dropped) and a text label second
// (target 0 of the kept columns), three classes; the test file holds two
// of them, so its own class indices (setosa 0, virginica 1) are not the
// training ones (0, 2). A fit of the shards in memory has the file fit's
// class names and layout, and its predictions and test scores equal the
// file fit's exactly (the same rows in the same order), with the test set
// as shards (targets mapped by name: unmapped, virginica would be scored
// as versicolor) or as the CSV file (read through the kept layout, no
// drop or target given). Saved and loaded, it predicts the headerless
// label-first file as the file fit does. A test manifest of numeric
// labels is refused.
func TestShardsKeepNames(t *testing.T) {
	dir := t.TempDir()
	names := []string{"setosa", "versicolor", "virginica"}
	var train, test, num strings.Builder
	for i := range 150 {
		a, b := float64(i%13)/13, float64(i%7)/7
		k := min(int(3*(0.7*a+0.3*b)), 2)
		fmt.Fprintf(&train, "%d,%s,%g,%g\n", i, names[k], a, b)
		fmt.Fprintf(&num, "%d,%g,%g,%d\n", i, a, b, k)
		if k != 1 && i%3 == 0 {
			fmt.Fprintf(&test, "%d,%s,%g,%g\n", 1000+i, names[k], a, b)
		}
	}
	files := map[string]string{"train.csv": train.String(), "test.csv": test.String(), "num.csv": num.String()}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := datasets.ReadOptions{Header: datasets.HeaderAbsent, Drop: []string{"0"}, Target: "0"}
	trainShards := namedShards(t, filepath.Join(dir, "train.csv"), filepath.Join(dir, "tr"), read)
	testShards := namedShards(t, filepath.Join(dir, "test.csv"), filepath.Join(dir, "te"), read)
	if m, err := ReadManifest(testShards); err != nil || !reflect.DeepEqual(m.ClassNames, []string{"setosa", "virginica"}) {
		t.Fatalf("test shards' class names %v (%v): the test does not exercise the mapping", m.ClassNames, err)
	}
	numShards := namedShards(t, filepath.Join(dir, "num.csv"), filepath.Join(dir, "num"), datasets.ReadOptions{Header: datasets.HeaderAbsent, Drop: []string{"0"}})

	const spec = "name: n\ndataset: {DATA}\ntask: auto\nseed: 3\nestimator: {type: falkon, kernel: {type: gaussian, gamma: 4}, lambda: 1.0e-4, m: 30, memory_limit: MEM}\n"
	fit := func(data, mem string) *FitResult {
		t.Helper()
		res, err := Fit(context.Background(), decodeIn(t, strings.NewReplacer("DATA", data, "MEM", mem).Replace(spec), dir))
		if err != nil {
			t.Fatalf("fit %s: %v", data, err)
		}
		return res
	}
	file := fit("path: train.csv, header: no, drop: [0], target: '0', test_path: test.csv", "1G")
	wantLayout := &datasets.Layout{Width: 4, Target: 1, Dropped: []int{0}}
	if !reflect.DeepEqual(file.ClassNames, names) || !reflect.DeepEqual(file.Layout, wantLayout) || file.Task != TaskMulticlass {
		t.Fatalf("file fit: class names %v, layout %+v, task %s", file.ClassNames, file.Layout, file.Task)
	}
	x := mat.NewDense(4, 2, []float64{0.1, 0.2, 0.5, 0.5, 0.9, 0.1, 0.3, 0.8})
	want, err := file.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	acc := func(res *FitResult) float64 {
		for _, s := range res.Test {
			if s.Name == "accuracy" {
				return s.Mean
			}
		}
		t.Fatalf("no test accuracy in %v", res.Test)
		return 0
	}
	if a := acc(file); a < 0.9 {
		t.Fatalf("file fit: test accuracy %v; the data are to be learnable", a)
	}
	var inMemory *FitResult
	for _, testPath := range []string{testShards, "test.csv"} {
		res := fit("path: "+trainShards+", test_path: "+testPath, "1G")
		if res.Storage == StorageStreamed || !reflect.DeepEqual(res.ClassNames, names) || !reflect.DeepEqual(res.Layout, wantLayout) ||
			res.Features != nil || !res.ImpliedFeatures || res.Task != TaskMulticlass {
			t.Errorf("shards, test %s: storage %s, class names %v, layout %+v, features %v (implied %v), task %s",
				testPath, res.Storage, res.ClassNames, res.Layout, res.Features, res.ImpliedFeatures, res.Task)
		}
		got, err := res.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("shards, test %s: predictions %v, the file fit's %v", testPath, got, want)
		}
		if !reflect.DeepEqual(res.Test, file.Test) {
			t.Errorf("shards, test %s: test scores %v, the file fit's %v", testPath, res.Test, file.Test)
		}
		inMemory = res
	}
	p := filepath.Join(dir, "shards.lmk")
	if err := inMemory.SaveFile(p, nil); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFitFile(p)
	if err != nil {
		t.Fatal(err)
	}
	predict := func(f *FitResult) ([]float64, []float64) {
		in, err := datasets.OpenInput(context.Background(), filepath.Join(dir, "test.csv"), datasets.CSV)
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		xt, yt, _, err := f.ReadInput(context.Background(), in, datasets.ReadOptions{Header: datasets.HeaderAbsent}, p)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := f.Predict(xt)
		if err != nil {
			t.Fatal(err)
		}
		return pred, yt
	}
	gotPred, gotY := predict(back)
	wantPred, wantY := predict(file)
	if !reflect.DeepEqual(gotPred, wantPred) || !reflect.DeepEqual(gotY, wantY) {
		t.Errorf("saved shards fit on test.csv: predictions %v, labels %v; the file fit's %v, %v", gotPred, gotY, wantPred, wantY)
	}

	_, err = Fit(context.Background(), decodeIn(t, strings.NewReplacer("DATA", "path: "+trainShards+", test_path: "+numShards, "MEM", "1G").Replace(spec), dir))
	if !errors.Is(err, datasets.ErrInput) || !strings.Contains(err.Error(), "has numeric labels, the model's were text") {
		t.Errorf("numeric test shards: %v, want ErrInput on the labels' kinds", err)
	}
}

// TestStreamedShardsKeepNames: a streamed fit (over memory_limit, as
// TestShardFitZeroBased) and ShardFit (the Beam fit's wrapper) keep the
// names a manifest carries (features, target, layout; here written into
// the synthetic HIGGS set's manifest as a headerless CSV with the label
// first would give them), and a test manifest naming other features is
// refused: shards hold their columns by position.
func TestStreamedShardsKeepNames(t *testing.T) {
	man, _ := higgsSet(t, 3000)
	m, err := ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	features := make([]string, m.D)
	for j := range features {
		features[j] = fmt.Sprintf("f%d", j)
	}
	layout := &datasets.Layout{Width: m.D + 1, Target: 0}
	m.Features, m.Target = features, "label"
	if m.Layout, err = json.Marshal(layout); err != nil {
		t.Fatal(err)
	}
	write := func(path string, m *shard.Manifest) {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(man, m)
	res, err := FitWith(context.Background(), shardSpecFor(t, man, "falkon", 2_000_000), FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageStreamed || !reflect.DeepEqual(res.Features, features) || res.ImpliedFeatures || res.TargetName != "label" || !reflect.DeepEqual(res.Layout, layout) {
		t.Errorf("streamed: storage %s, features %v (implied %v), target %q, layout %+v", res.Storage, res.Features, res.ImpliedFeatures, res.TargetName, res.Layout)
	}
	wrapped, err := ShardFit(res.Estimator, m, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(wrapped.Features, features) || wrapped.TargetName != "label" || !reflect.DeepEqual(wrapped.Layout, layout) {
		t.Errorf("ShardFit: features %v, target %q, layout %+v", wrapped.Features, wrapped.TargetName, wrapped.Layout)
	}
	// A layout of another width than the shards' is refused.
	bad := *m
	bad.Layout = json.RawMessage(`{"width": 5, "target": 0}`)
	if _, err := ShardFit(res.Estimator, &bad, false); !errors.Is(err, shard.ErrFormat) || !strings.Contains(err.Error(), "manifest layout keeps 4 of its 5 columns as features, the shards have 28") {
		t.Errorf("ShardFit, layout of 5 columns: %v, want ErrFormat naming the widths", err)
	}
	// Test shards naming column 3 otherwise.
	other := slices.Clone(features)
	other[3] = "g3"
	m.Features = other
	tm := filepath.Join(filepath.Dir(man), "test.json")
	write(tm, m)
	s := shardSpecFor(t, man, "falkon", 2_000_000)
	s.Dataset.TestPath = tm
	if _, err := FitWith(context.Background(), s, FitOptions{}); !errors.Is(err, datasets.ErrInput) || !strings.Contains(err.Error(), `feature 3 is "g3", the training data's is "f3"`) {
		t.Errorf("test shards naming other features: %v, want ErrInput naming feature 3", err)
	}
}
