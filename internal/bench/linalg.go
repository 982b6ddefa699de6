package bench

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// runBenchLinalg times the dense kernels of the FALKON preconditioner —
// Cholesky (potrf), the triangular product LᵀL (lauum), triangular solves
// with many right-hand sides (trsm) — and the whole preconditioner build,
// on the kernel engine's micro-kernels, beside gonum's LAPACK/BLAS on the
// same matrices in the same run.
func runBenchLinalg(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("bench linalg", "[flags]", stderr)
	ms := fs.String("m", "2000,5000,10000", "comma-separated matrix sizes M")
	rhs := fs.Int("rhs", 1000, "right-hand sides k of the triangular solve")
	d := fs.Int("d", 10, "dimension of the random points whose Gaussian kernel matrix is factored")
	seed := fs.Uint64("seed", 1, "random seed")
	repeats := fs.Int("repeats", 1, "timed repetitions (the best is reported)")
	workers := fs.Int("workers", 0, "workers (0: GOMAXPROCS)")
	gonum := fs.Bool("gonum", true, "also time gonum's Dpotrf, Dlauum and Dtrsm")
	gonumMax := fs.Int("gonum-max", 5000, "largest M at which gonum is timed (it runs at a few GFLOP/s)")
	portable := fs.Bool("portable", false, "also time the portable Go tiles (as LANDMARK_SIMD=portable)")
	noPython := fs.Bool("no-python", false, "skip the scipy (LAPACK/BLAS, OpenBLAS here) side")
	python := fs.String("python", "/usr/bin/python3", "Python interpreter with numpy and scipy")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of this process (matrix set-up, our kernels, gonum; scipy runs in its own process) to this file")
	prog := cmdline.AddProgress(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if *rhs < 1 || *d < 1 || *repeats < 1 || *workers < 0 || *gonumMax < 0 {
		return fmt.Errorf("%w: need rhs, d, repeats ≥ 1 and workers, gonum-max ≥ 0", errUsage)
	}
	var sizes []int
	for _, f := range strings.Split(*ms, ",") {
		m, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || m < 1 {
			return fmt.Errorf("%w: bad size %q in --m", errUsage, f)
		}
		sizes = append(sizes, m)
	}
	py := ""
	if !*noPython {
		if p, err := exec.LookPath(*python); err == nil {
			py = p
		} else {
			fmt.Fprintf(stdout, "python: %s not found, scipy side skipped\n", *python)
		}
	}
	w := *workers
	if w == 0 {
		w = runtime.GOMAXPROCS(0)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	printEngineHost(stdout)
	fmt.Fprintf(stdout, "dense kernels: %s micro-kernels, %d workers; A = K_MM + 1e-5·M·I (Gaussian, γ = 1/d, d = %d); best of %d\n",
		kernel.Accel(), w, *d, *repeats)
	fmt.Fprintf(stdout, "flops: potrf M³/3, lauum M³/3, trsm M²·k (k = %d right-hand sides, L⁻¹B), precond build (2 potrf + lauum) M³\n", *rhs)
	fmt.Fprintln(stdout, "…32 rows: the same in float32 (kernel.DenseF32 tiles; A rounded to float32) beside scipy's spotrf, slauum, strsm; precond build f32: precond.Options{Precision: float32}")
	fmt.Fprintf(stdout, "gonum = gonum.org/v1/gonum lapack/gonum Dpotrf, Dlauum, blas64 Dtrsm (M ≤ %d); rel.diff = ‖ours − gonum‖_F/‖gonum‖_F\n", *gonumMax)
	fmt.Fprintln(stdout, "scipy = scipy.linalg.lapack dpotrf, dlauum, blas dtrsm (s… for float32; the BLAS/LAPACK numpy links: OpenBLAS here) on the same points' kernel matrix")
	if py != "" {
		printLines(stdout, "", baselineLines(ctx, stderr, "linalg", py, nil, "numpy", "scipy"))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "M\tkernel\tours s\tGFLOP/s\tgonum s\tGFLOP/s\tspeed-up\trel.diff\tscipy s\tGFLOP/s\tours/scipy\t")
	// Progress: a line as each size starts and one as it finishes, with
	// the ETA from the time per M³ so far (every kernel timed is O(M³)).
	pg := cmdline.NewProgress(*prog, false, stderr)
	var work float64
	for _, m := range sizes {
		work += math.Pow(float64(m), 3)
	}
	clock := cmdline.NewClock(work)
	for i, m := range sizes {
		if pg != nil {
			pg.Line("bench linalg: M = %d… (elapsed %s)", m, cmdline.Duration(clock.Elapsed()))
		}
		b := linalgBench{m: m, rhs: *rhs, d: *d, seed: *seed, repeats: *repeats,
			gonum: *gonum && m <= *gonumMax, portable: *portable, p: kernel.Dense{Workers: *workers}, python: py}
		if err := b.run(ctx, tw); err != nil {
			tw.Flush()
			return err
		}
		elapsed, eta := clock.Add(math.Pow(float64(m), 3))
		if pg != nil {
			pg.Line("bench linalg: [%d/%d] M = %d done (elapsed %s, ETA %s)", i+1, len(sizes), m, cmdline.Duration(elapsed), cmdline.Duration(eta))
		}
	}
	return tw.Flush()
}

type linalgBench struct {
	m, rhs, d       int
	seed            uint64
	repeats         int
	gonum, portable bool
	p               kernel.Dense
	python          string
}

// linalgCase is one size's matrices: the kernel matrix a (shifted to be
// well conditioned), the right-hand sides and scipy's timings.
type linalgCase struct {
	a, rhs *mat.Dense
	scipy  map[string]kernelBenchResult
}

// setup builds the case: Gaussian kernel matrix of M random points in d
// dimensions plus 1e-5·M·I, k random right-hand sides, and scipy's times on
// the same points when Python is set.
func (b linalgBench) setup(ctx context.Context, w io.Writer) (*linalgCase, error) {
	m := b.m
	r := rand.New(rand.NewPCG(b.seed, uint64(m)))
	x := mat.NewDense(m, b.d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	a := mat.NewDense(m, m, nil)
	if err := kernel.NewOp(kernel.Gaussian{Gamma: 1 / float64(b.d)}, x, x, kernel.Options{Workers: b.p.Workers}).Block(ctx, a); err != nil {
		return nil, err
	}
	ar := a.RawMatrix()
	for i := 0; i < m; i++ {
		for j := 0; j < i; j++ {
			ar.Data[i*ar.Stride+j] = ar.Data[j*ar.Stride+i]
		}
		ar.Data[i*ar.Stride+i] += 1e-5 * float64(m)
	}
	rhs := mat.NewDense(m, b.rhs, nil)
	for i := range rhs.RawMatrix().Data {
		rhs.RawMatrix().Data[i] = r.NormFloat64()
	}
	c := &linalgCase{a: a, rhs: rhs, scipy: map[string]kernelBenchResult{}}
	if b.python != "" {
		ref, err := runLinalgPython(ctx, b.python, x, b.rhs, b.repeats)
		if err != nil {
			fmt.Fprintf(w, "%d\tscipy failed: %v\t\n", m, err)
		} else {
			c.scipy = ref
		}
	}
	return c, nil
}

func (b linalgBench) run(ctx context.Context, w io.Writer) error {
	c, err := b.setup(ctx, w)
	if err != nil {
		return err
	}
	type variant struct {
		name string
		p    kernel.Dense
	}
	variants := []variant{{"", b.p}}
	if b.portable {
		pp := b.p
		pp.Portable = true
		variants = append(variants, variant{"/portable", pp})
	}
	for vi, v := range variants {
		if err := b.variant(ctx, w, c, v.name, v.p, vi == 0); err != nil {
			return err
		}
	}
	return nil
}

// linalgTimes are our kernels' best times on one case, and the factor
// and solution they computed (for the reference's relative difference).
type linalgTimes struct {
	potrf, trsm, lauum float64
	l, x2, lauumOut    *mat.Dense
}

// time times potrf, trsm and lauum on the case with products p.
func (b linalgBench) time(ctx context.Context, c *linalgCase, p kernel.Dense) (*linalgTimes, error) {
	m := b.m
	// The matrices the kernels work in are advised huge pages, as numpy
	// does for every array of 4 MiB or more (scipy's side): see hugeDense.
	f := hugeDense(m, m)
	x2 := hugeDense(m, b.rhs)
	var chol *solver.Chol
	potrf, err := bestOfSetup(b.repeats, func() { f.Copy(c.a) }, func() error {
		var err error
		chol, err = solver.CholeskyBlocked(ctx, f, solver.CholOptions{}, p)
		return err
	})
	if err != nil {
		return nil, err
	}
	if chol.Jitter != 0 {
		return nil, fmt.Errorf("bench linalg: M = %d needed jitter %g", m, chol.Jitter)
	}
	trsm, err := bestOfSetup(b.repeats, func() { x2.Copy(c.rhs) }, func() error {
		return chol.SolveL(x2, false)
	})
	if err != nil {
		return nil, err
	}
	l := mat.DenseCopyOf(f) // the factor, for gonum's lauum and trsm
	lauum, err := bestOfSetup(b.repeats, func() { f.Copy(l) }, func() error {
		return solver.Lauum(ctx, f, p)
	})
	if err != nil {
		return nil, err
	}
	return &linalgTimes{potrf: potrf, trsm: trsm, lauum: lauum, l: l, x2: x2, lauumOut: f}, nil
}

// variant times our kernels with products p and prints their rows; the
// first variant (ref) also times gonum and scipy and the whole
// preconditioner build.
func (b linalgBench) variant(ctx context.Context, w io.Writer, c *linalgCase, name string, p kernel.Dense, ref bool) error {
	m := b.m
	t, err := b.time(ctx, c, p)
	if err != nil {
		return err
	}
	mf := float64(m)
	cube := mf * mf * mf
	row := func(kname, what string, ours, flops float64, gonumRef func() (float64, float64, error)) error {
		gs, diff, ss := math.NaN(), math.NaN(), math.NaN()
		if b.gonum && ref {
			var err error
			if gs, diff, err = gonumRef(); err != nil {
				return err
			}
		}
		if r, ok := c.scipy[what]; ok && ref {
			ss = r.Seconds
		}
		return linalgRow(w, m, kname+name, ours, flops, gs, diff, ss)
	}
	if err := row("potrf", "potrf", t.potrf, cube/3, func() (float64, float64, error) { return b.gonumPotrf(c, t) }); err != nil {
		return err
	}
	if err := row("lauum", "lauum", t.lauum, cube/3, func() (float64, float64, error) { return b.gonumLauum(t) }); err != nil {
		return err
	}
	if err := row(fmt.Sprintf("trsm k=%d", b.rhs), "trsm", t.trsm, mf*mf*float64(b.rhs), func() (float64, float64, error) { return b.gonumTrsm(c, t) }); err != nil {
		return err
	}
	if !ref {
		return nil // precond.BuildFalkon runs on the default products only
	}
	f := t.lauumOut // reused, as the factor copy is dropped: at M = 10,000 each M×M matrix is 800 MB
	t.l = nil
	build, err := bestOfSetup(b.repeats, func() { f.Copy(c.a) }, func() error {
		_, err := precond.BuildFalkon(f, 10*m, 1e-6, precond.Options{})
		return err
	})
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "%d\tprecond build\t%.3f\t%.1f\t\t\t\t\t\t\t\t\n", m, build, cube/build/1e9); err != nil {
		return err
	}
	t.lauumOut = nil
	return b.float32Rows(ctx, w, c, f)
}

// linalgRow prints one row: ours, then gonum's time, GFLOP/s, speed-up
// and relative difference, then scipy's time, GFLOP/s and ours/scipy; a
// side not run (NaN: gonum off or above -gonum-max, no float32 gonum, no
// scipy) is a dash.
func linalgRow(w io.Writer, m int, name string, ours, flops, gs, diff, ss float64) error {
	num := orDash
	_, err := fmt.Fprintf(w, "%d\t%s\t%.3f\t%.1f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", m, name, ours, flops/ours/1e9,
		num("%.3f", gs), num("%.1f", flops/gs/1e9), num("%.2f×", gs/ours), num("%.1e", diff),
		num("%.3f", ss), num("%.1f", flops/ss/1e9), num("%.2f", ss/ours))
	return err
}

// orDash formats v, or returns a dash for a value not measured (NaN).
func orDash(format string, v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf(format, v)
}

// float32Rows times the float32 factorizations on the case's matrix
// rounded to float32 (solver.CholeskyBlocked32, Lauum32 on its factor,
// Chol32.SolveL32 with the right-hand sides rounded, all on
// kernel.DenseF32) beside scipy's spotrf, slauum and strsm, then the
// preconditioner build in float32 (precond.Options.Precision) from the
// float64 matrix, in f (an M×M scratch). gonum has no float32 LAPACK: its
// columns are dashes.
func (b linalgBench) float32Rows(ctx context.Context, w io.Writer, c *linalgCase, f *mat.Dense) error {
	// The float64 rows' matrices are garbage now: return them before the
	// float32 ones are allocated (at M = 10,000 each is 800 MB).
	runtime.GC()
	debug.FreeOSMemory()
	m, k := b.m, b.rhs
	p := kernel.DenseF32{Workers: b.p.Workers}
	ar := c.a.RawMatrix()
	a32 := make([]float32, m*m)
	for i := 0; i < m; i++ {
		for j, v := range ar.Data[i*ar.Stride : i*ar.Stride+m] {
			a32[i*m+j] = float32(v)
		}
	}
	g := blas32.General{Rows: m, Cols: m, Stride: m, Data: hugemem.Float32s(m * m)}
	var chol *solver.Chol32
	potrf, err := bestOfSetup(b.repeats, func() { copy(g.Data, a32) }, func() error {
		var err error
		chol, err = solver.CholeskyBlocked32(ctx, g, solver.CholOptions{}, p)
		return err
	})
	if err != nil {
		return err
	}
	if chol.Jitter != 0 {
		return fmt.Errorf("bench linalg: float32 M = %d needed jitter %g", m, chol.Jitter)
	}
	rr := c.rhs.RawMatrix()
	rhs := make([]float32, m*k)
	for i := range m {
		for j, v := range rr.Data[i*rr.Stride : i*rr.Stride+k] {
			rhs[i*k+j] = float32(v)
		}
	}
	x := blas32.General{Rows: m, Cols: k, Stride: k, Data: hugemem.Float32s(m * k)}
	trsm, err := bestOfSetup(b.repeats, func() { copy(x.Data, rhs) }, func() error {
		return chol.SolveL32(ctx, x, false)
	})
	if err != nil {
		return err
	}
	copy(a32, g.Data) // the factor, lauum's input
	lauum, err := bestOfSetup(b.repeats, func() { copy(g.Data, a32) }, func() error {
		return solver.Lauum32(ctx, g, p)
	})
	if err != nil {
		return err
	}
	mf := float64(m)
	cube := mf * mf * mf
	nan := math.NaN()
	scipy := func(what string) float64 {
		if r, ok := c.scipy[what]; ok {
			return r.Seconds
		}
		return nan
	}
	if err := linalgRow(w, m, "potrf32", potrf, cube/3, nan, nan, scipy("potrf32")); err != nil {
		return err
	}
	if err := linalgRow(w, m, "lauum32", lauum, cube/3, nan, nan, scipy("lauum32")); err != nil {
		return err
	}
	if err := linalgRow(w, m, fmt.Sprintf("trsm32 k=%d", k), trsm, mf*mf*float64(k), nan, nan, scipy("trsm32")); err != nil {
		return err
	}
	a32, g.Data, x.Data, rhs = nil, nil, nil, nil
	runtime.GC()
	debug.FreeOSMemory()
	var pf *precond.Falkon
	build, err := bestOfSetup(b.repeats, func() { f.Copy(c.a) }, func() error {
		var err error
		pf, err = precond.BuildFalkon(f, 10*m, 1e-6, precond.Options{Precision: precond.PrecisionFloat32})
		return err
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%d\tprecond build f32\t%.3f\t%.1f\t\t\t\t\t\t\t\tjitter %g, %g\t\n", m, build, cube/build/1e9, pf.JitterT, pf.JitterA)
	return err
}

// hugeDense returns a zeroed r×c matrix whose memory is advised
// MADV_HUGEPAGE (internal/hugemem), as numpy advises every array of at
// least 4 MiB on Linux (numpy.core.multiarray._get_madvise_hugepage() is
// True on the project's hosts): the scipy side's matrices are in huge pages,
// and with 4 KiB pages each 8-row tile of a factorization's M×M result
// touches eight pages. Lauum at M = 8,000 on machine E ran at 55–67 GFLOP
// per CPU-second on a Go-heap matrix against 67–81 on an advised one
// (docs/performance.md, "machine E").
func hugeDense(r, c int) *mat.Dense {
	return mat.NewDense(r, c, hugemem.Float64s(r*c))
}

// lowerDiff is ‖tril(got − want)‖_F / ‖tril(want)‖_F.
func lowerDiff(got, want *mat.Dense) float64 {
	gr, wr := got.RawMatrix(), want.RawMatrix()
	var num, den float64
	for i := 0; i < gr.Rows; i++ {
		for j := 0; j <= i; j++ {
			dd := gr.Data[i*gr.Stride+j] - wr.Data[i*wr.Stride+j]
			num += dd * dd
			den += wr.Data[i*wr.Stride+j] * wr.Data[i*wr.Stride+j]
		}
	}
	return math.Sqrt(num / den)
}

// gonumPotrf times gonum's Dpotrf on the case and compares our factor.
func (b linalgBench) gonumPotrf(c *linalgCase, t *linalgTimes) (float64, float64, error) {
	g := mat.DenseCopyOf(c.a)
	gr := g.RawMatrix()
	s, err := bestOfSetup(b.repeats, func() { g.Copy(c.a) }, func() error {
		if !(lapackgonum.Implementation{}).Dpotrf(blas.Lower, b.m, gr.Data, gr.Stride) {
			return fmt.Errorf("bench linalg: gonum Dpotrf failed at M = %d", b.m)
		}
		return nil
	})
	return s, lowerDiff(t.l, g), err
}

// gonumLauum times gonum's Dlauum on our factor and compares our LᵀL.
func (b linalgBench) gonumLauum(t *linalgTimes) (float64, float64, error) {
	g := mat.DenseCopyOf(t.l)
	gr := g.RawMatrix()
	s, err := bestOfSetup(b.repeats, func() { g.Copy(t.l) }, func() error {
		(lapackgonum.Implementation{}).Dlauum(blas.Lower, b.m, gr.Data, gr.Stride)
		return nil
	})
	return s, lowerDiff(t.lauumOut, g), err
}

// gonumTrsm times blas64.Trsm with our factor and compares our solution.
func (b linalgBench) gonumTrsm(c *linalgCase, t *linalgTimes) (float64, float64, error) {
	g := mat.DenseCopyOf(c.rhs)
	lr := t.l.RawMatrix()
	tri := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: b.m, Stride: lr.Stride, Data: lr.Data}
	s, err := bestOfSetup(b.repeats, func() { g.Copy(c.rhs) }, func() error {
		blas64.Trsm(blas.Left, blas.NoTrans, 1, tri, g.RawMatrix())
		return nil
	})
	var dd mat.Dense
	dd.Sub(t.x2, g)
	return s, mat.Norm(&dd, 2) / mat.Norm(g, 2), err
}

//go:embed bench_linalg.py
var benchLinalgPy string

// runLinalgPython writes the points x to a temporary file and times scipy's
// dpotrf, dlauum and dtrsm on their kernel matrix.
func runLinalgPython(ctx context.Context, py string, x *mat.Dense, rhs, repeats int) (map[string]kernelBenchResult, error) {
	m, d := x.Dims()
	return runPythonScript(ctx, py, "bench_linalg.py", benchLinalgPy, []*mat.Dense{x}, strconv.Itoa(m), strconv.Itoa(d), strconv.Itoa(rhs), strconv.Itoa(repeats))
}

// bestOfSetup is bestOf with setup run, untimed, before each repetition.
func bestOfSetup(repeats int, setup func(), f func() error) (float64, error) {
	best := math.Inf(1)
	for range repeats {
		setup()
		s, err := bestOf(1, f)
		if err != nil {
			return 0, err
		}
		best = min(best, s)
	}
	return best, nil
}
