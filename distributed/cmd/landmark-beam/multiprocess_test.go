package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/distributed/beamfit"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// freePort returns a TCP port nothing listens on now (the kernel's choice;
// another program could take it before the server does, unlikely in a test).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestMultiProcess runs scripts/multiprocess.sh: Beam's prism job server,
// a worker pool (landmark-beam worker-pool, the EXTERNAL environment) and
// the driver (landmark-beam falkon) as three OS processes, on the first
// 4,000 rows of cadata in 4 shards (M = 100, σ = 2, λ = 1e-6, 5
// iterations, standardized), with the worker pool process exiting in the
// middle of pass 1 (LANDMARK_BEAMFIT_CRASH_ONCE): the script restarts the
// pool, the driver launches pass 1 again after --retry-wait 1s (one log
// line, one restart asserted). The saved model must equal the in-process
// Prism fit of the same configuration bit for bit: the centers come from
// the same seed over the same global rows, every shard's partial sum is
// the same engine code on the same bytes whichever process runs it, and
// the Combine adds the partials in shard order, so neither the other
// processes nor the lost pass change a bit. The pools' log must show at
// least one worker stopped per successful launch (6: K_nMᵀy and 5
// iterations), i.e. the job server ran the passes in the pool processes. Skipped when prism cannot be
// built here (no go command, or Beam's module not in the module cache and
// no proxy).
func TestMultiProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds prism and landmark-beam and starts three processes; skipped with -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build prism with: the multi-process run is not tested")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run scripts/multiprocess.sh")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin := t.TempDir()
	module, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	build := exec.CommandContext(ctx, goCmd, "build", "-o", filepath.Join(bin, "prism"), "github.com/apache/beam/sdks/v2/go/cmd/prism")
	build.Dir = module
	if out, err := build.CombinedOutput(); err != nil {
		t.Skipf("prism (Beam's job server) cannot be built here, so the multi-process run is not tested: %v\n%s", err, out)
	}
	build = exec.CommandContext(ctx, goCmd, "build", "-o", filepath.Join(bin, "landmark-beam"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building landmark-beam: %v\n%s", err, out)
	}

	train, err := datasets.Load("cadata")
	if err != nil {
		t.Fatal(err)
	}
	const rows = 4000
	_, d := train.X.Dims()
	x := mat.DenseCopyOf(train.X.Slice(0, rows, 0, d))
	y := make([]float64, rows)
	for i := range y {
		y[i] = train.Y[i] / 1e5
	}
	data := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(data, x, y, rows/4, false); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(data, shard.ManifestName)
	saved := filepath.Join(bin, "mp.lmk")
	logs := t.TempDir()
	script := exec.CommandContext(ctx, "bash", filepath.Join(module, "scripts", "multiprocess.sh"),
		"--data", manifest, "--m", "100", "--sigma", "2", "--lambda", "1e-6", "--iter", "5", "--standardize",
		"--save", saved, "--work_dir", t.TempDir(), "--retry-wait", "1s")
	script.Env = append(os.Environ(), "BIN="+bin, "PRISM="+filepath.Join(bin, "prism"),
		"LANDMARK_BEAM="+filepath.Join(bin, "landmark-beam"), "LOG_DIR="+logs,
		"JOB_PORT="+strconv.Itoa(freePort(t)), "POOL_PORT="+strconv.Itoa(freePort(t)),
		// The worker pool process exits in the middle of pass 1 (its third
		// shard product of an iteration: shard 2 of 4), once.
		"LANDMARK_BEAMFIT_CRASH_ONCE="+filepath.Join(bin, "crashed"))
	out, err := script.CombinedOutput()
	t.Logf("multiprocess.sh:\n%s", out)
	if err != nil {
		pool, _ := os.ReadFile(filepath.Join(logs, "pool.log"))
		prism, _ := os.ReadFile(filepath.Join(logs, "prism.log"))
		t.Fatalf("multiprocess.sh: %v\npool.log:\n%s\nprism.log:\n%s", err, pool, prism)
	}
	pool, err := os.ReadFile(filepath.Join(logs, "pool.log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(pool), "stopping worker"); n < 6 {
		t.Fatalf("the worker pools stopped %d workers, want at least 6 (one per pass):\n%s", n, pool)
	}
	if n := strings.Count(string(pool), "worker pool exited, restarting it"); n != 1 {
		t.Fatalf("the worker pool was restarted %d times, want once:\n%s", n, pool)
	}
	if n := strings.Count(string(out), "pass 1 (multmul) failed (attempt 1 of 3), re-running it"); n != 1 ||
		strings.Contains(string(out), "attempt 2 of 3") {
		t.Fatalf("want pass 1 re-run once after the worker process died, got:\n%s", out)
	}

	fit, err := experiments.LoadFitFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	mp, ok := fit.Estimator.(*model.Falkon)
	if !ok {
		t.Fatalf("saved model is %T, want *model.Falkon", fit.Estimator)
	}
	f := &beamfit.Falkon{Kernel: kernel.GaussianSigma(2), Lambda: 1e-6, M: 100, Seed: 1, MaxIter: 5,
		Standardize: true, CacheShards: true, Logf: t.Logf}
	res, err := f.Fit(ctx, manifest)
	if err != nil {
		t.Fatal(err)
	}
	got, want := mp.Solution(), res.Model.Solution()
	if !mat.Equal(got.Centers, want.Centers) {
		t.Fatal("the multi-process fit drew other centers than the in-process one")
	}
	if !mat.Equal(got.Coef, want.Coef) {
		var diff mat.Dense
		diff.Sub(got.Coef, want.Coef)
		t.Fatalf("multi-process α differs from the in-process fit's: ‖δα‖/‖α‖ = %.3g", mat.Norm(&diff, 2)/mat.Norm(want.Coef, 2))
	}
}
