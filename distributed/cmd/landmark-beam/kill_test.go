package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestKilledDriverResumes is issue 24's "a killed driver restarted with the
// same command resumes and produces the identical model": landmark-beam
// falkon (in-process Prism) on the first 3,000 rows of cadata in 3 shards
// (M = 100, σ = 2, λ = 1e-6, 6 iterations, standardized) is SIGKILLed
// once it has printed iteration killAfter's progress line, so no deferred
// code, signal handler or flush runs. The same command line is then run
// again to completion, and a third run of it in a fresh work folder is the
// undisturbed reference. Asserted:
//   - first, the same command with --save in a missing folder is refused
//     before any pass runs (no checkpoint written);
//   - the kill came before the end (no "fit:" line, iterations left);
//   - the checkpoints on disk after the kill are whole: the rerun prints
//     exactly one "from the checkpoint" line per checkpoint file left by the
//     killed driver (at least killAfter+1: the right-hand side pass and
//     iterations 1..killAfter, each saved before its progress line; at most
//     iters: the last pass was still to run when the kill landed, else the
//     fit line would be there) and computes the remaining passes;
//   - the rerun's saved model equals the undisturbed run's bit for bit in
//     its centers, α and every iteration's residual (the checkpoints hold
//     the passes' float64 sums exactly and the driver's PCG is
//     deterministic from them).
func TestKilledDriverResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds landmark-beam and runs it three times as a subprocess; skipped with -short")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build landmark-beam with: the killed-driver resume is not tested")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "landmark-beam")
	build := exec.CommandContext(ctx, goCmd, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building landmark-beam: %v\n%s", err, out)
	}

	train, err := datasets.Load("cadata")
	if err != nil {
		t.Fatal(err)
	}
	const rows, iters, killAfter = 3000, 6, 2
	_, d := train.X.Dims()
	x := mat.DenseCopyOf(train.X.Slice(0, rows, 0, d))
	y := make([]float64, rows)
	for i := range y {
		y[i] = train.Y[i] / 1e5
	}
	data := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(data, x, y, rows/3, false); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(data, shard.ManifestName)
	args := func(work, save string) []string {
		return []string{"falkon", "--data", manifest, "--m", "100", "--sigma", "2", "--lambda", "1e-6",
			"--iter", "6", "--standardize", "--work_dir", work, "--save", save}
	}
	work, out := t.TempDir(), t.TempDir()
	resumedSave, refSave := filepath.Join(out, "resumed.lmk"), filepath.Join(out, "ref.lmk")

	// --save into a missing folder is refused before any pass runs (it was
	// created after the fit): no checkpoint is written.
	missing := exec.CommandContext(ctx, bin, args(work, filepath.Join(out, "no", "fit.lmk"))...)
	if b, err := missing.CombinedOutput(); err == nil || !strings.Contains(string(b), "--save: ") || !strings.Contains(string(b), "does not exist") {
		t.Fatalf("--save into a missing folder: %v\n%s\nwant a refusal naming the folder", err, b)
	}
	if ck, _ := filepath.Glob(filepath.Join(work, "checkpoint-*.bin")); len(ck) != 0 {
		t.Fatalf("the refused run wrote %d checkpoints", len(ck))
	}

	// The run to kill: read its stdout line by line and SIGKILL it as soon
	// as iteration killAfter is reported.
	victim := exec.CommandContext(ctx, bin, args(work, resumedSave)...)
	var stderr bytes.Buffer
	victim.Stderr = &stderr
	pipe, err := victim.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	var seen strings.Builder
	killed := false
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		line := sc.Text()
		seen.WriteString(line + "\n")
		if !killed && passLine(line, killAfter) {
			if err := victim.Process.Kill(); err != nil {
				victim.Wait()
				t.Skipf("cannot SIGKILL a process on this platform: %v", err)
			}
			killed = true
		}
	}
	io.Copy(io.Discard, pipe)
	werr := victim.Wait()
	t.Logf("killed run:\n%s", seen.String())
	if !killed {
		t.Fatalf("iteration %d was never reported (exit %v):\n%s\nstderr:\n%s", killAfter, werr, seen.String(), stderr.String())
	}
	if ee, ok := werr.(*exec.ExitError); !ok || ee.Exited() {
		t.Fatalf("the killed run ended with %v, want death by a signal", werr)
	}
	if strings.Contains(seen.String(), "fit:") || passLine(lastLine(seen.String()), iters) {
		t.Fatalf("the kill landed after the fit ended; the resume is not tested:\n%s", seen.String())
	}
	if _, err := os.Stat(resumedSave); err == nil {
		t.Fatal("the killed run saved a model")
	}
	ckpts, err := filepath.Glob(filepath.Join(work, "checkpoint-*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(ckpts); n < killAfter+1 || n > iters {
		t.Fatalf("%d checkpoints after the kill, want %d to %d (passes 0..%d saved, pass %d not)", n, killAfter+1, iters, killAfter, iters)
	}

	run := func(name, work, save string) string {
		t.Helper()
		c := exec.CommandContext(ctx, bin, args(work, save)...)
		var o, e bytes.Buffer
		c.Stdout, c.Stderr = &o, &e
		if err := c.Run(); err != nil {
			t.Fatalf("%s run: %v\n%s\nstderr:\n%s", name, err, o.String(), e.String())
		}
		t.Logf("%s run:\n%s", name, o.String())
		return o.String()
	}
	rerun := run("restarted", work, resumedSave)
	const resumeLine = "from the checkpoint in --work_dir"
	if got := strings.Count(rerun, resumeLine); got != len(ckpts) {
		t.Fatalf("the restarted run resumed %d passes, want %d (the checkpoints the killed run left)", got, len(ckpts))
	}
	if got := strings.Count(rerun, " rows/s"); got != iters+1-len(ckpts) {
		t.Fatalf("the restarted run computed %d passes, want %d of %d", got, iters+1-len(ckpts), iters+1)
	}
	ref := run("undisturbed", t.TempDir(), refSave)
	if strings.Contains(ref, resumeLine) {
		t.Fatal("the undisturbed run in a fresh work folder resumed a pass")
	}

	load := func(p string) *model.Falkon {
		t.Helper()
		fit, err := experiments.LoadFitFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, ok := fit.Estimator.(*model.Falkon)
		if !ok {
			t.Fatalf("%s holds a %T, want *model.Falkon", p, fit.Estimator)
		}
		return f
	}
	got, want := load(resumedSave), load(refSave)
	checkSavedScaling(t, refSave, manifest, x)
	gs, ws := got.Solution(), want.Solution()
	if !mat.Equal(gs.Centers, ws.Centers) {
		t.Fatal("the resumed fit has other centers than the undisturbed one")
	}
	if !mat.Equal(gs.Coef, ws.Coef) {
		var diff mat.Dense
		diff.Sub(gs.Coef, ws.Coef)
		t.Fatalf("resumed α differs from the undisturbed fit's: ‖δα‖/‖α‖ = %.3g", mat.Norm(&diff, 2)/mat.Norm(ws.Coef, 2))
	}
	gh, wh := got.Info().History, want.Info().History
	if len(gh) != iters || len(wh) != iters {
		t.Fatalf("%d and %d iterations recorded, want %d", len(gh), len(wh), iters)
	}
	for i := range gh {
		if gh[i].Residual != wh[i].Residual {
			t.Fatalf("iteration %d: residual %g after the resume, %g undisturbed", i+1, gh[i].Residual, wh[i].Residual)
		}
	}
}

