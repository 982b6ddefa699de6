package bench

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// falkonPythonPath is PYTHONPATH with dir in front.
func falkonPythonPath(dir string) string {
	if p := os.Getenv("PYTHONPATH"); p != "" {
		return dir + string(os.PathListSeparator) + p
	}
	return dir
}

// falkonBaselineCheck finds the same-arrays FALKON script and checks that
// python can import falkon and torch with dir on PYTHONPATH, before any data
// is prepared. It returns the script's path.
func falkonBaselineCheck(ctx context.Context, python, dir, script string) (string, error) {
	if script == "" {
		p, ok := datasets.SharedPath(filepath.Join("..", "tools", "falkon_same_arrays.py"))
		if !ok {
			return "", fmt.Errorf("%w: -baseline falkon: tools/falkon_same_arrays.py not found beside the shared datasets; give -falkon-script", errUsage)
		}
		script = p
	} else if _, err := os.Stat(script); err != nil {
		return "", fmt.Errorf("%w: -falkon-script: %w", errUsage, err)
	}
	cmd := exec.CommandContext(ctx, python, "-c", "import falkon, torch; print(falkon.__version__)")
	cmd.Env = append(os.Environ(), "PYTHONPATH="+falkonPythonPath(dir))
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return "", fmt.Errorf("-baseline falkon: %s cannot import falkon with PYTHONPATH=%s (%v: %s); build it (for example ../shared/tools/build_falkon.sh) or set -falkon-path", python, dir, err, msg)
	}
	return script, nil
}

// falkonBenchRun runs a command that prints one JSON result line.
func falkonBenchRun(ctx context.Context, name string, args []string, stderr io.Writer) (falkonBenchResult, error) {
	return falkonBenchRunEnv(ctx, name, args, nil, stderr)
}

// falkonBenchRunEnv is falkonBenchRun with an environment (nil: inherited).
func falkonBenchRunEnv(ctx context.Context, name string, args, env []string, stderr io.Writer) (falkonBenchResult, error) {
	var r falkonBenchResult
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		return r, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		return r, fmt.Errorf("reading the result of %s: %w", name, err)
	}
	return r, nil
}

// falkonBenchPrepare loads, splits and standardizes the dataset and writes the
// arrays for both sides.
func falkonBenchPrepare(ctx context.Context, name string, seed uint64, ntrain, ntest int, dir string, task model.Task, standardize bool) (falkonBenchMeta, error) {
	var meta falkonBenchMeta
	tr, te, err := falkonBenchLoad(ctx, name, seed)
	if err != nil {
		return meta, err
	}
	if ntrain > 0 && ntrain < tr.Len() {
		tr = falkonBenchHead(tr, ntrain)
	}
	if ntest > 0 && ntest < te.Len() {
		te = falkonBenchHead(te, ntest)
	}
	xtr, xte := tr.X, te.X
	if standardize {
		if xtr, xte, err = falkonBenchStandardize(tr.X, te.X); err != nil {
			return meta, err
		}
	}
	ytr, yte := append([]float64(nil), tr.Y...), append([]float64(nil), te.Y...)
	meta = falkonBenchMeta{NTrain: tr.Len(), NTest: te.Len(), D: tr.Dim(), YMean: 0, YSD: 1, Task: string(task)}
	falkonBenchTargets(&meta, ytr, yte)
	for file, v := range map[string][]float64{"xtr.f64": xtr.RawMatrix().Data, "xte.f64": xte.RawMatrix().Data, "ytr.f64": ytr, "yte.f64": yte} {
		if err := falkonBenchWrite(filepath.Join(dir, file), v); err != nil {
			return meta, err
		}
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return meta, err
	}
	return meta, os.WriteFile(filepath.Join(dir, "meta.json"), b, 0o644)
}

