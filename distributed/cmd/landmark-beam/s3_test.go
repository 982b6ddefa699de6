package main

import (
	"context"
	"encoding/xml"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/distributed/beamfit"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestMain initializes Beam, as main does, so that the tests here can run
// pipelines on the in-process Prism runner.
func TestMain(m *testing.M) {
	flag.Parse()
	beam.Init()
	os.Exit(m.Run())
}

// s3Standin is an in-memory stand-in for the part of the S3 REST API that
// Beam's s3 file system uses (path-style GET, HEAD, PUT, DELETE of objects
// and ListObjectsV2), so the tests exercise the real AWS SDK client without
// the network. It ignores signatures; deny makes every request fail with
// 403 AccessDenied, as a bucket the caller may not read answers.
type s3Standin struct {
	mu      sync.Mutex
	objects map[string][]byte // "bucket/key" → body
	puts    int
	deny    bool
}

func (s *s3Standin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fail := func(status int, code string) {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>`+code+`</Code><Message>`+code+`</Message></Error>`)
		}
	}
	if s.deny {
		fail(http.StatusForbidden, "AccessDenied")
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	bucket, key, _ := strings.Cut(name, "/")
	switch {
	case r.Method == http.MethodGet && key == "" && r.URL.Query().Get("list-type") == "2":
		prefix := r.URL.Query().Get("prefix")
		type content struct {
			Key  string
			Size int
		}
		res := struct {
			XMLName     xml.Name `xml:"ListBucketResult"`
			Name        string
			Prefix      string
			KeyCount    int
			IsTruncated bool
			Contents    []content
		}{Name: bucket, Prefix: prefix}
		for k, b := range s.objects {
			if kb, kk, _ := strings.Cut(k, "/"); kb == bucket && strings.HasPrefix(kk, prefix) {
				res.Contents = append(res.Contents, content{kk, len(b)})
			}
		}
		sort.Slice(res.Contents, func(i, j int) bool { return res.Contents[i].Key < res.Contents[j].Key })
		res.KeyCount = len(res.Contents)
		w.Header().Set("Content-Type", "application/xml")
		xml.NewEncoder(w).Encode(res)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		b, ok := s.objects[name]
		if !ok {
			fail(http.StatusNotFound, "NoSuchKey")
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.Header().Set("Last-Modified", time.Unix(0, 0).UTC().Format(http.TimeFormat))
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	case r.Method == http.MethodPut:
		b, err := io.ReadAll(r.Body)
		if err != nil {
			fail(http.StatusBadRequest, "IncompleteBody")
			return
		}
		s.objects[name] = b
		s.puts++
		w.WriteHeader(http.StatusOK)
	case r.Method == http.MethodDelete:
		delete(s.objects, name)
		w.WriteHeader(http.StatusNoContent)
	default:
		fail(http.StatusNotImplemented, "NotImplemented")
	}
}

// awsEnv points the AWS SDK's default configuration (what Beam's s3 file
// system loads) at srv with placeholder credentials, and cuts it off from
// anything on this machine: no shared config files, no instance metadata.
// Checksums are asked only where S3 requires them, so uploads are plain
// bodies rather than aws-chunked streams with trailers.
func awsEnv(t *testing.T, srv *httptest.Server, credentials bool) {
	t.Setenv("AWS_ENDPOINT_URL_S3", srv.URL)
	t.Setenv("AWS_ENDPOINT_URL", srv.URL)
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_WEB_IDENTITY_TOKEN_FILE", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "")
	t.Setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "")
	t.Setenv("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required")
	t.Setenv("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required")
	key, secret := "", ""
	if credentials {
		key, secret = "AKIDLANDMARKTEST", "placeholder-secret"
	}
	t.Setenv("AWS_ACCESS_KEY_ID", key)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
}

// TestS3FalkonMatchesLocal runs distributed FALKON with its data and its
// work folder on s3:// (through the AWS SDK, against the stand-in) and
// checks that it fits exactly the model it fits from a local folder: the
// same shard bytes read through another file system give the same sums in
// the same order, so the coefficients are bit-identical.
func TestS3FalkonMatchesLocal(t *testing.T) {
	train, err := datasets.Load("cadata")
	if err != nil {
		t.Fatal(err)
	}
	const rows = 1500
	x := mat.DenseCopyOf(train.X.Slice(0, rows, 0, 8))
	y := make([]float64, rows)
	for i := range y {
		y[i] = train.Y[i] / 1e5
	}
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(dir, x, y, 500, false); err != nil {
		t.Fatal(err)
	}
	st := &s3Standin{objects: map[string][]byte{}}
	files, _ := os.ReadDir(dir)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		st.objects["landmark-test/cadata/"+f.Name()] = b
	}
	srv := httptest.NewServer(st)
	defer srv.Close()
	awsEnv(t, srv, true)

	ctx := context.Background()
	fit := func(manifest, work string) *mat.Dense {
		f := &beamfit.Falkon{Kernel: kernel.GaussianSigma(1), Lambda: 1e-6, M: 100, Seed: 3,
			MaxIter: 5, Standardize: true, WorkDir: work}
		res, err := f.Fit(ctx, manifest)
		if err != nil {
			t.Fatalf("fit from %s: %v", manifest, err)
		}
		return res.Model.Solution().Coef
	}
	local := fit(filepath.Join(dir, shard.ManifestName), t.TempDir())
	remote := fit("s3://landmark-test/cadata/"+shard.ManifestName, "s3://landmark-test/work")
	if !mat.Equal(local, remote) {
		t.Errorf("coefficients fitted from s3:// differ from those fitted from a local folder")
	}
	st.mu.Lock()
	puts := st.puts
	st.mu.Unlock()
	if puts == 0 {
		t.Errorf("no object was written to the s3:// work folder")
	}
	t.Logf("%d objects written to the s3:// work folder", puts)
}

// TestS3Refused checks that an s3:// manifest the caller may not read (no
// credentials; or credentials the bucket refuses) fails with an error
// naming the manifest, never a panic or an endless retry.
func TestS3Refused(t *testing.T) {
	st := &s3Standin{objects: map[string][]byte{}, deny: true}
	srv := httptest.NewServer(st)
	defer srv.Close()
	for _, tc := range []struct {
		name        string
		credentials bool
		want        string
	}{
		{"no credentials", false, "credentials"},
		{"access denied", true, "AccessDenied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awsEnv(t, srv, tc.credentials)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			f := &beamfit.Falkon{Kernel: kernel.GaussianSigma(1), Lambda: 1e-3, M: 10}
			_, err := f.Fit(ctx, "s3://landmark-private/covtype/manifest.json")
			if err == nil {
				t.Fatal("reading an s3:// manifest without access succeeded")
			}
			t.Logf("error: %v", err)
			if !strings.Contains(err.Error(), "manifest") || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want the manifest named and %q", err, tc.want)
			}
			if ctx.Err() != nil {
				t.Errorf("the read was retried until the deadline: %v", err)
			}
		})
	}
}
