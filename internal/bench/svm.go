package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/cputime"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// svmBench is one "bench svm" run: its flags and the methods and cluster
// counts parsed from them.
type svmBench struct {
	data, trainFile, testFile, format, methods, clusters string
	dim, nnz, sketch, ntrain, ntest, cacheMB, workers    int
	c, gamma                                             float64
	seed                                                 uint64
	prog                                                 *cmdline.Mode
	// zeroBased is -zero-based: the files' indices start at 0.
	zeroBased bool

	ks []int
	ms []string
}

func (b *svmBench) register(fs *flag.FlagSet) {
	fs.StringVar(&b.data, "data", "ijcnn1", "dataset: ijcnn1 (official train/test), covtype (covtype.binary, 80/20 split, features min-max scaled to [0,1] on the training part), mnist (official train/test, pixels/255, ≈19% non-zero), text (synthetic, rcv1-like: -dim columns (default 20000), -nnz non-zeros a row (default 50) with a power-law column frequency, rows of unit norm, binary labels; -train/-test rows, default 20000/5000) or news20 (datasets.SyntheticText: news20-shaped, -dim default 1355191, -nnz default 80, Zipf columns, ±1 labels; -train/-test default 20000/5000); ignored with -train-file")
	fs.StringVar(&b.trainFile, "train-file", "", "LIBSVM training file, read sparse (instead of -data; -train keeps its first rows)")
	fs.StringVar(&b.testFile, "test-file", "", "LIBSVM test file for -train-file (required with it)")
	fs.BoolVar(&b.zeroBased, "zero-based", false, "-train-file and -test-file have 0-based indices (scikit-learn's dump_svmlight_file default; svm-train gets them rewritten 1-based); never guessed")
	fs.StringVar(&b.format, "format", "dense", "dense or sparse: how our estimators get X (sparse keeps the CSR rows; svm-train always reads the file sparse)")
	fs.IntVar(&b.dim, "dim", 0, "text and news20: number of columns (0: the set's default)")
	fs.IntVar(&b.nnz, "nnz", 0, "text and news20: non-zeros a row (0: the set's default)")
	fs.Float64Var(&b.c, "c", 32, "SVM penalty C")
	fs.Float64Var(&b.gamma, "gamma", 2, "Gaussian kernel γ in exp(−γ‖x−y‖²)")
	fs.StringVar(&b.methods, "methods", "bka,exact,libsvm", "comma-separated: bka and bka-refine (each reported with global and local prediction), exact, exact32 (model.SVM with the float32 column cache, as LIBSVM's), exact-nobias, libsvm")
	fs.StringVar(&b.clusters, "clusters", "64", "comma-separated cluster counts for the bka methods")
	fs.IntVar(&b.sketch, "sketch", 0, "randomized-projection k-means with this many dimensions (0: plain k-means)")
	fs.IntVar(&b.ntrain, "train", 0, "use only the first N training rows after the split (0: all)")
	fs.IntVar(&b.ntest, "test", 0, "use only the first N test rows (0: all)")
	fs.Uint64Var(&b.seed, "seed", 1, "seed of the split and of k-means")
	fs.IntVar(&b.cacheMB, "cache", 200, "kernel cache in MB, for our solvers and svm-train's -m")
	fs.IntVar(&b.workers, "workers", 0, "goroutines (0: GOMAXPROCS)")
	b.prog = cmdline.AddProgress(fs)
}

// resolve checks the flags and parses -clusters and -methods.
func (b *svmBench) resolve() error {
	if b.c <= 0 || b.gamma <= 0 || b.cacheMB <= 0 || b.ntrain < 0 || b.ntest < 0 || b.sketch < 0 || b.dim < 0 || b.nnz < 0 {
		return fmt.Errorf("%w: -c, -gamma and -cache must be positive, -dim, -nnz, -train, -test and -sketch non-negative", errUsage)
	}
	if (b.trainFile == "") != (b.testFile == "") {
		return fmt.Errorf("%w: -train-file and -test-file go together", errUsage)
	}
	if b.format != "dense" && b.format != "sparse" {
		return fmt.Errorf("%w: -format %q: want dense or sparse", errUsage, b.format)
	}
	for _, s := range strings.Split(b.clusters, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || k < 1 {
			return fmt.Errorf("%w: -clusters %q: want positive integers", errUsage, b.clusters)
		}
		b.ks = append(b.ks, k)
	}
	for _, m := range strings.Split(b.methods, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case "bka", "bka-refine", "exact", "exact32", "exact-nobias", "libsvm":
			b.ms = append(b.ms, m)
		default:
			return fmt.Errorf("%w: unknown method %q", errUsage, m)
		}
	}
	return nil
}

