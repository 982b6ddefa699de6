package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunProgressInLog runs an example at smoke size with stderr a buffer
// (not a terminal), as `landmark run spec.yaml > log 2>&1` does: the default
// --progress auto must leave one plain line per finished fold (with the
// point's and the run's ETA) and per finished grid point (elapsed time and
// ETA), each fold's line after the fold and before its point's line, and no
// carriage returns.
func TestRunProgressInLog(t *testing.T) {
	spec := filepath.Join("..", "..", "experiments", "examples", "krr-cadata.yaml")
	var so, se bytes.Buffer
	args := []string{"run", spec, "--smoke", "--out", filepath.Join(t.TempDir(), "out")}
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	log := se.String()
	// The smoke run has 2 grid points ("2 computed" is checked by TestRunSmokeAndResume).
	done := regexp.MustCompile(`(?m)^\[(\d)/2\] .*: rmse .*elapsed [0-9.]+m?s, (ETA [0-9.]+[mµn]?s|grid done)\)$`).FindAllStringSubmatch(log, -1)
	if len(done) != 2 || done[0][1] != "1" || done[1][1] != "2" {
		t.Errorf("want one line per finished point [1/2], [2/2]; stderr:\n%s", log)
	}
	if strings.Contains(log, "\r") {
		t.Errorf("carriage return in a non-terminal log:\n%q", log)
	}
	// 2 points × 2 folds: fold 1 done, fold 2 done, the point; twice.
	folds := regexp.MustCompile(`^\[(\d)/2\] \S+: fold (\d)/2 done \(elapsed [0-9.]+m?s, point ETA ([0-9.]+[mµn]?s), ETA [0-9.]+[mµn]?s\)$`)
	var seq []string
	for _, line := range strings.Split(log, "\n") {
		if m := folds.FindStringSubmatch(line); m != nil {
			seq = append(seq, "p"+m[1]+"f"+m[2])
			if (m[2] == "2") != (m[3] == "0s") {
				t.Errorf("point ETA %s after fold %s/2: %q", m[3], m[2], line)
			}
		} else if strings.HasPrefix(line, "[") && strings.Contains(line, ": rmse ") {
			seq = append(seq, "p"+line[1:2])
		} else if strings.Contains(line, "fold") {
			t.Errorf("fold line not in the finished-fold form: %q", line)
		}
	}
	if got := strings.Join(seq, " "); got != "p1f1 p1f2 p1 p2f1 p2f2 p2" {
		t.Errorf("fold and point lines %q, want p1f1 p1f2 p1 p2f1 p2f2 p2; stderr:\n%s", got, log)
	}

	// The same with stderr a regular file, as a shell redirection gives.
	f, err := os.CreateTemp(t.TempDir(), "log")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if code := dispatch(context.Background(), append(args, "--fresh"), &so, f); code != 0 {
		t.Fatalf("exit %d with stderr a file", code)
	}
	b, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n["); n < 4 || !strings.Contains(string(b), "[2/2] ") || strings.Contains(string(b), "\r") {
		t.Errorf("log file holds %d grid-point lines:\n%s", n, b)
	}

	se.Reset()
	args = append(args, "--fresh", "--progress", "never")
	if code := dispatch(context.Background(), args, &so, &se); code != 0 || se.Len() != 0 {
		t.Errorf("--progress never: exit %d, stderr %q", code, se.String())
	}
	se.Reset()
	if code := dispatch(context.Background(), []string{"run", spec, "--progress", "alway"}, &so, &se); code != 2 || !strings.Contains(se.String(), `did you mean "always"`) {
		t.Errorf("--progress alway: exit %d, stderr %q", code, se.String())
	}
}

