package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// A local Falkon fit is FalkonBuilder's steps with the passes over the data
// run on the kernel engine (falkonPasses): resolve the configuration, plan
// the memory (refusing a plan over MemoryLimit before allocating), draw or
// take the centers, build the system, form K_nMᵀY, and run PCG with the
// per-iteration monitor (validation error, Patience, Progress).

// falkonConfig is Falkon with defaults resolved.
type falkonConfig struct {
	b       FalkonBuilder // resolved: kernel, preconditioner, MaxIter, Tol, K_MM's engine
	k       kernel.Kernel
	m       int
	sampler approx.Sampler
	passes  kernel.Options // engine options of the K_nM passes (Float32)
	// inputCopy is the caller's float64 X when Fit holds a float32 copy of
	// it (Float32Storage): resident beside it, so the plan counts it.
	inputCopy int64
	// weighted: a FitWeighted fit, whose passes hold the weights.
	weighted bool
}

func (m *Falkon) resolve(n, d int) (falkonConfig, error) {
	var c falkonConfig
	if m.CenterLambda < 0 || math.IsNaN(m.CenterLambda) || math.IsInf(m.CenterLambda, 0) {
		return c, fmt.Errorf("model: falkon: %w: CenterLambda = %g, want finite and ≥ 0", ErrInput, m.CenterLambda)
	}
	if err := refusePrecomputed(m.Kernel, "falkon"); err != nil {
		return c, fmt.Errorf("model: falkon: %w", err)
	}
	if m.CacheKnm && m.NeverCacheKnm {
		return c, fmt.Errorf("model: falkon: %w: CacheKnm and NeverCacheKnm both set", ErrInput)
	}
	c.k = m.Kernel
	if c.k == nil {
		c.k = kernel.Gaussian{Gamma: 1 / float64(d)}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"Workers", int64(m.Workers)}, {"BlockRows", int64(m.BlockRows)}, {"MemoryLimit", m.MemoryLimit}} {
		if f.v < 0 {
			return c, fmt.Errorf("model: falkon: %w: %s = %d, want ≥ 0 (0 means automatic)", ErrInput, f.name, f.v)
		}
	}
	prec := m.PrecondPrecision
	if prec == precond.PrecisionAuto && (m.Float32 || m.Float32Storage) {
		prec = precond.PrecisionFloat32 // as FALKON for float32 data
	}
	b, err := FalkonBuilder{Kernel: c.k, Lambda: m.Lambda, Preconditioner: m.Preconditioner, Epsilon: m.Epsilon,
		Cholesky: m.Cholesky, Precision: prec, MaxIter: m.MaxIter, Tol: m.Tol,
		Engine: kernel.Options{Workers: m.Workers, BlockRows: m.BlockRows}}.resolved()
	if err != nil {
		return c, err
	}
	c.b = b
	switch {
	case m.M < 0 || m.M > n:
		return c, fmt.Errorf("model: falkon: %w: M = %d centers, want 0 (default) or 1 ≤ M ≤ n = %d", ErrInput, m.M, n)
	case m.M == 0:
		c.m = min(n, int(math.Ceil(5*math.Sqrt(float64(n)))))
	default:
		c.m = m.M
	}
	c.sampler = m.Sampler
	if c.sampler == nil {
		c.sampler = approx.Uniform{}
	}
	if err := m.Factor.validate(); err != nil {
		return c, fmt.Errorf("model: falkon: %w", err)
	}
	if m.Patience < 0 || m.Patience > 0 && m.Validation == nil {
		return c, fmt.Errorf("model: falkon: %w: Patience = %d, want ≥ 0, and Validation when positive", ErrInput, m.Patience)
	}
	c.passes = b.Engine
	c.passes.Float32 = m.Float32 || m.Float32Storage
	return c, nil
}

// falkonGiven are the centers, weights and starting coefficients given by
// the user (Centers and CenterWeights, or WarmStart); all nil when the
// centers are to be sampled.
type falkonGiven struct {
	centers mat.Matrix
	weights []float64
	alpha0  *mat.Dense
}