// load reads or draws the train and test sets, in the storage of -format.
func (b *svmBench) load(ctx context.Context) (tr, te benchSet, err error) {
	switch {
	case b.trainFile != "":
		if tr, te, err = benchFiles(ctx, b.trainFile, b.testFile, b.ntrain, b.ntest, b.zeroBased); err != nil {
			return tr, te, err
		}
		b.data = b.trainFile
	case b.data == "mnist" || b.data == "text" || b.data == "news20":
		if tr, te, err = benchSparseData(ctx, b.data, b.ntrain, b.ntest, b.dim, b.nnz, b.seed); err != nil {
			return tr, te, err
		}
	default:
		dtr, dte, err := benchSVMData(b.data, b.seed)
		if err != nil {
			return tr, te, err
		}
		dtr, dte = headRows(dtr, b.ntrain), headRows(dte, b.ntest)
		tr, te = benchSet{x: dtr.X, y: dtr.Y}, benchSet{x: dte.X, y: dte.Y}
	}
	if b.format == "dense" {
		tr.x, te.x = kernel.DenseOf(tr.x), kernel.DenseOf(te.x)
	} else {
		tr.x, te.x = toCSR(tr.x), toCSR(te.x)
	}
	return tr, te, nil
}

// runBenchSVM benchmarks model.BKASVM and model.SVM side by side with LIBSVM's
// svm-train on ijcnn1 or covtype (the settings of Si, Hsieh & Dhillon, JMLR
// 2017, Table 2), or on sparse data (mnist, the synthetic rcv1-like "text"
// or news20-shaped "news20" sets, or any LIBSVM pair given by -train-file and
// -test-file) kept sparse with -format sparse, and prints a Markdown table.
// When an exact method (exact, exact32) and libsvm run, a closing line
// compares their dual objectives, support-vector counts and sets (rows
// matched by content with svm-train's model file) and times; exact and
// exact32 together are compared the same way.
func runBenchSVM(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var b svmBench
	fs := cmdline.NewFlags("bench svm", "[flags]", stderr)
	b.register(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if err := b.resolve(); err != nil {
		return err
	}
	tr, te, err := b.load(ctx)
	if err != nil {
		return err
	}
	n, d := tr.x.Dims()
	nt, _ := te.x.Dims()
	fmt.Fprintf(stdout, "# bench svm: %s, %d train / %d test, d = %d, %s X (density %.4f), C = %g, γ = %g, cache %d MB, GOMAXPROCS workers %d\n\n",
		b.data, n, nt, d, b.format, datasets.Density(tr.x), b.c, b.gamma, b.cacheMB, b.workers)
	fmt.Fprintln(stdout, "| method | train wall (s) | train CPU (s) | predict wall (s) | test accuracy (%) | SV | notes |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---|")
	// Progress: one line per finished unit — a bka fit (one per cluster
	// count, with both predictions), an exact fit or the svm-train run —
	// with the ETA from the mean time per unit so far.
	units := 0
	for _, m := range b.ms {
		if m == "bka" || m == "bka-refine" {
			units += len(b.ks)
		} else {
			units++
		}
	}
	done := cmdline.NewUnits(cmdline.NewProgress(*b.prog, false, stderr), "bench svm", units, float64(units))
	var ours []*benchRow // exact model.SVM (float64 and float32 cache), for the closing comparison
	var lib *benchRow    // svm-train
	for _, m := range b.ms {
		switch m {
		case "bka", "bka-refine":
			err = b.runBKA(ctx, m, tr, te, done, stdout)
		case "exact", "exact32", "exact-nobias":
			var row *benchRow
			if row, err = b.runExact(ctx, m, tr, te, done, stdout); row != nil {
				ours = append(ours, row)
			}
		case "libsvm":
			lib, err = b.runLIBSVM(ctx, tr, te, done, stdout)
		}
		if err != nil {
			return err
		}
	}
	b.compare(stdout, ours, lib)
	return nil
}

// runBKA fits BKA-SVM at every cluster count, one row with local and one
// with global prediction each; local first, as global prediction is much
// slower with many support vectors.
func (b *svmBench) runBKA(ctx context.Context, m string, tr, te benchSet, done *cmdline.Units, w io.Writer) error {
	for _, nc := range b.ks {
		t0 := time.Now()
		name := fmt.Sprintf("%s c=%d", m, nc)
		e := &model.BKASVM{C: b.c, Kernel: kernel.Gaussian{Gamma: b.gamma}, Clusters: nc, Sketch: b.sketch, Seed: b.seed,
			CacheBytes: int64(b.cacheMB) << 20, Resources: model.Resources{Workers: b.workers}, Refine: m == "bka-refine", Prediction: model.LocalPrediction}
		row, err := benchEstimator(ctx, e, tr, te)
		if err != nil {
			done.Finished(name, 1, t0, err)
			return fmt.Errorf("%s: %w", m, err)
		}
		info := e.Info()
		it := 0
		for _, t := range info.Tasks {
			it += t.Iterations
		}
		fmt.Fprintf(w, "| %s c=%d, local | %.2f | %.2f | %.2f | %.2f | %d | %d updates |\n", m, nc, row.fit, row.cpu, row.pred, row.acc, info.SV, it)
		e.Prediction = model.GlobalPrediction
		t1 := time.Now()
		p, err := e.Predict(te.x)
		done.Finished(name, 1, t0, err)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		fmt.Fprintf(w, "| %s c=%d, global (eq. 9) | (same fit) | | %.2f | %.2f | %d | |\n", m, nc, time.Since(t1).Seconds(), benchAccuracy(p, te.y), info.SV)
	}
	return nil
}

// runExact fits model.SVM and prints its row; the row is returned for the
// closing comparison (nil for exact-nobias).
func (b *svmBench) runExact(ctx context.Context, m string, tr, te benchSet, done *cmdline.Units, w io.Writer) (*benchRow, error) {
	t0 := time.Now()
	s := &model.SVM{C: b.c, Kernel: kernel.Gaussian{Gamma: b.gamma}, CacheBytes: int64(b.cacheMB) << 20, Resources: model.Resources{Workers: b.workers},
		NoBias: m == "exact-nobias", CacheFloat32: m == "exact32"}
	row, err := benchEstimator(ctx, s, tr, te)
	done.Finished("model.SVM "+m, 1, t0, err)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m, err)
	}
	info := s.Info()
	var obj float64
	it := 0
	for _, t := range info.Tasks {
		obj += t.Objective
		it += t.Iterations
	}
	fmt.Fprintf(w, "| model.SVM %s | %.2f | %.2f | %.2f | %.2f | %d | obj %.6f, %d updates |\n", m, row.fit, row.cpu, row.pred, row.acc, info.SV, obj, it)
	if m == "exact-nobias" {
		return nil, nil
	}
	row.sv, row.obj, row.name = info.SV, obj, m
	sv, _ := s.SupportVectors()
	row.svKeys = rowKeys(sv)
	return &row, nil
}