// TestFitAndApproxProgressInLog: fit reports FALKON's CG iterations in
// batches of cmdline.IterBatch as whole lines, and approx its two phases, when
// stderr is not a terminal.
func TestFitAndApproxProgressInLog(t *testing.T) {
	var so, se bytes.Buffer
	args := []string{"fit", "--dataset", "cadata", "--subsample", "1000", "--standardize", "--estimator", "falkon", "--sigma", "1", "--lambda", "1e-9", "--m", "200", "--set", "max_iter=25"}
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	// Up to 25 iterations; at λ = 1e-9 CG does not reach its 1e-8
	// tolerance by iteration 10, so the batch ending there is reported.
	// Each batch line has the budget and the solve's ETA from the mean
	// time per iteration: (25 − 10) iterations left at iteration 10.
	lines := regexp.MustCompile(`(?m)^    iteration (\d+)/25, residual \S+, elapsed \S+, solve ETA \S+$`).FindAllStringSubmatch(se.String(), -1)
	if len(lines) == 0 || lines[0][1] != "10" || strings.Contains(se.String(), "\r") {
		t.Errorf("want a plain line at iteration 10 of 25 with an ETA; stderr:\n%q", se.String())
	}
	se.Reset()
	if code := dispatch(context.Background(), append(args, "--progress", "never"), &so, &se); code != 0 || se.Len() != 0 {
		t.Errorf("fit --progress never: exit %d, stderr %q", code, se.String())
	}
	se.Reset()
	args = []string{"approx", "--data", "cadata", "--n", "300", "--method", "uniform", "--m", "20", "--gamma", "1", "--spectral-n", "100", "--sample-rows", "100"}
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if !strings.Contains(se.String(), "approx: building uniform (m = 20) on 300 rows × 8 features…\napprox: built in ") {
		t.Errorf("approx progress:\n%s", se.String())
	}
}