// passLine reports whether line is landmark-beam falkon's progress line of
// CG iteration it (computed or resumed).
func passLine(line string, it int) bool {
	f := strings.Fields(line)
	return len(f) >= 2 && f[0] == "pass" && f[1] == strconv.Itoa(it)
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// checkSavedScaling checks that a fit saved by landmark-beam falkon
// --standardize predicts raw rows x as its model predicts the rows
// standardized with the manifest's statistics (the model alone expects
// standardized rows; landmark predict reads the file through
// experiments.LoadFitFile, which applies the kept scaling).
func checkSavedScaling(t *testing.T, saved, manifest string, x *mat.Dense) {
	t.Helper()
	fit, err := experiments.LoadFitFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	man, err := shard.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	if fit.Scaling.Standardize == nil || !slices.Equal(fit.Scaling.Standardize.Mean, man.Mean) || !slices.Equal(fit.Scaling.Standardize.Std, man.Std) {
		t.Fatalf("saved scaling %+v, want the manifest's mean and standard deviation", fit.Scaling)
	}
	raw, err := fit.Predict(x)
	if err != nil {
		t.Fatal(err)
	}
	r, d := x.Dims()
	z := mat.NewDense(r, d, nil)
	for i := range r {
		for j := range d {
			z.Set(i, j, (x.At(i, j)-man.Mean[j])/man.Std[j])
		}
	}
	direct, err := fit.Estimator.Predict(z)
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		// The same arithmetic as datasets.Standardizer on the same rows:
		// equal bits, not merely close.
		if raw[i] != direct[i] {
			t.Fatalf("row %d: the saved fit predicts %v from raw features, the model %v from standardized ones", i, raw[i], direct[i])
		}
	}
	if fit.Task != experiments.TaskRegression || fit.Dim != d {
		t.Fatalf("saved task %q, d = %d; want regression, %d", fit.Task, fit.Dim, d)
	}
}
