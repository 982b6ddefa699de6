package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// synthHiggs writes n rows of the HIGGS-shaped set as shards through the
// command and returns the manifest's path.
func synthHiggs(t *testing.T, dir string, n int, seed string) string {
	t.Helper()
	if _, _, err := runDataArgs("synth", "higgs", dir, "--rows", strconv.Itoa(n), "--shard-rows", "100", "--seed", seed, "--progress", "never"); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "manifest.json")
}

// landmark fit and predict take a shard manifest as data: read into memory
// under the cap; over it (a tiny --memory) the fit is refused with exit
// code 1 and a message naming the manifest, X's size and the limit; a
// missing or malformed manifest is named.
func TestFitPredictManifest(t *testing.T) {
	dir := t.TempDir()
	train := synthHiggs(t, filepath.Join(dir, "train"), 400, "1")
	test := synthHiggs(t, filepath.Join(dir, "test"), 200, "2")
	model := filepath.Join(dir, "m.lmk")
	args := []string{"fit", "--data", train, "--test-data", test, "--estimator", "falkon", "--m", "50", "--sigma", "3", "--lambda", "1e-6", "--progress", "never"}
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), append(args, "--save", model), &so, &se); code != 0 {
		t.Fatalf("fit: exit %d\n%s%s", code, so.String(), se.String())
	}
	if !strings.Contains(so.String(), "falkon on 400 rows × 28 features") || !strings.Contains(so.String(), "auto: shards are dense") ||
		!strings.Contains(so.String(), "test (200 rows): accuracy") {
		t.Errorf("fit output:\n%s", so.String())
	}
	so.Reset()
	se.Reset()
	if code := dispatch(context.Background(), []string{"predict", "--model", model, "--data", test, "--progress", "never"}, &so, &se); code != 0 {
		t.Fatalf("predict: exit %d\n%s", code, se.String())
	}
	if n := strings.Count(so.String(), "\n"); n != 200 || !strings.Contains(se.String(), "200 rows; against the file's targets: accuracy") {
		t.Errorf("predict: %d lines\n%s", n, se.String())
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		// X and y take 400 · (28 + 1) · 8 = 92,800 bytes, held once
		// (232 bytes a row).
		{[]string{"fit", "--data", train, "--estimator", "krr", "--sigma", "3", "--lambda", "1e-6", "--memory", "50k"},
			[]string{"landmark fit: ", train, "X is 89.6 kB (400 × 28 float64)", "krr holds it in memory (1 copy while fitting: 92.8 kB), over the memory limit 50 kB, under which at most 215 rows of 28 fit"}},
		{[]string{"fit", "--data", filepath.Join(dir, "none", "manifest.json"), "--estimator", "krr", "--sigma", "3", "--lambda", "1e-6"}, []string{filepath.Join("none", "manifest.json"), "no such file"}},
		{[]string{"predict", "--model", model, "--data", filepath.Join(dir, "none.json")}, []string{"none.json"}},
	} {
		so.Reset()
		se.Reset()
		if code := dispatch(context.Background(), c.args, &so, &se); code != 1 {
			t.Errorf("%q: exit %d, want 1", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(se.String(), w) {
				t.Errorf("%q: stderr %q lacks %q", c.args, se.String(), w)
			}
		}
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\"format\": \"landmark-shards/1\", \"n\": 3}\n"), 0o644)
	se.Reset()
	if code := dispatch(context.Background(), []string{"fit", "--data", bad, "--estimator", "krr", "--sigma", "3", "--lambda", "1e-6"}, &so, &se); code != 1 || !strings.Contains(se.String(), bad+": shard: ") {
		t.Errorf("malformed manifest: exit %d, stderr %q", code, se.String())
	}
}

// landmark fit chooses by the plan: a manifest whose in-memory fit is over
// --memory is streamed by falkon, said in one stderr line, with a progress
// line per pass carrying rows/s and MB/s; within the limit no such line.
func TestFitManifestStreamsOverMemory(t *testing.T) {
	dir := t.TempDir()
	train := synthHiggs(t, filepath.Join(dir, "train"), 3000, "3")
	args := []string{"fit", "--data", train, "--estimator", "falkon", "--m", "40", "--sigma", "3", "--lambda", "1e-6", "--progress", "always"}
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), append(args, "--memory", "2M"), &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s", code, se.String())
	}
	// The plan's engine scratch grows with the workers (GOMAXPROCS): 3.86
	// MB at 2.
	if !regexp.MustCompile(`landmark fit: X is 672 kB \(3,000 × 28 float64\); with the estimator's plan beside it the fit in memory would need [0-9.]+ MB, over --memory 2M: streaming it from the shards on every pass\n`).MatchString(se.String()) ||
		!strings.Contains(se.String(), "    pass 1/") || !strings.Contains(se.String(), "rows/s") || !strings.Contains(se.String(), "MB/s") {
		t.Errorf("stderr:\n%s", se.String())
	}
	if !strings.Contains(so.String(), "data: X streamed from the shards on every pass") || strings.Contains(so.String(), "train:") {
		t.Errorf("stdout:\n%s", so.String())
	}
	so.Reset()
	se.Reset()
	if code := dispatch(context.Background(), append(args, "--memory", "20M"), &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s", code, se.String())
	}
	if strings.Contains(se.String(), "streaming") || strings.Contains(se.String(), "pass 1") || !strings.Contains(so.String(), "data: dense X") || !strings.Contains(so.String(), "train: accuracy") {
		t.Errorf("in memory:\n%s%s", so.String(), se.String())
	}
}