// runLIBSVM times svm-train and prints its row; the row is returned when
// svm-train reported its objective.
func (b *svmBench) runLIBSVM(ctx context.Context, tr, te benchSet, done *cmdline.Units, w io.Writer) (*benchRow, error) {
	t0 := time.Now()
	row, err := benchLIBSVM(ctx, tr, te, b.c, b.gamma, b.cacheMB)
	done.Finished("svm-train / svm-predict", 1, t0, err)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "| svm-train / svm-predict | %.2f | %.2f | %.2f | %.2f | %d | %s |\n", row.fit, row.cpu, row.pred, row.acc, row.sv, row.note)
	if !row.haveObj {
		return nil, nil
	}
	return &row, nil
}

// compare prints the closing lines: exact vs exact32, each vs svm-train,
// and the process's peak RSS when svm-train did not run from it.
func (b *svmBench) compare(w io.Writer, ours []*benchRow, lib *benchRow) {
	if len(ours) == 2 {
		a, c := ours[0], ours[1]
		common, onlyA, onlyC := compareKeys(a.svKeys, c.svKeys)
		fmt.Fprintf(w, "\nmodel.SVM %s vs %s: dual objective %.6f vs %.6f (relative difference %.2g), SV sets: %d common, %d only %s, %d only %s; accuracy %.2f%% vs %.2f%%; train CPU %.2f s vs %.2f s\n",
			c.name, a.name, c.obj, a.obj, math.Abs(c.obj-a.obj)/math.Max(math.Abs(a.obj), math.SmallestNonzeroFloat64),
			common, onlyC, c.name, onlyA, a.name, c.acc, a.acc, c.cpu, a.cpu)
	}
	for _, o := range ours {
		if lib == nil {
			break
		}
		rel := math.Abs(o.obj-lib.obj) / math.Max(math.Abs(lib.obj), math.SmallestNonzeroFloat64)
		same := "SV sets not compared (svm-train's model unreadable)"
		if lib.svKeys != nil {
			common, onlyOurs, onlyLib := compareKeys(o.svKeys, lib.svKeys)
			same = fmt.Sprintf("SV sets: %d common, %d only ours, %d only svm-train's", common, onlyOurs, onlyLib)
		}
		fmt.Fprintf(w, "\nmodel.SVM %s (%s X) vs svm-train: dual objective %.6f vs %.6f (relative difference %.2g), SV %d vs %d (%s); train wall %.2f s vs %.2f s (svm-train / model.SVM = %.2f×), CPU %.2f s vs %.2f s (%.2f×)\n",
			o.name, b.format, o.obj, lib.obj, rel, o.sv, lib.sv, same, o.fit, lib.fit, lib.fit/o.fit, o.cpu, lib.cpu, lib.cpu/max(o.cpu, 1e-9))
	}
	if !slices.Contains(b.ms, "libsvm") {
		// With svm-train started from this process the figure is not reliable.
		if rss := peakRSS(); rss > 0 {
			fmt.Fprintf(w, "\nlandmark process peak RSS (data and all methods): %.2f GB\n", float64(rss)/(1<<30))
		}
	}
}

