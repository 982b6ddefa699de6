package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
)

// TestApproxHelpListsTable: "landmark approx --help" lists exactly the
// method names of experiments' one table (the names a YAML approximation
// run takes), sorted, including those the command once lacked
// (rls-accelerated, the -qr variants).
func TestApproxHelpListsTable(t *testing.T) {
	var out, errb bytes.Buffer
	if err := runApprox(context.Background(), []string{"--help"}, &out, &errb); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: err = %v", err)
	}
	_, methods, ok := strings.Cut(errb.String(), "\nMethods")
	if !ok {
		t.Fatalf("no method list in the help:\n%s", errb.String())
	}
	var got []string
	for _, line := range strings.Split(methods, "\n")[1:] {
		if f := strings.Fields(line); len(f) > 0 {
			got = append(got, f[0])
		}
	}
	var want []string
	for _, nm := range experiments.ApproximationNames() {
		want = append(want, nm[0])
	}
	if !slices.IsSorted(got) || !slices.Equal(got, want) || !slices.Contains(got, "rls-accelerated") || !slices.Contains(got, "uniform-qr") {
		t.Errorf("help lists %v, want the table's %v (sorted)", got, want)
	}
}

// approxTSV runs "landmark approx … --format tsv" and returns the row as a
// header→value map.
func approxTSV(t *testing.T, args ...string) map[string]string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := runApprox(context.Background(), append(args, "--format", "tsv"), &out, &errb); err != nil {
		t.Fatalf("%v: %v (%s)", args, err, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("output %q", out.String())
	}
	h, v := strings.Split(lines[0], "\t"), strings.Split(lines[1], "\t")
	row := map[string]string{}
	for i := range h {
		row[h[i]] = v[i]
	}
	return row
}

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestApproxCommand(t *testing.T) {
	// heart_scale is bundled: 270 points. With all 270 rows as uniform
	// landmarks Nyström reproduces K, so both errors vanish up to the
	// eigenvalue floor (1e-10 relative) and rounding.
	base := []string{"--data", "heart_scale", "--gamma", "0.05", "--spectral-n", "200"}
	full := approxTSV(t, append(base, "--method", "uniform", "--m", "270")...)
	if e := num(t, full["rel_frob"]); e > 1e-6 {
		t.Errorf("uniform with M = n: relative error %g", e)
	}
	if e := num(t, full["spectral_rel"]); e > 1e-6 {
		t.Errorf("uniform with M = n: spectral error ratio %g", e)
	}
	// With 20 landmarks the error is real but below 1 (K̃ is a projection of
	// K, so ‖K − K̃‖_F ≤ ‖K‖_F), and rank-5 QR has rank 5.
	part := approxTSV(t, append(base, "--method", "kmeans", "--m", "20")...)
	if e := num(t, part["rel_frob"]); !(e > 1e-4 && e < 1) {
		t.Errorf("kmeans M = 20: relative error %g", e)
	}
	qr := approxTSV(t, append(base, "--method", "uniform-qr", "--m", "20", "--rank", "5")...)
	if qr["rank"] != "5" {
		t.Errorf("rank %s, want 5", qr["rank"])
	}
	// Same seed, same numbers.
	again := approxTSV(t, append(base, "--method", "kmeans", "--m", "20")...)
	if again["rel_frob"] != part["rel_frob"] || again["spectral"] != part["spectral"] {
		t.Errorf("not reproducible: %v vs %v", part, again)
	}
	// --dataset NAME, fit's flag for a bundled set, is --data NAME
	// (it was an unknown flag).
	named := approxTSV(t, "--dataset", "heart_scale", "--gamma", "0.05", "--spectral-n", "200", "--method", "kmeans", "--m", "20")
	if named["rel_frob"] != part["rel_frob"] || named["spectral"] != part["spectral"] {
		t.Errorf("--dataset heart_scale: %v, --data heart_scale: %v", named, part)
	}
	r := approxTSV(t, append(base, "--method", "rff", "--m", "50")...)
	if e := num(t, r["rel_frob"]); !(e > 0 && e < 2) {
		t.Errorf("rff relative error %g", e)
	}
}

