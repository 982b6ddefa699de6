package bench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

//go:embed bench_sparse.py
var benchSparsePy string

// sparseBenchResult is one method's measured fit on the LIBSVM pair: the JSON
// line the Python script and Landmark's child print.
type sparseBenchResult struct {
	Method   string  `json:"method"`
	FitS     float64 `json:"fit_s"`
	PredictS float64 `json:"predict_s"`
	Accuracy float64 `json:"accuracy"`
	RSSBytes int64   `json:"rss_bytes"`
	DataRSS  int64   `json:"data_rss_bytes"`
	NTrain   int     `json:"ntrain"`
	NTest    int     `json:"ntest"`
	D        int     `json:"d"`
	NNZ      int     `json:"nnz"`
	Classes  int     `json:"classes"`
	Note     string  `json:"note,omitempty"`
	// FitCPUS is the fit's CPU time (user + system, all threads): on a
	// shared machine it shows the work done whatever share of the cores the
	// process got.
	FitCPUS float64 `json:"fit_cpu_s"`
	// Set by Landmark's child only.
	PlanBytes  int64 `json:"plan_bytes,omitempty"`
	Iterations int   `json:"iterations,omitempty"`
}

// sparseBenchMethods are the rows of the table, in order.
var sparseBenchMethods = []struct{ key, name string }{
	{"landmark", "landmark Falkon (CSR, float64)"},
	{"falkon", "FALKON 0.8.4 (SparseTensor, float32)"},
	{"sklearn", "scikit-learn Nystroem + RidgeClassifier"},
}

// errSparseBenchResult is returned when a baseline's output holds no result line.
var errSparseBenchResult = errors.New("no JSON result line")

