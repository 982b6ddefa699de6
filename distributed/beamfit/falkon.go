package beamfit

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas/blas64"
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
}

// FalkonResult is a fit's outcome.
type FalkonResult struct {
	// Model is a fitted model.Falkon: Predict and model.Save work on it.
	Model *model.Falkon
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
// DefaultSubsample).
const SubsamplePerCenter = 20

// DefaultSubsample is the sub-sample size Falkon's BLESS sampler runs on
// when Falkon.Subsample is 0, for n rows of d columns, m centers, kernel k
// and BLESS's final λ blessLambda (0 for its fixed-size mode):
//
//	min(n, max(SubsamplePerCenter·m, ⌈κ²/blessLambda⌉)),
//
// the second term only when blessLambda > 0 and k is shift-invariant
// (κ² = k(x, x), the same for every x, known before any row is read).
//
// Rudi et al. 2018 (Alg. 1 line 4, and §2.5: "BLESS computes leverage
// scores for sets of size at most 1/λ") draw R_h = q1·min(κ²/λ_h, n)
// uniform candidates at step h, so on any number of rows BLESS looks at
// O(min(n, 1/λ)) rows per step, and from a uniform sub-sample of
// s ≥ κ²/λ_H rows every step draws exactly as many candidates as from all
// n: the sub-sample changes which uniform rows are candidates, not how
// many, nor BLESS's cost, which depends on R_h and M_h only. With
// blessLambda set, ⌈κ²/blessLambda⌉ is that size. In the fixed-size mode
// λ_H is known only once the path has run; on bundled cadata (σ = 2,
// standardized) it gave κ²/λ_H ≈ 2.6·M, 6.8·M and 16·M for M = 100, 300
// and 1,000, within 20·M (FalkonResult.BLESSRows reports κ²/λ_H after a
// fit, so a larger Subsample can be chosen when it exceeds the default).
func DefaultSubsample(n, d, m int, k kernel.Kernel, blessLambda float64) int {
	s := SubsamplePerCenter * m
	if blessLambda > 0 && k != nil && k.ShiftInvariant() && d > 0 {
		zero := make([]float64, d)
		if r := math.Ceil(k.Eval(zero, zero) / blessLambda); r > float64(s) {
			s = int(min(r, float64(n)))
		}
	}
	return max(0, min(n, s))
}

// falkonStream is the second PCG word of the center sampling source.
const falkonStream = 0x6265616d // "beam"

// Fit fits on the data set whose manifest is at manifestPath.
func (f *Falkon) Fit(ctx context.Context, manifestPath string) (*FalkonResult, error) {
	start := time.Now()
	raw, err := readFile(ctx, manifestPath)
	if err != nil {
		return nil, fmt.Errorf("beamfit: manifest: %w", err)
	}
	man, err := shard.ParseManifest(raw)
	if err != nil {
		return nil, err
	}
	if !(f.Lambda > 0) || math.IsInf(f.Lambda, 0) {
		return nil, fmt.Errorf("beamfit: %w: Lambda = %g, want finite and > 0", ErrInput, f.Lambda)
	}
	if f.Kernel == nil {
		return nil, fmt.Errorf("beamfit: %w: Kernel is nil", ErrInput)
	}
	spec, ok := kernel.SpecOf(f.Kernel)
	if !ok {
		return nil, fmt.Errorf("beamfit: %w: kernel %s has no spec to send to the workers", ErrInput, f.Kernel)
	}
	maxIter, tol := f.MaxIter, f.Tol
	if maxIter == 0 {
		maxIter = model.DefaultFalkonMaxIter
	}
	if tol == 0 {
		tol = model.DefaultFalkonTol
	}
	if maxIter < 0 {
		return nil, fmt.Errorf("beamfit: %w: MaxIter = %d, want ≥ 0 (0 means the default)", ErrInput, f.MaxIter)
	}
	if !(tol > 0) {
		return nil, fmt.Errorf("beamfit: %w: Tol = %g, want > 0 (0 means the default)", ErrInput, f.Tol)
	}
	run := f.Run
	if run == nil {
		run = Prism
	}
	work := f.WorkDir
	if work == "" {
		if work, err = os.MkdirTemp("", "landmark-beam-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
	}
	n, d := man.N, man.D
	var mean, std []float64
	if f.Standardize {
		mean, std = man.Mean, man.Std
	}
	res := &FalkonResult{}
	bless, blessLambda, err := blessOf(f.Sampler)
	if err != nil {
		return nil, err
	}
	if f.Subsample != 0 && (bless == nil || f.Centers != nil) {
		return nil, fmt.Errorf("beamfit: %w: subsample = %d is for a BLESS sampler drawing the centers", ErrInput, f.Subsample)
	}
	centers := f.Centers
	switch {
	case centers != nil:
		if _, c := centers.Dims(); c != d {
			return nil, fmt.Errorf("beamfit: %w: centers have %d columns, data %d", ErrInput, c, d)
		}
		centers = mat.DenseCopyOf(centers)
	case f.M < 1 || f.M > n:
		return nil, fmt.Errorf("beamfit: %w: M = %d centers, want 1 ≤ M ≤ n = %d", ErrInput, f.M, n)
	case bless == nil:
		res.CenterRows = sampleRows(n, f.M, rand.New(rand.NewPCG(f.Seed, falkonStream)))
		centers, err = readRows(ctx, manifestPath, man, res.CenterRows)
		if err != nil {
			return nil, fmt.Errorf("beamfit: sampling centers: %w", err)
		}
		if mean != nil {
			standardize(centers, mean, std)
		}
	default:
		if centers, err = f.blessCenters(ctx, manifestPath, man, bless, blessLambda, mean, std, res); err != nil {
			return nil, err
		}
	}
	mc, _ := centers.Dims()
	t := 1
	if man.Task == "classification" {
		t = model.Labels{Classes: man.Classes}.Outputs()
	}
	// The centers go to storage once; every pass's workers read them.
	centersPath := joinPath(work, "centers.lmks")
	if err := writeCenters(ctx, centersPath, centers); err != nil {
		return nil, err
	}

	info := model.FalkonInfo{N: n, D: d, M: mc, Outputs: t, Lambda: f.Lambda, Penalty: f.Lambda * float64(n),
		Kernel: f.Kernel.String(), Sampler: "uniform (beam driver)", Preconditioner: model.PrecondFalkon}
	switch {
	case f.Centers != nil:
		info.Sampler = "given"
	case bless != nil:
		info.Sampler = fmt.Sprintf("%T on a uniform sub-sample of %d rows (beam driver)", bless, len(res.SubsampleRows))
		info.Preconditioner = model.PrecondBLESS
	}
	info.SampleTime = time.Since(start)
	t0 := time.Now()
	kmm := mat.NewDense(mc, mc, nil)
	if err := kernel.NewOp(f.Kernel, centers, centers, kernel.Options{Workers: f.Workers}).Block(ctx, kmm); err != nil {
		return nil, err
	}
	task := model.Regression
	if man.Task == "classification" {
		task = model.Classification
	}
	cfg := model.Falkon{Kernel: f.Kernel, Lambda: f.Lambda, M: mc, Epsilon: f.Epsilon, MaxIter: f.MaxIter,
		Tol: f.Tol, Task: task, Seed: f.Seed, Workers: f.Workers,
		CenterWeights: slices.Clone(res.CenterWeights), CenterLambda: res.CenterLambda}

	dir := dirOf(manifestPath)
	fn := passFn{Dir: dir, D: d, Centers: centersPath, M: mc, Kernel: spec, T: t,
		Classes: man.Classes, Mean: mean, Std: std, Workers: f.Workers, CacheShards: f.CacheShards}
	for _, e := range man.Shards {
		fn.Files = append(fn.Files, e.File)
		fn.Rows = append(fn.Rows, e.Rows)
	}
	launches := 0
	pass := func(ctx context.Context, dst []float64, mode string, v *mat.Dense) error {
		ts := time.Now()
		g := fn
		g.Mode = mode
		if v != nil {
			g.V = slices.Clone(v.RawMatrix().Data)
		}
		out := joinPath(work, fmt.Sprintf("pass-%05d.json", launches))
		launches++
		sum, err := runPass(ctx, run, &g, len(man.Shards), out)
		if err != nil {
			return err
		}
		if len(sum) != len(dst) {
			return fmt.Errorf("beamfit: pass %s returned %d values, want %d", mode, len(sum), len(dst))
		}
		copy(dst, sum)
		res.Passes = append(res.Passes, Pass{Residual: math.NaN(), Wall: time.Since(ts), Rows: n})
		return nil
	}

	if f.Direct {
		alpha, err := f.direct(ctx, pass, kmm, t, &info, res)
		if err != nil {
			return nil, err
		}
		info.SolveTime = time.Since(t0)
		res.Model, err = model.FittedFalkon(cfg, &model.KernelExpansion{Kernel: f.Kernel, Centers: centers, Coef: alpha}, man.Classes, info)
		if err != nil {
			return nil, err
		}
		return res, nil
	}

	var pc *precond.Falkon
	if res.CenterWeights != nil {
		// As model.Falkon with CenterWeights and CenterLambda: eq. 15 with
		// a = w·n/M (weights on BLESS's M/n scale, so that uniform weights
		// give a = 1 and eq. 14), regularized with λ_h.
		a := make([]float64, mc)
		for j, w := range res.CenterWeights {
			a[j] = w * float64(n) / float64(mc)
		}
		info.PrecondLambda = f.Lambda
		if res.CenterLambda > 0 {
			info.PrecondLambda = res.CenterLambda
		}
		pc, err = precond.BuildWeighted(kmm, n, info.PrecondLambda, a, precond.Options{Epsilon: f.Epsilon})
	} else {
		pc, err = precond.BuildFalkon(kmm, n, f.Lambda, precond.Options{Epsilon: f.Epsilon})
	}
	if err != nil {
		return nil, fmt.Errorf("beamfit: %w", err)
	}
	info.Epsilon, info.Shift, info.JitterT, info.JitterA = pc.Epsilon, pc.Shift, pc.JitterT, pc.JitterA

	b := mat.NewDense(mc, t, nil)
	if err := pass(ctx, b.RawMatrix().Data, modeMulT, nil); err != nil {
		return nil, err
	}
	if f.Progress != nil {
		f.Progress(res.Passes[0])
	}
	info.PrecondTime = time.Since(t0)
	penalty := info.Penalty
	tmp := mat.NewDense(mc, t, nil)
	h := solver.OperatorFunc{N: mc, F: func(ctx context.Context, dst, v *mat.Dense) error {
		if err := pass(ctx, dst.RawMatrix().Data, modeMulTMul, v); err != nil {
			return err
		}
		if err := pc.MulKMM(tmp, v); err != nil {
			return err
		}
		blas64.Axpy(penalty, blas64.Vector{N: mc * t, Inc: 1, Data: tmp.RawMatrix().Data},
			blas64.Vector{N: mc * t, Inc: 1, Data: dst.RawMatrix().Data})
		return nil
	}}
	alpha := mat.NewDense(mc, t, nil)
	t1 := time.Now()
	opt := solver.Options{Tol: tol, MaxIter: maxIter, PrecondNorm: true, Callback: func(p solver.Progress) bool {
		last := &res.Passes[len(res.Passes)-1]
		last.Iteration, last.Residual = p.Iteration, p.Residual
		info.History = append(info.History, model.FalkonIteration{Iteration: p.Iteration, Residual: p.Residual,
			ValError: math.NaN(), Elapsed: time.Since(start)})
		if f.Progress != nil {
			f.Progress(*last)
		}
		return true
	}}
	sr, err := solver.PCG(ctx, h, pc, b, alpha, opt)
	if err != nil {
		return nil, err
	}
	info.SolveTime = time.Since(t1)
	info.Status, info.Iterations, info.Residual = sr.Status, sr.Iterations, sr.Residual
	res.Model, err = model.FittedFalkon(cfg, &model.KernelExpansion{Kernel: f.Kernel, Centers: centers, Coef: alpha}, man.Classes, info)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// direct runs the one-pass form: a gram pass, then on the driver
// A = Σ_s K_sᵀK_s + λn K_MM (lower triangle, mirrored), a jittered Cholesky
// and the solve of A α = Σ_s K_sᵀY_s. info gets the solver fields (0
// iterations, the relative residual ‖Aα − b‖_F/‖b‖_F of the system as formed).
func (f *Falkon) direct(ctx context.Context, pass func(context.Context, []float64, string, *mat.Dense) error,
	kmm *mat.Dense, t int, info *model.FalkonInfo, res *FalkonResult) (*mat.Dense, error) {
	mc, _ := kmm.Dims()
	sum := make([]float64, mc*mc+mc*t)
	if err := pass(ctx, sum, modeGram, nil); err != nil {
		return nil, err
	}
	res.Passes[0].Residual = math.NaN()
	if f.Progress != nil {
		f.Progress(res.Passes[0])
	}
	a := mat.NewDense(mc, mc, sum[:mc*mc])
	b := mat.NewDense(mc, t, slices.Clone(sum[mc*mc:]))
	ar, kr := a.RawMatrix(), kmm.RawMatrix()
	diag := make([]float64, mc)
	for i := range mc {
		for j := 0; j <= i; j++ {
			v := ar.Data[i*ar.Stride+j] + info.Penalty*kr.Data[i*kr.Stride+j]
			ar.Data[i*ar.Stride+j], ar.Data[j*ar.Stride+i] = v, v
		}
		diag[i] = ar.Data[i*ar.Stride+i]
	}
	chol, err := solver.CholeskyInPlace(a, solver.CholOptions{})
	if err != nil {
		return nil, fmt.Errorf("beamfit: direct solve: %w", err)
	}
	res.Jitter, res.CholAttempts = chol.Jitter, chol.Attempts
	alpha := mat.DenseCopyOf(b)
	if err := chol.Solve(alpha); err != nil {
		return nil, fmt.Errorf("beamfit: direct solve: %w", err)
	}
	// The residual of the system as formed: A's strict upper triangle is
	// intact after the factorization, its diagonal was saved.
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
	info.Preconditioner = "direct"
	info.Status, info.Iterations = solver.Converged, 0
	info.Residual = floats.Norm(r.RawMatrix().Data, 2) / floats.Norm(b.RawMatrix().Data, 2)
	return alpha, nil
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

// sampleRows draws m distinct row indices of [0, n) uniformly (Floyd's
// algorithm, O(m) memory whatever n) and returns them ascending. Drawn over
// the global row indices, they do not depend on how the rows are sharded.
func sampleRows(n, m int, rng *rand.Rand) []int {
	chosen := make(map[int]bool, m)
	for j := n - m; j < n; j++ {
		r := rng.IntN(j + 1)
		if chosen[r] {
			r = j
		}
		chosen[r] = true
	}
	idx := make([]int, 0, m)
	for i := range chosen {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	return idx
}

// readRows reads the rows idx (ascending global indices) from the shards
// that hold them, one shard at a time, as they are on disk (not
// standardized).
func readRows(ctx context.Context, manifestPath string, man *shard.Manifest, idx []int) (*mat.Dense, error) {
	m := len(idx)
	c := mat.NewDense(m, man.D, nil)
	dir := dirOf(manifestPath)
	k := 0
	for _, e := range man.Shards {
		if k == m {
			break
		}
		if idx[k] >= e.FirstRow+e.Rows {
			continue
		}
		x, _, err := loadShard(ctx, joinPath(dir, e.File), e.Rows, man.D, false, nil, nil)
		if err != nil {
			return nil, err
		}
		for ; k < m && idx[k] < e.FirstRow+e.Rows; k++ {
			c.SetRow(k, x.RawRowView(idx[k]-e.FirstRow))
		}
	}
	if k != m {
		return nil, fmt.Errorf("beamfit: %w: row %d is beyond the shards' rows", ErrInput, idx[k])
	}
	return c, nil
}

// blessOf returns the BLESS sampler s asks for (nil for uniform) and its
// final λ.
func blessOf(s approx.Sampler) (approx.Sampler, float64, error) {
	b, lambda, err := blessOf1(s)
	if err == nil && (lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0)) {
		err = fmt.Errorf("beamfit: %w: bless lambda = %g, want 0 (fixed size) or > 0", ErrInput, lambda)
	}
	return b, lambda, err
}

func blessOf1(s approx.Sampler) (approx.Sampler, float64, error) {
	switch b := s.(type) {
	case nil, approx.Uniform:
		return nil, 0, nil
	case *approx.Uniform:
		if b != nil {
			return nil, 0, nil
		}
	case approx.BLESS:
		return b, b.Lambda, nil
	case *approx.BLESS:
		if b != nil {
			return *b, b.Lambda, nil
		}
	case approx.BLESSR:
		return b, b.Lambda, nil
	case *approx.BLESSR:
		if b != nil {
			return *b, b.Lambda, nil
		}
	}
	return nil, 0, fmt.Errorf("beamfit: %w: sampler %T, want nil, approx.Uniform, approx.BLESS or approx.BLESSR", ErrInput, s)
}

// blessCenters draws the centers by BLESS on a uniform sub-sample: the
// sub-sample's global row indices by Floyd's algorithm from Seed (so they
// do not depend on the sharding), its rows read on the driver and
// standardized as the workers will, then the sampler run on them with the
// same random source. It returns the centers (standardized) and fills
// res's center fields.
//
// Weights: on the s rows, BLESS's A_h is M·π (Alg. 1 line 10, π_j the
// per-draw probability of row j among the s rows; BLESS-R's A_h is the
// inclusion probability, also on the s rows' scale), and model.Falkon
// turns weights w on n rows into eq. 15's a = w·n/M = n·π (package
// precond). Row j of the sub-sample is a row of the data drawn with
// probability s/n, so its per-draw probability among all n rows is π·s/n:
// the weights on the full data's scale are w = A_h·s/n, and a = A_h·s/M.
// (Uniform BLESS scores give A_h = M/s, w = M/n and a = 1: eq. 14.)
func (f *Falkon) blessCenters(ctx context.Context, manifestPath string, man *shard.Manifest, bless approx.Sampler,
	blessLambda float64, mean, std []float64, res *FalkonResult) (*mat.Dense, error) {
	n, d := man.N, man.D
	s := f.Subsample
	if s == 0 {
		s = DefaultSubsample(n, d, f.M, f.Kernel, blessLambda)
	}
	if s < f.M || s > n {
		return nil, fmt.Errorf("beamfit: %w: subsample = %d rows, want M = %d ≤ subsample ≤ n = %d", ErrInput, s, f.M, n)
	}
	rng := rand.New(rand.NewPCG(f.Seed, falkonStream))
	sub := sampleRows(n, s, rng)
	xs, err := readRows(ctx, manifestPath, man, sub)
	if err != nil {
		return nil, fmt.Errorf("beamfit: reading the bless sub-sample: %w", err)
	}
	if mean != nil {
		standardize(xs, mean, std)
	}
	lm, err := bless.Sample(ctx, xs, f.Kernel, f.M, rng)
	if err != nil {
		return nil, fmt.Errorf("beamfit: sampling centers: %w", err)
	}
	if lm == nil || lm.Points == nil || len(lm.Indices) != len(lm.Weights) || len(lm.Indices) < 1 || len(lm.Indices) > f.M {
		return nil, fmt.Errorf("beamfit: sampling centers: %T returned no usable landmarks", bless)
	}
	res.SubsampleRows = sub
	res.CenterRows = make([]int, len(lm.Indices))
	res.CenterWeights = make([]float64, len(lm.Indices))
	scale := float64(s) / float64(n)
	for j, i := range lm.Indices {
		res.CenterRows[j] = sub[i]
		res.CenterWeights[j] = lm.Weights[j] * scale
	}
	res.CenterLambda = lm.Lambda
	diag := make([]float64, s)
	f.Kernel.Diag(diag, xs)
	if kappa2 := slices.Max(diag); lm.Lambda > 0 {
		res.BLESSRows = int(min(math.Ceil(kappa2/lm.Lambda), math.MaxInt32))
	}
	return kernel.DenseOf(lm.Points), nil // xs is dense: a no-op
}

func writeCenters(ctx context.Context, p string, c *mat.Dense) error {
	var buf bytesBuffer
	r, _ := c.Dims()
	if err := shard.Write(&buf, c, make([]float64, r)); err != nil {
		return err
	}
	return writeFile(ctx, p, buf.b)
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

func dirOf(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "."
}
