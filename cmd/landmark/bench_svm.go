package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// runBenchSVM benchmarks model.BKASVM and model.SVM side by side with LIBSVM's
// svm-train on ijcnn1 or covtype (the settings of Si, Hsieh & Dhillon, JMLR
// 2017, Table 2) and prints a Markdown table.
func runBenchSVM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("bench svm", "[flags]", stderr)
	data := fs.String("data", "ijcnn1", "dataset: ijcnn1 (official train/test) or covtype (covtype.binary, 80/20 split, features min-max scaled to [0,1] on the training part)")
	c := fs.Float64("c", 32, "SVM penalty C")
	gamma := fs.Float64("gamma", 2, "Gaussian kernel γ in exp(−γ‖x−y‖²)")
	methods := fs.String("methods", "bka,exact,libsvm", "comma-separated: bka and bka-refine (each reported with global and local prediction), exact, exact-nobias, libsvm")
	clusters := fs.String("clusters", "64", "comma-separated cluster counts for the bka methods")
	sketch := fs.Int("sketch", 0, "randomized-projection k-means with this many dimensions (0: plain k-means)")
	ntrain := fs.Int("train", 0, "use only the first N training rows after the split (0: all)")
	ntest := fs.Int("test", 0, "use only the first N test rows (0: all)")
	seed := fs.Uint64("seed", 1, "seed of the split and of k-means")
	cacheMB := fs.Int("cache", 200, "kernel cache in MB, for our solvers and svm-train's -m")
	workers := fs.Int("workers", 0, "goroutines (0: GOMAXPROCS)")
	prog := addProgress(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *c <= 0 || *gamma <= 0 || *cacheMB <= 0 || *ntrain < 0 || *ntest < 0 || *sketch < 0 {
		return fmt.Errorf("%w: -c, -gamma and -cache must be positive, -train, -test and -sketch non-negative", errUsage)
	}
	var ks []int
	for _, s := range strings.Split(*clusters, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 {
			return fmt.Errorf("%w: -clusters %q: want positive integers", errUsage, *clusters)
		}
		ks = append(ks, k)
	}
	var ms []string
	for _, m := range strings.Split(*methods, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case "bka", "bka-refine", "exact", "exact-nobias", "libsvm":
			ms = append(ms, m)
		default:
			return fmt.Errorf("%w: unknown method %q", errUsage, m)
		}
	}
	tr, te, err := benchSVMData(*data, *seed)
	if err != nil {
		return err
	}
	tr, te = headRows(tr, *ntrain), headRows(te, *ntest)
	fmt.Fprintf(stdout, "# bench svm: %s, %d train / %d test, d = %d, C = %g, γ = %g, cache %d MB, GOMAXPROCS workers %d\n\n",
		*data, tr.Len(), te.Len(), tr.Dim(), *c, *gamma, *cacheMB, *workers)
	fmt.Fprintln(stdout, "| method | train wall (s) | train CPU (s) | predict wall (s) | test accuracy (%) | SV | notes |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---|")
	k := kernel.Gaussian{Gamma: *gamma}
	cache := int64(*cacheMB) << 20
	pg, t0 := newProgress(*prog, false, stderr), time.Now()
	for _, m := range ms {
		if pg != nil {
			pg.line("bench svm: %s… (elapsed %s)", m, fmtDuration(time.Since(t0)))
		}
		switch m {
		case "bka", "bka-refine":
			// One fit, both prediction modes; local first, as global
			// prediction is much slower with many support vectors.
			for _, nc := range ks {
				b := &model.BKASVM{C: *c, Kernel: k, Clusters: nc, Sketch: *sketch, Seed: *seed,
					CacheBytes: cache, Workers: *workers, Refine: m == "bka-refine", Prediction: model.LocalPrediction}
				row, err := benchEstimator(ctx, b, tr, te)
				if err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
				info, _ := b.Info()
				it := 0
				for _, t := range info.Tasks {
					it += t.Iterations
				}
				fmt.Fprintf(stdout, "| %s c=%d, local | %.2f | %.2f | %.2f | %.2f | %d | %d updates |\n", m, nc, row.fit, row.cpu, row.pred, row.acc, info.SV, it)
				b.Prediction = model.GlobalPrediction
				t0 := time.Now()
				p, err := b.Predict(te.X)
				if err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
				fmt.Fprintf(stdout, "| %s c=%d, global (eq. 9) | (same fit) | | %.2f | %.2f | %d | |\n", m, nc, time.Since(t0).Seconds(), benchAccuracy(p, te.Y), info.SV)
			}
		case "exact", "exact-nobias":
			s := &model.SVM{C: *c, Kernel: k, CacheBytes: cache, Workers: *workers, NoBias: m == "exact-nobias"}
			row, err := benchEstimator(ctx, s, tr, te)
			if err != nil {
				return fmt.Errorf("%s: %w", m, err)
			}
			info, _ := s.Info()
			var obj float64
			it := 0
			for _, t := range info.Tasks {
				obj += t.Objective
				it += t.Iterations
			}
			fmt.Fprintf(stdout, "| model.SVM %s | %.2f | %.2f | %.2f | %.2f | %d | obj %.4f, %d updates |\n", m, row.fit, row.cpu, row.pred, row.acc, info.SV, obj, it)
		case "libsvm":
			row, err := benchLIBSVM(ctx, tr, te, *c, *gamma, *cacheMB)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "| svm-train / svm-predict | %.2f | %.2f | %.2f | %.2f | %d | %s |\n", row.fit, row.cpu, row.pred, row.acc, row.sv, row.note)
		}
	}
	if !slices.Contains(ms, "libsvm") {
		// With svm-train started from this process the figure is not reliable.
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
			fmt.Fprintf(stdout, "\nlandmark process peak RSS (data and all methods): %.2f GB\n", float64(ru.Maxrss)/(1<<20))
		}
	}
	return nil
}