// givenCenters returns user-given or warm-start centers, weights and the
// starting coefficients, or nils.
func (m *Falkon) givenCenters(d, t int) (falkonGiven, error) {
	if m.WarmStart != nil {
		w := m.WarmStart
		if w.Centers == nil || w.Coef == nil {
			return falkonGiven{}, fmt.Errorf("model: falkon: %w: WarmStart without Centers or Coef", ErrInput)
		}
		if err := checkCenters(w.Centers, d); err != nil {
			return falkonGiven{}, fmt.Errorf("warm start centers: %w", err)
		}
		mc, _ := w.Centers.Dims()
		if r, c := w.Coef.Dims(); r != mc || c != t {
			return falkonGiven{}, fmt.Errorf("model: falkon: %w: WarmStart.Coef is %d×%d, want %d×%d", ErrInput, r, c, mc, t)
		}
		if err := check.Matrix("warm start coefficients", w.Coef); err != nil {
			return falkonGiven{}, err
		}
		return falkonGiven{w.Centers, m.CenterWeights, w.Coef}, nil
	}
	if m.Centers != nil {
		if err := checkCenters(m.Centers, d); err != nil {
			return falkonGiven{}, fmt.Errorf("centers: %w", err)
		}
		return falkonGiven{centers: m.Centers, weights: m.CenterWeights}, nil
	}
	return falkonGiven{}, nil
}

// centerShape is the shape of the centers a fit on x will hold: the given
// ones, or cfg.m sampled rows of x (sampledShape).
func (m *Falkon) centerShape(cfg falkonConfig, x mat.Matrix, given mat.Matrix) centerShape {
	if given != nil {
		return givenShape(cfg.k, given)
	}
	return sampledShape(cfg.k, x, cfg.m)
}

// plan is the memory plan of a fit with resolved cfg, centers of shape cs
// and t outputs: the builder's (centers, counted twice when given since
// they are copied, K_MM and the preconditioner, CG) plus the data, the
// engine's scratch of the K_nM passes and the validation passes; then what
// is kept of K_nM (keepPlan, or K_nM whole with its n×t product where the
// engine cannot keep blocks) when CacheKnm asks for it, else the split the
// passes are factored over (factorSplit; nil: not factored) with what
// factoring holds, else, unasked, K_nM's blocks kept at d ≥ autoKeepMinDim
// within keepRoom. It reports whether anything of K_nM is kept.
func (m *Falkon) plan(cfg falkonConfig, x mat.Matrix, cs centerShape, t int, given bool) (FalkonPlan, bool, *kernel.Split) {
	n, _ := x.Dims()
	n64, m64, t64 := int64(n), int64(cs.m), int64(t)
	stub := cs.stub()
	p := cfg.b.plan(cs, stub, t)
	if given {
		p.Centers *= 2
	}
	op := kernel.NewOp(cfg.k, x, stub, cfg.passes)
	p.Data = inputBytes(x) + cfg.inputCopy + bytesF64(n64*t64)
	if cfg.weighted {
		p.Data += bytesF64(n64) // the weights (falkonPasses.w)
	}
	p.Engine, p.BlockRows = op.ScratchBytes(t), op.BlockRows()
	if m.Validation != nil && m.Validation.X != nil {
		p.Validation = bytesF64(int64(m.Validation.X.RawMatrix().Rows)*t64) + op.ScratchBytes(t)
	}
	p.Total = p.Data + p.Centers + p.Precond + p.Engine + p.Solver + p.Validation
	if m.CacheKnm {
		if q, ok := keepPlan(p, op, cfg, t, m.MemoryLimit, false); ok {
			return q, true, nil
		}
		if cache := bytesF64(n64*m64 + n64*t64); m.MemoryLimit == 0 || p.Total+cache <= m.MemoryLimit {
			p.Cache = cache
			p.Total += cache
			return p, true, nil
		}
	}
	s := m.factorSplit(cfg, x)
	if s == nil {
		if _, d := x.Dims(); d >= autoKeepMinDim && !m.NeverCacheKnm {
			if q, ok := keepPlan(p, op, cfg, t, m.keepRoom(), true); ok {
				return q, true, nil
			}
		}
		return p, false, nil
	}
	f := p
	planFactored(&f, cfg, x, s, cs, t)
	if m.Factor == FactorAuto && m.MemoryLimit > 0 && f.Total > m.MemoryLimit && p.Total <= m.MemoryLimit {
		return p, false, nil // factoring would not fit the limit; the plain passes do
	}
	return f, false, s
}

