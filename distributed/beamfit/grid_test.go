package beamfit

import (
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/experiments"
)

const gridSpec = `name: beam-grid
dataset: {name: cadata, standardize: true, standardize_target: true, test_fraction: 0.2, subsample: 400}
task: regression
estimator:
  type: krr
  kernel: {type: gaussian}
grid:
  gamma: [0.125, 0.5]
  lambda: [1.0e-2, 1.0e-4]
cv: {folds: 3, metric: rmse}
seed: 1
`

// readCSV returns results.csv without experiments.TimingColumns.
func readCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var keep []int
	for j, h := range rows[0] {
		if !slices.Contains(experiments.TimingColumns, h) {
			keep = append(keep, j)
		}
	}
	var out [][]string
	for _, r := range rows {
		var q []string
		for _, j := range keep {
			q = append(q, r[j])
		}
		out = append(out, q)
	}
	return out
}

// TestGridMatchesLocal: a CV grid whose (point, fold) fits are computed on
// Prism — 4 points × 3 folds, 12 PCollection elements — writes the same
// results.csv (timings aside) as a local run, and resuming it computes
// nothing.
func TestGridMatchesLocal(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.yaml")
	if err := os.WriteFile(spec, []byte(gridSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := experiments.DecodeFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	local, remote := filepath.Join(dir, "local"), filepath.Join(dir, "beam")
	if _, err := experiments.Run(ctx, s, experiments.Options{Out: local, NoPlots: true}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	ev := GridEvaluator(nil, spec, filepath.Join(dir, "work"))
	counted := func(ctx context.Context, pts []int) ([]experiments.PointResult, error) {
		calls++
		return ev(ctx, pts)
	}
	os.MkdirAll(filepath.Join(dir, "work"), 0o755)
	res, err := experiments.Run(ctx, s, experiments.Options{Out: remote, NoPlots: true, Remote: counted})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.Computed != 4 {
		t.Fatalf("remote evaluator called %d times, %d points computed; want 1 and 4", calls, res.Computed)
	}
	if got, _ := filepath.Glob(filepath.Join(dir, "work", "point-*-fold-*.json")); len(got) != 12 {
		t.Fatalf("%d fold results written, want 12 (4 points × 3 folds)", len(got))
	}
	a, b := readCSV(t, local), readCSV(t, remote)
	if len(a) != 5 || !slices.EqualFunc(a, b, slices.Equal) {
		t.Fatalf("results.csv differ:\nlocal %v\nbeam  %v", a, b)
	}
	res, err = experiments.Run(ctx, s, experiments.Options{Out: remote, NoPlots: true, Remote: counted})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || res.Resumed != 4 {
		t.Fatalf("resume: evaluator called %d times, %d points resumed", calls, res.Resumed)
	}
}
