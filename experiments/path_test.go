package experiments

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

const pathSpec = `name: path
dataset: {path: data.libsvm, standardize: true}
task: regression
estimator:
  type: falkon
  kernel: {type: gaussian}
  approx: {type: bless, path: true}
  max_iter: 10
grid:
  gamma: [1]
  lambda: [1.0e-2, 1.0e-3, 1.0e-4]
cv: {folds: 3}
seed: 4
`

// TestBLESSPathShared: one BLESS path per fold and λ chain serves all λ
// (1 chain × 3 folds = 3 paths for 3 points × 3 folds = 9 fits), and a
// run cancelled mid-chain then resumed reproduces the uninterrupted one
// without recomputing finished points.
func TestBLESSPathShared(t *testing.T) {
	dir := writeSine(t, 150)
	s := decodeIn(t, pathSpec, dir)
	r, err := newRunner(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Grid.Points() {
		pr, err := r.evalPoint(context.Background(), 0, 3, p)
		if err != nil || pr.Error != "" {
			t.Fatalf("%s: %v %s", p.Key(), err, pr.Error)
		}
		steps := r.pathCache["cv0/0"]
		if len(steps) == 0 {
			t.Fatal("no path cached")
		}
		// The path ends at the chain's smallest λ, and smaller λ get at
		// least as many landmarks (d_eff(λ) grows as λ falls).
		if last := steps[len(steps)-1].Lambda; last > 1e-4*(1+1e-9) {
			t.Errorf("path ends at λ = %g, want 1e-4", last)
		}
		if a, b := len(pathStep(steps, 1e-2).Indices), len(pathStep(steps, 1e-4).Indices); b < a {
			t.Errorf("λ = 1e-4 has %d landmarks, fewer than %d at 1e-2", b, a)
		}
	}
	if r.pathRuns != 3 {
		t.Errorf("%d BLESS paths computed, want 3 (one per chain and fold)", r.pathRuns)
	}

	full := filepath.Join(t.TempDir(), "full")
	fres, err := Run(context.Background(), decodeIn(t, pathSpec, dir), Options{Out: full, NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	// results report the centers FALKON used: more as λ falls (points are
	// λ = 1e-2, 1e-3, 1e-4 in order).
	for i := 1; i < len(fres.Points); i++ {
		a, b := fres.Points[i-1].Info["centers"], fres.Points[i].Info["centers"]
		if a == 0 || b < a {
			t.Errorf("mean centers %v then %v: want positive and non-decreasing as λ falls", a, b)
		}
	}
	out := filepath.Join(t.TempDir(), "resumed")
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err = Run(ctx, decodeIn(t, pathSpec, dir), Options{Out: out, NoPlots: true, OnPoint: func(int, int, PointResult) {
		if n++; n == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	res, err := Run(context.Background(), decodeIn(t, pathSpec, dir), Options{Out: out, NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 2 || res.Computed != 1 {
		t.Errorf("resumed %d computed %d, want 2 and 1", res.Resumed, res.Computed)
	}
	if a, b := stripTiming(t, filepath.Join(full, "results.csv")), stripTiming(t, filepath.Join(out, "results.csv")); a != b {
		t.Errorf("resumed path run differs:\n%s\n%s", a, b)
	}
}

func TestBLESSPathSpecErrors(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{"  max_iter: 10", "  max_iter: 10\n  m: 50", "line 9: estimator.m: with approx path: true the BLESS path sets the centers"},
		{"{type: bless, path: true}", "{type: uniform, path: true}", `line 7: estimator.approx.path: approx option path does not apply to approx "uniform"`},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(strings.Replace(pathSpec, c.old, c.new, 1)), ".")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestBLESSPathSparse: a BLESS path run on a sparse LIBSVM file held as CSR
// (the path sampled from CSR rows, its centers handed to Falkon as CSR
// rows) scores as the same run with the file held dense, every metric to
// 1e-8 relative (the two differ by the rounding of kernel values, which CG
// at max_iter 10 does not amplify beyond that on this well-posed problem).
func TestBLESSPathSparse(t *testing.T) {
	dir := t.TempDir()
	x, y, err := datasets.SparseRegression(150, 400, 10, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteLIBSVMSparseFile(filepath.Join(dir, "data.libsvm"), x, y); err != nil {
		t.Fatal(err)
	}
	spec := func(storage string) string {
		return strings.Replace(strings.Replace(pathSpec, "standardize: true", "storage: "+storage, 1), "gamma: [1]", "gamma: [0.05]", 1)
	}
	var res [2]*Result
	for i, st := range []string{"sparse", "dense"} {
		r, err := Run(context.Background(), decodeIn(t, spec(st), dir), Options{Out: filepath.Join(t.TempDir(), st), NoPlots: true})
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if r.Storage != st {
			t.Fatalf("storage %q, want %q", r.Storage, st)
		}
		res[i] = r
	}
	for i, p := range res[0].Points {
		q := res[1].Points[i]
		for j, m := range p.Metrics {
			if w := q.Metrics[j].Mean; math.Abs(m.Mean-w) > 1e-8*math.Max(1, math.Abs(w)) {
				t.Errorf("%s %s: sparse %v, dense %v", p.Key, m.Name, m.Mean, w)
			}
		}
	}
}
