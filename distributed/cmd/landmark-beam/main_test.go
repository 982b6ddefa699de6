package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/distributed/beamfit"
	"github.com/landmark-ml/landmark/kernel"
)

// TestGCSWithoutCredentials checks that this command registers Beam's GCS
// file system and that a gs:// manifest the caller may not read fails with
// a clear error, not a panic. No request leaves the machine: the GCS client
// is pointed at a local server (STORAGE_EMULATOR_HOST, which the client
// honours and which also makes it send no credentials) answering 401 as
// storage.googleapis.com answers an anonymous caller — what Beam's GCS
// file system falls back to when no Application Default Credentials are
// found.
func TestGCSWithoutCredentials(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":{"code":401,"message":"Anonymous caller does not have storage.objects.get access.","errors":[{"reason":"required"}]}}`))
	}))
	defer srv.Close()
	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent/credentials.json")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := &beamfit.Falkon{Kernel: kernel.GaussianSigma(1), Lambda: 1e-3, M: 10}
	_, err := f.Fit(ctx, "gs://landmark-private-bucket/covtype/manifest.json")
	if err == nil {
		t.Fatal("reading a gs:// manifest without access succeeded")
	}
	t.Logf("error: %v (%d requests)", err, hits.Load())
	if strings.Contains(err.Error(), "not registered") {
		t.Fatalf("the gs scheme is not registered: %v", err)
	}
	if !strings.Contains(err.Error(), "manifest") || !strings.Contains(err.Error(), "401") || hits.Load() == 0 {
		t.Errorf("error %q: want the manifest named and the server's 401", err)
	}
	if ctx.Err() != nil {
		t.Errorf("the read was retried until the deadline: %v", err)
	}
}

// TestUnregisteredScheme checks that a scheme this command does not
// register (hdfs://; Beam's Go SDK has no HDFS file system) is a clear error naming the scheme.
func TestUnregisteredScheme(t *testing.T) {
	f := &beamfit.Falkon{Kernel: kernel.GaussianSigma(1), Lambda: 1e-3, M: 10}
	_, err := f.Fit(context.Background(), "hdfs://namenode/manifest.json")
	if err == nil || !strings.Contains(err.Error(), `scheme "hdfs" not registered`) {
		t.Fatalf("got %v, want a scheme-not-registered error", err)
	}
}

// TestRunGridLocalFlags runs `landmark-beam run` in this process on Prism
// with the flags of a local `landmark run` (issue 21: they were refused
// with "flag provided but not defined: -smoke") and checks the smoke run's
// results and that Prism's INFO lines stay off stderr (--beam-log warn, the
// default). runGrid registers its flags on flag.CommandLine, so it runs
// once per test process: this is its only test.
func TestRunGridLocalFlags(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "grid.yaml")
	if err := os.WriteFile(spec, []byte(`name: grid
dataset: {name: heart_scale}
task: binary
estimator: {type: krr, kernel: {type: gaussian}, lambda: 0.001}
grid: {gamma: [0.01, 0.1, 1]}
cv: {folds: 3}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	// Capture stderr (Beam's log handler writes to os.Stderr as it is
	// when beam.Init runs).
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	err = runGrid(context.Background(), []string{spec, "--smoke", "--quiet", "--progress", "never", "--fresh", "--memory", "1G", "--out", out})
	os.Stderr = stderr
	w.Close()
	logged := string(<-done)
	if err != nil {
		t.Fatalf("runGrid: %v\nstderr: %s", err, logged)
	}
	if strings.Contains(logged, "level=INFO") || strings.Contains(logged, "point ") {
		t.Errorf("stderr holds INFO or progress lines with --quiet:\n%s", logged)
	}
	csv, err := os.ReadFile(filepath.Join(out, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// --smoke keeps at most 2 grid points: a header and two rows.
	if rows := strings.Count(string(csv), "\n"); rows != 3 {
		t.Errorf("results.csv has %d lines, want 3 (header + 2 smoke points):\n%s", rows, csv)
	}
	manifest, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	// The smoke spec (name grid-smoke) with the --memory edit is the one
	// run and logged.
	for _, want := range []string{`"grid-smoke"`, `"memory_limit": 1000000000`} {
		if !strings.Contains(string(manifest), want) {
			t.Errorf("manifest.json lacks %s", want)
		}
	}
}