func TestApproxCommandSamplers(t *testing.T) {
	// Every landmark sampler of the table runs end to end; with 30 landmarks
	// of 270 points the error is neither zero nor above ‖K‖ (K̃ ⪯ K for
	// Nyström, so the relative Frobenius error is below 1).
	for _, name := range []string{"bless", "bless-r", "clustered", "exact-rls", "kmeans", "rls", "uniform"} {
		row := approxTSV(t, "--data", "heart_scale", "--gamma", "0.05", "--spectral-n", "200", "--method", name, "--m", "30")
		if e := num(t, row["rel_frob"]); !(e > 1e-6 && e < 1) {
			t.Errorf("%s: relative error %g", name, e)
		}
	}
}

func TestApproxCommandErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--method", "uniform"}, // no data
		{"--data", "heart_scale", "--gamma", "1", "--method", "nope"},
		{"--data", "heart_scale", "--gamma", "1", "--m", "0"},
		{"--data", "heart_scale", "--gamma", "0"}, // not "no width", which would take scale
		{"--data", "heart_scale", "--sigma", "0"},
		{"--data", "heart_scale", "--gamma", "1", "--m", "1000"}, // M > n
		{"--data", "heart_scale", "--gamma", "1", "--scale", "zz"},
		{"--data", "heart_scale", "--gamma", "1", "extra"},
	} {
		var out, errb bytes.Buffer
		if err := runApprox(context.Background(), args, &out, &errb); !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
}

// TestApproxMemoryCap: every method refuses a --memory cap below its plan
// with ErrMemory naming the bytes, and builds under a generous one. On 600
// rows × 36 with m = 50 and 10 Frobenius rows the smallest plan is uniform
// Nyström's: 3·50²·8 = 60,000 bytes for the map plus 2·10·600·8 = 96,000 for
// the measures, so a 100 KB cap is below every method's plan.
func TestApproxMemoryCap(t *testing.T) {
	base := []string{"--data", "satimage", "--gamma", "0.03", "--n", "600", "--m", "50", "--clusters", "5",
		"--sample-rows", "10", "--spectral-n", "0", "--format", "tsv"}
	for _, nm := range experiments.ApproximationNames() {
		name := nm[0]
		base := slices.Clone(base)
		if name != "meka" {
			base = append(base, "--rank", "20") // meka's rank is m/clusters
		}
		var out, errb bytes.Buffer
		args := append(slices.Clone(base), "--method", name, "--memory", "100K")
		err := runApprox(context.Background(), args, &out, &errb)
		if !errors.Is(err, approx.ErrMemory) || !strings.Contains(err.Error(), "bytes") && !strings.Contains(err.Error(), "MiB") {
			t.Errorf("%s under a 100 KB cap: err = %v, want ErrMemory naming the bytes", name, err)
		}
		out.Reset()
		args = append(slices.Clone(base), "--method", name, "--memory", "1G")
		if err := runApprox(context.Background(), args, &out, &errb); err != nil {
			t.Errorf("%s under 1 GB: %v", name, err)
		}
	}
}