// runBenchSparse fits Landmark's Falkon, FALKON on sparse tensors and
// scikit-learn's Nystroem + RidgeClassifier on one LIBSVM train/test pair,
// each in its own process so that peak RSS is comparable, and prints one
// Markdown table with ratios against Landmark.
func runBenchSparse(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("bench sparse", "-train FILE -test FILE [flags]", stderr)
	train := fs.String("train", "", "LIBSVM training file (gzip/bzip2 read as such); every method reads this file")
	test := fs.String("test", "", "LIBSVM test file")
	zeroBased := fs.Bool("zero-based", false, "the files' indices start at 0 (scikit-learn's dump_svmlight_file default): every method reads them so (the baselines with zero_based=True; without it zero_based=False, never auto)")
	dim := fs.Int("dim", 0, "number of columns (0: the largest index in the training file; test-only columns are zero in every training row)")
	m := fs.Int("m", 2000, "number of centers (uniformly sampled rows) for every method")
	gamma := fs.Float64("gamma", 1, "Gaussian γ, k(x, z) = exp(−γ‖x − z‖²) (FALKON's σ = sqrt(1/(2γ)))")
	lambda := fs.Float64("lambda", 1e-5, "λ of Falkon's (1/n)‖y − K_nM a‖² + λ aᵀK_MM a (FALKON's penalty; scikit-learn's alpha = λn)")
	iters := fs.Int("iter", 10, "CG iterations of both Falkons")
	seed := fs.Uint64("seed", 1, "seed of the center sampling (each library draws its own centers)")
	memLimit := fs.Float64("memory", 3, "Landmark's memory limit in GB (a larger plan is refused before allocating)")
	falkonMem := fs.Float64("falkon-mem", 2, "FALKON's max_cpu_mem in GB")
	methods := fs.String("methods", "landmark,falkon,sklearn", "comma-separated methods to run: landmark, falkon, sklearn")
	python := fs.String("python", "/usr/bin/python3", "Python with scikit-learn (and torch for FALKON), run as PYTHON -c SCRIPT METHOD TRAIN TEST DIM M GAMMA LAMBDA ITERS SEED MAXMEM ZEROBASED; a wrapper script that runs its own program instead (../shared/tools/falkon-python) is read for its interpreter and PYTHONPATH")
	falkonPath := fs.String("falkon-path", "/tmp/falkon-site", "directory put in front of the baselines' PYTHONPATH, where the falkon package is installed")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of Landmark's fit (in its child process) to this file")
	child := fs.Bool("child", false, "internal: run Landmark's fit in this process and print its JSON line")
	prog := cmdline.AddProgress(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if *train == "" || *test == "" {
		fs.Usage()
		return fmt.Errorf("%w: bench sparse needs -train and -test", errUsage)
	}
	if *gamma <= 0 || *lambda <= 0 || *m < 1 || *iters < 1 || *dim < 0 || *memLimit < 0 || *falkonMem <= 0 {
		return fmt.Errorf("%w: -gamma, -lambda, -falkon-mem must be positive, -m and -iter ≥ 1, -dim and -memory ≥ 0", errUsage)
	}
	run, err := sparseBenchParseMethods(*methods)
	if err != nil {
		return err
	}
	if *child {
		cfg := model.Falkon{Kernel: kernel.Gaussian{Gamma: *gamma}, Lambda: *lambda, M: *m, MaxIter: *iters, Tol: 1e-30,
			Seed: *seed, Task: model.Classification, Resources: model.Resources{MemoryLimit: int64(*memLimit * 1e9)}}
		pg := cmdline.NewProgress(*prog, false, stderr)
		if pg != nil {
			var clock eta.Iter
			cfg.Progress = func(p model.Progress) error {
				pg.Model("landmark Falkon: ", p, *iters, &clock)
				return nil
			}
			defer pg.Done()
		}
		return sparseBenchChild(ctx, *train, *test, *dim, *zeroBased, cfg, *cpuProfile, stdout, stderr)
	}

	self, err := os.Executable()
	if err != nil {
		return err
	}
	py, pyPath, err := sparseBenchPython(*python, *falkonPath)
	if err != nil {
		return err
	}
	if py != *python {
		fmt.Fprintf(stderr, "bench sparse: %s runs its own program; running %s with PYTHONPATH=%s instead\n", *python, py, pyPath)
	}
	env := sparseBenchEnv(os.Environ(), pyPath)
	baseline := []string{engineHost()} // Landmark's child inherits the environment, so the path
	if mods := sparseBenchModules(run); len(mods) > 0 {
		baseline = append(baseline, baselineLines(ctx, stderr, "sparse", py, env, mods...)...)
	}
	pg := cmdline.NewProgress(*prog, false, stderr)
	done := cmdline.NewUnits(pg, "bench sparse", len(run), float64(len(run)))
	results := map[string]sparseBenchResult{}
	failed := map[string]error{}
	for _, key := range run {
		t0 := time.Now()
		var r sparseBenchResult
		var err error
		common := []string{"-train", *train, "-test", *test, "-dim", strconv.Itoa(*dim), "-m", strconv.Itoa(*m),
			"-gamma", fmt.Sprint(*gamma), "-lambda", fmt.Sprint(*lambda), "-iter", strconv.Itoa(*iters), "-seed", fmt.Sprint(*seed),
			"-zero-based=" + strconv.FormatBool(*zeroBased)}
		if key == "landmark" {
			a := append([]string{"bench", "sparse", "-child"}, common...)
			a = append(a, "-memory", fmt.Sprint(*memLimit), "-progress", string(*prog), "-cpuprofile", *cpuProfile)
			r, err = sparseBenchRun(ctx, self, a, nil, stderr)
		} else {
			a := []string{"-c", benchSparsePy, key, *train, *test, strconv.Itoa(*dim), strconv.Itoa(*m),
				fmt.Sprint(*gamma), fmt.Sprint(*lambda), strconv.Itoa(*iters), fmt.Sprint(*seed), fmt.Sprint(*falkonMem), strconv.FormatBool(*zeroBased)}
			r, err = sparseBenchRun(ctx, py, a, env, stderr)
		}
		done.Finished(key, 1, t0, err)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			failed[key] = err
			continue
		}
		results[key] = r
	}
	sparseBenchTable(stdout, sparseBenchHeader{train: *train, test: *test, m: *m, gamma: *gamma, lambda: *lambda,
		iters: *iters, memory: *memLimit, falkonMem: *falkonMem, baseline: baseline}, run, results, failed)
	if len(results) == 0 {
		return fmt.Errorf("bench sparse: every method failed (see the table)")
	}
	return nil
}