// planFit plans the fit's memory before anything large is allocated: the
// operator itself holds no K_nM. A plan over MemoryLimit, or a sampler whose
// own plan is, fails with ErrMemory.
func (m *Falkon) planFit(ctx context.Context, cfg falkonConfig, x mat.Matrix, given falkonGiven, t int) (FalkonPlan, bool, *kernel.Split, error) {
	if err := ctx.Err(); err != nil {
		return FalkonPlan{}, false, nil, err
	}
	n, _ := x.Dims()
	plan, cache, split := m.plan(cfg, x, m.centerShape(cfg, x, given.centers), t, given.centers != nil)
	mc := cfg.m
	if given.centers != nil {
		mc, _ = given.centers.Dims()
	} else if err := checkSampler(cfg.sampler, x, mc, m.MemoryLimit); err != nil {
		return plan, false, nil, fmt.Errorf("model: falkon: %w", err)
	}
	err := checkMemory(fmt.Sprintf("falkon (n=%d, M=%d)", n, mc), plan.Total, m.MemoryLimit)
	return plan, cache, split, err
}

// centers takes the given centers or draws cfg.m of them with the sampler,
// its random source seeded from Seed.
func (m *Falkon) centers(ctx context.Context, cfg falkonConfig, x mat.Matrix, given falkonGiven) (FalkonCenters, error) {
	if given.centers != nil {
		return cfg.b.Given(given.centers, given.weights, m.CenterLambda)
	}
	rng := rand.New(rand.NewPCG(m.Seed, falkonSeedStream))
	return cfg.b.Sample(ctx, cfg.sampler, x, cfg.m, rng)
}

// checkValidation checks the validation set against d columns.
func (m *Falkon) checkValidation(d int) error {
	val := m.Validation
	if val == nil {
		return nil
	}
	if err := check.Cols(val.X, d); err != nil {
		return fmt.Errorf("validation: %w", err)
	}
	return check.Vector("validation y", val.Y, val.X.RawMatrix().Rows)
}

