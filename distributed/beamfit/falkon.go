package beamfit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// ErrInput reports an invalid configuration or data set. It is
// model.ErrInput, so one errors.Is finds a refusal of bad input whether it
// comes from this package, model, approx or the shard reader.
var ErrInput = model.ErrInput

// Runner runs a Beam pipeline to completion.
type Runner func(ctx context.Context, p *beam.Pipeline) error

// Prism runs a pipeline on Beam's Prism runner, in this process unless
// Beam's --endpoint flag names a Prism job server.
func Prism(ctx context.Context, p *beam.Pipeline) error {
	_, err := prism.Execute(ctx, p)
	return err
}

// Falkon fits FALKON (model.Falkon's estimator) on sharded data with every
// pass over the data run as an Apache Beam pipeline. The driver — this
// process — holds the centers, K_MM, the preconditioner and the CG vectors
// (O(M²) memory); the workers hold the shards. One fit launches 1 + the
// number of CG iterations pipelines: one for K_nMᵀy, then one per
// iteration for K_nMᵀ(K_nM v), each a ParDo over the shard indices (one
// kernel-engine product per shard) and a Combine adding the M×t partial
// sums in shard order.
//
// Zero values mean defaults, as in model.Falkon. As every Beam program,
// the program must call beam.Init() once, after flag.Parse and before Fit.
type Falkon struct {
	// Kernel is the kernel; it must have a kernel.Spec (gaussian,
	// laplacian, linear, polynomial). Required.
	Kernel kernel.Kernel
	// Lambda is λ > 0 (λn multiplies K_MM, as model.Falkon).
	Lambda float64
	// M is the number of centers, sampled on the driver from Seed:
	// uniformly without replacement over all rows, or, with a BLESS
	// Sampler, at most M draws of BLESS (repeated draws merge, so the
	// distinct centers can be fewer). Ignored when Centers is set.
	M int
	// Centers, when set, are the centers (M×d), used as given.
	Centers *mat.Dense
	// Sampler chooses how the driver draws the centers: nil or
	// approx.Uniform (uniform over all rows, Floyd's algorithm over the
	// global row indices), or approx.BLESS / approx.BLESSR (value or
	// pointer; Rudi et al. 2018, Alg. 1 / Alg. 2) run on the driver over a
	// uniform sub-sample of Subsample rows. BLESS's fields keep their
	// meaning: Lambda > 0 ends the path at that λ with at most M draws,
	// Lambda = 0 walks it down until it has M draws (model.Falkon's
	// default for approx.BLESS{}). BLESS centers come with weights A_h and
	// the path's λ_h, and the fit uses FALKON-BLESS's weighted
	// preconditioner (eq. 15) exactly as model.Falkon does with
	// CenterWeights and CenterLambda (FalkonResult reports both). Other
	// samplers are refused.
	Sampler approx.Sampler
	// Subsample is the number of rows, drawn uniformly without replacement
	// over the global row indices from Seed, that a BLESS Sampler runs on
	// (M ≤ Subsample ≤ n); the driver reads them from the shards and holds
	// them (Subsample·d·8 bytes). 0 means DefaultSubsample. It is an error
	// with the uniform sampler.
	Subsample int
	// Seed seeds the center sampling (and the sub-sample).
	Seed uint64
	// Epsilon, MaxIter and Tol are model.Falkon's.
	Epsilon float64
	MaxIter int
	Tol     float64
	// Standardize standardizes the columns with the manifest's statistics
	// (on the workers as they read each shard, and the centers).
	Standardize bool
	// Run runs each pipeline; nil means Prism.
	Run Runner
	// WorkDir is a folder every worker and the driver can read and write
	// (a local folder for Prism, gs://… for Dataflow, a shared file system
	// for Flink/Spark); empty means a new local temporary folder.
	WorkDir string
	// Workers bounds each worker's engine goroutines (0: all its cores).
	Workers int
	// CacheShards keeps decoded shards in worker memory between passes.
	CacheShards bool
	// Direct solves the same Nyström system in one pass instead of by
	// PCG: every shard forms K_sᵀK_s (M×M) and K_sᵀy_s, one Combine adds
	// them in shard order, and the driver factors
	// K_nMᵀK_nM + λn K_MM by Cholesky (with model.NystromKRR's jitter rule,
	// solver.CholeskyInPlace) and solves. One launch and n·M² flops instead
	// of 1 + MaxIter launches of ≈ 2n·M·d flops each; each shard's partial
	// is M²·8 bytes. Epsilon, MaxIter and Tol are ignored.
	Direct bool
	// Attempts is how many times a pass is launched before the fit fails
	// (0: DefaultAttempts). A pass that fails — a worker lost mid-pass, a
	// shard read that fails — is launched again, with a log line; it
	// computes the same sum, so the model is the one an undisturbed fit
	// gives. A damaged shard fails every attempt, and the error names it.
	Attempts int
	// RetryWait is the pause before a failed pass is launched again (0:
	// DefaultRetryWait), time for a supervisor to restart a lost worker
	// pool before the job server asks it for workers again.
	RetryWait time.Duration
	// Logf, when set, receives the fit's log lines (a failed pass
	// re-run, passes resumed from a checkpoint), one line per call
	// without its newline; nil writes them to standard error.
	Logf func(format string, args ...any)
	// Progress, when set, is called after every pass.
	Progress func(Pass)
}

