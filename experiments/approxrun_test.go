package experiments

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const approxSpec = `name: approx
dataset: {path: data.libsvm, standardize: true}
approximation:
  kernel: {type: gaussian, gamma: 0.5}
  methods: [uniform, uniform-qr, rls, kmeans, rff, meka, bka]
  rank: 10
  clusters: 4
  rows: 300
  subset: 300
grid: {m: [20, 80]}
repeats: 2
seed: 1
`

// TestApproximationRun checks the approximation-only path against facts
// that hold exactly or by the papers' claims on a 300-point problem:
// QR rank-k (Alg. 2) is never worse than standard rank-k from the same
// landmarks (Pourkamali-Anaraki & Becker, Alg. 2: it is the best rank-k
// approximation within the span of C), and more features (RFF) or a larger
// total rank (MEKA) lower the error.
func TestApproximationRun(t *testing.T) {
	dir := writeSine(t, 300)
	s := decodeIn(t, approxSpec, dir)
	res, err := Run(context.Background(), s, Options{Out: filepath.Join(t.TempDir(), "out")})
	if err != nil {
		t.Fatal(err)
	}
	// 6 methods × 2 m values + bka once.
	if len(res.Points) != 13 {
		t.Fatalf("%d points, want 13", len(res.Points))
	}
	get := func(key, measure string) float64 {
		t.Helper()
		for _, p := range res.Points {
			if p.Key == key {
				if p.Error != "" {
					t.Fatalf("%s failed: %s", key, p.Error)
				}
				m, _ := p.Metric(measure)
				return m.Mean
			}
		}
		t.Fatalf("no point %s", key)
		return 0
	}
	for _, meas := range []string{MeasureFrobenius, MeasureSpectral} {
		for _, m := range []string{"20", "80"} {
			std, qr := get("method=uniform,m="+m, meas), get("method=uniform-qr,m="+m, meas)
			// Equal landmarks (same seed per repeat); 1e-9 absorbs round-off.
			if qr > std+1e-9 {
				t.Errorf("%s m=%s: QR rank-k error %v above standard rank-k %v", meas, m, qr, std)
			}
		}
		// (The Nyström methods are truncated to rank 10 here, so only the
		// untruncated ones must improve with m.)
		for _, meth := range []string{"rff", "meka"} {
			if a, b := get("method="+meth+",m=20", meas), get("method="+meth+",m=80", meas); b >= a {
				t.Errorf("%s %s: error %v at m=80 not below %v at m=20", meas, meth, b, a)
			}
		}
	}
	for _, p := range res.Points {
		if p.Bytes <= 0 {
			t.Errorf("%s: no memory recorded", p.Key)
		}
	}
	for _, f := range []string{"frobenius_error_vs_m.png", "spectral_error_vs_time.svg", "frobenius_error_vs_memory.png"} {
		if _, err := os.Stat(filepath.Join(res.Out, f)); err != nil {
			t.Errorf("missing plot %s", f)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(res.Out, "results.csv"))
	if !strings.HasPrefix(string(csv), "index,method,m,fits,frobenius_mean,frobenius_std,spectral_mean,spectral_std,bytes,") {
		t.Errorf("unexpected CSV header: %s", strings.SplitN(string(csv), "\n", 2)[0])
	}
}

func TestApproximationSpecErrors(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{"methods: [uniform, uniform-qr, rls, kmeans, rff, meka, bka]", "methods: [uniform, nystrom]", `line 5: approximation.methods[1]: unknown approximation "nystrom"`},
		{"grid: {m: [20, 80]}", "grid: {m: [20, 0]}", "line 10: grid.m[1]: m = 0"},
		{"grid: {m: [20, 80]}", "grid: {lambda: [1]}", `line 10: grid.lambda: unknown grid parameter "lambda"`},
		{"seed: 1", "seed: 1\ntask: regression", "line 13: task: approximation runs have no task"},
		{"  rank: 10", "  rank: 10\n  measures: [nuclear]", `line 7: approximation.measures[0]: unknown measure "nuclear"`},
	}
	for _, c := range cases {
		_, err := Decode(strings.NewReader(strings.Replace(approxSpec, c.old, c.new, 1)), ".")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	dir := writeSine(t, 50)
	s := decodeIn(t, strings.Replace(approxSpec, "[20, 80]", "[20, 800]", 1), dir)
	if _, err := Run(context.Background(), s, Options{Out: t.TempDir(), NoPlots: true}); err == nil || !strings.Contains(err.Error(), "line 10") {
		t.Errorf("m > n: %v", err)
	}
}

// TestApproximationScales: approximation runs see the scaled features
// (standardize: every column mean 0, standard deviation 1).
func TestApproximationScales(t *testing.T) {
	dir := writeSine(t, 100)
	r, err := newRunner(decodeIn(t, approxSpec, dir), Options{})
	if err != nil {
		t.Fatal(err)
	}
	n, d := r.x.Dims()
	for j := 0; j < d; j++ {
		var s, ss float64
		for i := 0; i < n; i++ {
			v := r.x.At(i, j)
			s += v
			ss += v * v
		}
		if mean, v := s/float64(n), ss/float64(n); mean > 1e-12 || mean < -1e-12 || v < 1-1e-12 || v > 1+1e-12 {
			t.Errorf("column %d: mean %v, variance %v after standardize", j, mean, v)
		}
	}
}

const approxSparseSpec = `name: approx-sparse
dataset: {path: data.svmSTORAGE}
approximation:
  kernel: {type: gaussian, gamma: 0.1}
  methods: [uniform, uniform-qr, rls, bless, kmeans, clustered, exact-rls, rff, meka, bka]
  clusters: 3
  rows: 200
  subset: 200
grid: {m: [30]}
seed: 2
`

// TestApproximationSparseMatchesDense: an approximation run on a LIBSVM file
// of density 0.05 keeps X sparse by default (storage auto) and gives every
// method's errors as the same run with storage: dense, to 1e-9 relative.
// Same seed, so the same landmarks, clusters and sampled rows; the
// kernel values differ only by round-off (‖x‖² + ‖c‖² − 2x·c from the
// non-zeros), which the leverage scores, k-means and Lanczos see as such.
func TestApproximationSparseMatchesDense(t *testing.T) {
	dir := writeSparseSet(t, 300, 100, 5)
	res := map[string]*Result{}
	for _, st := range []string{"", ", storage: dense"} {
		s := decodeIn(t, strings.Replace(approxSparseSpec, "STORAGE", st, 1), dir)
		r, err := Run(context.Background(), s, Options{Out: filepath.Join(t.TempDir(), "out")})
		if err != nil {
			t.Fatal(err)
		}
		res[st] = r
	}
	sp, de := res[""], res[", storage: dense"]
	if sp.Storage != StorageSparse || de.Storage != StorageDense {
		t.Fatalf("storage: auto %q (%s), dense %q", sp.Storage, sp.StorageReason, de.Storage)
	}
	if len(sp.Points) != 10 || len(de.Points) != 10 {
		t.Fatalf("%d and %d points, want 10", len(sp.Points), len(de.Points))
	}
	for i, p := range sp.Points {
		q := de.Points[i]
		if p.Error != "" || q.Error != "" || p.Key != q.Key {
			t.Fatalf("point %d: %s (%s) vs %s (%s)", i, p.Key, p.Error, q.Key, q.Error)
		}
		for _, meas := range []string{MeasureFrobenius, MeasureSpectral} {
			a, _ := p.Metric(meas)
			b, _ := q.Metric(meas)
			if !(math.Abs(a.Mean-b.Mean) <= 1e-9*b.Mean) || !(b.Mean > 0) {
				t.Errorf("%s %s: sparse %.12g, dense %.12g", p.Key, meas, a.Mean, b.Mean)
			}
		}
	}
}
