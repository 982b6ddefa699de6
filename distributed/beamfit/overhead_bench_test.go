package beamfit

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestPassOverheadBench splits the time of one Beam pass (covtype.binary,
// 16 shards, M = 2,000, shards cached) into its parts, all in one run:
// the local engine's K_nMᵀ(K_nM v) on the whole matrix, the same product
// as 16 per-shard engine calls in sequence (what the workers compute), an
// empty pipeline (Create, ParDo, Combine, no data), and the Beam pass.
// Run only with LANDMARK_BEAM_BENCH=1 and ../shared present:
//
//	cd distributed && LANDMARK_BEAM_BENCH=1 go test ./beamfit -run PassOverheadBench -v -timeout 30m
func TestPassOverheadBench(t *testing.T) {
	if os.Getenv("LANDMARK_BEAM_BENCH") == "" {
		t.Skip("set LANDMARK_BEAM_BENCH=1 to run the pass overhead benchmark")
	}
	ds, err := datasets.ReadFile(filepath.Join("..", "..", "..", "shared", "datasets", "covtype.binary.libsvm.gz"), datasets.ReadOptions{})
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
	n, d := x.Dims()
	const shards, m, reps = 16, 2000, 3
	rows := (n + shards - 1) / shards
	dir := filepath.Join(t.TempDir(), "covtype")
	if _, err := shard.WriteDir(dir, x, ds.Y, rows, true); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	k := kernel.GaussianSigma(4)
	centers := mat.DenseCopyOf(x.Slice(0, m, 0, d))
	v := mat.NewDense(m, 1, nil)
	for i := range m {
		v.Set(i, 0, 1/float64(i+1))
	}
	dst := mat.NewDense(m, 1, nil)
	timeIt := func(f func() error) time.Duration {
		best := time.Duration(1<<63 - 1)
		for range reps {
			t0 := time.Now()
			if err := f(); err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(t0))
		}
		return best
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load before: %s", load)
	whole := timeIt(func() error { return kernel.NewOp(k, x, centers, kernel.Options{}).MulTMul(ctx, dst, v) })
	perShard := timeIt(func() error {
		for r0 := 0; r0 < n; r0 += rows {
			op := kernel.NewOp(k, x.Slice(r0, min(n, r0+rows), 0, d).(*mat.Dense), centers, kernel.Options{})
			if err := op.MulTMul(ctx, dst, v); err != nil {
				return err
			}
		}
		return nil
	})
	empty := timeIt(func() error {
		p, s := beam.NewPipelineWithRoot()
		idx := make([]int, shards)
		col := beam.Reshuffle(s, beam.CreateList(s, idx))
		beam.Combine(s, &orderedSum{}, beam.ParDo(s, func(i int) part { return part{Shard: i, Sum: make([]float64, m)} }, col))
		return Prism(ctx, p)
	})
	work := t.TempDir()
	cp := filepath.Join(work, "centers.lmks")
	if err := writeCenters(ctx, cp, centers); err != nil {
		t.Fatal(err)
	}
	spec, _ := kernel.SpecOf(k)
	fn := passFn{Dir: dir, D: d, Centers: cp, M: m, Kernel: spec, T: 1, Mode: modeMulTMul,
		V: v.RawMatrix().Data, CacheShards: true}
	for r0 := 0; r0 < n; r0 += rows {
		fn.Files = append(fn.Files, filepath.Base(filepath.Join(dir, "x")))
		fn.Rows = append(fn.Rows, min(n, r0+rows)-r0)
	}
	man, err := os.ReadFile(filepath.Join(dir, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	mf, err := shard.ParseManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range mf.Shards {
		fn.Files[i] = e.File
	}
	i := 0
	first := time.Now()
	if _, err := runPass(ctx, Prism, &fn, shards, filepath.Join(work, "warm.json")); err != nil {
		t.Fatal(err)
	}
	cold := time.Since(first)
	pass := timeIt(func() error {
		i++
		_, err := runPass(ctx, Prism, &fn, shards, filepath.Join(work, "pass.json"))
		return err
	})
	load, _ = os.ReadFile("/proc/loadavg")
	t.Logf("best of %d: whole-matrix engine product %.3f s; 16 per-shard engine products %.3f s; empty 16-element pipeline %.3f s; Beam pass %.3f s (first, decoding shards: %.3f s)",
		reps, whole.Seconds(), perShard.Seconds(), empty.Seconds(), pass.Seconds(), cold.Seconds())
	t.Logf("load after: %s", load)
}