// fitTargets fits on x and the n×t targets (±1 columns for classes), the
// steps of FalkonBuilder with the passes on the kernel engine, and returns
// the fitted state (m is not written to); pr receives the iterations.
// inputCopy is the bytes of the caller's X when x is a float32 copy of it.
func (m *Falkon) fitTargets(ctx context.Context, pr *progressRun, x mat.Matrix, inputCopy int64, targets *mat.Dense, task Task, labels Labels, w []float64) (*falkonFit, error) {
	start := time.Now()
	n, d := x.Dims()
	_, t := targets.Dims()
	cfg, err := m.resolve(n, d)
	if err != nil {
		return nil, err
	}
	cfg.inputCopy = inputCopy
	cfg.weighted = w != nil
	if _, is32 := x.(*kernel.Dense32); is32 && m.PrecondPrecision == precond.PrecisionAuto {
		cfg.b.Precision = precond.PrecisionFloat32 // float32 data, as with Float32Storage
	}
	if err := m.checkValidation(d); err != nil {
		return nil, err
	}
	if cfg.passes.Float32 {
		if err := float32Range("X", x); err != nil {
			return nil, err
		}
		if m.Validation != nil {
			if err := float32Range("validation X", m.Validation.X); err != nil {
				return nil, err
			}
		}
	}
	given, err := m.givenCenters(d, t)
	if err != nil {
		return nil, err
	}
	plan, cache, split, err := m.planFit(ctx, cfg, x, given, t)
	if err != nil {
		return nil, err
	}
	info := FalkonInfo{N: n, D: d, Outputs: t, Lambda: m.Lambda, Penalty: m.Lambda * float64(n),
		Kernel: cfg.k.String(), Plan: plan, CachedKnm: cache}
	c, err := m.centers(ctx, cfg, x, given)
	if err != nil {
		return nil, err
	}
	info.SampleTime = time.Since(start)
	if err := setupDone(ctx, pr, StepCenters, 1); err != nil {
		return nil, err
	}

	t0 := time.Now()
	passes := &falkonPasses{cfg: cfg, x: x, centers: c.Points, op: kernel.NewOp(cfg.k, x, c.Points, cfg.passes), w: w}
	if split != nil {
		if passes.fact, err = kernel.NewFactored(cfg.k, x, c.Points, split, cfg.passes); err != nil {
			return nil, fmt.Errorf("model: falkon: %w", err)
		}
	}
	sys, err := cfg.b.Build(ctx, c, FalkonData{N: n, MulTMul: passes.mulTMul, ColSquares: passes.colSquares})
	if err != nil {
		return nil, err
	}
	sys.Describe(&info)
	if err := setupDone(ctx, pr, StepPreconditioner, 2); err != nil {
		return nil, err
	}
	t1 := time.Now()
	rhs, err := passes.rhs(ctx, targets, cache, plan.Cache)
	if err != nil {
		return nil, err
	}
	info.RHSTime = time.Since(t1)
	info.PrecondTime = time.Since(t0)
	if err := setupDone(ctx, pr, StepRHS, 3); err != nil {
		return nil, err
	}

	return m.solved(ctx, pr, cfg, c, sys, rhs, given.alpha0, fitState{start: start, task: task, labels: labels, t: t, d: d, info: info})
}

// setupDone reports the setup step done, the done-th of three, to pr; a
// callback's error stops the fit (the fit's context, cancelled by pr,
// carries it).
func setupDone(ctx context.Context, pr *progressRun, step string, done int) error {
	if pr.report(Progress{Stage: StageSetup, Step: step, Done: done, Total: 3, Residual: noValue, ValError: noValue}) != nil {
		return context.Cause(ctx)
	}
	return nil
}

// fitState is what a FALKON fit knows when its system is built: when it
// started, the task and labels, the outputs t, the dimension d and the
// Info so far.
type fitState struct {
	start  time.Time
	task   Task
	labels Labels
	t, d   int
	info   FalkonInfo
}

// solved runs PCG on sys from alpha0 (nil: zero) with the validation and
// progress monitor and wraps the coefficients as the fit: the last step of
// both Fit and FitShards.
func (m *Falkon) solved(ctx context.Context, pr *progressRun, cfg falkonConfig, c FalkonCenters, sys *FalkonSystem, rhs, alpha0 *mat.Dense, s fitState) (*falkonFit, error) {
	mon := m.monitor(cfg, c.Points, s.start, s.task, s.labels, s.t)
	mon.pr = pr
	t1 := time.Now()
	alpha, res, err := mon.solve(ctx, sys, rhs, alpha0)
	if err != nil {
		return nil, err
	}
	if pr.stopped() {
		return nil, context.Cause(ctx) // the callback's error, made ErrStopped by pr.finish
	}
	info := s.info
	info.SolveTime = time.Since(t1)
	info.Status, info.Iterations, info.Residual = res.Status, res.Iterations, res.Residual
	info.History, info.BestIteration = mon.history, mon.bestIteration()
	return &falkonFit{task: s.task, labels: s.labels, d: s.d, info: info,
		pred: &KernelExpansion{Kernel: cfg.k, Centers: c.Points, Coef: alpha, Workers: m.Workers}}, nil
}

