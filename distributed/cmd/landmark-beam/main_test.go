package main

import (
	"context"
	"net/http"
	"net/http/httptest"
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