// sparseBenchModules are the Python modules the baselines in run import
// (none when only Landmark runs).
func sparseBenchModules(run []string) []string {
	var mods []string
	if slices.Contains(run, "sklearn") {
		mods = append(mods, "numpy", "scipy", "sklearn")
	}
	if slices.Contains(run, "falkon") {
		if len(mods) == 0 {
			mods = append(mods, "numpy", "scipy")
		}
		mods = append(mods, "torch")
	}
	return mods
}

// sparseBenchParseMethods parses -methods: known names, each at most once,
// returned in the table's order.
func sparseBenchParseMethods(s string) ([]string, error) {
	var want []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.ContainsFunc(sparseBenchMethods, func(m struct{ key, name string }) bool { return m.key == f }) {
			return nil, fmt.Errorf("%w: -methods %q: unknown method %q (want landmark, falkon, sklearn)", errUsage, s, f)
		}
		if slices.Contains(want, f) {
			return nil, fmt.Errorf("%w: -methods %q names %s twice", errUsage, s, f)
		}
		want = append(want, f)
	}
	var out []string
	for _, m := range sparseBenchMethods {
		if slices.Contains(want, m.key) {
			out = append(out, m.key)
		}
	}
	return out, nil
}

// sparseBenchEnv is the baselines' environment: env with dir in front of
// PYTHONPATH. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are kept, as in every
// bench (a forced Haswell kernel is the fair pair of LANDMARK_SIMD=avx2);
// the header reports the kernels the baselines run and warns when they are
// older than the CPU's.
func sparseBenchEnv(env []string, dir string) []string {
	var out []string
	pp := ""
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if k == "PYTHONPATH" {
			pp = v
			continue
		}
		out = append(out, kv)
	}
	switch {
	case dir == "":
	case pp == "":
		pp = dir
	default:
		pp = dir + string(os.PathListSeparator) + pp
	}
	if pp != "" {
		out = append(out, "PYTHONPATH="+pp)
	}
	return out
}

var (
	wrapperPythonPath = regexp.MustCompile(`PYTHONPATH=("[^"]*"|'[^']*'|\S+)`)
	wrapperExec       = regexp.MustCompile(`exec\s+(\S*python[0-9.]*)\s`)
)

// sparseBenchPython returns the interpreter to run and the directory for
// PYTHONPATH. python is used as given unless it is a shell wrapper that
// execs a Python program of its own (as ../shared/tools/falkon-python runs
// falkon_same_arrays.py, which would ignore this bench's script): then the
// interpreter it execs and the PYTHONPATH it sets (in front of dir) are used.
func sparseBenchPython(python, dir string) (string, string, error) {
	b, err := os.ReadFile(python)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if p, lerr := exec.LookPath(python); lerr == nil {
				return p, dir, nil
			}
		}
		return "", "", fmt.Errorf("%w: -python: %w", errUsage, err)
	}
	if !bytes.HasPrefix(b, []byte("#!")) || bytes.Contains(b[:min(len(b), 4096)], []byte{0}) {
		return python, dir, nil
	}
	first, _, _ := bytes.Cut(b, []byte("\n"))
	if bytes.Contains(first, []byte("python")) {
		return python, dir, nil // a Python script run as the interpreter would be
	}
	ex := wrapperExec.FindSubmatch(b)
	if ex == nil {
		return "", "", fmt.Errorf("%w: -python %s is a script that execs no python interpreter; give the interpreter (for example /usr/bin/python3)", errUsage, python)
	}
	pp := dir
	if m := wrapperPythonPath.FindSubmatch(b); m != nil {
		v := strings.Trim(string(m[1]), `"'`)
		if dir != "" && v != dir {
			v += string(os.PathListSeparator) + dir
		}
		pp = v
	}
	return string(ex[1]), pp, nil
}

// sparseBenchRun runs a command that prints notes and, last, one JSON result
// line on stdout.
func sparseBenchRun(ctx context.Context, name string, args, env []string, stderr io.Writer) (sparseBenchResult, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	var tail stderrTail
	cmd.Stderr = io.MultiWriter(stderr, &tail)
	out, err := cmd.Output()
	if err != nil {
		if l := tail.String(); l != "" {
			return sparseBenchResult{}, fmt.Errorf("%w: %s", err, l)
		}
		return sparseBenchResult{}, err
	}
	return sparseBenchParse(out)
}

