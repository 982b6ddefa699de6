package model

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strconv"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Opt-in measurements on a shard set named by LANDMARK_SHARDS
// (DIR/manifest.json, for example from `landmark data synth higgs`); they
// assert nothing about time and are skipped without it:
//
//	LANDMARK_SHARDS=DIR/manifest.json go test ./model -run TestShardReadRate -v
//	LANDMARK_SHARDS=… LANDMARK_SHARDS_MODE=compare go test ./model -run TestFitShardsLarge -v -timeout 1h
//	go test -c -o /tmp/model.test ./model && LANDMARK_SHARDS=… LANDMARK_SHARDS_MODE=stream \
//	    /usr/bin/time -v /tmp/model.test -test.run TestFitShardsLarge -test.v
//
// LANDMARK_SHARDS_M (default 2000) and LANDMARK_SHARDS_ITER (5) set M and
// the iterations; σ = √d, λ = 1e-6, standardized on read.
func largeShards(t *testing.T) *ShardSet {
	p := os.Getenv("LANDMARK_SHARDS")
	if p == "" {
		t.Skip("LANDMARK_SHARDS not set")
	}
	set, err := OpenShards(p)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// TestShardReadRate reads the set as a pass does, without computing
// (ShardSet.Verify: decode, standardize, CRC), then each file with
// `dd bs=1M of=/dev/null`, through the page cache and with O_DIRECT, and
// logs the rates. Verify reads through the page cache: when the files are
// cached, it is decoding against copying; dd iflag=direct is the disk.
func TestShardReadRate(t *testing.T) {
	set := largeShards(t)
	set.Mean, set.Std = set.Manifest.Mean, set.Manifest.Std
	st, err := set.Verify(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Verify: %d rows, %.1f MB in %v: %.3g rows/s, %.0f MB/s (computation waited %v)",
		st.Rows, float64(st.Bytes)/1e6, st.Wall.Round(time.Millisecond), st.RowsPerSec(), st.MBPerSec(), st.Wait)
	// dd through the page cache, then with O_DIRECT (iflag=direct: from
	// the disk, the sequential rate a pass over data larger than memory
	// gets at best).
	for _, flags := range [][]string{nil, {"iflag=direct"}} {
		start := time.Now()
		for s := range set.Manifest.Shards {
			args := append([]string{"if=" + set.Path(s), "of=/dev/null", "bs=1M"}, flags...)
			out, err := exec.Command("dd", args...).CombinedOutput()
			if err != nil {
				t.Fatalf("dd: %v: %s", err, out)
			}
		}
		wall := time.Since(start)
		t.Logf("dd bs=1M %v: %.1f MB in %v: %.0f MB/s", flags, float64(st.Bytes)/1e6, wall.Round(time.Millisecond), float64(st.Bytes)/1e6/wall.Seconds())
	}
}

// TestFitShardsLarge fits on the set with FitShardSet, logging every
// pass; with LANDMARK_SHARDS_MODE=compare it then loads X, fits Fit with
// the same centers and logs the difference of the decision values on the
// training rows (max relative and relative 2-norm).
func TestFitShardsLarge(t *testing.T) {
	set := largeShards(t)
	mode := os.Getenv("LANDMARK_SHARDS_MODE")
	if mode != "stream" && mode != "compare" {
		t.Skip("LANDMARK_SHARDS_MODE is not stream or compare")
	}
	man := set.Manifest
	set.Mean, set.Std = man.Mean, man.Std
	base := Falkon{Kernel: kernel.GaussianSigma(math.Sqrt(float64(man.D))), Lambda: 1e-6, M: envInt("LANDMARK_SHARDS_M", 2000),
		MaxIter: envInt("LANDMARK_SHARDS_ITER", 5), Tol: 1e-14}
	if lim := os.Getenv("LANDMARK_SHARDS_MEMORY"); lim != "" {
		v, _ := strconv.ParseInt(lim, 10, 64)
		base.MemoryLimit = v
	}
	sm := base
	sm.Progress = func(p Progress) error {
		if p.Stage == StagePass && os.Getenv("LANDMARK_SHARDS_HEAP") != "" {
			// The live heap after the pass (a GC first), and its profile.
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			t.Logf("after pass %d: live heap %s", p.Done, formatBytes(int64(ms.HeapAlloc)))
			if f, err := os.Create(fmt.Sprintf("%s/heap-%d.prof", os.Getenv("LANDMARK_SHARDS_HEAP"), p.Done)); err == nil {
				pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
		if p.Stage == StagePass {
			t.Logf("pass %d/%d: %d rows, %.1f MB in %v (waited %v for I/O): %.3g rows/s, %.0f MB/s",
				p.Done, p.Total, p.Rows, float64(p.Bytes)/1e6, p.PassTime.Round(time.Millisecond), p.IOWait.Round(time.Millisecond), p.RowsPerSec, p.MBPerSec)
		}
		return nil
	}
	start := time.Now()
	if err := sm.FitShardSet(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	info := sm.Info()
	t.Logf("FitShards: n = %d, d = %d, M = %d, %d iterations, residual %.3g, %v; plan %s (data %s, engine %s, precond %s)",
		info.N, info.D, info.M, info.Iterations, info.Residual, time.Since(start).Round(time.Millisecond),
		formatBytes(info.Plan.Total), formatBytes(info.Plan.Data), formatBytes(info.Plan.Engine), formatBytes(info.Plan.Precond))
	if mode != "compare" {
		return
	}
	x := mat.NewDense(man.N, man.D, nil)
	y := make([]float64, man.N)
	for s, e := range man.Shards {
		f, err := os.Open(set.Path(s))
		if err != nil {
			t.Fatal(err)
		}
		xs, ys, err := shard.Read(f, e.Rows, man.D)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		x.Slice(e.FirstRow, e.FirstRow+e.Rows, 0, man.D).(*mat.Dense).Copy(xs)
		copy(y[e.FirstRow:], ys)
	}
	set.Standardize(x.RawMatrix().Data)
	ref := base
	ref.Task = sm.fit.task
	ref.Centers = sm.Solution().Centers
	start = time.Now()
	if err := ref.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	t.Logf("Fit (X in memory): %v", time.Since(start).Round(time.Millisecond))
	ds, _ := sm.DecisionFunction(x)
	dr, _ := ref.DecisionFunction(x)
	var num, den float64
	for i, v := range dr.RawMatrix().Data {
		e := ds.RawMatrix().Data[i] - v
		num += e * e
		den += v * v
	}
	t.Logf("decision values on the %d training rows: max relative %.3g, relative 2-norm %.3g", man.N,
		maxRel(ds.RawMatrix().Data, dr.RawMatrix().Data), math.Sqrt(num/den))
}