// falkonBenchLoad reads the named shared dataset's training and test sets:
// the official splits of ijcnn1 (padded to one width) and mnist (pixels
// scaled to [0, 1]), else an 80/20 split of the one file drawn from seed.
func falkonBenchLoad(ctx context.Context, name string, seed uint64) (tr, te *datasets.Dataset, err error) {
	read := func(file string, dim int) (*datasets.Dataset, error) {
		p, ok := datasets.SharedPath(file)
		if !ok {
			return nil, fmt.Errorf("%s not found (set LANDMARK_SHARED_DATA)", file)
		}
		return datasets.ReadFileContext(ctx, p, datasets.ReadOptions{Dim: dim})
	}
	switch name {
	case "ijcnn1":
		if tr, err = read("ijcnn1.train.libsvm.gz", 0); err != nil {
			return nil, nil, err
		}
		if te, err = read("ijcnn1.test.libsvm.gz", 0); err != nil {
			return nil, nil, err
		}
		if tr.Dim() != te.Dim() {
			d := max(tr.Dim(), te.Dim())
			tr, te = falkonBenchPad(tr, d), falkonBenchPad(te, d)
		}
	case "mnist":
		// The official 60,000 / 10,000 split, pixels scaled to [0, 1]
		// (raw values 0–255 divided by 255); no standardization.
		if tr, err = read("mnist.train.libsvm.gz", 784); err != nil {
			return nil, nil, err
		}
		if te, err = read("mnist.test.libsvm.gz", 784); err != nil {
			return nil, nil, err
		}
		for _, d := range []*datasets.Dataset{tr, te} {
			d.X.Scale(1.0/255, d.X)
		}
	default:
		file := map[string]string{"cadata": "cadata.libsvm.gz", "covtype": "covtype.binary.libsvm.gz"}[name]
		all, err := read(file, 0)
		if err != nil {
			return nil, nil, err
		}
		itr, ite, err := datasets.Split(all.Len(), 0.2, rand.New(rand.NewPCG(seed, 0x73706c74)))
		if err != nil {
			return nil, nil, err
		}
		if tr, err = all.Subset(itr); err != nil {
			return nil, nil, err
		}
		if te, err = all.Subset(ite); err != nil {
			return nil, nil, err
		}
	}
	return tr, te, nil
}

// falkonBenchStandardize returns xtr and xte standardized with xtr's
// column means and standard deviations.
func falkonBenchStandardize(xtr, xte *mat.Dense) (*mat.Dense, *mat.Dense, error) {
	var sc datasets.Standardizer
	if err := sc.Fit(xtr); err != nil {
		return nil, nil, err
	}
	str, err := sc.Transform(xtr)
	if err != nil {
		return nil, nil, err
	}
	ste, err := sc.Transform(xte)
	if err != nil {
		return nil, nil, err
	}
	return str, ste, nil
}

// falkonBenchTargets rewrites the targets ytr and yte in place for
// meta.Task: regression targets standardized with the training mean and
// standard deviation (recorded in meta.YMean, meta.YSD); more than two
// classes kept as they are and listed in meta.Classes; two classes as ±1.
func falkonBenchTargets(meta *falkonBenchMeta, ytr, yte []float64) {
	if meta.Task == string(model.Regression) {
		var s, ss float64
		for _, v := range ytr {
			s += v
		}
		meta.YMean = s / float64(len(ytr))
		for _, v := range ytr {
			ss += (v - meta.YMean) * (v - meta.YMean)
		}
		meta.YSD = math.Sqrt(ss / float64(len(ytr)))
		for i, v := range ytr {
			ytr[i] = (v - meta.YMean) / meta.YSD
		}
	} else if classes := slices.Compact(slices.Sorted(slices.Values(ytr))); len(classes) > 2 {
		// More than two classes: the labels are written as they are, and
		// each side builds its one-vs-all ±1 targets from meta.Classes.
		meta.Classes = classes
	} else {
		// Binary labels to ±1 (the larger label +1), as model.Labels does.
		hi := math.Inf(-1)
		for _, v := range ytr {
			hi = math.Max(hi, v)
		}
		for _, y := range [][]float64{ytr, yte} {
			for i, v := range y {
				y[i] = -1
				if v == hi {
					y[i] = 1
				}
			}
		}
	}
}

// falkonBenchHead returns the first n rows of d.
func falkonBenchHead(d *datasets.Dataset, n int) *datasets.Dataset {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	s, _ := d.Subset(idx)
	return s
}