// stderrTail keeps the last non-empty line written to it (at most 300 bytes
// of it), to name a failed child's error in the table.
type stderrTail struct {
	cur, last []byte
}

func (l *stderrTail) Write(p []byte) (int, error) {
	for _, c := range p {
		if c == '\n' {
			if len(bytes.TrimSpace(l.cur)) > 0 {
				l.last = append(l.last[:0], l.cur...)
			}
			l.cur = l.cur[:0]
			continue
		}
		if len(l.cur) < 300 {
			l.cur = append(l.cur, c)
		}
	}
	return len(p), nil
}

// String is the last complete non-empty line, or the pending one.
func (l *stderrTail) String() string {
	if len(bytes.TrimSpace(l.cur)) > 0 {
		return strings.TrimSpace(string(l.cur))
	}
	return strings.TrimSpace(string(l.last))
}

// sparseBenchParse reads the last JSON object line of out.
func sparseBenchParse(out []byte) (sparseBenchResult, error) {
	var r sparseBenchResult
	var last string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "{") {
			last = l
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if last == "" {
		return r, errSparseBenchResult
	}
	if err := json.Unmarshal([]byte(last), &r); err != nil {
		return r, fmt.Errorf("reading the result line: %w", err)
	}
	if r.NTest < 1 || r.Accuracy < 0 || r.Accuracy > 1 || r.FitS < 0 || r.PredictS < 0 {
		return r, fmt.Errorf("%w: implausible result %s", errSparseBenchResult, last)
	}
	return r, nil
}

// sparseBenchHeader holds the settings the table's title line states.
type sparseBenchHeader struct {
	train, test       string
	m, iters          int
	gamma, lambda     float64
	memory, falkonMem float64
	baseline          []string // the host line, the baselines' kernels and warnings (baselineLines)
}