// float32Input checks a dense x against y (nil: not checked) and returns
// it held in float32: a *kernel.Dense32 as it is, any other x rounded
// (kernel.Dense32Of), a value beyond float32's range being an error.
func float32Input(xIn mat.Matrix, y []float64) (*kernel.Dense32, error) {
	if x32, ok := xIn.(*kernel.Dense32); ok {
		if err := x32.CheckFinite("X"); err != nil {
			return nil, err
		}
		if n, _ := x32.Dims(); y != nil {
			return x32, check.Vector("y", y, n)
		}
		return x32, nil
	}
	xd := kernel.DenseOf(xIn)
	if y != nil {
		if err := check.XY(xd, y); err != nil {
			return nil, err
		}
	} else if err := check.Matrix("X", xd); err != nil {
		return nil, err
	}
	x32, err := kernel.Dense32Of(xd)
	if err != nil {
		return nil, err
	}
	return x32, x32.CheckFinite("X rounded to float32")
}

// float32Range refuses a dense float64 x (named what) holding a finite
// value that float32 passes (Falkon.Float32) would round to an infinity,
// as Float32Storage's copy does (kernel.Dense32Of): the passes' distances
// to such a row would be NaN, and the fit silently zero. Other matrices
// pass: a *kernel.Dense32 holds no such value, and sparse passes are not
// rounded.
func float32Range(what string, x mat.Matrix) error {
	xd, ok := x.(*mat.Dense)
	if !ok {
		return nil
	}
	if err := kernel.CheckFloat32Range(xd); err != nil {
		return fmt.Errorf("%s, which the Float32 passes round to float32: %w", what, err)
	}
	return nil
}

// copiedInput is the bytes of the caller's xIn that stay resident beside
// x, the float32 copy Fit made of it (0 when x is xIn).
func copiedInput(xIn, x mat.Matrix) int64 {
	if x32, ok := x.(*kernel.Dense32); ok && xIn != mat.Matrix(x32) {
		return inputBytes(xIn)
	}
	return 0
}

// falkonPasses runs a local fit's passes over the data on the kernel
// engine: K_nM's blocks recomputed at every pass, or K_nM cached.
type falkonPasses struct {
	cfg        falkonConfig
	x, centers mat.Matrix
	op         *kernel.Op       // the K_nM passes (Float32 when asked)
	fact       *kernel.Factored // the K_nM passes factored (Falkon.Factor), or nil
	knm, knmV  *mat.Dense       // cached K_nM and its product, when cached
	// w holds the sample weights (relativeWeights) of a weighted fit, nil
	// otherwise.
	w []float64
}

// mulTMul sets dst = K_nMᵀ(K_nM v), or K_nMᵀW(K_nM v) with weights.
func (p *falkonPasses) mulTMul(ctx context.Context, dst, v *mat.Dense) error {
	if p.w != nil {
		return p.mulTWMul(ctx, dst, v)
	}
	if p.fact != nil {
		return p.fact.MulTMul(ctx, dst, v)
	}
	if p.knm == nil {
		return p.op.MulTMul(ctx, dst, v)
	}
	return p.cachedMulTMul(ctx, dst, v, nil)
}

// cachedMulTMul sets dst = K_nMᵀW(K_nM v) on the cached K_nM (w nil: no
// weights) with the engine's GEMM (kernel.Dense: blocked, parallel, its
// sums in a fixed order whatever the workers). gonum's mat.Mul, used
// before, took 1.0–1.3 s for the two products of a random 60,000 × 1,225
// matrix (mnist's K_nM shape) with 10 columns, kernel.Dense 0.4 s (two
// runs each, a throwaway test; machine F, AVX2 EPYC).
func (p *falkonPasses) cachedMulTMul(ctx context.Context, dst, v *mat.Dense, w []float64) error {
	n, _ := p.knm.Dims()
	if _, t := v.Dims(); p.knmV == nil || p.knmV.RawMatrix().Cols != t {
		p.knmV = mat.NewDense(n, t, nil)
	}
	g := kernel.Dense{Workers: p.cfg.passes.Workers}
	if err := g.Gemm(ctx, false, false, 1, p.knm, v, 0, p.knmV); err != nil {
		return err
	}
	if w != nil {
		scaleRows(p.knmV, w)
	}
	return g.Gemm(ctx, true, false, 1, p.knm, p.knmV, 0, dst)
}

