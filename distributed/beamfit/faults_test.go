package beamfit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// faultIters is the CG iteration count of the fault tests: enough passes
// to stop or fail in the middle of the solve, few enough to keep each fit
// under a second on Prism.
const faultIters = 6

// faultData writes the first 1,500 rows of cadata as 3 shards of 500 rows
// and returns the manifest's path.
func faultData(t *testing.T) string {
	t.Helper()
	x, y := cadata(t, 1500)
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(dir, x, y, 500, false); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, shard.ManifestName)
}

// faultFit is the fit every fault test runs: M = 40, λ = 1e-4, 6
// iterations (Tol 1e-14 so that all run), 3 shards.
func faultFit(work string, logs *logLines) *Falkon {
	f := &Falkon{Kernel: kernel.GaussianSigma(2), Lambda: 1e-4, M: 40, Seed: 3, MaxIter: faultIters, Tol: 1e-14,
		WorkDir: work, CacheShards: true, RetryWait: time.Millisecond}
	if logs != nil {
		f.Logf = logs.logf
	}
	return f
}

// logLines collects a fit's log lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// setFaultHook installs faultHook for one test.
func setFaultHook(t *testing.T, h func(mode string, shard int) error) {
	faultHook = h
	t.Cleanup(func() { faultHook = nil })
}

// reference fits the fault tests' problem undisturbed (in its own work
// folder) and returns the coefficients.
func reference(t *testing.T, manifest string) *FalkonResult {
	t.Helper()
	res, err := faultFit(t.TempDir(), nil).Fit(context.Background(), manifest)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Model.Info().Iterations; got != faultIters {
		t.Fatalf("reference fit ran %d iterations, want %d", got, faultIters)
	}
	return res
}