type benchRow struct {
	fit, cpu, pred, acc float64
	sv                  int
	note                string
}

func benchEstimator(ctx context.Context, e model.Estimator, tr, te *datasets.Dataset) (benchRow, error) {
	c0 := processCPU()
	t0 := time.Now()
	if err := e.Fit(ctx, tr.X, tr.Y); err != nil {
		return benchRow{}, err
	}
	t1 := time.Now()
	cpu := processCPU() - c0
	p, err := e.Predict(te.X)
	if err != nil {
		return benchRow{}, err
	}
	t2 := time.Now()
	return benchRow{fit: t1.Sub(t0).Seconds(), cpu: cpu, pred: t2.Sub(t1).Seconds(), acc: benchAccuracy(p, te.Y)}, nil
}

// processCPU returns the user + system CPU time of this process in seconds
// (all goroutines), or 0 when it cannot be read. On a shared machine it is a
// steadier measure of work than wall time.
func processCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func benchAccuracy(p, y []float64) float64 {
	ok := 0
	for i, v := range p {
		if v == y[i] {
			ok++
		}
	}
	return 100 * float64(ok) / float64(len(y))
}

var (
	benchReSV  = regexp.MustCompile(`Total nSV = (\d+)`)
	benchReAcc = regexp.MustCompile(`Accuracy = ([0-9.]+)%`)
)

