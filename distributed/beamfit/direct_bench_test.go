package beamfit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
)

// TestCovtypeDirectBench sets the one-pass form against the iterative one
// in one run: covtype.binary (standardized) in 16 shards through Prism,
// M = 2,000 (same centers, seed 1), σ = 4, λ = 1e-6; PCG with 10
// iterations (11 launches, shards cached) against Falkon.Direct (1 launch,
// n·M² flops, a 32 MB partial per shard). Run only with
// LANDMARK_BEAM_BENCH=1 and ../shared present:
//
//	cd distributed && LANDMARK_BEAM_BENCH=1 go test ./beamfit -run CovtypeDirectBench -v -timeout 60m
func TestCovtypeDirectBench(t *testing.T) {
	if os.Getenv("LANDMARK_BEAM_BENCH") == "" {
		t.Skip("set LANDMARK_BEAM_BENCH=1 to run the direct-vs-iterative benchmark")
	}
	ds, err := datasets.ReadFile(filepath.Join("..", "..", "..", "shared", "datasets", "covtype.binary.libsvm.gz"), datasets.ReadOptions{})
	if err != nil {
		t.Skip(err)
	}
	n, _ := ds.X.Dims()
	dir := filepath.Join(t.TempDir(), "covtype")
	if _, err := shard.WriteDir(dir, ds.X, ds.Y, (n+15)/16, true); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := kernel.GaussianSigma(4)
	const lambda, m, iters = 1e-6, 2000, 10
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load before: %s", load)
	manifest := filepath.Join(dir, shard.ManifestName)
	t0 := time.Now()
	it := &Falkon{Kernel: k, Lambda: lambda, M: m, Seed: 1, MaxIter: iters, Tol: 1e-14, CacheShards: true, Standardize: true}
	ri, err := it.Fit(ctx, manifest)
	if err != nil {
		t.Fatal(err)
	}
	iterTime := time.Since(t0)
	t1 := time.Now()
	dr := &Falkon{Kernel: k, Lambda: lambda, M: m, Seed: 1, CacheShards: true, Standardize: true, Direct: true}
	rd, err := dr.Fit(ctx, manifest)
	if err != nil {
		t.Fatal(err)
	}
	directTime := time.Since(t1)
	load, _ = os.ReadFile("/proc/loadavg")
	acc := func(r *FalkonResult) float64 {
		man, _ := os.ReadFile(manifest)
		mf, err := shard.ParseManifest(man)
		if err != nil {
			t.Fatal(err)
		}
		x, err := (&datasets.Standardizer{Mean: mf.Mean, Std: mf.Std}).Transform(ds.X)
		if err != nil {
			t.Fatal(err)
		}
		p, err := r.Model.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for i, v := range p {
			if v == ds.Y[i] {
				ok++
			}
		}
		return float64(ok) / float64(n)
	}
	t.Logf("PCG %d iterations: %.1f s in %d launches (training accuracy %.4f); direct: %.1f s in %d launch, pass %.1f s, driver solve %.1f s, jitter %g, residual %.2g (training accuracy %.4f); ratio direct/PCG %.2f",
		iters, iterTime.Seconds(), len(ri.Passes), acc(ri), directTime.Seconds(), len(rd.Passes), rd.Passes[0].Wall.Seconds(),
		(directTime - rd.Passes[0].Wall).Seconds(), rd.Jitter, rd.Model.Info().Residual, acc(rd), directTime.Seconds()/iterTime.Seconds())
	t.Logf("load after: %s", load)
}
