package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInterruptExit130: a command whose context (main's signal context) is
// cancelled exits with 130 = 128 + SIGINT, as shells and most commands
// report Ctrl-C, keeping its message (run's says the finished points are
// kept); before, fit, run, predict and data convert exited 1. The same
// commands with a live context exit 0, and a usage error is still 2.
// predict now checks the context between its batches of rows (it ran to
// the end after Ctrl-C).
func TestInterruptExit130(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "heart.libsvm")
	model := filepath.Join(dir, "heart.lmk")
	spec := filepath.Join(dir, "s.yaml")
	y := "name: s\ndataset: {path: heart.libsvm}\ntask: binary\nestimator: {type: falkon, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001, m: 20}\ncv: {folds: 2}\nseed: 1\n"
	if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, se := runCLI("data", "convert", "heart_scale", data, "--progress", "never"); code != 0 {
		t.Fatal(se)
	}
	cmds := []struct {
		name string
		args []string
		msg  string
	}{
		{"fit", []string{"fit", "--data", data, "--gamma", "0.1", "--estimator", "falkon", "--m", "20", "--save", model, "--progress", "never"}, "context canceled"},
		{"predict", []string{"predict", "--model", model, "--data", data, "--out", filepath.Join(dir, "p.txt")}, "context canceled"},
		{"run", []string{"run", spec, "--out", filepath.Join(dir, "r"), "--progress", "never"}, "interrupted; finished grid points are kept, rerun the same command to resume"},
		{"data convert", []string{"data", "convert", data, filepath.Join(dir, "c.csv"), "--progress", "never"}, "context canceled"},
	}
	for _, c := range cmds {
		if code, _, se := runCLI(c.args...); code != 0 {
			t.Fatalf("%s, live context: exit %d: %s", c.name, code, se)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cmds[2].args[3] = filepath.Join(dir, "r2") // a fresh run: nothing to resume
	for _, c := range cmds {
		var so, se bytes.Buffer
		code := dispatch(ctx, c.args, &so, &se)
		if code != 130 || !strings.Contains(se.String(), c.msg) {
			t.Errorf("%s, cancelled: exit %d, stderr %q; want 130 and %q", c.name, code, se.String(), c.msg)
		}
	}
	var so, se bytes.Buffer
	if code := dispatch(ctx, []string{"fit", "--no-such-flag"}, &so, &se); code != 2 {
		t.Errorf("usage error with a cancelled context: exit %d, want 2", code)
	}
}

// TestDataShardFloat32Range: data shard --float32 refuses a value float32
// cannot hold (it wrote +Inf), naming the input file, its line and column
// (it named the 0-based row and column index: "row 1, column 1" for line
// 3's "b"), in a CSV and a LIBSVM file, and writes no shard. The message
// says that the shards store X rounded to float32 (it said "X is read
// into float32", which data shard does not do).
func TestDataShardFloat32Range(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(in, []byte("a,b,y\n1,2,0\n3,1e39,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "shards")
	code, _, se := runCLI("data", "shard", in, out, "--rows", "1", "--float32", "--progress", "never")
	if code != 1 || !strings.Contains(se, in+": line 3: column \"b\": value \"1e39\" is beyond float32's range (±3.4e38; --float32 shards store X rounded to float32)") {
		t.Fatalf("exit %d, stderr %q", code, se)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("refused, yet %s exists (%v)", out, err)
	}
	lib := filepath.Join(dir, "big.libsvm")
	if err := os.WriteFile(lib, []byte("0 1:1 2:2\n# a comment\n1 1:3 2:-1e39\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, se = runCLI("data", "shard", lib, out, "--rows", "1", "--float32", "--progress", "never")
	if code != 1 || !strings.Contains(se, lib+": line 3: feature 2: value \"-1e39\" is beyond float32's range (±3.4e38; --float32 shards store X rounded to float32)") {
		t.Fatalf("LIBSVM: exit %d, stderr %q", code, se)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("LIBSVM refused, yet %s exists (%v)", out, err)
	}
}

// TestFitFloat32PassesRange: falkon's float32 passes over float64 X
// refuse a training file's value beyond float32's range at its line and
// feature, with dense and sparse storage (the fit named "X row 3,
// column 1", an index of the rows read, not the file's line 5), saying
// that the passes round dense X (the LIBSVM file is read sparse, its rows
// rounded only once dense); it said "X is read into float32", which these
// fits do not do. With float32_storage a CSV file is read into float32 and
// the message says so, naming float32_storage for a LIBSVM file.
func TestFitFloat32PassesRange(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "big.libsvm")
	src := "1 1:1 2:2\n-1 1:2 2:1\n# note\n1 1:0.5 2:0.5\n-1 1:3 2:1e39\n1 1:1 2:1\n"
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := in + ": line 5: feature 2: value \"1e39\" is beyond float32's range (±3.4e38; falkon's float32 passes round dense X to float32)"
	code, _, se := runCLI("fit", "--data", in, "--dense", "--estimator", "falkon", "--m", "2", "--lambda", "1e-3", "--gamma", "0.1", "--set", "float32=true", "--progress", "never")
	if code != 1 || !strings.Contains(se, want) {
		t.Fatalf("dense: exit %d, stderr %q", code, se)
	}
	spec := filepath.Join(dir, "s.yaml")
	y := "name: s\ndataset: {path: big.libsvm, storage: sparse}\ntask: binary\nestimator: {type: falkon, kernel: {type: gaussian, gamma: 0.1}, lambda: 0.001, m: 2, float32: true}\nseed: 1\n"
	if err := os.WriteFile(spec, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, se = runCLI("fit", spec, "--progress", "never")
	if code != 1 || !strings.Contains(se, "big.libsvm: line 5: feature 2: value \"1e39\" is beyond float32's range (±3.4e38; falkon's float32 passes round dense X to float32)") {
		t.Fatalf("sparse: exit %d, stderr %q", code, se)
	}
	code, _, se = runCLI("fit", "--data", in, "--dense", "--estimator", "falkon", "--m", "2", "--lambda", "1e-3", "--gamma", "0.1", "--set", "float32_storage=true", "--progress", "never")
	if code != 1 || !strings.Contains(se, in+": line 5: feature 2: value \"1e39\" is beyond float32's range (±3.4e38; float32_storage holds dense X in float32)") {
		t.Fatalf("float32_storage: exit %d, stderr %q", code, se)
	}
	csv := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(csv, []byte("a,b,y\n1,2,1\n2,1,-1\n0.5,0.5,1\n3,1e39,-1\n1,1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, se = runCLI("fit", "--data", csv, "--estimator", "falkon", "--m", "2", "--lambda", "1e-3", "--gamma", "0.1", "--set", "float32_storage=true", "--progress", "never")
	if code != 1 || !strings.Contains(se, csv+": line 5: column \"b\": value \"1e39\" is beyond float32's range (±3.4e38; X is read into float32)") {
		t.Fatalf("float32_storage: exit %d, stderr %q", code, se)
	}
}

// TestDataSynthTextInterrupt: data synth text takes the command's context:
// cancelled (Ctrl-C), it exits with 130 and leaves TRAIN as it was (here a
// file holding "old\n") and writes no TEST; before, it took no context and
// wrote both files, exit 0. With a live context it writes both. TRAIN and
// TEST naming one file are refused as a usage error (one would have
// replaced the other), and a TEST in a folder that does not exist before
// anything is drawn, TRAIN untouched.
func TestDataSynthTextInterrupt(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "tr.svm"), filepath.Join(dir, "te.svm")
	if err := os.WriteFile(tr, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"data", "synth", "text", tr, te, "--rows", "3000", "--test-rows", "500", "--dim", "2000"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var so, se bytes.Buffer
	code := dispatch(ctx, args, &so, &se)
	b, _ := os.ReadFile(tr)
	if _, err := os.Stat(te); code != 130 || !strings.Contains(se.String(), "context canceled") || string(b) != "old\n" || !os.IsNotExist(err) {
		t.Fatalf("cancelled: exit %d, stderr %q, TRAIN %.40q, TEST %v; want 130, TRAIN untouched, no TEST", code, se.String(), b, err)
	}
	for _, bad := range [][]string{{tr, dir + "/./tr.svm"}, {tr, filepath.Join(dir, "no", "te.svm")}} {
		code, _, errs := runCLI("data", "synth", "text", bad[0], bad[1], "--rows", "10", "--dim", "50")
		if b, _ := os.ReadFile(tr); code == 0 || string(b) != "old\n" {
			t.Errorf("TRAIN %s TEST %s: exit %d (%s), TRAIN %.40q; want a refusal, TRAIN untouched", bad[0], bad[1], code, errs, b)
		}
		t.Logf("TEST %s: exit %d: %s", bad[1], code, strings.TrimSpace(errs))
	}
	// The note names the commands that take --dim (it said "when
	// reading", and fit has no --dim).
	if code, out, errs := runCLI(args...); code != 0 || !strings.Contains(out, "give --dim 2000 to data info, convert and shard; fit reads d from the file") {
		t.Fatalf("live context: exit %d: %s%s", code, out, errs)
	}
	for _, p := range []string{tr, te} {
		if b, err := os.ReadFile(p); err != nil || !strings.HasPrefix(string(b), "-1 ") && !strings.HasPrefix(string(b), "1 ") {
			t.Errorf("%s after the live run: %.20q, %v", p, b, err)
		}
	}
}

// TestDataManifestInput: data convert and data shard refuse a shard
// manifest as input, saying so (exit 1); before, they read it as a LIBSVM
// file and failed with "line 1: label \"{\" is not a number".
func TestDataManifestInput(t *testing.T) {
	dir := t.TempDir()
	man := filepath.Join(dir, "set", "manifest.json")
	if code, _, se := runCLI("data", "shard", "heart_scale", filepath.Join(dir, "set"), "--rows", "100", "--progress", "never"); code != 0 {
		t.Fatal(se)
	}
	for _, args := range [][]string{{"data", "convert", man, filepath.Join(dir, "h.csv")}, {"data", "shard", man, filepath.Join(dir, "again"), "--rows", "50"}} {
		code, _, se := runCLI(args...)
		if code != 1 || !strings.Contains(se, man+" is a shard manifest, which data convert and data shard do not read") {
			t.Errorf("%v: exit %d, stderr %q", args[:2], code, se)
		}
	}
}
