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
// --progress auto must leave one plain line per finished grid point, with
// elapsed time and an ETA, and no carriage returns.
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
	if !strings.Contains(log, "fold 2/2") {
		t.Errorf("no fold line:\n%s", log)
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
// batches of iterBatch as whole lines, and approx its two phases, when
// stderr is not a terminal.
func TestFitAndApproxProgressInLog(t *testing.T) {
	var so, se bytes.Buffer
	args := []string{"fit", "--dataset", "cadata", "--subsample", "1000", "--standardize", "--estimator", "falkon", "--sigma", "1", "--lambda", "1e-9", "--m", "200", "--set", "max_iter=25"}
	if code := dispatch(context.Background(), args, &so, &se); code != 0 {
		t.Fatalf("exit %d: %s", code, se.String())
	}
	// Up to 25 iterations; at λ = 1e-9 CG does not reach its 1e-8
	// tolerance by iteration 10, so the batch ending there is reported.
	lines := regexp.MustCompile(`(?m)^    iteration (\d+), residual \S+, elapsed \S+$`).FindAllStringSubmatch(se.String(), -1)
	if len(lines) == 0 || lines[0][1] != "10" || strings.Contains(se.String(), "\r") {
		t.Errorf("want a plain line at iteration 10; stderr:\n%q", se.String())
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
