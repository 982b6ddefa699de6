package bench

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

//go:embed bench_falkon.py
var benchFalkonPy string

// benchFalkonFalkonPy is the FALKON baseline of multi-class sets (the shared
// tools/falkon_same_arrays.py fits one output).
//
//go:embed bench_falkon_falkon.py
var benchFalkonFalkonPy string

// falkonDefaults are one dataset's anchor settings.
type falkonDefaults struct {
	gamma, lambda float64
	m             string
	task          model.Task
	standardize   bool
	multiclass    bool // more than two classes: one-vs-all outputs
}

// falkonBenchDefaults are DESIGN.md's anchor settings per dataset.
var falkonBenchDefaults = map[string]falkonDefaults{
	"cadata": {gamma: 0.125, lambda: 1e-6, m: "2000", task: model.Regression, standardize: true},
	// ijcnn1 ships scaled to [−1, 1] and σ = 0.5 (γ = 2) is its usual
	// setting on that scale (LIBSVM's, and DESIGN.md's anchors); after
	// standardization γ = 2 would be far too narrow.
	"ijcnn1":  {gamma: 2, lambda: 1e-7, m: "5000", task: model.Classification},
	"covtype": {gamma: 0.125, lambda: 1e-8, m: "2000", task: model.Classification, standardize: true},
	// mnist: pixels scaled to [0, 1], σ = 4 (γ = 1/32), the width FALKON's
	// paper uses on MNIST-like 784-d features; ten classes, one-vs-all.
	"mnist": {gamma: 1.0 / 32, lambda: 1e-8, m: "5000", task: model.Classification, multiclass: true},
}

// falkonBenchMeta describes the arrays shared by the Go and Python sides.
type falkonBenchMeta struct {
	NTrain int     `json:"ntrain"`
	NTest  int     `json:"ntest"`
	D      int     `json:"d"`
	YMean  float64 `json:"ymean"`
	YSD    float64 `json:"ysd"`
	Task   string  `json:"task"`
	// Classes are the class labels of a multi-class set (more than two),
	// whose label files then hold the labels themselves; nil for binary
	// sets (labels written as ±1) and regression.
	Classes []float64 `json:"classes,omitempty"`
}

// falkonBenchResult is one measured fit.
type falkonBenchResult struct {
	FitS       float64 `json:"fit_s"`
	PredictS   float64 `json:"predict_s"`
	Error      float64 `json:"error"`
	RSSBytes   int64   `json:"rss_bytes"`
	DataRSS    int64   `json:"data_rss_bytes"`
	Iterations int     `json:"iterations,omitempty"`
	SetupS     float64 `json:"setup_s,omitempty"`
	// CentersS, KMMS, FactorS and RHSS split SetupS (model.FalkonInfo's
	// SampleTime, KMMTime, FactorTime and RHSTime). Set by Landmark's
	// child only.
	CentersS float64 `json:"centers_s,omitempty"`
	KMMS     float64 `json:"kmm_s,omitempty"`
	FactorS  float64 `json:"factor_s,omitempty"`
	RHSS     float64 `json:"rhs_s,omitempty"`
	Residual float64 `json:"residual,omitempty"`
	M        int     `json:"m,omitempty"`
	// FitCPUS is the CPU time (user + system, all threads) of the fit: on a
	// shared machine it shows the work done whatever share of the cores the
	// process got. Set by Landmark's child only.
	FitCPUS float64 `json:"fit_cpu_s,omitempty"`
	// Curve is the test error after each iteration (with -curve).
	Curve []float64 `json:"curve,omitempty"`
	// Factoring is the split Landmark's passes were factored over
	// (model.FalkonPlan.Factoring; empty: not factored). Set by
	// Landmark's child only.
	Factoring string `json:"factoring,omitempty"`
}