// Pass reports one pipeline launch of a fit.
type Pass struct {
	// Iteration is the CG iteration (0 for the right-hand side pass).
	Iteration int
	// Residual is the solver's relative residual after the iteration
	// (NaN for the right-hand side pass).
	Residual float64
	// Wall is the launch's wall time, pipeline construction to result.
	Wall time.Duration
	// Rows is the number of rows the pass read; Rows/Wall is its
	// throughput.
	Rows int
	// Attempts is the number of launches the pass took (more than 1 when
	// a launch failed and was re-run; 0 when Resumed).
	Attempts int
	// Resumed reports that the pass's result was read from a checkpoint
	// in WorkDir, written by an earlier run of the same fit, and no
	// pipeline was launched.
	Resumed bool
}

// FalkonResult is a fit's outcome.
type FalkonResult struct {
	// Model is a fitted model.Falkon: Predict and model.Save work on it.
	// With Falkon.Standardize it expects rows standardized with Manifest's
	// Mean and Std (experiments.ShardFit keeps that scaling beside it).
	Model *model.Falkon
	// Manifest is the manifest of the shards fitted on.
	Manifest *shard.Manifest
	// Standardized reports that the rows were standardized on read.
	Standardized bool
	// Passes has one entry per pipeline launch.
	Passes []Pass
	// Jitter and CholAttempts report the direct solve's Cholesky (see
	// solver.Chol): the absolute jitter added to the diagonal (0 when none
	// was needed) and the factorizations tried. Zero for PCG fits.
	Jitter       float64
	CholAttempts int
	// CenterRows are the global row indices of the centers, ascending;
	// nil when Falkon.Centers gave them.
	CenterRows []int
	// SubsampleRows are the global row indices of the rows BLESS ran on,
	// ascending; nil for uniform centers.
	SubsampleRows []int
	// CenterWeights are BLESS's weights A_h on the full data's scale, one
	// per center: A_h computed on the s-row sub-sample (a per-draw
	// probability on the s rows' scale) times s/n (the probability that a
	// row is in the sub-sample), the scale model.Falkon.CenterWeights
	// takes. Nil for uniform centers.
	CenterWeights []float64
	// CenterLambda is λ_h of the BLESS step the centers come from (the λ
	// of the eq. 15 preconditioner, model.Falkon.CenterLambda); 0 for
	// uniform centers.
	CenterLambda float64
	// BLESSRows is ⌈κ²/λ_h⌉ (κ² = the largest k(x, x) on the sub-sample)
	// for BLESS centers, 0 otherwise: from a sub-sample of at least that
	// many rows every BLESS step draws as many candidates as it would from
	// all n rows (Alg. 1 line 4: R_h = q1·min(κ²/λ_h, rows)), so a
	// Subsample below it made BLESS's last steps draw from fewer rows than
	// it would on the full data.
	BLESSRows int
}

