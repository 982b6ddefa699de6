package bench

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

func TestBenchSVMSmoke(t *testing.T) {
	if _, ok := datasets.SharedPath("ijcnn1.train.libsvm.gz"); !ok {
		t.Skip("ijcnn1 not in the shared datasets")
	}
	var out, errb bytes.Buffer
	err := runBenchSVM(context.Background(), []string{"-train", "600", "-test", "600", "-methods", "bka,exact", "-clusters", "2,3"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"| bka c=2, local |", "| bka c=3, global (eq. 9) | (same fit) |", "| model.SVM exact |", "600 train / 600 test"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestBenchSVMUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-c", "0"},
		{"-clusters", "4,x"},
		{"-methods", "svmlight", "-train", "10", "-test", "10"},
		{"-data", "nosuch"},
		{"-format", "csr"},
		{"-data", "text", "-nnz", "30", "-dim", "20"},
		{"-train-file", "a.libsvm"},
		{"-dim", "-1"},
		{"-nosuchflag"},
	} {
		var out, errb bytes.Buffer
		err := runBenchSVM(context.Background(), args, &out, &errb)
		if !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want errUsage", args, err)
		}
	}
}

// TestBenchSVMSparseText runs the sparse mode on a small synthetic text set
// beside svm-train (when installed) and checks the closing comparison line.
func TestBenchSVMSparseText(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchSVM(context.Background(), []string{"-data", "text", "-format", "sparse", "-train", "300", "-test", "100",
		"-dim", "2000", "-nnz", "20", "-c", "1", "-gamma", "1", "-methods", "exact,libsvm"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"300 train / 100 test, d = 2000, sparse X (density 0.0100)", "| model.SVM exact |"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if _, err := exec.LookPath("svm-train"); err == nil && !strings.Contains(s, "model.SVM exact (sparse X) vs svm-train: dual objective") {
		t.Errorf("no comparison line:\n%s", s)
	}
}

// TestBenchSVMFiles writes a small news20-shaped pair with "data synth text"
// and benchmarks model.SVM with both caches beside svm-train on the files:
// both fits report the same support-vector count as svm-train, and their SV
// sets, matched by content at the model file's 8 digits, are svm-train's.
func TestBenchSVMFiles(t *testing.T) {
	dir := t.TempDir()
	tr, te := filepath.Join(dir, "tr.libsvm"), filepath.Join(dir, "te.libsvm")
	// As "landmark data synth text TR TE --rows 300 --test-rows 100 --dim 20000 --nnz 15" writes them.
	opt := datasets.TextOptions{Dim: 20000, NNZ: 15, Classes: 2, Exponent: 1, TopicShare: 0.1}
	if _, err := datasets.WriteSyntheticText(rand.New(rand.NewPCG(1, 0x7e47)), opt, []datasets.TextPart{{Path: tr, Rows: 300}, {Path: te, Rows: 100}}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	err := runBenchSVM(context.Background(), []string{"-train-file", tr, "-test-file", te, "-format", "sparse",
		"-c", "1", "-gamma", "1", "-methods", "exact,exact32,libsvm"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"300 train / 100 test", "| model.SVM exact |", "| model.SVM exact32 |"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if _, err := exec.LookPath("svm-train"); err != nil {
		return
	}
	re := regexp.MustCompile(`model\.SVM (exact|exact32) \(sparse X\) vs svm-train: .*SV (\d+) vs (\d+) \(SV sets: (\d+) common, 0 only ours, 0 only svm-train's\)`)
	m := re.FindAllStringSubmatch(s, -1)
	if len(m) != 2 {
		t.Fatalf("want two comparison lines with identical SV sets:\n%s", s)
	}
	for _, l := range m {
		if l[2] != l[3] || l[3] != l[4] {
			t.Errorf("%s: SV %s vs %s, %s common", l[1], l[2], l[3], l[4])
		}
	}
}

// TestLIBSVMModelKeys reads the SV section of a hand-written three-class
// svm-train model (two coefficients a line) and matches it with rows whose
// values agree at the model file's 8 significant digits.
func TestLIBSVMModelKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "model")
	model := "svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 3\ntotal_sv 3\nrho 0.1 0.2 0.3\nlabel 1 2 3\nnr_sv 1 1 1\nSV\n" +
		"1 0 1:0.33333333 4:1\n-1 0.5 2:0.25\n0 -0.5 1:0.33333333 4:1\n"
	if err := os.WriteFile(p, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := libsvmModelKeys(p)
	if err != nil {
		t.Fatal(err)
	}
	x, err := datasets.NewCSR(3, 5, []int{0, 2, 3, 5}, []int32{0, 3, 1, 0, 3}, []float64{1.0 / 3, 1, 0.25, 1.0 / 3, 1})
	if err != nil {
		t.Fatal(err)
	}
	common, onlyOurs, onlyLib := compareKeys(rowKeys(x), lib)
	if common != 3 || onlyOurs != 0 || onlyLib != 0 {
		t.Errorf("common %d, only ours %d, only svm-train's %d; want 3, 0, 0 (keys %v)", common, onlyOurs, onlyLib, lib)
	}
	// A row that differs in the 8th digit is another vector.
	y, _ := datasets.NewCSR(1, 5, []int{0, 1}, []int32{1}, []float64{0.2500001})
	if c, a, b := compareKeys(rowKeys(y), lib); c != 0 || a != 1 || b != 3 {
		t.Errorf("0.2500001 vs 0.25: common %d, only ours %d, only svm-train's %d", c, a, b)
	}
	for _, bad := range []string{"nr_class 2\nSV\n1 1:x\n", "nr_class 2\n", "nr_class 3\nSV\n1\n"} {
		if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := libsvmModelKeys(p); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