// mulTWMul sets dst = K_nMᵀW(K_nM v): the engine's fused pass with the
// weights (kernel.Op.MulTMulWeighted), or the cached K_nM's two products.
func (p *falkonPasses) mulTWMul(ctx context.Context, dst, v *mat.Dense) error {
	switch {
	case p.fact != nil:
		return p.fact.MulTMulWeighted(ctx, dst, v, p.w)
	case p.knm == nil:
		return p.op.MulTMulWeighted(ctx, dst, v, p.w)
	}
	return p.cachedMulTMul(ctx, dst, v, p.w)
}

// rhs caches K_nM when cache is set and returns K_nMᵀY: the engine keeps
// keepBytes of its blocks (Op.Keep64, or Op.Keep32 with float32 passes);
// where it cannot (the portable path, sparse centers) K_nM is formed whole,
// its products then on the engine's GEMM.
func (p *falkonPasses) rhs(ctx context.Context, targets *mat.Dense, cache bool, keepBytes int64) (*mat.Dense, error) {
	n, _ := p.x.Dims()
	mc, _ := p.centers.Dims()
	if cache {
		keep := p.op.Keep64
		if p.cfg.passes.Float32 {
			keep = p.op.Keep32
		}
		rows, err := keep(ctx, keepBytes)
		if err != nil {
			return nil, err
		}
		if rows == 0 {
			p.knm = mat.NewDense(n, mc, nil)
			if err := p.op.Block(ctx, p.knm); err != nil {
				return nil, err
			}
		}
	}
	_, t := targets.Dims()
	b := mat.NewDense(mc, t, nil)
	if p.w != nil { // K_nMᵀWY
		targets = mat.DenseCopyOf(targets)
		scaleRows(targets, p.w)
	}
	if p.knm != nil {
		return b, kernel.Dense{Workers: p.cfg.passes.Workers}.Gemm(ctx, true, false, 1, p.knm, targets, 0, b)
	}
	if p.fact != nil {
		return b, p.fact.MulT(ctx, b, targets)
	}
	return b, p.op.MulT(ctx, b, targets)
}

// colSquares computes Σᵢ w_i k(xᵢ, c_j)² (w_i = 1 without weights) in chunks of rows, for the Jacobi
// preconditioner's diag(H): one extra pass over the data.
func (p *falkonPasses) colSquares(ctx context.Context) ([]float64, error) {
	n, _ := p.x.Dims()
	mc, _ := p.centers.Dims()
	diag := make([]float64, mc)
	chunk := max(1, min(n, (8<<20)/(8*mc))) // 8 MiB of K at a time
	buf := make([]float64, chunk*mc)
	for r0 := 0; r0 < n; r0 += chunk {
		r1 := min(n, r0+chunk)
		kb := mat.NewDense(r1-r0, mc, buf[:(r1-r0)*mc])
		if err := kernel.NewOp(p.cfg.k, rowRange(p.x, r0, r1), p.centers, p.cfg.b.Engine).Block(ctx, kb); err != nil {
			return nil, err
		}
		for i := 0; i < r1-r0; i++ {
			wi := 1.0
			if p.w != nil {
				wi = p.w[r0+i]
			}
			for j, v := range kb.RawRowView(i) {
				diag[j] += wi * v * v
			}
		}
	}
	return diag, nil
}