// predict on a manifest over --memory predicts shard by shard: the same
// output bytes and scores as reading it whole, for labels and scores.
func TestPredictManifestShardByShard(t *testing.T) {
	dir := t.TempDir()
	train := synthHiggs(t, filepath.Join(dir, "train"), 400, "1")
	test := synthHiggs(t, filepath.Join(dir, "test"), 350, "2") // 4 shards of ≤ 100 rows
	model := filepath.Join(dir, "m.lmk")
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), []string{"fit", "--data", train, "--estimator", "falkon", "--m", "50", "--sigma", "3", "--lambda", "1e-6", "--progress", "never", "--save", model}, &so, &se); code != 0 {
		t.Fatalf("fit: %s", se.String())
	}
	for _, output := range []string{"labels", "scores"} {
		var whole, streamed [2]bytes.Buffer
		args := []string{"predict", "--model", model, "--data", test, "--output", output, "--progress", "never"}
		if code := dispatch(context.Background(), args, &whole[0], &whole[1]); code != 0 {
			t.Fatalf("%s: %s", output, whole[1].String())
		}
		if code := dispatch(context.Background(), append(args, "--memory", "50k"), &streamed[0], &streamed[1]); code != 0 {
			t.Fatalf("%s, --memory 50k: %s", output, streamed[1].String())
		}
		if whole[0].String() != streamed[0].String() || strings.Count(streamed[0].String(), "\n") != 350 {
			t.Errorf("%s: shard-by-shard output differs from the whole read", output)
		}
		wl, sl := strings.Split(whole[1].String(), "\n"), strings.Split(streamed[1].String(), "\n")
		if !strings.Contains(streamed[1].String(), "X of "+test+" (350 × 28 float64) needs 78400 bytes") || !strings.Contains(streamed[1].String(), "predicting shard by shard") ||
			wl[len(wl)-2] != sl[len(sl)-2] || !strings.HasPrefix(sl[len(sl)-2], "350 rows; against the file's targets: accuracy") {
			t.Errorf("%s: stderr whole:\n%s\nshard by shard:\n%s", output, whole[1].String(), streamed[1].String())
		}
	}
}

// predict --output interval on a manifest over --memory writes, shard by
// shard, the bytes of the whole read.
func TestPredictManifestIntervalShardByShard(t *testing.T) {
	dir := t.TempDir()
	train := synthHiggs(t, filepath.Join(dir, "train"), 400, "1")
	test := synthHiggs(t, filepath.Join(dir, "test"), 350, "2")
	model := filepath.Join(dir, "svr.lmk")
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), []string{"fit", "--data", train, "--task", "regression", "--estimator", "svr", "--gamma", "0.05",
		"--set", "probability=true", "--progress", "never", "--save", model}, &so, &se); code != 0 {
		t.Fatalf("fit: %s", se.String())
	}
	var whole, streamed [2]bytes.Buffer
	args := []string{"predict", "--model", model, "--data", test, "--output", "interval", "--coverage", "0.5", "--progress", "never"}
	if code := dispatch(context.Background(), args, &whole[0], &whole[1]); code != 0 {
		t.Fatalf("whole: %s", whole[1].String())
	}
	if code := dispatch(context.Background(), append(args, "--memory", "50k"), &streamed[0], &streamed[1]); code != 0 {
		t.Fatalf("--memory 50k: %s", streamed[1].String())
	}
	if whole[0].String() != streamed[0].String() || strings.Count(streamed[0].String(), "\n") != 350 || !strings.Contains(streamed[1].String(), "predicting shard by shard") {
		t.Errorf("shard-by-shard intervals differ from the whole read:\n%.200s\n%.200s\n%s", whole[0].String(), streamed[0].String(), streamed[1].String())
	}
	if !strings.Contains(strings.SplitN(whole[0].String(), "\n", 2)[0], ",") {
		t.Errorf("first line %q, want lo,hi", strings.SplitN(whole[0].String(), "\n", 2)[0])
	}
}