// falkonBench is one "bench falkon" run: its flags, then the settings
// resolved from them (resolve).
type falkonBench struct {
	data, ms, skms, sampler, python, baseline, falkonPath, falkonScript, standardize, cpuProfile, child, prepare, precisions, dtypes, factor string
	gamma, lambda, eps, blessLambda, memLimit                                                                                                float64
	iters, ntrain, ntest                                                                                                                     int
	seed                                                                                                                                     uint64
	cache, f32, f32Storage, curve                                                                                                            bool
	prog                                                                                                                                     *cmdline.Mode

	mode     model.FactorMode // -factor
	def      falkonDefaults
	std      bool
	samplers []string
	precs    []string // Landmark's precisions (falkonPrecisions)
	baseDT   []string // FALKON's dtypes; one "" for scikit-learn
	fm, sm   []int    // Falkon's and the baseline's M
}

// falkonPrecisions are the values of -precisions: what Landmark's fit
// holds and computes in float32, as the child's flags that select it.
var falkonPrecisions = map[string][]string{
	"float64":         {"-float32=false", "-float32-storage=false"},
	"float32":         {"-float32=true", "-float32-storage=false"},
	"float32-storage": {"-float32=true", "-float32-storage=true"},
}

func (b *falkonBench) register(fs *flag.FlagSet) {
	fs.StringVar(&b.data, "data", "cadata", "dataset: cadata (80/20 split), ijcnn1 (official train/test), covtype (covtype.binary, 80/20 split) or mnist (official train/test, pixels/255, 10 classes one-vs-all)")
	fs.StringVar(&b.ms, "m", "", "comma-separated numbers of centers for Falkon (default per dataset, DESIGN.md)")
	fs.StringVar(&b.skms, "sklearn-m", "", "comma-separated numbers of components for scikit-learn (default: same as -m; 'none' to skip)")
	fs.Float64Var(&b.gamma, "gamma", 0, "Gaussian γ (default per dataset: cadata and covtype σ = 2, ijcnn1 σ = 0.5, mnist σ = 4)")
	fs.Float64Var(&b.lambda, "lambda", 0, "λ, penalty λn (default per dataset)")
	fs.IntVar(&b.iters, "iter", 10, "Falkon CG iterations (FALKON's anchor ran 10)")
	fs.Float64Var(&b.eps, "epsilon", 0, "preconditioner ε (0: precond.DefaultEpsilon)")
	fs.StringVar(&b.sampler, "sampler", "uniform", "Falkon centers: uniform or bless (FALKON-BLESS, weighted preconditioner), or a comma-separated list (bless,uniform): every -m is fitted with each, one row per sampler, and with -curve their test errors by iteration are printed side by side")
	fs.Float64Var(&b.blessLambda, "bless-lambda", 0, "with -sampler bless: BLESS's λ (Rudi et al.'s λ_bless; -m caps M); 0: fixed-size mode, the path stops when 3·d_eff reaches -m")
	fs.IntVar(&b.ntrain, "train", 0, "use only the first N training rows after the split (0: all)")
	fs.IntVar(&b.ntest, "test", 0, "use only the first N test rows (0: all)")
	fs.Uint64Var(&b.seed, "seed", 1, "seed of the split and of the center sampling")
	fs.Float64Var(&b.memLimit, "memory", 2, "Falkon memory limit in GB (FALKON's anchor ran with 2 GB)")
	fs.BoolVar(&b.cache, "cache", false, "ask Falkon to keep K_nM (model.Falkon.CacheKnm: as much as -memory leaves room for); without it Falkon keeps K_nM unasked at d ≥ 64 (mnist) in half the room -memory leaves")
	fs.StringVar(&b.factor, "factor", "auto", "Falkon's K_nM passes factored over the two-valued (one-hot) columns (model.Falkon.Factor): auto (when the cost model predicts a gain), off or on (whenever the data allow)")
	fs.BoolVar(&b.f32, "float32", false, "Falkon's K_nM passes in float32 (model.Falkon.Float32)")
	fs.BoolVar(&b.f32Storage, "float32-storage", false, "Falkon's training X read and held in float32 (kernel.Dense32, model.Falkon.Float32Storage; implies -float32)")
	fs.StringVar(&b.precisions, "precisions", "", "comma-separated precisions of Landmark's fits, one row each per M: float64, float32 (K_nM passes in float32, as -float32) and float32-storage (X held in float32 too, as -float32-storage); default: the one -float32 / -float32-storage select")
	fs.StringVar(&b.dtypes, "falkon-dtypes", "float32", "with -baseline falkon: comma-separated dtypes FALKON runs in (float32, float64; FALKON_DTYPE of the baseline script), one row each per M, and every Landmark row's speed-up against each")
	fs.StringVar(&b.python, "python", "/usr/bin/python3", "Python (or any compatible baseline program) run as PYTHON -c SCRIPT DIR M GAMMA LAMBDA TASK SEED: DIR holds meta.json and little-endian float64 xtr.f64, ytr.f64, xte.f64, yte.f64; it must print one JSON line with fit_s, predict_s, error, rss_bytes, data_rss_bytes (SCRIPT is the embedded scikit-learn script, which a compatible program may ignore)")
	fs.StringVar(&b.baseline, "baseline", "sklearn", "baseline row: sklearn (Nystroem + Ridge run by -python) or falkon (FALKON on the same arrays: -python with -falkon-script, PYTHONPATH extended by -falkon-path; fails at once if falkon is not importable)")
	fs.StringVar(&b.falkonPath, "falkon-path", "/tmp/falkon-site", "with -baseline falkon: directory added to PYTHONPATH where the falkon package is installed")
	fs.StringVar(&b.falkonScript, "falkon-script", "", "with -baseline falkon: the same-arrays FALKON script (default: tools/falkon_same_arrays.py beside the shared datasets directory; for mnist, the embedded one-vs-all script)")
	fs.StringVar(&b.standardize, "standardize", "auto", "standardize features with training statistics: yes, no, or auto (yes for cadata and covtype, no for the pre-scaled ijcnn1 and mnist)")
	fs.BoolVar(&b.curve, "curve", false, "record Falkon's test error after every iteration (one extra test-set pass per iteration, included in the fit time)")
	fs.StringVar(&b.cpuProfile, "cpuprofile", "", "write a CPU profile of Falkon's fit (the landmark child process, each -m overwriting it) to this file")
	fs.StringVar(&b.child, "child", "", "internal: run one Falkon fit on the arrays in this directory")
	fs.StringVar(&b.prepare, "prepare", "", "internal: write the arrays of -data to this directory")
	b.prog = cmdline.AddProgress(fs)
}