// sparseBenchTable prints the results as one Markdown table, ratios against
// Landmark's row (times: other / Landmark's, so > 1 means Landmark is
// faster; the CPU-time ratio is the one a shared machine disturbs least;
// RSS: other / Landmark's, > 1 means Landmark uses less), failures as rows.
func sparseBenchTable(w io.Writer, h sparseBenchHeader, run []string, res map[string]sparseBenchResult, failed map[string]error) {
	var shape sparseBenchResult
	for _, k := range run {
		if r, ok := res[k]; ok {
			shape = r
			break
		}
	}
	if len(res) == 0 {
		fmt.Fprintf(w, "# bench sparse: %s / %s: every method failed\n", h.train, h.test)
	} else {
		fmt.Fprintf(w, "# bench sparse: %s / %s: %d train / %d test rows, d = %d, %d training non-zeros (%.1f a row), %d classes\n",
			h.train, h.test, shape.NTrain, shape.NTest, shape.D, shape.NNZ, float64(shape.NNZ)/float64(max(shape.NTrain, 1)), shape.Classes)
	}
	fmt.Fprintf(w, "# Gaussian γ = %g, M = %d uniform centers, λ = %g (scikit-learn alpha = λn = %g), %d CG iterations, Landmark memory limit %g GB, FALKON max_cpu_mem %g GB\n\n",
		h.gamma, h.m, h.lambda, h.lambda*float64(shape.NTrain), h.iters, h.memory, h.falkonMem)
	if len(h.baseline) > 0 {
		printLines(w, "- ", h.baseline)
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "| method | fit (s) | fit CPU (s) | predict (s) | test accuracy (%) | peak RSS (GB) | fit time / Landmark's | fit CPU / Landmark's | predict time / Landmark's | peak RSS / Landmark's |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	lm, haveLM := res["landmark"]
	ratio := func(a, b float64) string {
		if !haveLM || b <= 0 {
			return "–"
		}
		return fmt.Sprintf("%.2f×", a/b)
	}
	var notes []string
	for _, k := range run {
		name := sparseBenchName(k)
		if err, ok := failed[k]; ok {
			fmt.Fprintf(w, "| %s | failed: %v | | | | | | | | |\n", name, err)
			continue
		}
		r := res[k]
		fmt.Fprintf(w, "| %s | %.2f | %.1f | %.2f | %.2f | %.3f | %s | %s | %s | %s |\n", name, r.FitS, r.FitCPUS, r.PredictS, 100*r.Accuracy,
			float64(r.RSSBytes)/1e9, ratio(r.FitS, lm.FitS), ratio(r.FitCPUS, lm.FitCPUS), ratio(r.PredictS, lm.PredictS), ratio(float64(r.RSSBytes), float64(lm.RSSBytes)))
		if r.Note != "" {
			notes = append(notes, fmt.Sprintf("- %s: %s; RSS after reading the data %.3f GB", name, r.Note, float64(r.DataRSS)/1e9))
		} else {
			notes = append(notes, fmt.Sprintf("- %s: RSS after reading the data %.3f GB", name, float64(r.DataRSS)/1e9))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.Join(notes, "\n"))
	}
}

func sparseBenchName(key string) string {
	for _, m := range sparseBenchMethods {
		if m.key == key {
			return m.name
		}
	}
	return key
}

// sparseBenchChild reads the pair as CSR (indices 0-based with zeroBased),
// fits model.Falkon on it and prints a JSON result line.
func sparseBenchChild(ctx context.Context, train, test string, dim int, zeroBased bool, cfg model.Falkon, cpuProfile string, stdout, stderr io.Writer) error {
	xtr, ytr, err := readSparse(ctx, train, dim, zeroBased)
	if err != nil {
		return err
	}
	_, d := xtr.Dims()
	in, err := datasets.OpenInput(ctx, test, datasets.LIBSVM)
	if err != nil {
		return err
	}
	defer in.Close()
	xte, yte, frows, fcols, err := in.ReadTestOptions(ctx, datasets.ReadOptions{Dim: d, ZeroBased: zeroBased})
	if err != nil {
		return err
	}
	if frows > 0 {
		fmt.Fprintf(stderr, "bench sparse: %s: %d rows have non-zeros in %d columns beyond the training file's %d (zero in every training row)\n", test, frows, fcols, d)
	}
	if cfg.MemoryLimit > 0 {
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	classes := len(slices.Compact(slices.Sorted(slices.Values(ytr))))
	r := sparseBenchResult{Method: "landmark", DataRSS: peakRSS(), NTrain: len(ytr), NTest: len(yte), D: d, NNZ: xtr.NNZ(), Classes: classes}
	outputs := 1
	if classes > 2 {
		outputs = classes
	}
	plan, err := cfg.Plan(xtr, outputs)
	if err != nil {
		return err
	}
	r.PlanBytes = plan.Total
	fmt.Fprintf(stderr, "bench sparse: landmark Falkon: memory plan %.3f GB (data %.3f, centers %.3f, K_MM + factors %.3f, engine %.3f, solver %.3f), limit %.2f GB\n",
		float64(plan.Total)/1e9, float64(plan.Data)/1e9, float64(plan.Centers)/1e9, float64(plan.Precond)/1e9,
		float64(plan.Engine)/1e9, float64(plan.Solver)/1e9, float64(cfg.MemoryLimit)/1e9)
	t0, c0 := time.Now(), processCPU()
	err = profileCPU(cpuProfile, func() error { return cfg.Fit(ctx, xtr, ytr) })
	r.FitS, r.FitCPUS = time.Since(t0).Seconds(), processCPU()-c0
	if err != nil {
		return err
	}
	t1 := time.Now()
	pred, err := cfg.Predict(xte)
	if err != nil {
		return err
	}
	r.PredictS = time.Since(t1).Seconds()
	right := 0
	for i, p := range pred {
		if p == yte[i] {
			right++
		}
	}
	r.Accuracy = float64(right) / float64(len(pred))
	info := cfg.Info()
	r.Iterations = info.Iterations
	r.Note = fmt.Sprintf("memory plan %.3f GB, %d centers, %d iterations", float64(plan.Total)/1e9, info.M, info.Iterations)
	r.RSSBytes = peakRSS()
	return json.NewEncoder(stdout).Encode(r)
}