// benchLIBSVM writes the data to a temporary directory and times svm-train
// (-c C -g γ -e 0.001 -m cache) and svm-predict on it.
func benchLIBSVM(ctx context.Context, tr, te *datasets.Dataset, c, gamma float64, cacheMB int) (benchRow, error) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		return benchRow{note: "svm-train not installed"}, nil
	}
	dir, err := os.MkdirTemp("", "landmark-bench-svm")
	if err != nil {
		return benchRow{}, err
	}
	defer os.RemoveAll(dir)
	ftr, fte, fmod, fout := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model"), filepath.Join(dir, "out")
	for _, w := range []struct {
		p string
		d *datasets.Dataset
	}{{ftr, tr}, {fte, te}} {
		if err := datasets.WriteFile(w.p, w.d, datasets.WriteOptions{Format: datasets.LIBSVM}); err != nil {
			return benchRow{}, err
		}
	}
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, "svm-train", "-c", fmt.Sprint(c), "-g", fmt.Sprint(gamma), "-e", "0.001", "-m", fmt.Sprint(cacheMB), ftr, fmod)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return benchRow{}, fmt.Errorf("svm-train: %w\n%s", err, out)
	}
	t1 := time.Now()
	var row benchRow
	row.fit = t1.Sub(t0).Seconds()
	row.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if m := benchReSV.FindSubmatch(out); m != nil {
		row.sv, _ = strconv.Atoi(string(m[1]))
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		row.note = fmt.Sprintf("svm-train peak RSS %.2f GB", float64(ru.Maxrss)/(1<<20))
	}
	if m := regexp.MustCompile(`obj = (\S+),`).FindSubmatch(out); m != nil {
		row.note += ", obj " + string(m[1])
	}
	t1 = time.Now()
	out, err = exec.CommandContext(ctx, "svm-predict", fte, fmod, fout).CombinedOutput()
	if err != nil {
		return benchRow{}, fmt.Errorf("svm-predict: %w\n%s", err, out)
	}
	row.pred = time.Since(t1).Seconds()
	if m := benchReAcc.FindSubmatch(out); m != nil {
		row.acc, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	return row, nil
}

// benchSVMData loads the benchmark's train and test sets.
func benchSVMData(name string, seed uint64) (tr, te *datasets.Dataset, err error) {
	shared := func(f string) (string, error) {
		p, ok := datasets.SharedPath(f)
		if !ok {
			return "", fmt.Errorf("%s not found in the shared datasets folder (set LANDMARK_SHARED_DATA)", f)
		}
		return p, nil
	}
	switch name {
	case "ijcnn1":
		ptr, err := shared("ijcnn1.train.libsvm.gz")
		if err != nil {
			return nil, nil, err
		}
		pte, err := shared("ijcnn1.test.libsvm.gz")
		if err != nil {
			return nil, nil, err
		}
		if tr, err = datasets.ReadLIBSVMFile(ptr); err != nil {
			return nil, nil, err
		}
		te, err = datasets.ReadTestFile(pte, tr, datasets.ReadOptions{Format: datasets.LIBSVM})
		return tr, te, err
	case "covtype":
		p, err := shared("covtype.binary.libsvm.gz")
		if err != nil {
			return nil, nil, err
		}
		all, err := datasets.ReadLIBSVMFile(p)
		if err != nil {
			return nil, nil, err
		}
		if tr, te, err = all.TrainTest(0.2, false, rand.New(rand.NewPCG(seed, 0x5c))); err != nil {
			return nil, nil, err
		}
		mm := &datasets.MinMax{Lower: 0, Upper: 1}
		if err := mm.Fit(tr.X); err != nil {
			return nil, nil, err
		}
		if tr.X, err = mm.Transform(tr.X); err != nil {
			return nil, nil, err
		}
		if te.X, err = mm.Transform(te.X); err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	}
	return nil, nil, fmt.Errorf("%w: -data %q: want ijcnn1 or covtype", errUsage, name)
}

// headRows keeps the first n rows of d (all when n is 0 or too large).
func headRows(d *datasets.Dataset, n int) *datasets.Dataset {
	if n <= 0 || n >= d.Len() {
		return d
	}
	_, c := d.X.Dims()
	return &datasets.Dataset{Name: d.Name, X: mat.DenseCopyOf(d.X.Slice(0, n, 0, c)), Y: d.Y[:n]}
}
