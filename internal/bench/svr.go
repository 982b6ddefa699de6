package bench

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// svrBench is one "bench svr" run.
type svrBench struct {
	data, trainFile, testFile, methods string
	ntrain, ntest, cacheMB, workers    int
	c, gamma, eps                      float64
	seed                               uint64
	zeroBased                          bool
	prog                               *cmdline.Mode
	ms                                 []string
}

// svrDefaults are each bundled set's C, γ and ε: the settings of
// docs/performance.md, "ε-SVR beside svm-train -s 3" (cadata's target is
// scaled to [−1, 1], so its ε is in those units).
var svrDefaults = map[string][3]float64{
	"cpusmall": {100, 1, 1},
	"cadata":   {10, 1, 0.1},
}

func (b *svrBench) register(fs *flag.FlagSet) {
	fs.StringVar(&b.data, "data", "cpusmall", "bundled regression set: cpusmall or cadata, split 80/20 by -seed, features mapped to [−1, 1] on the training rows as svm-scale does (cadata's target too, as svm-scale -y -1 1); ignored with -train-file")
	fs.StringVar(&b.trainFile, "train-file", "", "LIBSVM training file, used as it is (instead of -data; -train keeps its first rows)")
	fs.StringVar(&b.testFile, "test-file", "", "LIBSVM test file for -train-file (required with it)")
	fs.BoolVar(&b.zeroBased, "zero-based", false, "-train-file and -test-file have 0-based indices; never guessed")
	fs.Float64Var(&b.c, "c", 0, "penalty C (0: the set's default, 100 for cpusmall, 10 for cadata and files)")
	fs.Float64Var(&b.gamma, "gamma", 0, "Gaussian kernel γ in exp(−γ‖x−y‖²) (0: 1)")
	fs.Float64Var(&b.eps, "epsilon", -1, "half-width ε of the tube, svm-train's -p (default: 1 for cpusmall, 0.1 for cadata and files)")
	fs.StringVar(&b.methods, "methods", "svr,svr32,libsvm", "comma-separated: svr (model.SVR, float64 column cache), svr32 (its float32 cache, as LIBSVM's), libsvm (svm-train -s 3)")
	fs.IntVar(&b.ntrain, "train", 0, "use only the first N training rows after the split (0: all)")
	fs.IntVar(&b.ntest, "test", 0, "use only the first N test rows (0: all)")
	fs.Uint64Var(&b.seed, "seed", 1, "seed of the 80/20 split")
	fs.IntVar(&b.cacheMB, "cache", 100, "kernel cache in MB, for our solver and svm-train's -m (LIBSVM's default 100)")
	fs.IntVar(&b.workers, "workers", 0, "goroutines (0: GOMAXPROCS)")
	b.prog = cmdline.AddProgress(fs)
}

// resolve checks the flags, fills in the set's defaults and parses -methods.
func (b *svrBench) resolve() error {
	def, ok := svrDefaults[b.data]
	if b.trainFile != "" {
		def, ok = [3]float64{10, 1, 0.1}, true
	}
	if !ok {
		return fmt.Errorf("%w: -data %q: want cpusmall or cadata (or -train-file)", errUsage, b.data)
	}
	if b.c == 0 {
		b.c = def[0]
	}
	if b.gamma == 0 {
		b.gamma = def[1]
	}
	if b.eps == -1 {
		b.eps = def[2]
	}
	if !(b.c > 0) || !(b.gamma > 0) || !(b.eps >= 0) || b.cacheMB <= 0 || b.ntrain < 0 || b.ntest < 0 {
		return fmt.Errorf("%w: -c and -gamma must be positive, -epsilon non-negative, -cache positive, -train and -test non-negative", errUsage)
	}
	if (b.trainFile == "") != (b.testFile == "") {
		return fmt.Errorf("%w: -train-file and -test-file go together", errUsage)
	}
	for _, m := range strings.Split(b.methods, ",") {
		switch m = strings.TrimSpace(m); m {
		case "svr", "svr32", "libsvm":
			b.ms = append(b.ms, m)
		default:
			return fmt.Errorf("%w: unknown method %q (want svr, svr32 or libsvm)", errUsage, m)
		}
	}
	return nil
}

