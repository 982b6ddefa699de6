package experiments

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const paperApproxSpec = `name: paper-approx
dataset: {path: data.libsvm, standardize: true}
approximation:
  kernel: {type: gaussian, gamma: 0.5}
  methods: [uniform, uniform-qr, rff]
  rank: 10
  measures: [frobenius]
  rows: 200
grid: {m: [10, 40]}
seed: 1
paper:
  source: "Test paper, Table 1"
  note: "setting differs"
  figures:
    - {what: "uniform at m = 40", paper: 0.0123, metric: frobenius, method: uniform, at: {m: 40}}
  claims:
    - {what: "QR never worse", lower: uniform-qr, than: uniform, metric: frobenius, paper: "0.1 vs 0.2"}
    - {what: "Nyström beats features", lower: uniform, than: rff, metric: frobenius}
`

// TestPaperBesideApproximation checks the paper table of an approximation
// run against the run's own points: the figure's value is the point it
// names, and each claim's count is recomputed here from the points.
func TestPaperBesideApproximation(t *testing.T) {
	dir := writeSine(t, 200)
	s := decodeIn(t, paperApproxSpec, dir)
	res, err := Run(context.Background(), s, Options{Out: filepath.Join(t.TempDir(), "out"), NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	val := func(key string) float64 {
		for _, p := range res.Points {
			if p.Key == key {
				m, _ := p.Metric(MeasureFrobenius)
				return m.Mean
			}
		}
		t.Fatalf("no point %s", key)
		return 0
	}
	count := func(lo, th string) int {
		n := 0
		for _, m := range []string{"10", "40"} {
			if val("method="+lo+",m="+m) < val("method="+th+",m="+m) {
				n++
			}
		}
		return n
	}
	lines := res.Paper()
	if len(lines) != 3 {
		t.Fatalf("%d paper lines, want 3: %+v", len(lines), lines)
	}
	if want := fmt.Sprintf("%.4g", val("method=uniform,m=40")); lines[0].Ours != want || lines[0].Paper != "0.0123" {
		t.Errorf("figure: %+v, want paper 0.0123, ours %s", lines[0], want)
	}
	if lines[1].Paper != "0.1 vs 0.2" || lines[2].Paper != "uniform < rff" {
		t.Errorf("claim paper columns %q, %q", lines[1].Paper, lines[2].Paper)
	}
	for i, c := range [][2]string{{"uniform-qr", "uniform"}, {"uniform", "rff"}} {
		want := fmt.Sprintf("holds at %d of 2 points", count(c[0], c[1]))
		if !strings.HasPrefix(lines[i+1].Ours, want) {
			t.Errorf("claim %s < %s: %q, want prefix %q", c[0], c[1], lines[i+1].Ours, want)
		}
	}
	b, err := os.ReadFile(filepath.Join(res.Out, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "## Beside the paper\n\nTest paper, Table 1. setting differs") {
		t.Errorf("summary.md has no paper section:\n%s", b)
	}
	// The paper block changes nothing computed, so it is not in the hash.
	plain := decodeIn(t, paperApproxSpec[:strings.Index(paperApproxSpec, "paper:")], dir)
	if plain.Hash() != s.Hash() {
		t.Error("the paper block changed the spec hash")
	}
}

// TestPaperBesideEstimator: without at, a figure of an estimator run is the
// test score of the refit.
func TestPaperBesideEstimator(t *testing.T) {
	dir := writeSine(t, 160)
	spec := strings.Replace(sineSpec, "  gamma: [0.001, 0.3, 1, 3, 1000]\n  lambda: [10, 1.0e-3, 1.0e-6]", "  gamma: [0.3, 1]\n  lambda: [1.0e-3]", 1) +
		"paper:\n  source: Test paper\n  figures:\n    - {what: test RMSE, paper: 0.1, metric: rmse}\n    - {what: CV R² at γ = 1, paper: 0.9, metric: r2, at: {gamma: 1}}\n" +
		"    - {what: CV R² at γ = 1 again, statement: \"fits well (no number given)\", metric: r2, at: {gamma: 1}}\n"
	s := decodeIn(t, spec, dir)
	res, err := Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Test == nil {
		t.Fatal("no test result")
	}
	var rmse float64
	for _, m := range res.Test.Metrics {
		if m.Name == "rmse" {
			rmse = m.Mean
		}
	}
	var r2 float64
	for _, p := range res.Points {
		if v, _ := p.Params.Value("gamma"); v == 1 {
			m, _ := p.Metric("r2")
			r2 = m.Mean
		}
	}
	lines := res.Paper()
	if len(lines) != 3 || lines[0].Ours != fmt.Sprintf("%.4g (test)", rmse) || lines[1].Ours != fmt.Sprintf("%.4g (CV)", r2) {
		t.Fatalf("paper lines %+v; want test RMSE %.4g and CV R² %.4g", lines, rmse, r2)
	}
	// A statement stands in the paper column for a number.
	if lines[1].Paper != "0.9" || lines[2].Paper != "fits well (no number given)" || lines[2].Ours != lines[1].Ours {
		t.Errorf("statement line %+v beside %+v", lines[2], lines[1])
	}
}

func TestPaperSpecErrors(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{`source: "Test paper, Table 1"`, `source: ""`, "paper.source: missing source"},
		{`metric: frobenius, method: uniform,`, `metric: spectral, method: uniform,`, `line 15: paper.figures[0].metric: metric "spectral" is not one of this run's (frobenius)`},
		{`method: uniform, at`, `method: rls, at`, `paper.figures[0].method: method "rls" is not one of this run's`},
		{`at: {m: 40}`, `at: {m: 30}`, "paper.figures[0].at.m: m = 30 is not among the grid's values"},
		{`at: {m: 40}`, `at: {rank: 10}`, "rank is not a grid axis"},
		{`, at: {m: 40}}`, `}`, "missing at: the grid has several points"},
		{`lower: uniform, than: rff`, `lower: rff, than: rff`, "lower and than are both rff"},
		{`metric: frobenius, paper: "0.1`, `metric: frobenius, papr: "0.1`, `line 17: paper.claims[0].papr: unknown key`},
		{`  note: "setting differs"`, `  notes: "setting differs"`, `paper.notes: unknown key "notes"`},
	}
	for _, c := range cases {
		spec := strings.Replace(paperApproxSpec, c.old, c.new, 1)
		if spec == paperApproxSpec {
			t.Fatalf("case %q does not change the spec", c.old)
		}
		_, err := Decode(strings.NewReader(spec), ".")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: got %v, want %q", c.old, c.new, err, c.want)
		}
	}
	est := sineSpec + "paper:\n  source: x\n  claims:\n    - {what: c, lower: a, than: b, metric: rmse}\n"
	if _, err := Decode(strings.NewReader(est), "."); err == nil || !strings.Contains(err.Error(), "claims compare approximation methods") {
		t.Errorf("claims on an estimator run: %v", err)
	}
	est = sineSpec + "paper:\n  source: x\n  figures:\n    - {what: f, paper: 1, statement: s, metric: rmse}\n"
	if _, err := Decode(strings.NewReader(est), "."); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("paper and statement in one figure: %v", err)
	}
	est = sineSpec + "paper:\n  source: x\n  figures:\n    - {what: f, paper: 1, metric: accuracy}\n"
	if _, err := Decode(strings.NewReader(est), "."); err == nil || !strings.Contains(err.Error(), `metric "accuracy" is not one of this run's`) {
		t.Errorf("classification metric on a regression run: %v", err)
	}
}

func TestPaperNum(t *testing.T) {
	for v, want := range map[float64]string{0.0123: "0.0123", 0.98494: "0.9849", 1234.56: "1235", 58039.2: "58039", -72944.3: "-72944", 1e20: "1e+20"} {
		if got := paperNum(v); got != want {
			t.Errorf("paperNum(%v) = %q, want %q", v, got, want)
		}
	}
}
