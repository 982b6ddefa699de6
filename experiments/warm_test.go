package experiments

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const warmSpec = `name: warm
dataset: {path: data.libsvm, standardize: true, test_fraction: 0.2}
task: regression
estimator:
  type: falkon
  kernel: {type: gaussian, gamma: 1}
  m: 40
  max_iter: 3
  warm_start: true
grid:
  gamma: [0.5, 1]
  lambda: [1.0e-2, 1.0e-4, 1.0e-6]
cv: {folds: 3}
seed: 2
`

// TestWarmStartResume: with warm starts along λ, results differ from cold
// starts (3 CG iterations are far from converged, so the starting point
// shows), and a run cancelled mid-chain then resumed gives exactly the
// uninterrupted run's results.
func TestWarmStartResume(t *testing.T) {
	dir := writeSine(t, 150)
	spec := strings.Replace(warmSpec, "gamma: 1}", "}", 1)
	full := filepath.Join(t.TempDir(), "full")
	if _, err := Run(context.Background(), decodeIn(t, spec, dir), Options{Out: full, NoPlots: true}); err != nil {
		t.Fatal(err)
	}
	cold := filepath.Join(t.TempDir(), "cold")
	if _, err := Run(context.Background(), decodeIn(t, strings.Replace(spec, "  warm_start: true\n", "", 1), dir), Options{Out: cold, NoPlots: true}); err != nil {
		t.Fatal(err)
	}
	a, c := stripTiming(t, filepath.Join(full, "results.csv")), stripTiming(t, filepath.Join(cold, "results.csv"))
	if a == c {
		t.Error("warm-started results equal cold-started ones: the warm start was not used")
	}
	// Both start the chain (λ = 1e-2) cold: those rows agree.
	if la, lc := strings.Split(a, "\n"), strings.Split(c, "\n"); la[1] != lc[1] || la[4] != lc[4] {
		t.Errorf("chain starts differ:\n%s\n%s", a, c)
	}

	out := filepath.Join(t.TempDir(), "resumed")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := Run(ctx, decodeIn(t, spec, dir), Options{Out: out, NoPlots: true, OnPoint: func(int, int, PointResult) {
		if n++; n == 2 {
			cancel() // mid-way through the first chain of three λ
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	res, err := Run(context.Background(), decodeIn(t, spec, dir), Options{Out: out, NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 0 || res.Computed != 6 {
		t.Errorf("resumed %d, computed %d: the broken chain must be recomputed whole", res.Resumed, res.Computed)
	}
	if b := stripTiming(t, filepath.Join(out, "results.csv")); a != b {
		t.Errorf("resumed warm run differs from the uninterrupted one:\n%s\n%s", a, b)
	}
}

func TestWarmStartNeedsUnweightedCenters(t *testing.T) {
	spec := strings.NewReplacer("  m: 40", "  m: 40\n  approx: {type: bless}", "gamma: 1}", "}").Replace(warmSpec)
	_, err := Decode(strings.NewReader(spec), ".")
	if err == nil || !strings.Contains(err.Error(), "line 10: estimator.warm_start: warm_start does not apply to falkon with approx bless") {
		t.Errorf("got %v", err)
	}
}