// resolve fills the dataset's defaults and checks the flags.
func (b *falkonBench) resolve() error {
	def, ok := falkonBenchDefaults[b.data]
	if !ok {
		return fmt.Errorf("%w: -data %q: want cadata, ijcnn1, covtype or mnist", errUsage, b.data)
	}
	b.def = def
	b.gamma, b.lambda, b.ms = cmp.Or(b.gamma, def.gamma), cmp.Or(b.lambda, def.lambda), cmp.Or(b.ms, def.m)
	b.skms = cmp.Or(b.skms, b.ms)
	if b.gamma < 0 || b.lambda < 0 || b.blessLambda < 0 || b.iters < 1 || b.ntrain < 0 || b.ntest < 0 || b.memLimit < 0 || b.eps < 0 {
		return fmt.Errorf("%w: -gamma, -lambda, -memory, -epsilon must be positive, -iter ≥ 1", errUsage)
	}
	if b.baseline != "sklearn" && b.baseline != "falkon" {
		return fmt.Errorf("%w: -baseline %q: want sklearn or falkon", errUsage, b.baseline)
	}
	var err error
	if b.samplers, err = falkonBenchSamplers(b.sampler); err != nil {
		return err
	}
	if err := b.mode.UnmarshalText([]byte(b.factor)); err != nil {
		return fmt.Errorf("%w: -factor %q, want auto, off or on", errUsage, b.factor)
	}
	if err := b.resolvePrecisions(); err != nil {
		return err
	}
	switch b.standardize {
	case "yes", "no":
		b.std = b.standardize == "yes"
	case "auto":
		b.std = def.standardize
	default:
		return fmt.Errorf("%w: -standardize %q: want yes, no or auto", errUsage, b.standardize)
	}
	if b.fm, err = falkonBenchInts(b.ms); err != nil {
		return err
	}
	if b.skms != "none" {
		if b.sm, err = falkonBenchInts(b.skms); err != nil {
			return err
		}
	}
	return nil
}