func falkonBenchPad(d *datasets.Dataset, dim int) *datasets.Dataset {
	if d.Dim() == dim {
		return d
	}
	x := mat.NewDense(d.Len(), dim, nil)
	x.Slice(0, d.Len(), 0, d.Dim()).(*mat.Dense).Copy(d.X)
	return &datasets.Dataset{Name: d.Name, X: x, Y: d.Y}
}

func falkonBenchWrite(path string, v []float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, 0, 1<<20)
	for i, x := range v {
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
		if len(buf) == cap(buf) || i == len(v)-1 {
			if _, err := f.Write(buf); err != nil {
				f.Close()
				return err
			}
			buf = buf[:0]
		}
	}
	return f.Close()
}

// falkonBenchRead reads n little-endian float64 values in 1 MiB pieces, so
// that no second full-size buffer inflates the child's peak RSS.
func falkonBenchRead(path string, n int) ([]float64, error) {
	return falkonBenchReadAs[float64](path, n)
}

// falkonBenchReadAs is falkonBenchRead into float64 or float32 values (each
// rounded to float32 as it is read: no float64 copy of the whole array).
func falkonBenchReadAs[T float32 | float64](path string, n int) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	v := hugemem.Slice[T](n) // in 2 MiB pages, as numpy and torch hold the baseline's arrays
	buf := make([]byte, 1<<20)
	for i := 0; i < n; {
		k := min(n-i, len(buf)/8)
		if _, err := io.ReadFull(f, buf[:8*k]); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for j := 0; j < k; j++ {
			v[i+j] = T(math.Float64frombits(binary.LittleEndian.Uint64(buf[8*j:])))
		}
		i += k
	}
	return v, nil
}

// falkonBenchChild fits one Falkon (centers drawn by sampler) on the
// prepared arrays and prints a JSON result.
func falkonBenchChild(ctx context.Context, dir string, cfg model.Falkon, sampler string, curve bool, cpuProfile string, stdout, stderr io.Writer) error {
	meta, xt, ytr, yte, err := falkonBenchChildData(dir, cfg.Float32Storage)
	if err != nil {
		return err
	}
	// The test X is read before the fit only for -curve (validation);
	// otherwise after it, so that it is not resident during the fit.
	var xte []float64
	readTest := func() error {
		if xte == nil {
			xte, err = falkonBenchRead(filepath.Join(dir, "xte.f64"), meta.NTest*meta.D)
		}
		return err
	}
	if cfg.MemoryLimit > 0 {
		// The plan bounds the fit's live allocations; without a soft limit
		// the Go GC lets the heap grow to twice the live size (GOGC=100)
		// before collecting, so the process's RSS could reach twice the plan.
		debug.SetMemoryLimit(cfg.MemoryLimit)
	}
	r := falkonBenchResult{DataRSS: peakRSS()}
	if curve {
		if err := readTest(); err != nil {
			return err
		}
		// Validation works in the fitted model's units: standardized targets
		// for regression, rescaled to the original units below.
		yv := make([]float64, len(yte))
		for i, v := range yte {
			yv[i] = (v - meta.YMean) / meta.YSD
		}
		cfg.Validation = &model.ValidationSet{X: mat.NewDense(meta.NTest, meta.D, xte), Y: yv}
	}
	// The memory plan, shown before anything large is allocated; a limit
	// too small is refused here with the bytes needed. It is information,
	// not progress: printed whatever --progress says, on stderr because it
	// must come out before the fit (which may be killed for memory) and
	// stdout is the results table; named like the fit's CG lines.
	outputs := 1
	if cfg.Task == model.Classification && len(slices.Compact(slices.Sorted(slices.Values(ytr)))) > 2 {
		outputs = len(slices.Compact(slices.Sorted(slices.Values(ytr))))
	}
	plan, err := cfg.Plan(xt, outputs)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "bench falkon: M = %d %s: memory plan %.2f GB (data %.2f, centers %.3f, K_MM + factors %.2f, engine %.3f, solver %.3f, validation %.3f, K_nM cache %.2f, factored passes %.3f), limit %.2f GB\n",
		cfg.M, sampler, float64(plan.Total)/1e9, float64(plan.Data)/1e9, float64(plan.Centers)/1e9, float64(plan.Precond)/1e9,
		float64(plan.Engine)/1e9, float64(plan.Solver)/1e9, float64(plan.Validation)/1e9, float64(plan.Cache)/1e9, float64(plan.Factored)/1e9, float64(cfg.MemoryLimit)/1e9)
	t0, c0 := time.Now(), processCPU()
	err = profileCPU(cpuProfile, func() error { return cfg.Fit(ctx, xt, ytr) })
	r.FitCPUS = processCPU() - c0
	if err != nil {
		return err
	}
	r.FitS = time.Since(t0).Seconds()
	if err := readTest(); err != nil {
		return err
	}
	t1 := time.Now()
	pred, err := cfg.Predict(mat.NewDense(meta.NTest, meta.D, xte))
	if err != nil {
		return err
	}
	r.PredictS = time.Since(t1).Seconds()
	r.Error = meta.testError(pred, yte)
	info := cfg.Info()
	r.Iterations, r.Residual, r.M = info.Iterations, info.Residual, info.M
	r.Factoring = info.Plan.Factoring
	r.SetupS = (info.SampleTime + info.PrecondTime).Seconds()
	r.CentersS, r.KMMS, r.FactorS, r.RHSS = info.SampleTime.Seconds(), info.KMMTime.Seconds(), info.FactorTime.Seconds(), info.RHSTime.Seconds()
	for _, h := range info.History {
		if curve {
			e := h.ValError
			if meta.Task == string(model.Regression) {
				e *= meta.YSD
			}
			r.Curve = append(r.Curve, e)
		}
	}
	r.RSSBytes = peakRSS()
	return json.NewEncoder(stdout).Encode(r)
}