type benchRow struct {
	fit, cpu, pred, acc float64
	sv                  int
	obj                 float64 // summed dual objectives
	haveObj             bool
	note                string
	name                string         // method, for the closing comparison
	svKeys              map[string]int // support vectors by content (rowKeys)
}

// benchSet is a benchmark's data: X dense or sparse, and the labels.
type benchSet struct {
	x mat.Matrix
	y []float64
}

func benchEstimator(ctx context.Context, e model.Estimator, tr, te benchSet) (benchRow, error) {
	c0 := processCPU()
	t0 := time.Now()
	if err := e.Fit(ctx, tr.x, tr.y); err != nil {
		return benchRow{}, err
	}
	t1 := time.Now()
	cpu := processCPU() - c0
	p, err := e.Predict(te.x)
	if err != nil {
		return benchRow{}, err
	}
	t2 := time.Now()
	return benchRow{fit: t1.Sub(t0).Seconds(), cpu: cpu, pred: t2.Sub(t1).Seconds(), acc: benchAccuracy(p, te.y)}, nil
}

// processCPU returns the user + system CPU time of this process in seconds
// (all goroutines), or 0 when it cannot be read. On a shared machine it is a
// steadier measure of work than wall time.
func processCPU() float64 {
	return cputime.Process().Seconds()
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

// libsvmFiles are the files of an svm-train / svm-predict run in a
// temporary directory: the training and test sets, the model and the
// predictions.
type libsvmFiles struct{ dir, train, test, model, out string }

// newLIBSVMFiles writes tr and te as LIBSVM files into a new temporary
// directory (prefix names it); the caller removes f.dir.
func newLIBSVMFiles(prefix string, tr, te benchSet) (f libsvmFiles, err error) {
	if f.dir, err = os.MkdirTemp("", prefix); err != nil {
		return f, err
	}
	f.train, f.test = filepath.Join(f.dir, "train"), filepath.Join(f.dir, "test")
	f.model, f.out = filepath.Join(f.dir, "model"), filepath.Join(f.dir, "out")
	for _, w := range []struct {
		p string
		d benchSet
	}{{f.train, tr}, {f.test, te}} {
		if err := writeBenchFile(w.p, w.d); err != nil {
			os.RemoveAll(f.dir)
			return f, err
		}
	}
	return f, nil
}

// benchLIBSVM writes the data to a temporary directory and times svm-train
// (-c C -g γ -e 0.001 -m cache) and svm-predict on it.
func benchLIBSVM(ctx context.Context, tr, te benchSet, c, gamma float64, cacheMB int) (benchRow, error) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		return benchRow{note: "svm-train not installed"}, nil
	}
	f, err := newLIBSVMFiles("landmark-bench-svm", tr, te)
	if err != nil {
		return benchRow{}, err
	}
	defer os.RemoveAll(f.dir)
	ftr, fte, fmod, fout := f.train, f.test, f.model, f.out
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
	row.svKeys, _ = libsvmModelKeys(fmod) // nil when unreadable: the comparison says so
	if rss, ok := childMaxRSS(cmd.ProcessState); ok {
		row.note = fmt.Sprintf("svm-train peak RSS %.2f GB", float64(rss)/(1<<30))
	}
	// One "obj = v," line per binary sub-problem (one-vs-one for more classes).
	for _, m := range regexp.MustCompile(`obj = (\S+),`).FindAllSubmatch(out, -1) {
		v, err := strconv.ParseFloat(string(m[1]), 64)
		if err != nil {
			return benchRow{}, fmt.Errorf("svm-train: objective %q: %w", m[1], err)
		}
		row.obj += v
		row.haveObj = true
	}
	if row.haveObj {
		row.note += fmt.Sprintf(", obj %.6f", row.obj)
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