// resolvePrecisions reads -precisions (or -float32 / -float32-storage) and
// -falkon-dtypes into b.precs and b.baseDT.
func (b *falkonBench) resolvePrecisions() error {
	one := "float64"
	switch {
	case b.f32Storage:
		one = "float32-storage"
	case b.f32:
		one = "float32"
	}
	var err error
	if b.precisions == "" {
		b.precs = []string{one}
	} else if b.f32 || b.f32Storage {
		return fmt.Errorf("%w: -precisions with -float32 or -float32-storage: give the precisions in -precisions only", errUsage)
	} else if b.precs, err = falkonBenchList("-precisions", b.precisions, "float64", "float32", "float32-storage"); err != nil {
		return err
	}
	if b.baseline != "falkon" {
		if b.dtypes != "float32" {
			return fmt.Errorf("%w: -falkon-dtypes %q needs -baseline falkon (scikit-learn runs in float64)", errUsage, b.dtypes)
		}
		b.baseDT = []string{""}
		return nil
	}
	b.baseDT, err = falkonBenchList("-falkon-dtypes", b.dtypes, "float32", "float64")
	return err
}

// falkonBenchList parses a comma-separated list of distinct values of flag,
// each one of allowed.
func falkonBenchList(flag, s string, allowed ...string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(allowed, f) {
			return nil, fmt.Errorf("%w: %s %q: want a comma-separated list of %s", errUsage, flag, s, strings.Join(allowed, ", "))
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("%w: %s %q names %s twice", errUsage, flag, s, f)
		}
		out = append(out, f)
	}
	return out, nil
}