// falkonBenchChildData reads the arrays a parent wrote to dir: meta.json,
// the training X as the fit holds it (float64, or float32 read straight into
// a kernel.Dense32 with Float32Storage, f32) and both targets. The test X is
// read separately, after the fit unless a curve needs it.
func falkonBenchChildData(dir string, f32 bool) (meta falkonBenchMeta, xt mat.Matrix, ytr, yte []float64, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return meta, nil, nil, nil, err
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return meta, nil, nil, nil, err
	}
	if f32 {
		v, err := falkonBenchReadAs[float32](filepath.Join(dir, "xtr.f64"), meta.NTrain*meta.D)
		if err != nil {
			return meta, nil, nil, nil, err
		}
		if xt, err = kernel.NewDense32(meta.NTrain, meta.D, v); err != nil {
			return meta, nil, nil, nil, err
		}
	} else {
		v, err := falkonBenchRead(filepath.Join(dir, "xtr.f64"), meta.NTrain*meta.D)
		if err != nil {
			return meta, nil, nil, nil, err
		}
		xt = mat.NewDense(meta.NTrain, meta.D, v)
	}
	if ytr, err = falkonBenchRead(filepath.Join(dir, "ytr.f64"), meta.NTrain); err != nil {
		return meta, nil, nil, nil, err
	}
	if yte, err = falkonBenchRead(filepath.Join(dir, "yte.f64"), meta.NTest); err != nil {
		return meta, nil, nil, nil, err
	}
	return meta, xt, ytr, yte, nil
}

// testError is the bench's test error of predictions pred against yte:
// RMSE in the original target units for regression (pred is in
// standardized units), the misclassified fraction otherwise.
func (meta falkonBenchMeta) testError(pred, yte []float64) float64 {
	if meta.Task == string(model.Regression) {
		var s float64
		for i, p := range pred {
			e := p*meta.YSD + meta.YMean - yte[i]
			s += e * e
		}
		return math.Sqrt(s / float64(len(pred)))
	}
	wrong := 0
	for i, p := range pred {
		if p != yte[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(pred))
}

// peakRSS is the peak resident set size of this process in bytes: VmHWM
// from /proc/self/status (this program's own high-water mark), else
// getrusage's, which on Linux starts at the peak of the process that
// exec'd this one (see prepareChild).
func peakRSS() int64 {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	rss, _ := selfMaxRSS()
	return rss
}

// profileCPU runs f, writing a CPU profile of it to path when path is not
// empty (bench falkon and bench sparse -cpuprofile).
func profileCPU(path string, f func() error) error {
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	defer out.Close()
	if err := pprof.StartCPUProfile(out); err != nil {
		return err
	}
	err = f()
	pprof.StopCPUProfile()
	return err
}
