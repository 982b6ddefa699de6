package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// shardSpec is a falkon fit on the data at PATH (MEM is its memory_limit).
const shardSpec = `name: shards
dataset:
  path: PATH
task: binary
estimator:
  type: EST
  kernel: {type: gaussian, sigma: 3}
  lambda: 1.0e-6
  m: 40
  memory_limit: MEM
`

func shardSpecFor(t *testing.T, path, est string, limit int64) *Spec {
	t.Helper()
	src := strings.NewReplacer("PATH", path, "EST", est, "MEM", fmt.Sprint(limit)).Replace(shardSpec)
	if est != "falkon" {
		src = strings.Replace(src, "  m: 40\n", "", 1)
	}
	if est == "svm" {
		src = strings.Replace(src, "lambda: 1.0e-6", "c: 1", 1)
	}
	return mustDecode(t, src)
}

// higgsSet writes n rows of the HIGGS-shaped set as shards of 100 rows and
// as a CSV file of the same rows; it returns the manifest's and the file's
// paths.
func higgsSet(t *testing.T, n int) (string, string) {
	t.Helper()
	dir := t.TempDir()
	sd := filepath.Join(dir, "shards")
	if _, err := datasets.WriteSyntheticHiggs(context.Background(), sd, datasets.HiggsOptions{Rows: n, ShardRows: 100, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(filepath.Join(sd, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	x, y, err := readShards(context.Background(), filepath.Join(sd, shard.ManifestName), m, 0)
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(dir, "higgs.csv")
	// 'g' −1 in WriteCSV writes the shortest exact decimal: the CSV reads
	// back to the same float64s.
	if err := datasets.WriteFile(csv, &datasets.Dataset{X: x, Y: y}, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(sd, shard.ManifestName), csv
}

// A fit on a manifest that fits in memory is the fit on the same rows read
// from a file: identical predictions, bit for bit.
func TestFitManifestInMemory(t *testing.T) {
	man, csv := higgsSet(t, 450)
	a, err := Fit(context.Background(), shardSpecFor(t, man, "falkon", 0))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Fit(context.Background(), shardSpecFor(t, csv, "falkon", 0))
	if err != nil {
		t.Fatal(err)
	}
	if a.NTrain != 450 || a.Dim != datasets.HiggsDim || a.StorageReason != "auto: shards are dense" {
		t.Errorf("n %d d %d storage %q", a.NTrain, a.Dim, a.StorageReason)
	}
	x := mat.NewDense(3, datasets.HiggsDim, nil)
	for i := range 3 * datasets.HiggsDim {
		x.RawMatrix().Data[i] = float64(i%7) - 3
	}
	pa, _ := a.Predict(x)
	pb, _ := b.Predict(x)
	for i := range pa {
		if pa[i] != pb[i] {
			t.Fatalf("prediction %d: manifest %v, CSV %v", i, pa[i], pb[i])
		}
	}
	if a.Train[0] != b.Train[0] {
		t.Errorf("train scores differ: %v vs %v", a.Train, b.Train)
	}
}

// The plan decides at the right byte: with memory_limit equal to the
// planned peak the in-memory fit runs (its own refusals, which count the
// same copies and model.Falkon.Plan, pass); one byte less is refused
// before reading, naming the manifest, X's size and the limit. At n = 450
// the plan's stub is the whole set, so the plan is exact.
func TestFitManifestPlanBoundary(t *testing.T) {
	man, _ := higgsSet(t, 450)
	for _, est := range []string{"falkon", "krr"} {
		sp, err := planShards(shardSpecFor(t, man, est, 1))
		if err != nil {
			t.Fatal(err)
		}
		// X is 450·28·8 = 100,800 bytes, held once (the fit takes the
		// rows read), and y.
		if sp.x != 100800 || sp.copies != 1 || (est == "krr" && sp.need != 100800+8*450) {
			t.Fatalf("%s: plan %+v", est, sp)
		}
		// A test set given as a manifest is held beside: its X and y.
		withTest := shardSpecFor(t, man, est, 1)
		withTest.Dataset.TestPath = man
		if st, _ := planShards(withTest); st.need != sp.need+450*29*8 {
			t.Errorf("%s: with a test manifest need %d, want %d + %d", est, st.need, sp.need, 450*29*8)
		}
		if est == "falkon" {
			if _, err := Fit(context.Background(), shardSpecFor(t, man, est, sp.need)); err != nil {
				t.Errorf("falkon at its planned %d bytes: %v", sp.need, err)
			}
		}
		_, err = Fit(context.Background(), shardSpecFor(t, man, est, sp.need-1))
		if !errors.Is(err, model.ErrMemory) {
			t.Fatalf("%s one byte under the plan: err %v, want ErrMemory", est, err)
		}
		wants := []string{man, "X is 101 kB (450 × 28 float64)", est + " holds it in memory (1 copy", "over the memory limit"}
		if est == "falkon" {
			// At 450 rows the streamed fit (row blocks, read-ahead buffers)
			// needs more than the in-memory one: both are over.
			wants = []string{"falkon on shards (n=450, M=40) needs", fmt.Sprintf("in memory it would need %s (1 copy", decimalBytes(sp.need))}
		}
		for _, want := range wants {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q lacks %q", est, err, want)
			}
		}
	}
}

// A missing or malformed manifest and a missing or damaged shard are errors
// naming the file.
func TestFitManifestBadFiles(t *testing.T) {
	man, _ := higgsSet(t, 300)
	dir := filepath.Dir(man)
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"format": "landmark-shards/1", "n": 5}`), 0o644)
	trunc := filepath.Join(t.TempDir(), "trunc.json")
	os.WriteFile(trunc, []byte(`{"format": `), 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "nope.json"), "nope.json"},
		{bad, bad},
		{trunc, trunc},
	} {
		_, err := Fit(context.Background(), shardSpecFor(t, c.path, "falkon", 0))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want it to name %s", c.path, err, c.want)
		}
	}
	s1 := filepath.Join(dir, "shard-00001.lmks")
	b, _ := os.ReadFile(s1)
	b[100] ^= 1
	os.WriteFile(s1, b, 0o644)
	_, err := Fit(context.Background(), shardSpecFor(t, man, "falkon", 0))
	// Read errors become spec errors of the dataset key, as a data file's do.
	if err == nil || !strings.Contains(err.Error(), s1+": shard: checksum mismatch") {
		t.Errorf("damaged shard: err %v, want a checksum mismatch naming %s", err, s1)
	}
	os.Remove(s1)
	_, err = Fit(context.Background(), shardSpecFor(t, man, "falkon", 0))
	if err == nil || !strings.Contains(err.Error(), "shard-00001.lmks") {
		t.Errorf("missing shard: err %v", err)
	}
}

// Run cross-validates a manifest that fits in memory and refuses, with the
// reason, one whose X is over the limit.
func TestRunManifest(t *testing.T) {
	man, _ := higgsSet(t, 300)
	s := shardSpecFor(t, man, "falkon", 0)
	s.CV.Folds = 3
	res, err := Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.NTrain != 300 || len(res.Points) != 1 {
		t.Errorf("n %d, %d points", res.NTrain, len(res.Points))
	}
	s = shardSpecFor(t, man, "falkon", 300*28*8-1)
	s.CV.Folds = 3
	_, err = Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true})
	if !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "streamed cross-validation is not supported") || !strings.Contains(err.Error(), man) {
		t.Errorf("over the limit: err %v", err)
	}
}

// ShardFit wraps a model fitted on standardized shard rows so that a saved
// and reloaded fit predicts raw rows exactly as the model predicts the rows
// standardized with the manifest's statistics; bad arguments are errors.
func TestShardFitSaveLoad(t *testing.T) {
	path, _ := higgsSet(t, 300)
	m, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	set, err := model.OpenShards(path)
	if err != nil {
		t.Fatal(err)
	}
	set.Mean, set.Std = m.Mean, m.Std
	f := &model.Falkon{Kernel: kernel.GaussianSigma(3), Lambda: 1e-6, M: 30, MaxIter: 5, Seed: 2}
	if err := f.FitShardSet(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	fit, err := ShardFit(f, m, true)
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "fit.lmk")
	if err := fit.SaveFile(saved, nil); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFitFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if back.Task != TaskBinary || back.Dim != m.D {
		t.Fatalf("loaded task %q, d = %d; want binary (the manifest's two classes), %d", back.Task, back.Dim, m.D)
	}
	x, _, err := readShards(context.Background(), path, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.Scores(x)
	if err != nil {
		t.Fatal(err)
	}
	z := mat.DenseCopyOf(x)
	for i := range m.N {
		set.Standardize(z.RawRowView(i))
	}
	want, err := f.DecisionFunction(z)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(got, want) {
		t.Fatal("the reloaded fit's scores of raw rows differ from the model's scores of standardized rows")
	}
	// Without the scaling the raw rows score otherwise: the check above can fail.
	plain, err := ShardFit(f, m, false)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := plain.Scores(x); err != nil || mat.Equal(s, want) {
		t.Fatalf("an unscaled fit scored raw rows as standardized ones (err %v)", err)
	}
	for _, bad := range []struct {
		est model.Estimator
		man *shard.Manifest
	}{{nil, m}, {f, nil}} {
		if _, err := ShardFit(bad.est, bad.man, false); !errors.Is(err, check.ErrInput) {
			t.Errorf("ShardFit(%v, %v): %v, want ErrInput", bad.est, bad.man, err)
		}
	}
	short := *m
	short.Mean = m.Mean[:1]
	if _, err := ShardFit(f, &short, true); !errors.Is(err, check.ErrInput) {
		t.Errorf("a manifest with 1 mean for d = %d: %v, want ErrInput", m.D, err)
	}
}