// TestFalkonCorruptShard flips one byte in the middle of shard 1's data:
// a fit whose centers are given (so only the workers read shards) must
// fail with an error naming that shard's index and file and the checksum
// mismatch (CRC-32 detects every 8-bit burst), after the bounded number of
// launches — never sum the other two shards without it. The driver's own
// reads (the rows BLESS and the centers come from) must fail
// the same way, there with shard.ErrChecksum reachable by errors.Is.
func TestFalkonCorruptShard(t *testing.T) {
	manifest := faultData(t)
	file := filepath.Join(filepath.Dir(manifest), "shard-00001.lmks")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x10
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// Uniform centers: the driver reads the sampled rows, one is in shard 1.
	_, err = faultFit(t.TempDir(), nil).Fit(context.Background(), manifest)
	if !errors.Is(err, shard.ErrChecksum) || !strings.Contains(err.Error(), "shard-00001.lmks") {
		t.Fatalf("driver read of a corrupt shard: err = %v, want shard.ErrChecksum naming shard-00001.lmks", err)
	}
	// Given centers: only the workers read the shards.
	x, _ := cadata(t, 40)
	var logs logLines
	f := faultFit(t.TempDir(), &logs)
	f.Centers = x
	_, err = f.Fit(context.Background(), manifest)
	if err == nil {
		t.Fatal("fit on a corrupt shard succeeded")
	}
	for _, want := range []string{"shard 1", "shard-00001.lmks", "checksum mismatch", "pass 0 (mult) failed 3 times"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if n := logs.count("re-running"); n != DefaultAttempts-1 {
		t.Errorf("%d re-run log lines, want %d: %q", n, DefaultAttempts-1, logs.lines)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFalkonRetriesFailedPass injects one failure into a worker: the
// third time shard 2 computes an iteration's product (CG iteration 3, pass
// 3), its bundle fails once. The pass must be launched again (Pass.Attempts
// = 2 for that pass, 1 for the other six, one log line) and the model must
// equal the undisturbed fit's bit for bit: a re-run computes the same sums
// in the same order. With Attempts = 1 the same fault fails the fit, and a
// fault that never clears fails it after DefaultAttempts launches.
func TestFalkonRetriesFailedPass(t *testing.T) {
	manifest := faultData(t)
	ref := reference(t, manifest)
	once := func() func(string, int) error {
		var calls atomic.Int32
		return func(mode string, s int) error {
			if mode == modeMulTMul && s == 2 && calls.Add(1) == 3 {
				return errors.New("injected worker failure")
			}
			return nil
		}
	}
	setFaultHook(t, once())
	var logs logLines
	res, err := faultFit(t.TempDir(), &logs).Fit(context.Background(), manifest)
	if err != nil {
		t.Fatal(err)
	}
	var attempts []int
	for _, p := range res.Passes {
		attempts = append(attempts, p.Attempts)
	}
	if want := []int{1, 1, 1, 2, 1, 1, 1}; !slices.Equal(attempts, want) {
		t.Fatalf("attempts per pass %v, want %v", attempts, want)
	}
	if n := logs.count("pass 3 (multmul) failed (attempt 1 of 3), re-running it in 1ms"); n != 1 {
		t.Fatalf("log lines %q, want one re-run of pass 3", logs.lines)
	}
	if !mat.Equal(res.Model.Solution().Coef, ref.Model.Solution().Coef) {
		t.Fatalf("α after a re-run pass differs from the undisturbed fit's by %.3g (relative)",
			relDiff(res.Model.Solution().Coef, ref.Model.Solution().Coef))
	}

	setFaultHook(t, once())
	f := faultFit(t.TempDir(), &logs)
	f.Attempts = 1
	if _, err := f.Fit(context.Background(), manifest); err == nil || !strings.Contains(err.Error(), "injected worker failure") {
		t.Fatalf("one attempt: err = %v, want the injected failure", err)
	}
	setFaultHook(t, func(mode string, s int) error {
		if mode == modeMulTMul && s == 0 {
			return errors.New("injected permanent failure")
		}
		return nil
	})
	if _, err := faultFit(t.TempDir(), &logs).Fit(context.Background(), manifest); err == nil ||
		!strings.Contains(err.Error(), "pass 1 (multmul) failed 3 times") {
		t.Fatalf("permanent fault: err = %v, want pass 1 failed 3 times", err)
	}
	f.Attempts = -1
	if _, err := f.Fit(context.Background(), manifest); !errors.Is(err, ErrInput) {
		t.Fatalf("attempts = -1: err = %v, want ErrInput", err)
	}
	f.Attempts, f.RetryWait = 0, -time.Second
	if _, err := f.Fit(context.Background(), manifest); !errors.Is(err, ErrInput) {
		t.Fatalf("retry wait = -1s: err = %v, want ErrInput", err)
	}
}

// TestFalkonResumesFromCheckpoint stops a fit (its context cancelled)
// once CG iteration 3 is done, then runs the same fit again with the same
// work folder: it must read the 4 completed passes (K_nMᵀy and iterations
// 1–3) from their checkpoints, launch only iterations 4–6, and give α and
// the residual history bit for bit equal to an undisturbed fit's. A third
// run launches nothing; a damaged checkpoint is launched again (with a log
// line) to the same model; a fit with another λ reuses only the λ-free
// K_nMᵀy pass.
func TestFalkonResumesFromCheckpoint(t *testing.T) {
	manifest := faultData(t)
	ref := reference(t, manifest)
	work := t.TempDir()
	const stopAfter = 3
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := faultFit(work, nil)
	f.Progress = func(p Pass) {
		if p.Iteration == stopAfter {
			cancel()
		}
	}
	if _, err := f.Fit(ctx, manifest); !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped fit: err = %v, want context.Canceled", err)
	}

	resumed := func(res *FalkonResult) (n int) {
		for _, p := range res.Passes {
			if p.Resumed {
				n++
			}
		}
		return n
	}
	check := func(name string, res *FalkonResult, wantResumed int) {
		t.Helper()
		if got := resumed(res); got != wantResumed || len(res.Passes) != faultIters+1 {
			t.Fatalf("%s: %d of %d passes resumed, want %d of %d", name, got, len(res.Passes), wantResumed, faultIters+1)
		}
		if !mat.Equal(res.Model.Solution().Coef, ref.Model.Solution().Coef) {
			t.Fatalf("%s: α differs from the undisturbed fit's by %.3g (relative)", name,
				relDiff(res.Model.Solution().Coef, ref.Model.Solution().Coef))
		}
		h, hr := res.Model.Info().History, ref.Model.Info().History
		if len(h) != len(hr) {
			t.Fatalf("%s: %d iterations, want %d", name, len(h), len(hr))
		}
		for i := range h {
			if h[i].Residual != hr[i].Residual {
				t.Fatalf("%s: residual %d is %g, want %g", name, i+1, h[i].Residual, hr[i].Residual)
			}
		}
	}
	var logs logLines
	res, err := faultFit(work, &logs).Fit(context.Background(), manifest)
	if err != nil {
		t.Fatal(err)
	}
	check("resumed", res, stopAfter+1)
	if n := logs.count("resumed from"); n != stopAfter+1 {
		t.Fatalf("%d resume log lines, want %d", n, stopAfter+1)
	}
	res, err = faultFit(work, nil).Fit(context.Background(), manifest)
	if err != nil {
		t.Fatal(err)
	}
	check("rerun", res, faultIters+1)

	// Damage one iteration's checkpoint (whichever name sorts first): its
	// CRC no longer matches, so that one pass is launched again.
	files, err := filepath.Glob(filepath.Join(work, checkpointPrefix+modeMulTMul+"-*"))
	if err != nil || len(files) != faultIters {
		t.Fatalf("%d multmul checkpoints (%v), want %d", len(files), err, faultIters)
	}
	b := mustRead(t, files[0])
	b[len(b)-20] ^= 1
	if err := os.WriteFile(files[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	logs = logLines{}
	res, err = faultFit(work, &logs).Fit(context.Background(), manifest)
	if err != nil {
		t.Fatal(err)
	}
	check("damaged checkpoint", res, faultIters)
	if n := logs.count("checksum mismatch"); n != 1 {
		t.Fatalf("log lines %q, want one unreadable checkpoint", logs.lines)
	}

	g := faultFit(work, nil)
	g.Lambda = 2e-4
	if res, err = g.Fit(context.Background(), manifest); err != nil {
		t.Fatal(err)
	}
	if n := resumed(res); n != 1 || !res.Passes[0].Resumed {
		t.Fatalf("λ changed: %d passes resumed, want only K_nMᵀy's", n)
	}
}