// TestApproxCommandSparse: on a LIBSVM file of density 0.02 "landmark
// approx" keeps X sparse by default (the storage column says so) and every
// method gives the errors it gives with --dense to the 6 printed digits
// (the library's measures agree to 1e-10, TestQualitySparseMatchesDense):
// the same seed draws the same landmarks, clusters and sampled rows, and
// the kernel values differ only by round-off. --scale std and --n
// subsetting keep CSR too.
func TestApproxCommandSparse(t *testing.T) {
	x, y, err := datasets.SparseRegression(400, 300, 6, rand.New(rand.NewPCG(8, 9)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sparse.svm")
	if err := datasets.WriteLIBSVMSparseFile(path, x, y); err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{
		{"--method", "uniform", "--m", "40"},
		{"--method", "uniform-qr", "--m", "40", "--rank", "20"},
		{"--method", "rls", "--m", "40"},
		{"--method", "kmeans", "--m", "40"},
		{"--method", "clustered", "--m", "40"},
		{"--method", "rff", "--m", "100"},
		{"--method", "meka", "--m", "30", "--clusters", "3"},
		{"--method", "bka", "--clusters", "3"},
		{"--method", "uniform", "--m", "40", "--scale", "std", "--n", "250"},
	} {
		args := append([]string{"--data", path, "--gamma", "0.1", "--spectral-n", "200", "--sample-rows", "200"}, extra...)
		sp := approxTSV(t, args...)
		de := approxTSV(t, append(args, "--dense")...)
		if sp["storage"] != "sparse" || de["storage"] != "dense" {
			t.Fatalf("%v: storage %q and %q with --dense", extra, sp["storage"], de["storage"])
		}
		if sp["n"] != de["n"] {
			t.Fatalf("%v: n %s vs %s", extra, sp["n"], de["n"])
		}
		for _, col := range []string{"rel_frob", "spectral"} {
			a, b := num(t, sp[col]), num(t, de[col])
			// Printed with %.6g: half a unit in the 6th digit.
			if !(math.Abs(a-b) <= 5e-6*math.Abs(b)) || !(b > 0) {
				t.Errorf("%v %s: sparse %v, dense %v", extra, col, a, b)
			}
		}
	}
	var out, errb bytes.Buffer
	if err := runApprox(context.Background(), []string{"--data", path, "--gamma", "0.1", "--m", "20", "--spectral-n", "0"}, &out, &errb); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "sparse X (CSR), density 0.02 (auto: density 0.02 < 0.1); landmarks sparse (CSR, ") {
		t.Errorf("text output does not say how X and the landmarks were held:\n%s", out.String())
	}
}

// TestApproxCommandStorageReason: the storage line says why X is held as it
// is. The files are written here from bundled heart_scale (270 × 13, nearly
// dense) and a synthetic 400 × 300 set with 6 non-zeros a row (density
// 0.02); the LIBSVM site's names carry no extension (a9a, news20.binary.bz2),
// so a gzip-compressed LIBSVM file named "a9a" must be recognised by its
// content and kept sparse, and a CSV file without an extension read dense.
func TestApproxCommandStorageReason(t *testing.T) {
	dir := t.TempDir()
	hs, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	heart := filepath.Join(dir, "heart_scale.libsvm")
	if err := datasets.WriteFile(heart, hs, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	csvNoExt := filepath.Join(dir, "heart")
	if err := datasets.WriteFile(csvNoExt, hs, datasets.WriteOptions{Format: datasets.CSV}); err != nil {
		t.Fatal(err)
	}
	x, y, err := datasets.SparseRegression(400, 300, 6, rand.New(rand.NewPCG(8, 9)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	if err := datasets.WriteLIBSVMSparse(gz, x, y); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	a9a := filepath.Join(dir, "a9a")
	if err := os.WriteFile(a9a, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", "heart_scale"}, "(auto: bundled sets are dense)"},
		{[]string{"--data", heart, "--scale", "standard"}, "(auto: scale standardize needs dense data)"},
		{[]string{"--data", heart, "--dense"}, "dense X, density"},
		{[]string{"--data", heart}, "dense X, density 0.9"},
		{[]string{"--data", a9a}, "sparse X (CSR), density 0.02 (auto: density 0.02 < 0.1)"},
		{[]string{"--data", csvNoExt}, "(auto: not a LIBSVM file)"},
	} {
		var out, errb bytes.Buffer
		args := append(tc.args, "--gamma", "0.1", "--m", "10", "--spectral-n", "0")
		if err := runApprox(context.Background(), args, &out, &errb); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out.String())
		}
	}
}