// load reads the files, or splits and scales the bundled set.
func (b *svrBench) load(ctx context.Context) (tr, te benchSet, err error) {
	if b.trainFile != "" {
		tr, te, err = benchFiles(ctx, b.trainFile, b.testFile, b.ntrain, b.ntest, b.zeroBased)
		b.data = b.trainFile
		return tr, te, err
	}
	d, err := datasets.Load(b.data)
	if err != nil {
		return tr, te, err
	}
	itr, ite, err := datasets.Split(d.Len(), 0.2, rand.New(rand.NewPCG(b.seed, 0)))
	if err != nil {
		return tr, te, err
	}
	dtr, _ := d.Subset(itr)
	dte, _ := d.Subset(ite)
	dtr, dte = headRows(dtr, b.ntrain), headRows(dte, b.ntest)
	var mm datasets.MinMax
	if err := mm.Fit(dtr.X); err != nil {
		return tr, te, err
	}
	xtr, err := mm.Transform(dtr.X)
	if err != nil {
		return tr, te, err
	}
	xte, err := mm.Transform(dte.X)
	if err != nil {
		return tr, te, err
	}
	ytr, yte := dtr.Y, dte.Y
	if b.data == "cadata" { // house values up to 500,001: svm-scale -y -1 1
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range ytr {
			lo, hi = min(lo, v), max(hi, v)
		}
		scale := func(y []float64) []float64 {
			out := make([]float64, len(y))
			for i, v := range y {
				out[i] = -1 + 2*(v-lo)/(hi-lo)
			}
			return out
		}
		ytr, yte = scale(ytr), scale(yte)
	}
	return benchSet{x: xtr, y: ytr}, benchSet{x: xte, y: yte}, nil
}

// svrRow is one method's result.
type svrRow struct {
	name                 string
	fit, cpu, pred, rmse float64
	sv, bsv              int
	obj                  float64
	haveObj              bool
	note                 string
}

// runBenchSVR fits model.SVR (float64 and float32 column caches) and LIBSVM's
// svm-train -s 3 on the same data, one after the other in one run, and prints
// a Markdown table and the ratios.
func runBenchSVR(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var b svrBench
	fs := cmdline.NewFlags("bench svr", "[flags]", stderr)
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
	fmt.Fprintf(stdout, "# bench svr: %s, %d train / %d test, d = %d, C = %g, γ = %g, ε = %g, cache %d MB, workers %d (0: GOMAXPROCS)\n\n",
		b.data, n, nt, d, b.c, b.gamma, b.eps, b.cacheMB, b.workers)
	fmt.Fprintln(stdout, "| method | train wall (s) | train CPU (s) | predict wall (s) | test RMSE | SV (at C) | notes |")
	fmt.Fprintln(stdout, "|---|---:|---:|---:|---:|---:|---|")
	done := cmdline.NewUnits(cmdline.NewProgress(*b.prog, false, stderr), "bench svr", len(b.ms), float64(len(b.ms)))
	var rows []svrRow
	for _, m := range b.ms {
		t0 := time.Now()
		var r svrRow
		if m == "libsvm" {
			r, err = b.libsvm(ctx, tr, te)
		} else {
			r, err = b.ours(ctx, m, tr, te)
		}
		done.Finished(m, 1, t0, err)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		if r.note == "svm-train not installed" {
			fmt.Fprintf(stdout, "| %s | | | | | | %s |\n", r.name, r.note)
			continue
		}
		fmt.Fprintf(stdout, "| %s | %.2f | %.2f | %.2f | %.6g | %d (%d) | %s |\n", r.name, r.fit, r.cpu, r.pred, r.rmse, r.sv, r.bsv, r.note)
		rows = append(rows, r)
	}
	svrCompare(stdout, rows)
	return nil
}

// ours fits model.SVR with the float64 (svr) or float32 (svr32) cache.
func (b *svrBench) ours(ctx context.Context, m string, tr, te benchSet) (svrRow, error) {
	s := &model.SVR{C: b.c, Kernel: kernel.Gaussian{Gamma: b.gamma}, Epsilon: b.eps, AbsoluteLoss: b.eps == 0,
		CacheBytes: int64(b.cacheMB) << 20, CacheFloat32: m == "svr32", Resources: model.Resources{Workers: b.workers}}
	c0 := processCPU()
	t0 := time.Now()
	if err := s.Fit(ctx, tr.x, tr.y); err != nil {
		return svrRow{}, err
	}
	t1 := time.Now()
	cpu := processCPU() - c0
	p, err := s.Predict(te.x)
	if err != nil {
		return svrRow{}, err
	}
	in := s.Info()
	return svrRow{name: "model.SVR " + m, fit: t1.Sub(t0).Seconds(), cpu: cpu, pred: time.Since(t1).Seconds(), rmse: svrRMSE(p, te.y),
		sv: in.SV, bsv: in.BoundedSV, obj: in.Objective, haveObj: true,
		note: fmt.Sprintf("obj %.6f, %d updates", in.Objective, in.Iterations)}, nil
}