// runBenchFalkon benchmarks model.Falkon against scikit-learn's Nystroem +
// Ridge on the same standardized arrays, each fit in its own process so that
// peak memory (max RSS) is comparable, and prints a Markdown table.
func runBenchFalkon(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var b falkonBench
	fs := cmdline.NewFlags("bench falkon", "[flags]", stderr)
	b.register(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if err := b.resolve(); err != nil {
		return err
	}
	if b.child != "" {
		return b.runChild(ctx, stdout, stderr)
	}
	if b.prepare != "" {
		_, err := falkonBenchPrepare(ctx, b.data, b.seed, b.ntrain, b.ntest, b.prepare, b.def.task, b.std)
		return err
	}
	return b.run(ctx, stdout, stderr)
}

// runChild fits one Falkon on the arrays in -child (a child process of run).
func (b *falkonBench) runChild(ctx context.Context, stdout, stderr io.Writer) error {
	if len(b.fm) != 1 || len(b.samplers) != 1 {
		return fmt.Errorf("%w: -child takes one -m and one -sampler", errUsage)
	}
	cfg := model.Falkon{Kernel: kernel.Gaussian{Gamma: b.gamma}, Lambda: b.lambda, M: b.fm[0], MaxIter: b.iters, Tol: 1e-30,
		Epsilon: b.eps, Seed: b.seed, Task: b.def.task, Resources: model.Resources{MemoryLimit: int64(b.memLimit * 1e9)}, CacheKnm: b.cache, Float32: b.f32, Float32Storage: b.f32Storage, Factor: b.mode}
	if b.samplers[0] == "bless" {
		// -bless-lambda 0: fixed-size mode, the λ path stops when Q2·d_h
		// reaches M; otherwise the path ends at λ_bless and M only caps
		// the draw. The weighted preconditioner (eq. 15, at the last
		// step's λ_h) is then chosen automatically.
		cfg.Sampler = approx.BLESS{Lambda: b.blessLambda}
	}
	if pg := cmdline.NewProgress(*b.prog, false, stderr); pg != nil {
		prefix := fmt.Sprintf("M = %d %s: ", cfg.M, b.samplers[0])
		var clock eta.Iter
		cfg.Progress = func(p model.Progress) error {
			pg.Model(prefix, p, b.iters, &clock)
			return nil
		}
		defer pg.Done()
	}
	return falkonBenchChild(ctx, b.child, cfg, b.samplers[0], b.curve, b.cpuProfile, stdout, stderr)
}

// falkonBaseRun runs the baseline in dtype ("" for scikit-learn) as
// python with args.
type falkonBaseRun func(ctx context.Context, dtype, python string, args []string, stderr io.Writer) (falkonBenchResult, error)

// baselineRunner names the baseline's rows and returns what runs them; dir
// is the run's directory, where the embedded FALKON script of multi-class
// sets is written.
func (b *falkonBench) baselineRunner(ctx context.Context, dir string) (string, falkonBaseRun, error) {
	if b.baseline != "falkon" || len(b.sm) == 0 {
		return "scikit-learn Nystroem+Ridge", func(ctx context.Context, _, python string, args []string, stderr io.Writer) (falkonBenchResult, error) {
			return falkonBenchRun(ctx, python, args, stderr)
		}, nil
	}
	script := b.falkonScript
	if script == "" && b.def.multiclass {
		script = filepath.Join(dir, "falkon_multiclass.py")
		if err := os.WriteFile(script, []byte(benchFalkonFalkonPy), 0o644); err != nil {
			return "", nil, err
		}
	}
	script, err := falkonBaselineCheck(ctx, b.python, b.falkonPath, script)
	if err != nil {
		return "", nil, err
	}
	return "FALKON (Python, CPU)", func(ctx context.Context, dtype, python string, args []string, stderr io.Writer) (falkonBenchResult, error) {
		// The script takes the sklearn script's arguments and ignores "-c
		// SCRIPT"; FALKON_DTYPE is the last in the environment, so it
		// overrides an inherited one.
		env := append(os.Environ(), "PYTHONPATH="+falkonPythonPath(b.falkonPath), "FALKON_ITERS="+strconv.Itoa(b.iters), "FALKON_DTYPE="+dtype)
		return falkonBenchRunEnv(ctx, python, append([]string{script}, args...), env, stderr)
	}, nil
}

// baselineLines reports the kernels of the baseline's Python: the FALKON
// baseline's interpreter with its PYTHONPATH (numpy and torch), or the
// scikit-learn baseline's (numpy and scikit-learn; a -python wrapper that
// runs its own program is read for its interpreter and PYTHONPATH, as bench
// sparse does, and torch is reported too).
func (b *falkonBench) baselineLines(ctx context.Context, stderr io.Writer) []string {
	if b.baseline == "falkon" {
		env := append(os.Environ(), "PYTHONPATH="+falkonPythonPath(b.falkonPath))
		return baselineLines(ctx, stderr, "falkon", b.python, env, "numpy", "torch")
	}
	mods := []string{"numpy", "sklearn"}
	py, pp, err := sparseBenchPython(b.python, "")
	switch {
	case err != nil: // not a Python wrapper: asked as given
		py, pp = b.python, ""
	case py != b.python: // a wrapper running its own program (FALKON's, in ../shared/tools)
		mods = append(mods, "torch")
	}
	return baselineLines(ctx, stderr, "falkon", py, sparseBenchEnv(os.Environ(), pp), mods...)
}

// errScale is a test error as printed: a percentage for classification.
func (b *falkonBench) errScale(e float64) float64 {
	if b.def.task == model.Classification {
		return 100 * e
	}
	return e
}

// row prints one table row.
func (b *falkonBench) row(w io.Writer, name string, m int, r falkonBenchResult, note string) {
	fmt.Fprintf(w, "| %s | %d | %.1f | %.1f | %.5g | %.2f | %s |\n", name, m, r.FitS, r.PredictS, b.errScale(r.Error), float64(r.RSSBytes)/1e9, note)
}

// run prepares the arrays, fits every M × sampler in a child process and
// the baseline at every baseline M, and prints the table, the curves and
// the iterations Falkon needs to reach the baseline's error.
func (b *falkonBench) run(ctx context.Context, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "landmark-bench-falkon")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	baseName, baseRun, err := b.baselineRunner(ctx, dir)
	if err != nil {
		return err
	}
	meta, err := b.prepareChild(ctx, dir, stderr)
	if err != nil {
		return err
	}
	unit := "test error (%)"
	if b.def.task == model.Regression {
		unit = "test RMSE"
	}
	samplerNote := "sampler " + b.samplers[0]
	if len(b.samplers) > 1 {
		samplerNote = "samplers " + strings.Join(b.samplers, ", ")
	}
	precNote := "Landmark in " + strings.Join(b.precs, ", ")
	if b.baseline == "falkon" && len(b.sm) > 0 {
		precNote += "; FALKON in " + strings.Join(b.baseDT, ", ")
	}
	fmt.Fprintf(stdout, "# bench falkon: %s (standardized: %v), %d train / %d test, d = %d, Gaussian γ = %g, λ = %g (λn = %g), %d CG iterations, %s, ε %s, memory limit %g GB, %s\n\n",
		b.data, b.std, meta.NTrain, meta.NTest, meta.D, b.gamma, b.lambda, b.lambda*float64(meta.NTrain), b.iters, samplerNote, falkonBenchEps(b.eps), b.memLimit, precNote)
	report := []string{engineHost(), pagesLine()} // the children inherit the environment, so the path
	if len(b.sm) > 0 {
		report = append(report, b.baselineLines(ctx, stderr)...)
	}
	printLines(stdout, "- ", report)
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, "| method | M | fit (s) | predict (s) | %s | peak RSS (GB) | notes |\n|---|---:|---:|---:|---:|---:|---|\n", unit)
	// Progress: one line per finished fit (each child also reports its CG
	// iterations), with the ETA from the mean time per fit so far.
	units := len(b.fm)*len(b.samplers)*len(b.precs) + len(b.sm)*len(b.baseDT)
	done := cmdline.NewUnits(cmdline.NewProgress(*b.prog, false, stderr), "bench falkon", units, float64(units))
	fits, curves, allCurves, err := b.fitAll(ctx, dir, done, stdout, stderr)
	if err != nil {
		return err
	}
	var bases []falkonBenchFit
	for _, m := range b.sm {
		for _, dt := range b.baseDT {
			name := strings.TrimSpace(baseName + " " + dt)
			pyArgs := []string{"-c", benchFalkonPy, dir, strconv.Itoa(m), fmt.Sprint(b.gamma), fmt.Sprint(b.lambda), string(b.def.task), fmt.Sprint(b.seed)}
			t0 := time.Now()
			r, err := baseRun(ctx, dt, b.python, pyArgs, stderr)
			done.Finished(fmt.Sprintf("%s, M = %d", name, m), 1, t0, err)
			if err != nil {
				fmt.Fprintf(stdout, "| %s | %d | | | | | failed: %v |\n", name, m, err)
				continue
			}
			b.row(stdout, name, m, r, "")
			bases = append(bases, falkonBenchFit{name: name, m: m, r: r})
		}
	}
	falkonBenchRatios(stdout, fits, bases)
	if len(curves) > 0 {
		fmt.Fprintf(stdout, "\nFalkon %s by iteration:\n\n", unit)
		falkonBenchCurves(stdout, curves, b.errScale)
	}
	for _, dt := range b.baseDT {
		// The baseline's name says its dtype when FALKON ran in several.
		name := baseName
		if len(b.baseDT) > 1 {
			name = baseName + " " + dt
		}
		var errs []falkonBaseError
		for _, base := range bases {
			if base.name == strings.TrimSpace(baseName+" "+dt) {
				errs = append(errs, falkonBaseError{m: base.m, err: base.r.Error})
			}
		}
		falkonBenchReach(stdout, name, b.iters, allCurves, errs, b.errScale)
	}
	return nil
}

