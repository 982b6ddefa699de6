package bench

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

//go:embed bench_kernel.py
var benchKernelPy string

// kernelBenchResult is one line of the Python script's output.
type kernelBenchResult struct {
	What    string    `json:"what"`
	Seconds float64   `json:"seconds"`
	Result  []float64 `json:"result"`
}

func runBenchKernel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("bench kernel", "[flags]", stderr)
	n := fs.Int("n", 100_000, "number of data points")
	m := fs.Int("m", 2_000, "number of centers M")
	ds := fs.String("d", "8,54,784", "comma-separated dimensions")
	seed := fs.Uint64("seed", 1, "random seed for the data")
	repeats := fs.Int("repeats", 2, "timed repetitions per measurement (the best is reported)")
	workers := fs.Int("workers", 0, "engine workers (0: GOMAXPROCS)")
	blockRows := fs.Int("block-rows", 0, "rows of X per block of the engine (kernel.Options.BlockRows; 0: the engine's choice); for tuning: the fused product's bits depend on it through its reduction's segments")
	gamma := fs.Float64("gamma", 0, "Gaussian γ (0: 1/d)")
	noPython := fs.Bool("no-python", false, "skip the scikit-learn/numpy side")
	python := fs.String("python", "/usr/bin/python3", "Python interpreter with numpy and scikit-learn")
	noGemm := fs.Bool("no-gemm", false, "skip the distance product X·Cᵀ (it allocates n×M doubles)")
	f32 := fs.Bool("float32", false, "also measure the engine's float32 mode (rows d/f32; the X·Cᵀ ratio is then against SGEMM)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the engine's side (data generation and the timed products; the Python side runs in its own process) to this file")
	prog := cmdline.AddProgress(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *n < 1 || *m < 1 || *repeats < 1 || *workers < 0 || *blockRows < 0 || *gamma < 0 || math.IsInf(*gamma, 0) {
		return fmt.Errorf("%w: need n, m, repeats ≥ 1, workers, block-rows ≥ 0 and finite γ ≥ 0", errUsage)
	}
	var dims []int
	for _, f := range strings.Split(*ds, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 {
			return fmt.Errorf("%w: bad dimension %q in --d", errUsage, f)
		}
		dims = append(dims, d)
	}
	py := ""
	if !*noPython {
		if p, err := exec.LookPath(*python); err == nil {
			py = p
		} else {
			fmt.Fprintf(stdout, "python: %s not found, scikit-learn side skipped\n", *python)
		}
	}
	printEngineHost(stdout)
	fmt.Fprintf(stdout, "kernel engine: %s inner kernels (tiles %s), %d workers; n = %d, M = %d, Gaussian γ = %s; best of %d\n",
		kernel.Accel(), kernel.Tiles(), map[bool]int{true: runtime.GOMAXPROCS(0), false: *workers}[*workers == 0], *n, *m, map[bool]string{true: "1/d", false: fmt.Sprint(*gamma)}[*gamma == 0], *repeats)
	if *blockRows > 0 {
		fmt.Fprintf(stdout, "block rows: %d (-block-rows; not the engine's own choice)\n", *blockRows)
	}
	if py != "" {
		printLines(stdout, "", baselineLines(ctx, stderr, "kernel", py, nil, "numpy", "sklearn"))
	}
	fmt.Fprintln(stdout, "flops: fused = 2nMd (distance product) + 4nM (K·v and Kᵀ·u); X·Cᵀ = 2nMd; exp and norms not counted")
	fmt.Fprintln(stdout, "sklearn = rbf_kernel then K.T @ (K @ v); numpy = X @ C.T in float64 (DGEMM), in float32 (SGEMM) on f32 rows;")
	fmt.Fprintln(stdout, "ours/numpy = numpy time / our time for X·Cᵀ (ours: Linear kernel Block into an n×M matrix)")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "d\tfused s\tGFLOP/s\tsklearn s\tGFLOP/s\tspeed-up\trel.diff\tX·Cᵀ s\tGFLOP/s\tnumpy s\tGFLOP/s\tours/numpy\t")
	// Progress: one line per finished dimension (all its measurements and
	// repeats), the ETA weighting each dimension by its flops per kernel
	// entry, 2d + 4, as the time of every measurement grows with d.
	pg := cmdline.NewProgress(*prog, false, stderr)
	work := func(d int) float64 { return float64(2*d + 4) }
	total := 0.0
	for _, d := range dims {
		total += work(d)
	}
	done := cmdline.NewUnits(pg, "bench kernel", len(dims), total)
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	for _, d := range dims {
		t0 := time.Now()
		err := benchKernelDim(ctx, tw, py, *n, *m, d, *seed, *repeats, *workers, *blockRows, *gamma, *noGemm, *f32)
		done.Finished(fmt.Sprintf("d = %d", d), work(d), t0, err)
		if err != nil {
			tw.Flush()
			return err
		}
	}
	return tw.Flush()
}