// TestDemoProgressInLog: demo's CG iterations in a log are one line per 10
// of the --iter budget, each with an ETA (0 at the last iteration); never
// leaves stderr empty.
func TestDemoProgressInLog(t *testing.T) {
	var so, se bytes.Buffer
	args := []string{"demo", "--m", "100", "--iter", "20", "--lambda", "1e-9"}
	if code := dispatch(context.Background(), append(args, "--progress", "always"), &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	lines := regexp.MustCompile(`(?m)^    CG iteration (\d+)/20, residual \S+, elapsed \S+, solve ETA (\S+)$`).FindAllStringSubmatch(se.String(), -1)
	if len(lines) != 2 || lines[0][1] != "10" || lines[1][1] != "20" || lines[1][2] != "0s" {
		t.Errorf("want lines at iterations 10 and 20 of 20 (ETA 0s at 20); stderr:\n%s", se.String())
	}
	se.Reset()
	if code := dispatch(context.Background(), append(args, "--progress", "never"), &so, &se); code != 0 || se.Len() != 0 {
		t.Errorf("demo --progress never: exit %d, stderr %q", code, se.String())
	}
}

// heartScaleFile is the bundled heart_scale (270 rows × 13 features) as a
// file, so that commands read it through the file reader and its progress.
const heartScaleFile = "../../datasets/data/heart_scale.libsvm.gz"

// TestDataProgressInLog: data convert reports the rows read (270 < one
// batch of datasets.ProgressRows: one line) with the share of the gzip
// file consumed (all of it at the end: read ETA 0s), and the write; data shard the
// rows read and each of its 3 shards with the rows so far and an ETA (0 at
// the last); --progress never prints nothing on stderr.
func TestDataProgressInLog(t *testing.T) {
	dir := t.TempDir()
	var so, se bytes.Buffer
	out := filepath.Join(dir, "h.csv")
	if code := dispatch(context.Background(), []string{"data", "convert", heartScaleFile, out, "--progress", "always"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	want := regexp.MustCompile(`^data convert: read 270 rows, 100% of 0\.0 MiB \(elapsed \S+, \S+ rows/s, read ETA 0s\)\ndata convert: writing 270 rows to \S+h\.csv… \(elapsed \S+\)\n$`)
	if !want.MatchString(se.String()) {
		t.Errorf("data convert stderr:\n%s", se.String())
	}
	se.Reset()
	if code := dispatch(context.Background(), []string{"data", "convert", heartScaleFile, out, "--progress", "never"}, &so, &se); code != 0 || se.Len() != 0 {
		t.Errorf("data convert --progress never: exit %d, stderr %q", code, se.String())
	}

	se.Reset()
	if code := dispatch(context.Background(), []string{"data", "shard", heartScaleFile, filepath.Join(dir, "s"), "--rows", "100"}, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	log := se.String()
	if n := len(regexp.MustCompile(`(?m)^data shard: read 270 rows, 100% of 0\.0 MiB \(elapsed \S+, \S+ rows/s, read ETA 0s\)$`).FindAllString(log, -1)); n != 1 {
		t.Errorf("%d read lines, want 1:\n%s", n, log)
	}
	shards := regexp.MustCompile(`(?m)^data shard: shard (\d)/3 written \(rows (\d+)/270; elapsed \S+, ETA (\S+)\)$`).FindAllStringSubmatch(log, -1)
	if len(shards) != 3 || shards[0][2] != "100" || shards[1][2] != "200" || shards[2][2] != "270" || shards[2][3] != "0s" {
		t.Errorf("want shard lines 1/3, 2/3, 3/3 at rows 100, 200, 270 (ETA 0s last):\n%s", log)
	}
	se.Reset()
	if code := dispatch(context.Background(), []string{"data", "shard", heartScaleFile, filepath.Join(dir, "s2"), "--rows", "100", "--progress", "never"}, &so, &se); code != 0 || se.Len() != 0 {
		t.Errorf("data shard --progress never: exit %d, stderr %q", code, se.String())
	}
}

// TestPredictProgressInLog: predict in batches of 100 rows reports the rows
// read and each batch (100, 200, 270 of 270) with an ETA, and predicts
// exactly what one call over all rows does; never prints only the score.
func TestPredictProgressInLog(t *testing.T) {
	model := filepath.Join(t.TempDir(), "m.json")
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), []string{"fit", "--data", heartScaleFile, "--estimator", "falkon", "--sigma", "2", "--lambda", "1e-6", "--m", "50", "--progress", "never", "--save", model}, &so, &se); code != 0 {
		t.Fatalf("fit: exit %d: %s", code, se.String())
	}
	args := []string{"predict", "--model", model, "--data", heartScaleFile}
	so.Reset()
	se.Reset()
	if code := dispatch(context.Background(), append(args, "--progress", "never"), &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	whole := so.String()
	if strings.Count(whole, "\n") != 270 || strings.Contains(se.String(), "predict:") || strings.Count(se.String(), "\n") != 1 {
		t.Errorf("--progress never: %d predictions, stderr %q", strings.Count(whole, "\n"), se.String())
	}

	defer func(b int) { predictBatch = b }(predictBatch)
	predictBatch = 100
	so.Reset()
	se.Reset()
	if code := dispatch(context.Background(), append(args, "--progress", "always"), &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	if so.String() != whole {
		t.Error("predictions in batches of 100 differ from one call's")
	}
	log := se.String()
	if !regexp.MustCompile(`(?m)^predict: read 270 rows × 13 features \(elapsed \S+\)$`).MatchString(log) {
		t.Errorf("no read line:\n%s", log)
	}
	batches := regexp.MustCompile(`(?m)^predict: (\d+)/270 rows \(elapsed \S+, ETA (\S+)\)$`).FindAllStringSubmatch(log, -1)
	if len(batches) != 3 || batches[0][1] != "100" || batches[1][1] != "200" || batches[2][1] != "270" || batches[2][2] != "0s" {
		t.Errorf("want batch lines at 100, 200, 270 of 270 (ETA 0s last):\n%s", log)
	}
}
