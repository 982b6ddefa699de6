package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// The result line is the last JSON object on stdout, whatever notes precede
// it; a missing, malformed or implausible line is an error.
func TestSparseBenchParse(t *testing.T) {
	out := "loading...\n{\"method\": \"x\", \"fit_s\": 1}\nnote\n" +
		`{"method": "falkon", "fit_s": 3.5, "fit_cpu_s": 6.25, "predict_s": 0.5, "accuracy": 0.915, "rss_bytes": 576000000, "data_rss_bytes": 317000000, "ntrain": 2500, "ntest": 626, "d": 1048572, "nnz": 637557, "classes": 6, "note": "torch"}` + "\n"
	r, err := sparseBenchParse([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := sparseBenchResult{Method: "falkon", FitS: 3.5, FitCPUS: 6.25, PredictS: 0.5, Accuracy: 0.915, RSSBytes: 576000000, DataRSS: 317000000,
		NTrain: 2500, NTest: 626, D: 1048572, NNZ: 637557, Classes: 6, Note: "torch"}
	if r != want {
		t.Errorf("parsed %+v\nwant   %+v", r, want)
	}
	for _, bad := range []string{"", "no json here\n", "{\"fit_s\": \n", `{"ntest": 10, "accuracy": 1.5}`, `{"ntest": 0, "accuracy": 0.5}`, `{"ntest": 5, "fit_s": -1}`} {
		if _, err := sparseBenchParse([]byte(bad)); err == nil {
			t.Errorf("parse(%q) succeeded", bad)
		}
	}
	if _, err := sparseBenchParse([]byte("x\n")); !errors.Is(err, errSparseBenchResult) {
		t.Errorf("no line: err = %v, want errSparseBenchResult", err)
	}
}

// The table prints one row per method in the fixed order, ratios as
// other / Landmark's (2.0 s / 4.0 s = 0.50×), a failure as a row, and "–"
// ratios when Landmark's row is missing.
func TestSparseBenchTable(t *testing.T) {
	h := sparseBenchHeader{train: "a.svm", test: "b.svm", m: 2000, iters: 10, gamma: 1, lambda: 1e-5, memory: 3, falkonMem: 2}
	res := map[string]sparseBenchResult{
		"landmark": {FitS: 4, FitCPUS: 7.5, PredictS: 0.25, Accuracy: 0.9185, RSSBytes: 200e6, DataRSS: 30e6, NTrain: 2500, NTest: 626, D: 1048572, NNZ: 637500, Classes: 6, Note: "memory plan 0.135 GB"},
		"sklearn":  {FitS: 18, FitCPUS: 20, PredictS: 1, Accuracy: 0.9185, RSSBytes: 350e6, DataRSS: 120e6, NTrain: 2500, NTest: 626, Note: "sklearn 1.2.1"},
	}
	var b bytes.Buffer
	sparseBenchTable(&b, h, []string{"landmark", "falkon", "sklearn"}, res, map[string]error{"falkon": errors.New("exit status 1")})
	out := b.String()
	for _, want := range []string{
		"# bench sparse: a.svm / b.svm: 2500 train / 626 test rows, d = 1048572, 637500 training non-zeros (255.0 a row), 6 classes\n",
		"λ = 1e-05 (scikit-learn alpha = λn = 0.025), 10 CG iterations, Landmark memory limit 3 GB, FALKON max_cpu_mem 2 GB\n",
		"\n| landmark Falkon (CSR, float64) | 4.00 | 7.5 | 0.25 | 91.85 | 0.200 | 1.00× | 1.00× | 1.00× | 1.00× |\n",
		"\n| FALKON 0.8.4 (SparseTensor, float32) | failed: exit status 1 | | | | | | | | |\n",
		"\n| scikit-learn Nystroem + RidgeClassifier | 18.00 | 20.0 | 1.00 | 91.85 | 0.350 | 4.50× | 2.67× | 4.00× | 1.75× |\n",
		"\n- landmark Falkon (CSR, float64): memory plan 0.135 GB; RSS after reading the data 0.030 GB\n",
		"\n- scikit-learn Nystroem + RidgeClassifier: sklearn 1.2.1; RSS after reading the data 0.120 GB",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "| landmark"), strings.Index(out, "| scikit-learn"); i < 0 || j < i {
		t.Errorf("rows out of order:\n%s", out)
	}
	b.Reset()
	delete(res, "landmark")
	sparseBenchTable(&b, h, []string{"sklearn"}, res, nil)
	if !strings.Contains(b.String(), "| 91.85 | 0.350 | – | – | – | – |\n") {
		t.Errorf("without Landmark's row the ratios should be –:\n%s", b.String())
	}
}

// A failed child's row names its last stderr line; with every method failed
// the header says so and the command returns an error. Landmark's child
// refuses a memory limit below its plan before fitting.
func TestSparseBenchFailure(t *testing.T) {
	var l stderrTail
	fmt.Fprint(&l, "warming up\nTraceback:\n  File x\nImportError: no falkon\n\n")
	if got := l.String(); got != "ImportError: no falkon" {
		t.Errorf("last line %q", got)
	}
	fmt.Fprint(&l, "partial")
	if got := l.String(); got != "partial" {
		t.Errorf("pending line %q", got)
	}
	t.Setenv(testMainEnv, "1")
	train, test := sparseBenchToy(t, 50, 10)
	var so, se bytes.Buffer
	err := runBenchSparse(t.Context(), []string{"-train", train, "-test", test, "-m", "50", "-methods", "landmark", "-memory", "1e-6", "-progress", "never"}, &so, &se)
	if err == nil || !strings.Contains(err.Error(), "every method failed") {
		t.Errorf("err = %v, want every method failed", err)
	}
	if out := so.String(); !strings.Contains(out, ": every method failed\n") ||
		!regexp.MustCompile(`\| landmark Falkon \(CSR, float64\) \| failed: exit status 1: .*memory limit exceeded.* \|`).MatchString(out) {
		t.Errorf("table should name the refusal:\n%s\nstderr:\n%s", out, se.String())
	}
}

func TestSparseBenchFlagsAndEnv(t *testing.T) {
	if got, err := sparseBenchParseMethods("sklearn, landmark"); err != nil || !slices.Equal(got, []string{"landmark", "sklearn"}) {
		t.Errorf("methods: %v, %v (want table order landmark, sklearn)", got, err)
	}
	for _, bad := range []string{"", "svm", "landmark,landmark", "falkon,"} {
		if _, err := sparseBenchParseMethods(bad); !errors.Is(err, errUsage) {
			t.Errorf("methods %q: err = %v, want errUsage", bad, err)
		}
	}
	for _, args := range [][]string{{}, {"-train", "a"}, {"-train", "a", "-test", "b", "-m", "0"}, {"-train", "a", "-test", "b", "-gamma", "-1"},
		{"-train", "a", "-test", "b", "-methods", "svm"}, {"-train", "a", "-test", "b", "-python", filepath.Join(t.TempDir(), "none")}} {
		if err := runBenchSparse(t.Context(), args, io.Discard, io.Discard); !errors.Is(err, errUsage) {
			t.Errorf("bench sparse %v: err = %v, want errUsage", args, err)
		}
	}
	// PYTHONPATH gets dir in front; OPENBLAS_* are kept (the header warns
	// when they hold the baselines below the CPU).
	env := sparseBenchEnv([]string{"HOME=/h", "OPENBLAS_CORETYPE=Haswell", "OPENBLAS_L2_SIZE=1048576", "PYTHONPATH=/a"}, "/f")
	if want := []string{"HOME=/h", "OPENBLAS_CORETYPE=Haswell", "OPENBLAS_L2_SIZE=1048576", "PYTHONPATH=/f" + string(os.PathListSeparator) + "/a"}; !slices.Equal(env, want) {
		t.Errorf("env = %v, want %v", env, want)
	}
	if env := sparseBenchEnv([]string{"OPENBLAS_CORETYPE=Haswell"}, "/f"); !slices.Equal(env, []string{"OPENBLAS_CORETYPE=Haswell", "PYTHONPATH=/f"}) {
		t.Errorf("env = %v, want OPENBLAS_CORETYPE kept and PYTHONPATH=/f", env)
	}
	if env := sparseBenchEnv([]string{"HOME=/h"}, ""); !slices.Equal(env, []string{"HOME=/h"}) {
		t.Errorf("env = %v, want it unchanged", env)
	}

	// A shell wrapper that execs its own program is read for its
	// interpreter and PYTHONPATH; an interpreter or a Python script is used as given.
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "falkon-python")
	if err := os.WriteFile(wrapper, []byte("#!/usr/bin/env bash\n# comment\nPYTHONPATH=/tmp/site exec /usr/bin/python3 \"$(dirname \"$0\")/x.py\" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if py, pp, err := sparseBenchPython(wrapper, "/f"); err != nil || py != "/usr/bin/python3" || pp != "/tmp/site"+string(os.PathListSeparator)+"/f" {
		t.Errorf("wrapper: %q, %q, %v", py, pp, err)
	}
	if py, pp, err := sparseBenchPython(wrapper, "/tmp/site"); err != nil || py != "/usr/bin/python3" || pp != "/tmp/site" {
		t.Errorf("wrapper, same dir: %q, %q, %v", py, pp, err)
	}
	script := filepath.Join(dir, "py")
	if err := os.WriteFile(script, []byte("#!/usr/bin/python3\nprint(1)\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if py, pp, err := sparseBenchPython(script, "/f"); err != nil || py != script || pp != "/f" {
		t.Errorf("python script: %q, %q, %v", py, pp, err)
	}
	noexec := filepath.Join(dir, "sh")
	if err := os.WriteFile(noexec, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := sparseBenchPython(noexec, "/f"); !errors.Is(err, errUsage) {
		t.Errorf("shell script without python: err = %v, want errUsage", err)
	}
}

// sparseBenchToy writes a small, wide, noisy 3-class LIBSVM pair: rows of
// unit norm with 5 or 6 non-zeros among 100,000 columns, two of them drawn
// from the class's three "topic" columns, 20% of the labels redrawn.
func sparseBenchToy(t *testing.T, ntr, nte int) (train, test string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	write := func(name string, n int, noise float64) string {
		var b strings.Builder
		for range n {
			c := rng.IntN(3)
			cols := map[int]bool{1000*c + rng.IntN(3): true, 1000*c + rng.IntN(3): true}
			for len(cols) < 6 {
				cols[3000+rng.IntN(97000)] = true
			}
			label := c + 1
			if rng.Float64() < noise {
				label = rng.IntN(3) + 1
			}
			keys := slices.Sorted(func(yield func(int) bool) {
				for k := range cols {
					if !yield(k) {
						return
					}
				}
			})
			fmt.Fprintf(&b, "%d", label)
			v := strconv.FormatFloat(1/math.Sqrt(float64(len(keys))), 'g', -1, 64)
			for _, k := range keys {
				fmt.Fprintf(&b, " %d:%s", k+1, v)
			}
			b.WriteByte('\n')
		}
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("train.svm", ntr, 0.2), write("test.svm", nte, 0.2)
}

// End to end, on a tiny 3-class file pair: with M = n (every training row a
// center) and CG run to convergence, Falkon and Nystroem + RidgeClassifier
// with alpha = λn both compute the exact kernel ridge classifier
// (K + λnI)⁻¹Y, one-vs-rest, argmax: so the bench's accuracies agree, and
// Landmark's equals an in-process model.Falkon fit on the same CSR arrays.
// λ = 0.05 (λn = 4, comparable to K's diagonal 1) makes the conversion
// matter: alpha = λ would give another classifier. FALKON (float32) runs
// when importable. Skipped without Python and scikit-learn.
func TestSparseBenchEndToEnd(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn").Run(); err != nil {
		t.Skip("no " + py + " with scikit-learn")
	}
	t.Setenv(testMainEnv, "1")
	const ntr, nte, lambda, gamma, iters = 80, 60, 0.05, 1.0, 60
	train, test := sparseBenchToy(t, ntr, nte)
	methods := "landmark,sklearn"
	if exec.Command(py, "-c", "import falkon, torch").Run() == nil || sparseBenchFalkonAt(py, "/tmp/falkon-site") {
		methods += ",falkon"
	}
	var so, se bytes.Buffer
	args := []string{"-train", train, "-test", test, "-m", strconv.Itoa(ntr), "-gamma", fmt.Sprint(gamma), "-lambda", fmt.Sprint(lambda),
		"-iter", strconv.Itoa(iters), "-methods", methods, "-python", py, "-progress", "always"}
	if err := runBenchSparse(t.Context(), args, &so, &se); err != nil {
		t.Fatalf("%v\n%s", err, se.String())
	}
	out := so.String()
	row := regexp.MustCompile(`(?m)^\| (landmark Falkon|FALKON|scikit-learn)[^|]* \| ([0-9.]+) \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+)× \| [0-9.]+× \| [0-9.]+× \| [0-9.]+× \|$`)
	acc := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(out, -1) {
		acc[m[1]] = m[3]
		if rss, _ := strconv.ParseFloat(m[4], 64); rss <= 0 {
			t.Errorf("%s: peak RSS %s", m[1], m[4])
		}
	}
	if len(acc) != strings.Count(methods, ",")+1 {
		t.Fatalf("want a row per method (%s):\n%s\n%s", methods, out, se.String())
	}
	if !strings.Contains(out, fmt.Sprintf("%d train / %d test rows", ntr, nte)) || !strings.Contains(out, "3 classes") {
		t.Errorf("header lacks the shape:\n%s", out)
	}
	if !strings.Contains(out, "\n- baseline Python ") {
		t.Errorf("no report of the baselines' kernels:\n%s", out)
	}
	if !strings.Contains(out, "| 1.00× | 1.00× | 1.00× | 1.00× |") {
		t.Errorf("Landmark's own ratios should be 1.00×:\n%s", out)
	}

	// The same fit in process.
	xtr, ytr, err := datasets.ReadLIBSVMSparseFile(t.Context(), train, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, d := xtr.Dims()
	xte, yte, _, _, err := datasets.ReadLIBSVMTestFile(t.Context(), test, d)
	if err != nil {
		t.Fatal(err)
	}
	f := model.Falkon{Kernel: kernel.Gaussian{Gamma: gamma}, Lambda: lambda, M: ntr, MaxIter: iters, Tol: 1e-30, Seed: 1, Task: model.Classification}
	if err := f.Fit(t.Context(), xtr, ytr); err != nil {
		t.Fatal(err)
	}
	pred, err := f.Predict(xte)
	if err != nil {
		t.Fatal(err)
	}
	right := 0
	for i := range pred {
		if pred[i] == yte[i] {
			right++
		}
	}
	want := fmt.Sprintf("%.2f", 100*float64(right)/float64(nte))
	if acc["landmark Falkon"] != want {
		t.Errorf("Landmark's accuracy %s, in-process fit %s", acc["landmark Falkon"], want)
	}
	if right == nte || right < nte/3 {
		t.Errorf("toy accuracy %d/%d: want a noisy but learnable set", right, nte)
	}
	if acc["scikit-learn"] != want {
		t.Errorf("scikit-learn's accuracy %s, Falkon's %s: both are exact KRR at M = n with alpha = λn", acc["scikit-learn"], want)
	}
	if a, ok := acc["FALKON"]; ok {
		// float32: a point near a class boundary may flip; allow one test row.
		got, _ := strconv.ParseFloat(a, 64)
		w, _ := strconv.ParseFloat(want, 64)
		if d := got - w; d > 100.0/nte+1e-9 || d < -100.0/nte-1e-9 {
			t.Errorf("FALKON's accuracy %s, Landmark's %s", a, want)
		}
	}
	log := se.String()
	if !regexp.MustCompile(`(?m)^bench sparse: landmark Falkon: memory plan \S+ GB \(.*\), limit 3\.00 GB$`).MatchString(log) ||
		!regexp.MustCompile(`(?m)^bench sparse: \[\d/\d\] sklearn: done in `).MatchString(log) ||
		!strings.Contains(log, "bench sparse: scikit-learn BLAS: ") {
		t.Errorf("stderr lacks the plan, progress or BLAS lines:\n%s", log)
	}
}

// sparseBenchFalkonAt reports whether py imports falkon with dir on PYTHONPATH.
func sparseBenchFalkonAt(py, dir string) bool {
	cmd := exec.Command(py, "-c", "import falkon, torch")
	cmd.Env = sparseBenchEnv(os.Environ(), dir)
	return cmd.Run() == nil
}