// falkonMonitor follows a local fit's iterations: its history, the
// validation error, the Patience rule (keeping the best iterate) and the
// Progress callback.
type falkonMonitor struct {
	m       *Falkon
	pr      *progressRun
	maxIter int
	start   time.Time
	task    Task
	labels  Labels
	val     *ValidationSet
	valOp   *kernel.Op
	valDec  *mat.Dense
	history []FalkonIteration
	err     error // a validation pass's error, which stopped the solve

	best    *mat.Dense // Patience: the best iterate so far
	bestErr float64
	bestIt  int
	plateau bool
}

// monitor returns the monitor of a fit on centers with t outputs.
func (m *Falkon) monitor(cfg falkonConfig, centers mat.Matrix, start time.Time, task Task, labels Labels, t int) *falkonMonitor {
	mon := &falkonMonitor{m: m, start: start, task: task, labels: labels, bestErr: math.Inf(1), maxIter: cfg.b.MaxIter}
	if val := m.Validation; val != nil {
		mon.val = val
		mon.valOp = kernel.NewOp(cfg.k, val.X, centers, cfg.passes)
		mon.valDec = mat.NewDense(val.X.RawMatrix().Rows, t, nil)
	}
	return mon
}

// solve runs PCG from alpha0 (nil: zero) and returns the coefficients: the
// last iterate, or the best one when the Patience rule stopped the fit.
func (mon *falkonMonitor) solve(ctx context.Context, sys *FalkonSystem, rhs, alpha0 *mat.Dense) (*mat.Dense, solver.Result, error) {
	_, t := rhs.Dims()
	alpha := mat.NewDense(sys.Centers.M(), t, nil)
	if alpha0 != nil {
		alpha.Copy(alpha0)
	}
	if mon.m.Patience > 0 {
		mon.best = mat.DenseCopyOf(alpha)
	}
	res, err := sys.Solve(ctx, rhs, alpha, func(p solver.Progress) bool { return mon.step(ctx, p) })
	if err == nil {
		err = mon.err
	}
	if err != nil {
		return nil, res, err
	}
	if mon.plateau {
		alpha.Copy(mon.best)
	}
	return alpha, res, nil
}

// step is the solver's callback after every iteration.
func (mon *falkonMonitor) step(ctx context.Context, p solver.Progress) bool {
	it := FalkonIteration{Iteration: p.Iteration, Residual: p.Residual, ValError: math.NaN()}
	if mon.valOp != nil {
		if err := mon.valOp.Mul(ctx, mon.valDec, p.X); err != nil {
			mon.err = err
			return false
		}
		it.ValError = falkonError(mon.valDec, mon.val.Y, mon.task, mon.labels)
	}
	it.Elapsed = time.Since(mon.start)
	mon.history = append(mon.history, it)
	if mon.best != nil {
		if it.ValError < mon.bestErr {
			mon.bestErr, mon.bestIt = it.ValError, it.Iteration
			mon.best.Copy(p.X)
		} else if it.Iteration-mon.bestIt >= mon.m.Patience {
			mon.plateau = true
		}
	}
	if mon.pr.report(Progress{Stage: StageIteration, Done: it.Iteration, Total: mon.maxIter, Residual: it.Residual, ValError: it.ValError}) != nil {
		return false
	}
	return !mon.plateau
}

// bestIteration is the iteration whose coefficients were kept when the
// Patience rule stopped the fit, 0 otherwise.
func (mon *falkonMonitor) bestIteration() int {
	if mon.plateau {
		return mon.bestIt
	}
	return 0
}

// falkonError is the RMSE (regression, first output) or the misclassified
// fraction (classification) of decision values against y.
func falkonError(dec *mat.Dense, y []float64, task Task, labels Labels) float64 {
	if task == Classification {
		pred := labels.decode(dec)
		wrong := 0
		for i, v := range pred {
			if v != y[i] {
				wrong++
			}
		}
		return float64(wrong) / float64(len(y))
	}
	var s float64
	for i, v := range y {
		e := dec.At(i, 0) - v
		s += e * e
	}
	return math.Sqrt(s / float64(len(y)))
}
