package beamfit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestCovtypeBench is the benchmark, run only with
// LANDMARK_BEAM_BENCH=1 and ../shared present:
//
//	cd distributed && LANDMARK_BEAM_BENCH=1 go test ./beamfit -run CovtypeBench -v -timeout 60m
//
// covtype.binary (581,012 × 54, standardized) in 16 shards through Prism,
// M = 2,000 uniform centers, 10 iterations, against model.Falkon with the
// same centers in the same process; it logs both times and the per-launch
// overhead (Beam pass wall time minus the local engine's time for the same
// product).
func TestCovtypeBench(t *testing.T) {
	if os.Getenv("LANDMARK_BEAM_BENCH") == "" {
		t.Skip("set LANDMARK_BEAM_BENCH=1 to run the covtype benchmark")
	}
	path := filepath.Join("..", "..", "..", "shared", "datasets", "covtype.binary.libsvm.gz")
	if p := os.Getenv("LANDMARK_COVTYPE"); p != "" {
		path = p
	}
	ds, err := datasets.ReadFile(path, datasets.ReadOptions{})
	if err != nil {
		t.Skip(err)
	}
	var sc datasets.Standardizer
	if err := sc.Fit(ds.X); err != nil {
		t.Fatal(err)
	}
	x, err := sc.Transform(ds.X)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := x.Dims()
	dir := filepath.Join(t.TempDir(), "covtype")
	if _, err := shard.WriteDir(dir, x, ds.Y, (n+15)/16, true); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := kernel.GaussianSigma(4)
	const lambda, m, iters = 1e-6, 2000, 10
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load before: %s", load)

	t0 := time.Now()
	bf := &Falkon{Kernel: k, Lambda: lambda, M: m, Seed: 1, MaxIter: iters, Tol: 1e-14, CacheShards: true,
		Progress: func(p Pass) {
			t.Logf("beam pass %2d residual %.3e %6.2f s %.3g rows/s", p.Iteration, p.Residual, p.Wall.Seconds(), float64(p.Rows)/p.Wall.Seconds())
		}}
	res, err := bf.Fit(ctx, filepath.Join(dir, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	beamTime := time.Since(t0)

	centers := res.Model.Solution().Centers
	t1 := time.Now()
	loc := &model.Falkon{Kernel: k, Lambda: lambda, Centers: centers, MaxIter: iters, Tol: 1e-14, Task: model.Classification}
	if err := loc.Fit(ctx, x, ds.Y); err != nil {
		t.Fatal(err)
	}
	localTime := time.Since(t1)

	// The local engine's time for one K_nMᵀ(K_nM v) product.
	v := mat.NewDense(m, 1, nil)
	for i := range m {
		v.Set(i, 0, 1/float64(i+1))
	}
	dst := mat.NewDense(m, 1, nil)
	t2 := time.Now()
	if err := kernel.NewOp(k, x, centers, kernel.Options{}).MulTMul(ctx, dst, v); err != nil {
		t.Fatal(err)
	}
	engine := time.Since(t2)
	var passSum time.Duration
	for _, p := range res.Passes[2:] { // iterations 2..10: shards cached
		passSum += p.Wall
	}
	perPass := passSum / time.Duration(len(res.Passes)-2)
	// The launch overhead itself: passes over a 1-row shard with M = 1.
	tiny := filepath.Join(t.TempDir(), "tiny")
	if _, err := shard.WriteDir(tiny, mat.NewDense(1, 1, []float64{1}), []float64{1}, 1, false); err != nil {
		t.Fatal(err)
	}
	var launches []time.Duration
	tf := &Falkon{Kernel: k, Lambda: lambda, M: 1, MaxIter: 5, Tol: 1e-300,
		Progress: func(p Pass) { launches = append(launches, p.Wall) }}
	if _, err := tf.Fit(ctx, filepath.Join(tiny, shard.ManifestName)); err != nil {
		t.Fatal(err)
	}
	slices.Sort(launches)
	t.Logf("launch overhead (1-row pass, %d launches): median %.3f s, min %.3f s, max %.3f s",
		len(launches), launches[len(launches)/2].Seconds(), launches[0].Seconds(), launches[len(launches)-1].Seconds())
	load, _ = os.ReadFile("/proc/loadavg")
	e := relDiff(res.Model.Solution().Coef, loc.Solution().Coef)
	t.Logf("beam (16 shards, Prism) %.1f s (solve %.1f s); local %.1f s (solve %.1f s); ratio %.2f",
		beamTime.Seconds(), res.Model.Info().SolveTime.Seconds(), localTime.Seconds(), loc.Info().SolveTime.Seconds(),
		beamTime.Seconds()/localTime.Seconds())
	t.Logf("per iteration: beam pass %.2f s (mean of iterations 2–10), local engine product %.2f s, local iteration %.2f s; coef rel diff %.2g",
		perPass.Seconds(), engine.Seconds(), loc.Info().SolveTime.Seconds()/iters, e)
	t.Logf("load after: %s", load)
	if !(e <= 1e-8) {
		t.Errorf("beam and local coefficients differ by %.3g relative", e)
	}
}