func benchKernelDim(ctx context.Context, w io.Writer, py string, n, m, d int, seed uint64, repeats, workers, blockRows int, gamma float64, noGemm, f32 bool) error {
	if gamma == 0 {
		gamma = 1 / float64(d)
	}
	r := rand.New(rand.NewPCG(seed, uint64(d)))
	normal := func(rows, cols int) *mat.Dense {
		data := make([]float64, rows*cols)
		for i := range data {
			data[i] = r.NormFloat64()
		}
		return mat.NewDense(rows, cols, data)
	}
	x, c, v := normal(n, d), normal(m, d), normal(m, 1)
	g := kernel.Gaussian{Gamma: gamma}
	fusedFlops := float64(n) * float64(m) * (2*float64(d) + 4)
	gemmFlops := 2 * float64(n) * float64(m) * float64(d)
	modes := []bool{false}
	if f32 {
		modes = append(modes, true)
	}
	type timing struct{ fused, gemm float64 }
	ours := make([]timing, len(modes))
	outs := make([]*mat.Dense, len(modes))
	var dst *mat.Dense
	if !noGemm {
		dst = mat.NewDense(n, m, nil)
	}
	for i, single := range modes {
		opt := kernel.Options{Workers: workers, BlockRows: blockRows, Float32: single}
		outs[i] = mat.NewDense(m, 1, nil)
		var err error
		ours[i].fused, err = bestOf(repeats, func() error { return kernel.NewOp(g, x, c, opt).MulTMul(ctx, outs[i], v) })
		if err != nil {
			return err
		}
		ours[i].gemm = math.NaN()
		if !noGemm {
			ours[i].gemm, err = bestOf(repeats, func() error { return kernel.NewOp(kernel.Linear{}, x, c, opt).Block(ctx, dst) })
			if err != nil {
				return err
			}
		}
	}
	dst = nil
	ref := map[string]kernelBenchResult{}
	if py != "" {
		var err error
		ref, err = runKernelPython(ctx, py, x, c, v, gamma, repeats)
		if err != nil {
			fmt.Fprintf(w, "%d\tpython failed: %v\t\n", d, err)
			ref = map[string]kernelBenchResult{}
		}
	}
	secs := func(what string) float64 {
		if r, ok := ref[what]; ok {
			return r.Seconds
		}
		return math.NaN()
	}
	sk := secs("fused")
	for i, single := range modes {
		diff := math.NaN()
		if r, ok := ref["fused"]; ok && len(r.Result) == m {
			diff = floats.Distance(outs[i].RawMatrix().Data, r.Result, 2) / floats.Norm(r.Result, 2)
		}
		label, blas := strconv.Itoa(d), secs("dgemm")
		if single {
			label, blas = label+"/f32", secs("sgemm")
		}
		kernelBenchRow(w, label, fusedFlops, gemmFlops, ours[i].fused, sk, diff, ours[i].gemm, blas)
	}
	return nil
}

// startCPUProfile starts a CPU profile of this process into the file path
// and returns the function that stops it and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// kernelBenchRow prints one row of the bench kernel table: the label, our
// fused time and rate, scikit-learn's time, rate and speed-up (sk/fused),
// the relative difference, our X·Cᵀ time and rate, numpy's time, rate and
// ours/numpy (blas/gemm). Every time is in seconds; a side not measured
// (-no-python, -no-gemm, a failed or partial baseline) is NaN and prints a
// dash, as does every rate or ratio that involves it.
func kernelBenchRow(w io.Writer, label string, fusedFlops, gemmFlops, fused, sk, diff, gemm, blas float64) {
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label,
		orDash("%.3f", fused), orDash("%.1f", fusedFlops/fused/1e9),
		orDash("%.3f", sk), orDash("%.1f", fusedFlops/sk/1e9), orDash("%.2f×", sk/fused), orDash("%.1e", diff),
		orDash("%.3f", gemm), orDash("%.1f", gemmFlops/gemm/1e9),
		orDash("%.3f", blas), orDash("%.1f", gemmFlops/blas/1e9), orDash("%.2f", blas/gemm))
}

// bestOf runs f repeats times and returns the shortest wall time in seconds.
func bestOf(repeats int, f func() error) (float64, error) {
	best := math.Inf(1)
	for range repeats {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		best = min(best, time.Since(start).Seconds())
	}
	return best, nil
}

// runKernelPython times scikit-learn's rbf_kernel plus the two numpy
// products, and numpy's X @ C.T, on X, C and v.
func runKernelPython(ctx context.Context, py string, x, c, v *mat.Dense, gamma float64, repeats int) (map[string]kernelBenchResult, error) {
	n, d := x.Dims()
	m, _ := c.Dims()
	return runPythonScript(ctx, py, "bench_kernel.py", benchKernelPy, []*mat.Dense{x, c, v},
		strconv.Itoa(n), strconv.Itoa(m), strconv.Itoa(d), strconv.FormatFloat(gamma, 'g', -1, 64), strconv.Itoa(repeats))
}

// runPythonScript writes script (named name) and the arrays, one after the
// other as little-endian float64, to a temporary folder, runs "py SCRIPT
// DATA ARGS…" and reads its output: one kernelBenchResult JSON line per
// measurement. A failure names the last line of the script's stderr.
func runPythonScript(ctx context.Context, py, name, script string, arrays []*mat.Dense, args ...string) (map[string]kernelBenchResult, error) {
	dir, err := os.MkdirTemp("", "landmark-bench-python-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	sp := filepath.Join(dir, name)
	if err := os.WriteFile(sp, []byte(script), 0o600); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "arrays.f64")
	f, err := os.Create(data)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	for _, a := range arrays {
		if err := binary.Write(bw, binary.LittleEndian, a.RawMatrix().Data); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	var so, se bytes.Buffer
	cmd := exec.CommandContext(ctx, py, append([]string{sp, data}, args...)...)
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s", err, strings.TrimSpace(lastLine(se.String())))
	}
	res := map[string]kernelBenchResult{}
	for _, line := range strings.Split(strings.TrimSpace(so.String()), "\n") {
		var r kernelBenchResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return nil, fmt.Errorf("bad output line %q: %w", line, err)
		}
		res[r.What] = r
	}
	return res, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
