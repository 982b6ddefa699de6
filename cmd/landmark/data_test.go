package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"gonum.org/v1/gonum/mat"
)

func runDataArgs(args ...string) (string, string, error) {
	var out, errOut bytes.Buffer
	err := runData(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func TestDataList(t *testing.T) {
	out, _, err := runDataArgs("list")
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range datasets.Bundled() {
		if !strings.Contains(out, b.Name) {
			t.Errorf("list lacks %s:\n%s", b.Name, out)
		}
	}
	if _, _, err := runDataArgs("list", "extra"); !errors.Is(err, errUsage) {
		t.Errorf("list extra: err = %v, want errUsage", err)
	}
}

func TestDataInfo(t *testing.T) {
	out, _, err := runDataArgs("info", "heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	// heart_scale: 150 × −1 and 120 × +1 (LIBSVM's example file).
	for _, want := range []string{"rows:", "270", "features:", "13", "binary", "-1: 150 (55.6%)", "1: 120 (44.4%)", "sparsity:"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
	// A CSV file with the target chosen by name, flags after the file.
	p := filepath.Join(t.TempDir(), "w.csv")
	if err := os.WriteFile(p, []byte("a,b,q\n1,10,3\n2,20,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err = runDataArgs("info", p, "--target", "b")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "target b:") || !strings.Contains(out, "min 10  max 20") {
		t.Errorf("CSV info:\n%s", out)
	}
	// A malformed file: the error names the file and the line.
	bad := filepath.Join(t.TempDir(), "bad.libsvm")
	if err := os.WriteFile(bad, []byte("1 1:1\n-1 2:1 2:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runDataArgs("info", bad)
	if err == nil || !strings.Contains(err.Error(), bad+": line 2: feature index 2 repeated") {
		t.Errorf("malformed file: err = %v", err)
	}
	for _, args := range [][]string{{"info"}, {"info", "a", "b"}, {"info", "x", "--header", "maybe"}, {"info", "x", "--delim", ";;"}, {"frobnicate"}, {}} {
		if _, _, err := runDataArgs(args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", args, err)
		}
	}
	if _, _, err := runDataArgs("info", "--help"); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: err = %v", err)
	}
}

func TestDataConvert(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "heart.csv.gz")
	if _, _, err := runDataArgs("convert", "heart_scale", csvPath); err != nil {
		t.Fatal(err)
	}
	back := filepath.Join(dir, "heart.svm")
	out, _, err := runDataArgs("convert", csvPath, back)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "270 rows × 13 features") {
		t.Errorf("convert output %q", out)
	}
	orig, _ := datasets.Load("heart_scale")
	got, err := datasets.ReadFile(back, datasets.ReadOptions{Dim: 13})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(orig.X, got.X) {
		t.Error("libsvm → csv → libsvm changed X")
	}
	for i := range orig.Y {
		if orig.Y[i] != got.Y[i] {
			t.Fatalf("label %d changed: %v → %v", i, orig.Y[i], got.Y[i])
		}
	}
	// --memory caps the read's peak, as the memory errors' hint says;
	// data shard and data info take it too. The CSV read's chunks (of 78,
	// 156 and 312 rows of 13 features: 56,784 bytes, and the targets' of
	// 1,024 rows: 8,192) go over 1,000 bytes; with 93,056 bytes they fit
	// but not X (270 × 13 float64 = 28,080 bytes) beside them.
	for _, c := range []struct{ memory, want string }{
		{"1000", "the values read (270 rows) needs 64976 bytes (63.5 KiB), the limit is 1000 bytes"},
		{"93055", "a dense 270×13 matrix beside the rows parsed (63.5 KiB), which are copied into it needs 93056 bytes (90.9 KiB), the limit is 93055 bytes"},
	} {
		for _, args := range [][]string{
			{"convert", csvPath, filepath.Join(dir, "capped.csv"), "--memory", c.memory},
			{"shard", csvPath, filepath.Join(dir, "capped"), "--rows", "100", "--memory", c.memory},
		} {
			if _, _, err := runDataArgs(args...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("data %s --memory %s: %v", args[0], c.memory, err)
			}
		}
	}
	if _, _, err := runDataArgs("convert", csvPath, filepath.Join(dir, "capped.csv"), "--memory", "93056"); err != nil {
		t.Errorf("data convert --memory 93056, the read's peak: %v", err)
	}
	// A LIBSVM file counts against --memory before its values are read:
	// its first pass counts the rows and non-zeros, and data info, which
	// reads it sparse, needs the CSR arrays (12 bytes a non-zero, 16 a row),
	// data convert, which reads it dense, X alone (8·n·d), the values
	// parsed straight into it. Before 2026-11-28 data info ignored --memory;
	// until the first pass (the same day), the rows were counted as they
	// were read, and a dense read needed them and X at once (the 44,856
	// bytes that data convert needed here are now 28,080).
	hs, hy, err := datasets.ReadLIBSVMSparseFile(context.Background(), back, 13)
	if err != nil {
		t.Fatal(err)
	}
	nnz := hs.NNZ()
	sparse := 12*nnz + 16*len(hy)
	dense := 8 * len(hy) * 13
	for _, c := range []struct {
		args []string
		need int
		want string
	}{
		{[]string{"info", back}, sparse, fmt.Sprintf("the 270 rows of %d non-zeros counted, as CSR needs %d bytes", nnz, sparse)},
		{[]string{"convert", back, filepath.Join(dir, "capped.csv")}, dense, fmt.Sprintf("a dense 270×13 matrix needs %d bytes", dense)},
	} {
		if _, _, err := runDataArgs(append(c.args, "--memory", strconv.Itoa(c.need-1))...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("data %s --memory %d: %v, want %q", c.args[0], c.need-1, err, c.want)
		}
		if _, _, err := runDataArgs(append(c.args, "--memory", strconv.Itoa(c.need))...); err != nil {
			t.Errorf("data %s --memory %d (what the read needs): %v", c.args[0], c.need, err)
		}
	}
	// A semicolon CSV with --to and delimiters.
	semi := filepath.Join(dir, "out.dat")
	if _, _, err := runDataArgs("convert", "--to", "csv", "--out-delim", ";", "heart_scale", semi); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(semi)
	if !strings.HasPrefix(string(raw), "x1;x2;") {
		t.Errorf("semicolon CSV starts %q", raw[:20])
	}
	for _, args := range [][]string{{"convert", "heart_scale"}, {"convert", "heart_scale", filepath.Join(dir, "noext")}, {"convert", "--to", "arff", "heart_scale", semi}} {
		if _, _, err := runDataArgs(args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", args, err)
		}
	}
}

// TestDataConvertTextLabels: a CSV of text labels converts to CSV with
// its names, and to LIBSVM (whose labels are numbers) with the class
// indices, the names sorted (B 0, M 1), stderr saying which name became
// which number. Before, convert refused the first text label.
func TestDataConvertTextLabels(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "bc.csv")
	if err := os.WriteFile(in, []byte("a,diagnosis\n1,M\n2,B\n3,M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "bc2.csv")
	if _, _, err := runDataArgs("convert", in, out, "--progress", "never"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out); string(b) != "a,diagnosis\n1,M\n2,B\n3,M\n" {
		t.Errorf("CSV to CSV:\n%s", b)
	}
	svm := filepath.Join(dir, "bc.svm")
	_, se, err := runDataArgs("convert", in, svm, "--progress", "never")
	if err != nil || !strings.Contains(se, `the text labels are written as their class indices: "B" → 0, "M" → 1`) {
		t.Errorf("CSV to LIBSVM: %v, stderr %q", err, se)
	}
	if b, _ := os.ReadFile(svm); string(b) != "1 1:1\n0 1:2\n1 1:3\n" {
		t.Errorf("CSV to LIBSVM:\n%s", b)
	}
}

// TestDataShard writes heart_scale (270 rows) in shards of 100 and reads
// them back: 3 shards of 100, 100, 70 rows holding the rows in order, a
// binary task with labels ±1, and column statistics equal to the ones
// computed here from the data. Bad input is refused with a usage error or
// the reader's file-and-line error.
func TestDataShard(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "heart")
	out, _, err := runDataArgs("shard", "heart_scale", dir, "--rows", "100")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "270 rows × 13 features (classification) in 3 shards") {
		t.Errorf("shard output %q", out)
	}
	raw, err := os.ReadFile(filepath.Join(dir, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := shard.ParseManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := datasets.Load("heart_scale")
	if m.N != 270 || m.D != 13 || len(m.Shards) != 3 || m.Shards[2].Rows != 70 || len(m.Classes) != 2 || m.Classes[0] != -1 || m.Classes[1] != 1 {
		t.Fatalf("manifest n=%d d=%d shards=%+v classes=%v", m.N, m.D, m.Shards, m.Classes)
	}
	for _, e := range m.Shards {
		f, err := os.Open(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		x, y, err := shard.Read(f, e.Rows, m.D)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(x, orig.X.Slice(e.FirstRow, e.FirstRow+e.Rows, 0, 13)) {
			t.Errorf("shard %s does not hold rows %d..%d", e.File, e.FirstRow, e.FirstRow+e.Rows)
		}
		for i, v := range y {
			if v != orig.Y[e.FirstRow+i] {
				t.Fatalf("shard %s label %d: %v, want %v", e.File, i, v, orig.Y[e.FirstRow+i])
			}
		}
	}
	col := mat.Col(nil, 0, orig.X)
	var mean float64
	for _, v := range col {
		mean += v / float64(len(col))
	}
	if d := m.Mean[0] - mean; d > 1e-12 || d < -1e-12 {
		t.Errorf("manifest mean[0] = %v, want %v", m.Mean[0], mean)
	}

	// A regression target from --task, and a CSV file with a bad line.
	if _, _, err := runDataArgs("shard", "--task", "regression", "--rows", "1000", "heart_scale", filepath.Join(t.TempDir(), "r")); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b,y\n1,2,3\n4,oops,6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = runDataArgs("shard", bad, filepath.Join(t.TempDir(), "b"), "--rows", "1")
	if err == nil || !strings.Contains(err.Error(), "bad.csv") || !strings.Contains(err.Error(), "3") {
		t.Errorf("bad CSV: err = %v, want the file name and line 3", err)
	}
	for _, args := range [][]string{
		{"shard", "heart_scale", dir},                 // no --rows
		{"shard", "heart_scale", dir, "--rows", "0"},  // rows ≤ 0
		{"shard", "heart_scale", dir, "--rows", "-5"}, // rows ≤ 0
		{"shard", "heart_scale", "--rows", "10"},      // no OUTDIR
		{"shard", "heart_scale", dir, "--rows", "10", "--task", "ranking"},
	} {
		if _, _, err := runDataArgs(args...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", args, err)
		}
	}
	if _, _, err := runDataArgs("shard", filepath.Join(t.TempDir(), "missing.svm"), dir, "--rows", "10"); err == nil || !strings.Contains(err.Error(), "missing.svm") {
		t.Errorf("missing file: err = %v", err)
	}
}

// TestDataSynthText writes train and test files and checks that they read
// back as the rows of one SyntheticText draw with the same seed, split in
// order.
func TestDataSynthText(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "s.libsvm"), filepath.Join(dir, "s.t.gz")
	out, _, err := runDataArgs("synth", "text", tr, te, "--rows", "120", "--test-rows", "30", "--dim", "4000", "--nnz", "12", "--seed", "5")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "120 rows × 4000 features") || !strings.Contains(out, "30 rows × 4000 features") {
		t.Errorf("output:\n%s", out)
	}
	x, y, err := datasets.SyntheticText(rand.New(rand.NewPCG(5, 0x7e47)), datasets.TextOptions{Rows: 150, Dim: 4000, NNZ: 12})
	if err != nil {
		t.Fatal(err)
	}
	for k, p := range []string{tr, te} {
		got, gy, err := datasets.ReadLIBSVMSparseFile(context.Background(), p, 4000)
		if err != nil {
			t.Fatal(err)
		}
		lo := []int{0, 120}[k]
		n, _ := got.Dims()
		for i := range n {
			a, b := got.Indptr[i], x.Indptr[lo+i]
			if gy[i] != y[lo+i] || got.Indptr[i+1]-a != x.Indptr[lo+i+1]-b ||
				!slices.Equal(got.Indices[a:got.Indptr[i+1]], x.Indices[b:x.Indptr[lo+i+1]]) ||
				!slices.Equal(got.Values[a:got.Indptr[i+1]], x.Values[b:x.Indptr[lo+i+1]]) {
				t.Fatalf("%s row %d differs from the draw's row %d", p, i, lo+i)
			}
		}
		if want := []int{120, 30}[k]; n != want {
			t.Errorf("%s: %d rows, want %d", p, n, want)
		}
	}
	for _, bad := range [][]string{
		{"synth"}, {"synth", "image", "x"}, {"synth", "text"}, {"synth", "text", "a", "b", "c"},
		{"synth", "text", filepath.Join(dir, "z"), "--rows", "0"}, {"synth", "text", filepath.Join(dir, "z"), "--dim", "0"},
	} {
		if _, _, err := runDataArgs(bad...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", bad, err)
		}
	}
	if _, _, err := runDataArgs("synth", "text", filepath.Join(dir, "z"), "--dim", "10", "--nnz", "12"); !errors.Is(err, datasets.ErrInput) {
		t.Errorf("--dim 10 --nnz 12: err = %v, want ErrInput", err)
	}
}

// TestDataInfoWideSparse runs data info on a LIBSVM file with an index of
// 10⁸: it is read and summarized as CSR (a dense read would need 3.2 GB and
// is refused over 8 GiB, a length-d per-feature table 8 GB), lists the
// features that occur under their own indices, and says the others are zero.
func TestDataInfoWideSparse(t *testing.T) {
	p := filepath.Join(t.TempDir(), "wide.libsvm")
	if err := os.WriteFile(p, []byte("1 1:0.5 3:1\n-1 2:1 100000000:0.25\n1 1:1 2:0.5\n-1 3:0.7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runDataArgs("info", p)
	if err != nil {
		t.Fatal(err)
	}
	// Column 10⁸ holds 0, 0.25, 0, 0: mean 0.0625, std √(0.25²/4 − 0.0625²) = 0.108253.
	for _, want := range []string{"features:      100000000 (4 occur, 99999996 are zero on every row; 99999996 constant)",
		"(7 non-zeros, density 1.75e-08)", "per-feature statistics of the 4 features that occur",
		"100000000  x100000000    0  0.25  0.0625  0.108253  75.0%"} {
		if !strings.Contains(out, want) {
			t.Errorf("info output lacks %q:\n%s", want, out)
		}
	}
}

// TestDataSynthHiggs writes the HIGGS-shaped set through the command: the
// files are those of datasets.WriteSyntheticHiggs with the same options
// (whatever --workers), with a progress line per shard; bad flags are
// usage errors.
func TestDataSynthHiggs(t *testing.T) {
	dir := t.TempDir()
	out, errOut, err := runDataArgs("synth", "higgs", filepath.Join(dir, "a"), "--rows", "1000", "--shard-rows", "400", "--seed", "4", "--workers", "1", "--progress", "always")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "wrote 1000 rows × 28 features (classification) in 3 shards: "+filepath.Join(dir, "a", "manifest.json")) {
		t.Errorf("output:\n%s", out)
	}
	if !strings.Contains(errOut, "data synth higgs: shard 3/3 written (rows 1000/1000;") || strings.Count(errOut, "\n") != 3 {
		t.Errorf("progress:\n%s", errOut)
	}
	if _, err := datasets.WriteSyntheticHiggs(context.Background(), filepath.Join(dir, "b"), datasets.HiggsOptions{Rows: 1000, ShardRows: 400, Seed: 4, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"manifest.json", "shard-00000.lmks", "shard-00002.lmks"} {
		a, errA := os.ReadFile(filepath.Join(dir, "a", f))
		b, errB := os.ReadFile(filepath.Join(dir, "b", f))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: command and library files differ (%v, %v)", f, errA, errB)
		}
	}
	// --float32 (data synth higgs and data shard): a format-2 manifest of
	// float32 shards.
	if _, _, err := runDataArgs("synth", "higgs", filepath.Join(dir, "f"), "--rows", "500", "--shard-rows", "200", "--float32", "--progress", "never"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runDataArgs("shard", "heart_scale", filepath.Join(dir, "h"), "--rows", "100", "--float32", "--progress", "never"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"f", "h"} {
		b, err := os.ReadFile(filepath.Join(dir, f, "manifest.json"))
		if m, perr := shard.ParseManifest(b); err != nil || perr != nil || m.Type != shard.Float32 || m.Format != shard.Format2 {
			t.Errorf("%s: --float32 manifest %s (%v, %v)", f, b[:min(len(b), 80)], err, perr)
		}
	}
	for _, bad := range [][]string{
		{"synth", "higgs"}, {"synth", "higgs", filepath.Join(dir, "z"), "--rows", "10"},
		{"synth", "higgs", filepath.Join(dir, "z"), "--shard-rows", "10"},
		{"synth", "higgs", filepath.Join(dir, "z"), "--rows", "10", "--shard-rows", "0"},
		{"synth", "higgs", "a", "b", "--rows", "10", "--shard-rows", "5"},
	} {
		if _, _, err := runDataArgs(bad...); !errors.Is(err, errUsage) {
			t.Errorf("%q: err = %v, want errUsage", bad, err)
		}
	}
}

// data info on a shard manifest prints what it records (no shard read):
// the manifest's own numbers; a malformed manifest is an error naming it.
func TestDataInfoManifest(t *testing.T) {
	dir := t.TempDir()
	m, err := datasets.WriteSyntheticHiggs(context.Background(), dir, datasets.HiggsOptions{Rows: 300, ShardRows: 200, Seed: 2, Type: shard.Float32})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "manifest.json")
	out, _, err := runDataArgs("info", p, "--all")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"rows:      300\n", "features:  28\n", "classes:   [-1 1]", "shards:    2 of up to 200 rows, X as float32",
		fmt.Sprintf("28  x28      %.6g", m.Mean[27])} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	os.WriteFile(p, []byte(`{"format": "landmark-shards/9"}`), 0o644)
	if _, _, err := runDataArgs("info", p); err == nil || !strings.Contains(err.Error(), p) {
		t.Errorf("bad manifest: err %v", err)
	}
}

// TestDataSplit: data split writes the split fit --test-fraction makes
// (experiments.SplitRows, the seed's stream), so a fit of TRAIN scored on
// TEST prints exactly the scores of a fit of IN with --test-fraction and
// --seed: stratified for heart_scale (216 + 54 rows, the class shares
// kept to a row), random for the red-wine regression (1279 + 320).
// Outputs that are the input, or each other, and a fraction outside (0, 1)
// are usage errors.
func TestDataSplit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, ext, task string
		train, test     int
		args            []string
	}{
		{"heart_scale", ".libsvm", "classification", 216, 54, []string{"--gamma", "0.1"}},
		{"winequality-red", ".csv", "regression", 1279, 320, []string{"--gamma", "0.1", "--lambda", "1e-3", "--task", "regression"}},
	} {
		tr, te := filepath.Join(dir, c.name+"-train"+c.ext), filepath.Join(dir, c.name+"-test"+c.ext)
		out, _, err := runDataArgs("split", c.name, tr, te, "--test-fraction", "0.2", "--seed", "5", "--task", c.task, "--progress", "never")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, fmt.Sprintf("%d rows", c.train)) || !strings.Contains(out, fmt.Sprintf("%d rows", c.test)) {
			t.Errorf("%s: %s", c.name, out)
		}
		scores := func(args ...string) (any, any) {
			t.Helper()
			code, so, se := runCLI(append(append([]string{"fit", "--json", "--progress", "never", "--seed", "5"}, args...), c.args...)...)
			if code != 0 {
				t.Fatalf("%s: fit %v: exit %d: %s", c.name, args, code, se)
			}
			var r struct{ Train, Test any }
			if err := json.Unmarshal([]byte(so), &r); err != nil {
				t.Fatal(err)
			}
			return r.Train, r.Test
		}
		trainFiles, testFiles := scores("--data", tr, "--test-data", te)
		trainWhole, testWhole := scores("--dataset", c.name, "--test-fraction", "0.2")
		if testFiles == nil || !reflect.DeepEqual(trainFiles, trainWhole) || !reflect.DeepEqual(testFiles, testWhole) {
			t.Errorf("%s: the files' fit scored %v / %v, the whole set's %v / %v", c.name, trainFiles, testFiles, trainWhole, testWhole)
		}
	}
	in := filepath.Join(dir, "heart_scale-train.libsvm")
	for _, args := range [][]string{
		{"split", in, in, filepath.Join(dir, "b.libsvm"), "--test-fraction", "0.2"},
		{"split", "heart_scale", filepath.Join(dir, "a.libsvm"), filepath.Join(dir, "a.libsvm"), "--test-fraction", "0.2"},
		{"split", "heart_scale", filepath.Join(dir, "c.libsvm"), filepath.Join(dir, "d.libsvm"), "--test-fraction", "1"},
	} {
		if _, _, err := runDataArgs(args...); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}
