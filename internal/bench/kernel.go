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
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/hugemem"
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
	repeats := fs.Int("repeats", 2, "timed repetitions per measurement and round (the best is reported)")
	rounds := fs.Int("rounds", 1, "rounds per dimension, each timing both sides (ours and Python alternate which goes first), so that both see the same spells of a shared host; the table reports each side's best over all rounds, and with rounds > 1 each round's ratios and their median follow it")
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
	if *n < 1 || *m < 1 || *repeats < 1 || *rounds < 1 || *workers < 0 || *blockRows < 0 || *gamma < 0 || math.IsInf(*gamma, 0) {
		return fmt.Errorf("%w: need n, m, repeats, rounds ≥ 1, workers, block-rows ≥ 0 and finite γ ≥ 0", errUsage)
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
	fmt.Fprintf(stdout, "kernel engine: %s inner kernels (tiles %s), %d workers; n = %d, M = %d, Gaussian γ = %s; %s\n",
		kernel.Accel(), kernel.Tiles(), map[bool]int{true: runtime.GOMAXPROCS(0), false: *workers}[*workers == 0], *n, *m, map[bool]string{true: "1/d", false: fmt.Sprint(*gamma)}[*gamma == 0], bestOfText(*repeats, *rounds))
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
	var byRound []string
	for _, d := range dims {
		t0 := time.Now()
		lines, err := benchKernelDim(ctx, tw, py, *n, *m, d, *seed, *repeats, *rounds, *workers, *blockRows, *gamma, *noGemm, *f32)
		done.Finished(fmt.Sprintf("d = %d", d), work(d), t0, err)
		byRound = append(byRound, lines...)
		if err != nil {
			tw.Flush()
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(byRound) > 0 {
		fmt.Fprintln(stdout, "by round (each side's best of its repeats in that round; speed-up = scikit-learn / fused, ours/numpy as in the table):")
		for _, l := range byRound {
			fmt.Fprintln(stdout, l)
		}
	}
	return nil
}

// bestOfText says how the table's times were taken.
func bestOfText(repeats, rounds int) string {
	if rounds == 1 {
		return fmt.Sprintf("best of %d", repeats)
	}
	return fmt.Sprintf("best of %d repeats × %d rounds, ours and Python alternating", repeats, rounds)
}

// roundRatios formats one line of per-round ratios num[r]/den[r] with their
// median (the mean of the middle two for an even count), skipping rounds in
// which either side is missing (NaN); it returns "" when no round has both.
func roundRatios(label, what string, num, den []float64) string {
	var q []float64
	for r := range num {
		if x := num[r] / den[r]; !math.IsNaN(x) && !math.IsInf(x, 0) {
			q = append(q, x)
		}
	}
	if len(q) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %s %s:", label, what)
	for _, x := range q {
		fmt.Fprintf(&b, " %.2f", x)
	}
	s := slices.Clone(q)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	fmt.Fprintf(&b, "; median %.2f, min %.2f, max %.2f", med, s[0], s[len(s)-1])
	return b.String()
}

// benchKernelDim measures one dimension: rounds rounds, each timing our
// products (best of repeats) and the Python baseline's (best of repeats in
// one run of its script), the side that goes first alternating. It writes
// the table rows (each side's best over all rounds) to w and returns, when
// rounds > 1, the lines of per-round ratios.
func benchKernelDim(ctx context.Context, w io.Writer, py string, n, m, d int, seed uint64, repeats, rounds, workers, blockRows int, gamma float64, noGemm, f32 bool) ([]string, error) {
	if gamma == 0 {
		gamma = 1 / float64(d)
	}
	r := rand.New(rand.NewPCG(seed, uint64(d)))
	normal := func(rows, cols int) *mat.Dense {
		data := hugemem.Float64s(rows * cols) // as numpy advises the baseline's arrays
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
	// fused[i][r], gemm[i][r]: mode i's time in round r (NaN when not
	// measured); the same for the baseline's fused, dgemm and sgemm.
	type timing struct{ fused, gemm []float64 }
	ours := make([]timing, len(modes))
	for i := range ours {
		ours[i] = timing{nanSlice(rounds), nanSlice(rounds)}
	}
	sk, dgemm, sgemm := nanSlice(rounds), nanSlice(rounds), nanSlice(rounds)
	outs := make([]*mat.Dense, len(modes))
	var dst *mat.Dense
	if !noGemm {
		dst = mat.NewDense(n, m, nil)
	}
	oursRound := func(round int) error {
		for i, single := range modes {
			opt := kernel.Options{Workers: workers, BlockRows: blockRows, Float32: single}
			outs[i] = mat.NewDense(m, 1, nil)
			var err error
			ours[i].fused[round], err = bestOf(repeats, func() error { return kernel.NewOp(g, x, c, opt).MulTMul(ctx, outs[i], v) })
			if err != nil {
				return err
			}
			if !noGemm {
				ours[i].gemm[round], err = bestOf(repeats, func() error { return kernel.NewOp(kernel.Linear{}, x, c, opt).Block(ctx, dst) })
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	var script *pythonScript
	if py != "" {
		var err error
		if script, err = newPythonScript("bench_kernel.py", benchKernelPy, []*mat.Dense{x, c, v}); err != nil {
			return nil, err
		}
		defer script.remove()
	}
	var ref []float64 // the baseline's fused result, from its first good run
	pyRound := func(round int) {
		if script == nil {
			return
		}
		res, err := script.run(ctx, py, strconv.Itoa(n), strconv.Itoa(m), strconv.Itoa(d), strconv.FormatFloat(gamma, 'g', -1, 64), strconv.Itoa(repeats))
		if err != nil {
			fmt.Fprintf(w, "%d\tpython failed (round %d): %v\t\n", d, round+1, err)
			return
		}
		for what, dst := range map[string][]float64{"fused": sk, "dgemm": dgemm, "sgemm": sgemm} {
			if r, ok := res[what]; ok {
				dst[round] = r.Seconds
			}
		}
		if r, ok := res["fused"]; ok && ref == nil && len(r.Result) == m {
			ref = r.Result
		}
	}
	for round := range rounds {
		if round%2 == 1 {
			pyRound(round)
		}
		if err := oursRound(round); err != nil {
			return nil, err
		}
		if round%2 == 0 {
			pyRound(round)
		}
	}
	var lines []string
	for i, single := range modes {
		diff := math.NaN()
		if ref != nil {
			diff = floats.Distance(outs[i].RawMatrix().Data, ref, 2) / floats.Norm(ref, 2)
		}
		label, blas := strconv.Itoa(d), dgemm
		if single {
			label, blas = label+"/f32", sgemm
		}
		kernelBenchRow(w, label, fusedFlops, gemmFlops, minOf(ours[i].fused), minOf(sk), diff, minOf(ours[i].gemm), minOf(blas))
		if rounds > 1 {
			for _, l := range []string{roundRatios(label, "speed-up", sk, ours[i].fused), roundRatios(label, "ours/numpy", blas, ours[i].gemm)} {
				if l != "" {
					lines = append(lines, l)
				}
			}
		}
	}
	return lines, nil
}

// nanSlice returns n NaNs (times not measured yet).
func nanSlice(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = math.NaN()
	}
	return s
}

// minOf returns the smallest value of s that is not NaN, or NaN if none is.
func minOf(s []float64) float64 {
	best := math.NaN()
	for _, x := range s {
		if !math.IsNaN(x) && !(x >= best) {
			best = x
		}
	}
	return best
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

// pythonScript is a baseline script and its input arrays written once to a
// temporary folder, so that it can be run several times (bench kernel's
// rounds) without writing the arrays again.
type pythonScript struct {
	dir, script, data string
}

// newPythonScript writes script (named name) and the arrays, one after the
// other as little-endian float64, to a new temporary folder; remove deletes
// it.
func newPythonScript(name, script string, arrays []*mat.Dense) (*pythonScript, error) {
	dir, err := os.MkdirTemp("", "landmark-bench-python-")
	if err != nil {
		return nil, err
	}
	s := &pythonScript{dir: dir, script: filepath.Join(dir, name), data: filepath.Join(dir, "arrays.f64")}
	if err := s.write(script, arrays); err != nil {
		s.remove()
		return nil, err
	}
	return s, nil
}

func (s *pythonScript) write(script string, arrays []*mat.Dense) error {
	if err := os.WriteFile(s.script, []byte(script), 0o600); err != nil {
		return err
	}
	f, err := os.Create(s.data)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	for _, a := range arrays {
		if err := binary.Write(bw, binary.LittleEndian, a.RawMatrix().Data); err != nil {
			f.Close()
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// remove deletes the script's folder.
func (s *pythonScript) remove() { os.RemoveAll(s.dir) }

// run runs "py SCRIPT DATA ARGS…" and reads its output: one
// kernelBenchResult JSON line per measurement. A failure names the last line
// of the script's stderr.
func (s *pythonScript) run(ctx context.Context, py string, args ...string) (map[string]kernelBenchResult, error) {
	var so, se bytes.Buffer
	cmd := exec.CommandContext(ctx, py, append([]string{s.script, s.data}, args...)...)
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

// runPythonScript runs a baseline script once: newPythonScript, run, remove.
func runPythonScript(ctx context.Context, py, name, script string, arrays []*mat.Dense, args ...string) (map[string]kernelBenchResult, error) {
	s, err := newPythonScript(name, script, arrays)
	if err != nil {
		return nil, err
	}
	defer s.remove()
	return s.run(ctx, py, args...)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