// SubsamplePerCenter is the default BLESS sub-sample size per center (see
// DefaultSubsample): model.ShardSubsamplePerCenter.
const SubsamplePerCenter = model.ShardSubsamplePerCenter

// DefaultSubsample is the sub-sample size Falkon's BLESS sampler runs on
// when Falkon.Subsample is 0, for n rows of d columns, m centers, kernel k
// and BLESS's final λ blessLambda (0 for its fixed-size mode):
// model.DefaultShardSubsample, which documents the rule
// min(n, max(SubsamplePerCenter·m, ⌈κ²/blessLambda⌉)) and its reasons.
func DefaultSubsample(n, d, m int, k kernel.Kernel, blessLambda float64) int {
	return model.DefaultShardSubsample(n, d, m, k, blessLambda)
}

// falkonStream is the second PCG word of the center sampling source.
const falkonStream = model.ShardSeedStream

// Fit fits on the data set whose manifest is at manifestPath: the centers
// drawn on the driver, then FALKON's system assembled by
// model.FalkonBuilder — as model.Falkon assembles it — on passes that run
// as pipelines, and solved by PCG on the driver (with Direct, formed and
// factored after one pass instead).
func (f *Falkon) Fit(ctx context.Context, manifestPath string) (*FalkonResult, error) {
	r, err := f.newRun(ctx, manifestPath)
	if err != nil {
		return nil, err
	}
	defer r.cleanup()
	c, err := r.centers(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.shipCenters(ctx, c); err != nil {
		return nil, err
	}
	info := r.info(c)
	var alpha *mat.Dense
	if f.Direct {
		alpha, err = r.direct(ctx, c, &info)
	} else {
		alpha, err = r.pcg(ctx, c, &info)
	}
	if err != nil {
		return nil, err
	}
	return r.result(c, alpha, info)
}

// falkonRun is one fit's state on the driver.
type falkonRun struct {
	f           *Falkon
	b           model.FalkonBuilder
	start       time.Time
	manifest    string // the manifest's path
	man         *shard.Manifest
	spec        kernel.Spec
	run         Runner
	work        string // the work folder
	cleanup     func() // removes a temporary work folder
	bless       approx.Sampler
	blessLambda float64
	mean, std   []float64 // the standardization, when asked for
	t           int       // outputs
	fn          passFn    // what the workers run, but for Mode and V
	launches    int
	res         *FalkonResult
	manRaw      []byte          // the manifest's bytes
	attempts    int             // launches per pass
	retryWait   time.Duration   // pause before a re-launch
	digest      []byte          // what every pass's checkpoint key shares
	saved       map[string]bool // checkpoint files in the work folder
}

// newRun reads the manifest and checks the configuration before anything
// is sampled or launched, then makes the work folder.
func (f *Falkon) newRun(ctx context.Context, manifestPath string) (*falkonRun, error) {
	r := &falkonRun{f: f, start: time.Now(), manifest: manifestPath, run: f.Run, work: f.WorkDir,
		cleanup: func() {}, res: &FalkonResult{}, t: 1}
	raw, err := readFile(ctx, manifestPath)
	if err != nil {
		return nil, fmt.Errorf("beamfit: manifest: %w", err)
	}
	if r.man, err = shard.ParseManifest(raw); err != nil {
		return nil, err
	}
	r.manRaw = raw
	switch r.attempts = f.Attempts; {
	case r.attempts == 0:
		r.attempts = DefaultAttempts
	case r.attempts < 0:
		return nil, fmt.Errorf("beamfit: %w: attempts = %d, want ≥ 1 (0: %d)", ErrInput, f.Attempts, DefaultAttempts)
	}
	if r.retryWait = f.RetryWait; r.retryWait == 0 {
		r.retryWait = DefaultRetryWait
	} else if r.retryWait < 0 {
		return nil, fmt.Errorf("beamfit: %w: retry wait = %v, want ≥ 0", ErrInput, f.RetryWait)
	}
	if f.Kernel == nil {
		return nil, fmt.Errorf("beamfit: %w: Kernel is nil", ErrInput)
	}
	var ok bool
	if r.spec, ok = kernel.SpecOf(f.Kernel); !ok {
		return nil, fmt.Errorf("beamfit: %w: kernel %s has no spec to send to the workers", ErrInput, f.Kernel)
	}
	r.b = model.FalkonBuilder{Kernel: f.Kernel, Lambda: f.Lambda, Epsilon: f.Epsilon, MaxIter: f.MaxIter, Tol: f.Tol,
		Engine: kernel.Options{Workers: f.Workers}, Name: "beamfit"}
	if err := r.b.Validate(); err != nil {
		return nil, err
	}
	if r.bless, r.blessLambda, err = model.BLESSSampler(f.Sampler); err != nil {
		return nil, fmt.Errorf("beamfit: %w", err)
	}
	if f.Subsample != 0 && (r.bless == nil || f.Centers != nil) {
		return nil, fmt.Errorf("beamfit: %w: subsample = %d is for a BLESS sampler drawing the centers", ErrInput, f.Subsample)
	}
	if r.run == nil {
		r.run = Prism
	}
	if f.Standardize {
		r.mean, r.std = r.man.Mean, r.man.Std
	}
	if r.man.Task == "classification" {
		r.t = model.Labels{Classes: r.man.Classes}.Outputs()
	}
	if r.work == "" {
		if r.work, err = os.MkdirTemp("", "landmark-beam-"); err != nil {
			return nil, err
		}
		r.cleanup = func() { os.RemoveAll(r.work) }
	}
	if err := r.listCheckpoints(ctx); err != nil {
		return nil, err
	}
	return r, nil
}

// shipCenters writes the centers to storage once (every pass's workers read
// them) and sets up the pass function.
func (r *falkonRun) shipCenters(ctx context.Context, c model.FalkonCenters) error {
	path := joinPath(r.work, "centers.lmks")
	if err := writeCenters(ctx, path, kernel.DenseOf(c.Points)); err != nil {
		return err
	}
	f := r.f
	r.fn = passFn{Dir: dirOf(r.manifest), D: r.man.D, Centers: path, M: c.M(), Kernel: r.spec, T: r.t,
		Classes: r.man.Classes, Mean: r.mean, Std: r.std, Workers: f.Workers, CacheShards: f.CacheShards}
	for _, e := range r.man.Shards {
		r.fn.Files = append(r.fn.Files, e.File)
		r.fn.Rows = append(r.fn.Rows, e.Rows)
	}
	var err error
	r.digest, err = fitDigest(r.manRaw, kernel.DenseOf(c.Points), &r.fn)
	return err
}

// info is the fit's description once the centers are drawn; the plan is
// the driver's (model.FalkonBuilder.Plan: the workers hold the data).
func (r *falkonRun) info(c model.FalkonCenters) model.FalkonInfo {
	f, n := r.f, r.man.N
	return model.FalkonInfo{N: n, D: r.man.D, M: c.M(), Outputs: r.t, Lambda: f.Lambda, Penalty: f.Lambda * float64(n),
		Kernel: f.Kernel.String(), Sampler: c.Sampler, CenterForm: model.CenterForm(c.Points),
		Plan: r.b.Plan(c, r.t), SampleTime: time.Since(r.start)}
}

// pass computes one pass of the given mode (v is the vector of
// modeMulTMul) and copies its sum into dst: read from the work folder's
// checkpoint when an earlier run of the same fit saved it, otherwise
// launched as a pipeline (re-run up to r.attempts times) and saved there
// before the driver goes on, so a driver stopped at any point resumes
// after the last pass it completed.
func (r *falkonRun) pass(ctx context.Context, dst []float64, mode string, v *mat.Dense) error {
	ts := time.Now()
	g := r.fn
	g.Mode = mode
	if v != nil {
		g.V = slices.Clone(v.RawMatrix().Data)
	}
	idx := r.launches
	out := joinPath(r.work, fmt.Sprintf("pass-%05d.json", idx))
	r.launches++
	key := r.passKey(mode, g.V)
	p := Pass{Residual: math.NaN(), Rows: r.man.N}
	sum := r.resume(ctx, mode, key, len(dst))
	if sum != nil {
		p.Resumed = true
		r.logf("beamfit: pass %d (%s) resumed from %s", idx, mode, r.checkpointPath(mode, key))
	} else {
		var err error
		if sum, p.Attempts, err = r.launch(ctx, &g, out, idx); err != nil {
			return err
		}
		if len(sum) != len(dst) {
			return fmt.Errorf("beamfit: pass %s returned %d values, want %d", mode, len(sum), len(dst))
		}
		if err := r.saveCheckpoint(ctx, mode, key, sum); err != nil {
			return err
		}
	}
	copy(dst, sum)
	p.Wall = time.Since(ts)
	r.res.Passes = append(r.res.Passes, p)
	return nil
}

// progress reports the last pass to Falkon.Progress.
func (r *falkonRun) progress() {
	if r.f.Progress != nil {
		r.f.Progress(r.res.Passes[len(r.res.Passes)-1])
	}
}

// pcg builds the system on the pipelines' pass, forms K_nMᵀY in one more
// pass and runs PCG on the driver, one pass per iteration.
func (r *falkonRun) pcg(ctx context.Context, c model.FalkonCenters, info *model.FalkonInfo) (*mat.Dense, error) {
	t0 := time.Now()
	sys, err := r.b.Build(ctx, c, model.FalkonData{N: r.man.N, MulTMul: func(ctx context.Context, dst, v *mat.Dense) error {
		return r.pass(ctx, dst.RawMatrix().Data, modeMulTMul, v)
	}})
	if err != nil {
		return nil, err
	}
	sys.Describe(info) // KMMTime and FactorTime, as model.Falkon.Fit
	rhs := mat.NewDense(c.M(), r.t, nil)
	tr := time.Now()
	if err := r.pass(ctx, rhs.RawMatrix().Data, modeMulT, nil); err != nil {
		return nil, err
	}
	info.RHSTime = time.Since(tr) // the K_nMᵀY pass, as model.Falkon.Fit
	r.progress()
	info.PrecondTime = time.Since(t0)
	alpha := mat.NewDense(c.M(), r.t, nil)
	t1 := time.Now()
	sr, err := sys.Solve(ctx, rhs, alpha, func(p solver.Progress) bool {
		last := &r.res.Passes[len(r.res.Passes)-1]
		last.Iteration, last.Residual = p.Iteration, p.Residual
		info.History = append(info.History, model.FalkonIteration{Iteration: p.Iteration, Residual: p.Residual,
			ValError: math.NaN(), Elapsed: time.Since(r.start)})
		r.progress()
		return true
	})
	if err != nil {
		return nil, err
	}
	info.SolveTime = time.Since(t1)
	info.Status, info.Iterations, info.Residual = sr.Status, sr.Iterations, sr.Residual
	return alpha, nil
}

// result wraps the solution as a fitted model.Falkon.
func (r *falkonRun) result(c model.FalkonCenters, alpha *mat.Dense, info model.FalkonInfo) (*FalkonResult, error) {
	f := r.f
	task := model.Regression
	if r.man.Task == "classification" {
		task = model.Classification
	}
	cfg := model.Falkon{Kernel: f.Kernel, Lambda: f.Lambda, M: c.M(), Epsilon: f.Epsilon, MaxIter: f.MaxIter,
		Tol: f.Tol, Task: task, Seed: f.Seed, Resources: model.Resources{Workers: f.Workers},
		CenterWeights: slices.Clone(r.res.CenterWeights), CenterLambda: r.res.CenterLambda}
	var err error
	r.res.Manifest, r.res.Standardized = r.man, r.mean != nil
	r.res.Model, err = model.FittedFalkon(cfg, &model.KernelExpansion{Kernel: f.Kernel, Centers: c.Points, Coef: alpha}, r.man.Classes, info)
	if err != nil {
		return nil, err
	}
	return r.res, nil
}

// direct runs the one-pass form: a gram pass, then on the driver
// A = Σ_s K_sᵀK_s + λn K_MM (lower triangle, mirrored), a jittered Cholesky
// and the solve of A α = Σ_s K_sᵀY_s. info gets the solver fields (0
// iterations, the relative residual ‖Aα − b‖_F/‖b‖_F of the system as formed).
func (r *falkonRun) direct(ctx context.Context, c model.FalkonCenters, info *model.FalkonInfo) (*mat.Dense, error) {
	t0 := time.Now()
	kmm, err := r.b.KMM(ctx, c)
	if err != nil {
		return nil, err
	}
	mc, t := c.M(), r.t
	sum := make([]float64, mc*mc+mc*t)
	if err := r.pass(ctx, sum, modeGram, nil); err != nil {
		return nil, err
	}
	r.progress()
	a := mat.NewDense(mc, mc, sum[:mc*mc])
	b := mat.NewDense(mc, t, slices.Clone(sum[mc*mc:]))
	diag := addPenalty(a, kmm, info.Penalty)
	chol, err := solver.CholeskyInPlace(a, solver.CholOptions{})
	if err != nil {
		return nil, fmt.Errorf("beamfit: direct solve: %w", err)
	}
	r.res.Jitter, r.res.CholAttempts = chol.Jitter, chol.Attempts
	alpha := mat.DenseCopyOf(b)
	if err := chol.Solve(alpha); err != nil {
		return nil, fmt.Errorf("beamfit: direct solve: %w", err)
	}
	info.Preconditioner = "direct"
	info.Status, info.Iterations = solver.Converged, 0
	info.Residual = directResidual(a, diag, alpha, b)
	info.SolveTime = time.Since(t0)
	return alpha, nil
}

// addPenalty sets the lower triangle of a to a + penalty·kmm, mirrors it to
// the upper one, and returns the diagonal.
func addPenalty(a, kmm *mat.Dense, penalty float64) []float64 {
	mc, _ := a.Dims()
	ar, kr := a.RawMatrix(), kmm.RawMatrix()
	diag := make([]float64, mc)
	for i := range mc {
		for j := 0; j <= i; j++ {
			v := ar.Data[i*ar.Stride+j] + penalty*kr.Data[i*kr.Stride+j]
			ar.Data[i*ar.Stride+j], ar.Data[j*ar.Stride+i] = v, v
		}
		diag[i] = ar.Data[i*ar.Stride+i]
	}
	return diag
}

// directResidual is ‖Aα − b‖_F/‖b‖_F for the system as formed: A's strict
// upper triangle is intact after the factorization, its diagonal was saved.
func directResidual(a *mat.Dense, diag []float64, alpha, b *mat.Dense) float64 {
	mc, t := alpha.Dims()
	r := mat.DenseCopyOf(b)
	ad := a.RawMatrix()
	for i := range mc {
		for c := range t {
			s := diag[i] * alpha.At(i, c)
			for j := range mc {
				if j == i {
					continue
				}
				lo, hi := min(i, j), max(i, j)
				s += ad.Data[lo*ad.Stride+hi] * alpha.At(j, c)
			}
			r.Set(i, c, r.At(i, c)-s)
		}
	}
	return floats.Norm(r.RawMatrix().Data, 2) / floats.Norm(b.RawMatrix().Data, 2)
}

// runPass launches one pipeline computing Σ_s fn(s) over the shards and
// returns the sum, checking every shard was counted once.
func runPass(ctx context.Context, run Runner, fn *passFn, shards int, out string) ([]float64, error) {
	p, s := beam.NewPipelineWithRoot()
	idx := make([]int, shards)
	for i := range idx {
		idx[i] = i
	}
	col := beam.Reshuffle(s, beam.CreateList(s, idx))
	parts := beam.ParDo(s, fn, col)
	tot := beam.Combine(s, &orderedSum{}, parts)
	beam.ParDo0(s, &writeFn{Path: out}, tot)
	if err := run(ctx, p); err != nil {
		return nil, fmt.Errorf("beamfit: pipeline: %w", err)
	}
	b, err := readFile(ctx, out)
	if err != nil {
		return nil, fmt.Errorf("beamfit: pass result: %w", err)
	}
	var t total
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, fmt.Errorf("beamfit: pass result: %w", err)
	}
	for i, sh := range t.Shards {
		if sh != i || len(t.Shards) != shards {
			return nil, fmt.Errorf("beamfit: pass summed shards %v, want 0..%d once each", t.Shards, shards-1)
		}
	}
	return t.Sum, nil
}

func dirOf(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "."
}