// prepareChild writes the arrays into dir in a child process and reads
// their description back. The parent never holds the data: a child's peak
// RSS as getrusage reports it (which the Python baselines print) starts at
// the parent's peak, since Linux carries the high-water mark of the
// exec'ing process's memory over to the new program; with mnist read in
// the parent, every row's RSS included about 1 GB of it.
func (b *falkonBench) prepareChild(ctx context.Context, dir string, stderr io.Writer) (falkonBenchMeta, error) {
	var meta falkonBenchMeta
	self, err := os.Executable()
	if err != nil {
		return meta, err
	}
	std := "no"
	if b.std {
		std = "yes"
	}
	cmd := exec.CommandContext(ctx, self, "bench", "falkon", "-prepare", dir, "-data", b.data, "-seed", fmt.Sprint(b.seed),
		"-train", strconv.Itoa(b.ntrain), "-test", strconv.Itoa(b.ntest), "-standardize", std)
	cmd.Stderr = stderr
	if err := cmd.Run(); err != nil {
		return meta, fmt.Errorf("preparing %s: %w", b.data, err)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return meta, err
	}
	return meta, json.Unmarshal(raw, &meta)
}

// fitAll runs Falkon's fits, one child process each, printing a row per
// fit. It returns the curves to print side by side (several samplers) and
// every recorded curve (for the iterations to the baseline's error).
func (b *falkonBench) fitAll(ctx context.Context, dir string, done *cmdline.Units, stdout, stderr io.Writer) (fits []falkonBenchFit, curves, all []falkonBenchCurve, err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	for _, m := range b.fm {
		for _, prec := range b.precs {
			for _, smp := range b.samplers {
				name, label := "landmark Falkon", smp
				var tags []string
				if len(b.samplers) > 1 {
					tags = append(tags, smp)
				}
				if len(b.precs) > 1 {
					tags = append(tags, prec)
					label += " " + prec
				}
				if len(tags) > 0 {
					name += " (" + strings.Join(tags, ", ") + ")"
				}
				childArgs := []string{"bench", "falkon", "-child", dir, "-data", b.data, "-m", strconv.Itoa(m),
					"-gamma", fmt.Sprint(b.gamma), "-lambda", fmt.Sprint(b.lambda), "-iter", strconv.Itoa(b.iters),
					"-epsilon", fmt.Sprint(b.eps), "-sampler", smp, "-bless-lambda", fmt.Sprint(b.blessLambda), "-seed", fmt.Sprint(b.seed),
					"-memory", fmt.Sprint(b.memLimit), fmt.Sprintf("-cache=%v", b.cache), fmt.Sprintf("-curve=%v", b.curve), "-cpuprofile", b.cpuProfile,
					"-progress", string(*b.prog), "-factor", b.factor}
				childArgs = append(childArgs, falkonPrecisions[prec]...)
				t0 := time.Now()
				r, err := falkonBenchRun(ctx, self, childArgs, stderr)
				done.Finished(fmt.Sprintf("%s, M = %d", name, m), 1, t0, err)
				if err != nil {
					fmt.Fprintf(stdout, "| %s | %d | | | | | failed: %v |\n", name, m, err)
					continue
				}
				note := fmt.Sprintf("%d it., residual %.2g; %s; fit CPU %.1f s; %s", r.Iterations, r.Residual, falkonBenchSetup(r), r.FitCPUS, falkonBenchFactoring(r))
				mm := m
				if r.M > 0 {
					mm = r.M // samplers may return fewer centers than asked (BLESS merges repeats)
				}
				fits = append(fits, falkonBenchFit{name: name, m: m, r: r})
				if len(r.Curve) > 0 {
					all = append(all, falkonBenchCurve{sampler: label, m: mm, asked: m, errs: r.Curve})
				}
				if len(r.Curve) > 0 && len(b.samplers) == 1 && len(b.precs) == 1 {
					parts := make([]string, len(r.Curve))
					for i, e := range r.Curve {
						parts[i] = fmt.Sprintf("%.4g", b.errScale(e))
					}
					note += "; test error by iteration: " + strings.Join(parts, " ")
				} else if len(r.Curve) > 0 {
					curves = append(curves, falkonBenchCurve{sampler: label, m: mm, errs: r.Curve})
				}
				b.row(stdout, name, mm, r, note)
			}
		}
	}
	return fits, curves, all, nil
}

// falkonBenchSamplers parses -sampler: uniform, bless or a comma-separated
// list of them, each at most once.
func falkonBenchSamplers(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f != "uniform" && f != "bless" {
			return nil, fmt.Errorf("%w: -sampler %q: want uniform, bless or a comma-separated list of them", errUsage, s)
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("%w: -sampler %q names %s twice", errUsage, s, f)
		}
		out = append(out, f)
	}
	return out, nil
}

func falkonBenchEps(e float64) string {
	if e == 0 {
		return "default"
	}
	return fmt.Sprint(e)
}

func falkonBenchInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("%w: %q: want positive integers", errUsage, s)
		}
		out = append(out, v)
	}
	return out, nil
}