var (
	svrReObj = regexp.MustCompile(`obj = (\S+), rho`)
	svrReSV  = regexp.MustCompile(`nSV = (\d+), nBSV = (\d+)`)
	svrReMSE = regexp.MustCompile(`Mean squared error = (\S+)`)
)

// libsvm writes the data to a temporary directory and times svm-train -s 3
// (-c C -g γ -p ε -e 0.001 -m cache) and svm-predict on it.
func (b *svrBench) libsvm(ctx context.Context, tr, te benchSet) (svrRow, error) {
	r := svrRow{name: "svm-train -s 3 / svm-predict"}
	if _, err := exec.LookPath("svm-train"); err != nil {
		r.note = "svm-train not installed"
		return r, nil
	}
	f, err := newLIBSVMFiles("landmark-bench-svr", tr, te)
	if err != nil {
		return r, err
	}
	defer os.RemoveAll(f.dir)
	ftr, fte, fmod, fout := f.train, f.test, f.model, f.out
	t0 := time.Now()
	cmd := exec.CommandContext(ctx, "svm-train", "-s", "3", "-c", fmt.Sprint(b.c), "-g", fmt.Sprint(b.gamma), "-p", fmt.Sprint(b.eps),
		"-e", "0.001", "-m", fmt.Sprint(b.cacheMB), ftr, fmod)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return r, fmt.Errorf("svm-train: %w\n%s", err, out)
	}
	r.fit = time.Since(t0).Seconds()
	r.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	if m := svrReObj.FindSubmatch(out); m != nil {
		if r.obj, err = strconv.ParseFloat(string(m[1]), 64); err != nil {
			return r, fmt.Errorf("svm-train: objective %q: %w", m[1], err)
		}
		r.haveObj = true
		r.note = fmt.Sprintf("obj %.6f", r.obj)
	}
	if m := svrReSV.FindSubmatch(out); m != nil {
		r.sv, _ = strconv.Atoi(string(m[1]))
		r.bsv, _ = strconv.Atoi(string(m[2]))
	}
	if rss, ok := childMaxRSS(cmd.ProcessState); ok {
		r.note += fmt.Sprintf(", svm-train peak RSS %.2f GB", float64(rss)/(1<<30))
	}
	t1 := time.Now()
	out, err = exec.CommandContext(ctx, "svm-predict", fte, fmod, fout).CombinedOutput()
	if err != nil {
		return r, fmt.Errorf("svm-predict: %w\n%s", err, out)
	}
	r.pred = time.Since(t1).Seconds()
	m := svrReMSE.FindSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("svm-predict: no mean squared error in\n%s", out)
	}
	mse, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		return r, fmt.Errorf("svm-predict: mean squared error %q: %w", m[1], err)
	}
	r.rmse = math.Sqrt(mse)
	return r, nil
}

// svrCompare prints each model.SVR row against svm-train's: the relative
// difference of the dual objectives and the time ratios (svm-train's time
// over ours: above 1 means model.SVR is faster).
func svrCompare(w io.Writer, rows []svrRow) {
	var lib *svrRow
	for i := range rows {
		if strings.HasPrefix(rows[i].name, "svm-train") && rows[i].haveObj {
			lib = &rows[i]
		}
	}
	if lib == nil {
		return
	}
	for _, o := range rows {
		if o.name == lib.name {
			continue
		}
		rel := math.Abs(o.obj-lib.obj) / math.Max(math.Abs(lib.obj), math.SmallestNonzeroFloat64)
		fmt.Fprintf(w, "\n%s vs svm-train: dual objective %.6f vs %.6f (relative difference %.2g), SV %d vs %d, at C %d vs %d, test RMSE %.6g vs %.6g; train wall %.2f s vs %.2f s (svm-train / model.SVR = %.2f×), CPU %.2f s vs %.2f s (%.2f×)\n",
			o.name, o.obj, lib.obj, rel, o.sv, lib.sv, o.bsv, lib.bsv, o.rmse, lib.rmse, o.fit, lib.fit, lib.fit/max(o.fit, 1e-9), o.cpu, lib.cpu, lib.cpu/max(o.cpu, 1e-9))
	}
}

// svrRMSE is the root mean squared error of p against y.
func svrRMSE(p, y []float64) float64 {
	var s float64
	for i, v := range p {
		s += (v - y[i]) * (v - y[i])
	}
	return math.Sqrt(s / float64(len(p)))
}
