package model

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// FitShards fits on the sharded data set whose manifest (package
// datasets/shard, written by `landmark data shard`) is at manifestPath,
// a local file, without holding X: every pass over the data streams the
// shards from storage in blocks of rows, one block read ahead of the
// kernel products, so the fit's memory is the centers, K_MM and the
// preconditioner's M×M factors, the CG vectors and a few row blocks — not
// n (FitShardSet has the details). The rows are used as stored; to
// standardize them on read with the manifest's statistics, call
// FitShardSet with the set's Mean and Std.
//
// The fit solves the system Fit solves: the same builder (FalkonBuilder),
// preconditioner and CG, each product K_nMᵀ(K_nM v) summed over the
// shards in increasing order. It equals beamfit.Falkon's fit on the same
// shards, centers and options bit for bit (one copy of the passes,
// ShardPass, and of the center draw, FalkonBuilder.SampleShards), and Fit
// on the same rows and centers up to round-off: with one shard of at most
// ShardBlockRows(d) rows the products are the engine's own and the fits
// are identical; otherwise each product adds the same terms grouped by
// blocks and shards, a difference of order (blocks + shards + 32)·u·Σ|terms|
// per entry that PCG carries through the iterations (TestFitShardsMatchesFit
// measures it).
//
// The centers are drawn over the global row indices from Seed (SampleShards:
// uniform by Floyd's algorithm, or BLESS on a uniform sub-sample of
// DefaultShardSubsample rows), so they do not depend on the sharding; they
// are not the rows Fit draws for the same Seed. Centers, CenterWeights,
// CenterLambda and WarmStart give them as in Fit. The task is the
// manifest's (Task, when set, must agree). Options that need X in memory —
// Probability (cross-validated refits) and CacheKnm — are refused with
// ErrInput, as are ClassWeights (the streamed passes do not weigh rows) and
// samplers other than uniform and BLESS.
//
// Progress receives a StagePass report after every pass (rows and bytes
// read, rows/s and MB/s) besides the StageIteration reports. A failed
// FitShards keeps the previous model.
func (m *Falkon) FitShards(ctx context.Context, manifestPath string) (err error) {
	defer named(&err, "falkon")
	if err := checkContext(ctx, "falkon"); err != nil {
		return err
	}
	set, err := openShards(manifestPath)
	if err != nil {
		return err
	}
	return m.FitShardSet(ctx, set)
}

// FitShardSet is FitShards on a ShardSet: shards opened by set.Open (nil:
// local files), rows standardized on read when set.Mean and set.Std are set
// (the fitted model then expects standardized rows), and blocks of
// set.BlockRows rows.
//
// Memory (Info().Plan, checked against MemoryLimit before anything large
// is allocated, ErrMemory when over): Centers, Precond and Solver as in
// Fit; Data is what the reader holds instead of X — two blocks of rows
// with their targets (float64 after decoding) and its byte buffers — plus
// the BLESS sub-sample's rows; none of it grows with n or the shards'
// sizes. Engine is the kernel
// engine's scratch for one block and the M×t partial sums. Float32 shards
// halve the bytes read, not the plan.
func (m *Falkon) FitShardSet(ctx context.Context, set *ShardSet) (err error) {
	defer named(&err, "falkon")
	defer indefinite(&err, m.Kernel)
	if err := checkContext(ctx, "falkon"); err != nil {
		return err
	}
	if err := set.check(); err != nil {
		return err
	}
	switch {
	case m.Probability:
		return fmt.Errorf("%w: Probability needs cross-validated refits on data in memory; fit on shards without it", ErrInput)
	case m.CacheKnm:
		return fmt.Errorf("%w: CacheKnm keeps K_nM in memory, which a fit on shards does not; leave it off", ErrInput)
	case m.ClassWeights != nil:
		return fmt.Errorf("%w: ClassWeights: the passes over shards do not weigh rows; fit with the data in memory (Fit) to weigh classes", ErrInput)
	}
	task, labels, err := m.shardTask(set.Manifest)
	if err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, m.Progress)
	f, err := m.fitShards(ctx, pr, set, task, labels)
	if err = pr.finish(err, "falkon"); err != nil {
		return err
	}
	m.fit = f
	return nil
}

// shardTask is the fit's task and labels: the manifest's, which Task, when
// set, must agree with.
func (m *Falkon) shardTask(man *shard.Manifest) (Task, Labels, error) {
	task := Regression
	if man.Task == "classification" {
		task = Classification
	}
	if m.Task != "" {
		t, err := m.Task.resolve()
		if err != nil {
			return "", Labels{}, err
		}
		if t != task {
			return "", Labels{}, fmt.Errorf("%w: Task is %s, the manifest's task %s", ErrInput, t, man.Task)
		}
	}
	if task == Regression {
		return task, Labels{}, nil
	}
	c := man.Classes
	if len(c) < 2 || !slices.IsSorted(c) || len(slices.Compact(slices.Clone(c))) != len(c) {
		return "", Labels{}, fmt.Errorf("%w: manifest classes %v, want at least two, ascending and distinct", ErrInput, c)
	}
	return task, Labels{Classes: slices.Clone(c)}, nil
}

// fitShards is fitTargets with the passes streamed from set.
func (m *Falkon) fitShards(ctx context.Context, pr *progressRun, set *ShardSet, task Task, labels Labels) (*falkonFit, error) {
	start := time.Now()
	man := set.Manifest
	n, d := man.N, man.D
	t := 1
	if task == Classification {
		t = labels.Outputs()
	}
	cfg, err := m.resolve(n, d)
	if err != nil {
		return nil, err
	}
	if err := m.checkValidation(d); err != nil {
		return nil, err
	}
	given, err := m.givenCenters(d, t)
	if err != nil {
		return nil, err
	}
	bless, blessLambda, err := BLESSSampler(m.Sampler)
	if err != nil {
		return nil, err
	}
	plan, err := m.planShards(ctx, cfg, set, given, t, bless != nil, blessLambda)
	if err != nil {
		return nil, err
	}
	info := FalkonInfo{N: n, D: d, Outputs: t, Lambda: m.Lambda, Penalty: m.Lambda * float64(n),
		Kernel: cfg.k.String(), Plan: plan}
	var c FalkonCenters
	if given.centers != nil {
		c, err = cfg.b.Given(given.centers, given.weights, m.CenterLambda)
	} else {
		var sc ShardCenters
		sc, err = cfg.b.SampleShards(ctx, set, m.Sampler, cfg.m, 0, m.Seed)
		c = sc.FalkonCenters
	}
	if err != nil {
		return nil, err
	}
	info.SampleTime = time.Since(start)

	t0 := time.Now()
	sp := &ShardPass{Set: set, Kernel: cfg.k, Centers: c.Points, Engine: cfg.passes}
	passes := &shardPasses{pass: sp, pr: pr, total: cfg.b.MaxIter + 1}
	if cfg.b.Preconditioner == PrecondJacobi {
		passes.total++
	}
	data := FalkonData{N: n, MulTMul: passes.mulTMul, ColSquares: func(ctx context.Context) ([]float64, error) {
		// diag(H) in float64, as Fit forms it (cfg.b.Engine).
		sq := *sp
		sq.Engine = cfg.b.Engine
		sum, st, err := sq.Pass(ctx, ShardColSquares, nil)
		if err == nil {
			err = passes.report(st)
		}
		return sum, err
	}}
	sys, err := cfg.b.Build(ctx, c, data)
	if err != nil {
		return nil, err
	}
	sys.Describe(&info)
	mc := c.M()
	t1 := time.Now()
	sum, st, err := sp.Pass(ctx, ShardMulT, nil)
	if err != nil {
		return nil, err
	}
	if err := passes.report(st); err != nil {
		return nil, err
	}
	rhs := mat.NewDense(mc, t, sum)
	info.RHSTime = time.Since(t1)
	info.PrecondTime = time.Since(t0)

	return m.solved(ctx, pr, cfg, c, sys, rhs, given.alpha0, fitState{start: start, task: task, labels: labels, t: t, d: d, info: info})
}

// shardPasses runs FitShards's CG passes and reports them.
type shardPasses struct {
	pass  *ShardPass
	pr    *progressRun
	done  int
	total int
}

// mulTMul sets dst = K_nMᵀ(K_nM v), summed over the shards in order.
func (p *shardPasses) mulTMul(ctx context.Context, dst, v *mat.Dense) error {
	sum, st, err := p.pass.Pass(ctx, ShardMulTMul, v)
	if err != nil {
		return err
	}
	_, t := v.Dims()
	for i := range dst.RawMatrix().Rows {
		copy(dst.RawRowView(i), sum[i*t:(i+1)*t])
	}
	return p.report(st)
}

// report sends a StagePass report of the pass st describes.
func (p *shardPasses) report(st PassStats) error {
	p.done++
	return p.pr.report(Progress{Stage: StagePass, Done: p.done, Total: p.total, Residual: noValue, ValError: noValue,
		Rows: st.Rows, Bytes: st.Bytes, PassTime: st.Wall, IOWait: st.Wait, RowsPerSec: st.RowsPerSec(), MBPerSec: st.MBPerSec()})
}

// PlanShards returns the memory plan FitShards would follow on the set
// whose manifest is at manifestPath (see FitShardSet), without reading a
// shard or allocating anything large; with ErrMemory when it exceeds
// MemoryLimit. Compare it with Plan's Data term (n·d·8 bytes of X in
// memory) to choose between Fit and FitShards.
func (m *Falkon) PlanShards(manifestPath string) (_ FalkonPlan, err error) {
	defer named(&err, "falkon")
	set, err := openShards(manifestPath)
	if err != nil {
		return FalkonPlan{}, err
	}
	task, labels, err := m.shardTask(set.Manifest)
	if err != nil {
		return FalkonPlan{}, err
	}
	t := 1
	if task == Classification {
		t = labels.Outputs()
	}
	cfg, err := m.resolve(set.Manifest.N, set.Manifest.D)
	if err != nil {
		return FalkonPlan{}, err
	}
	given, err := m.givenCenters(set.Manifest.D, t)
	if err != nil {
		return FalkonPlan{}, err
	}
	bless, blessLambda, err := BLESSSampler(m.Sampler)
	if err != nil {
		return FalkonPlan{}, err
	}
	return m.planShards(context.Background(), cfg, set, given, t, bless != nil, blessLambda)
}

// planShards is FitShardSet's memory plan (see there), checked against
// MemoryLimit.
func (m *Falkon) planShards(ctx context.Context, cfg falkonConfig, set *ShardSet, given falkonGiven, t int, bless bool, blessLambda float64) (FalkonPlan, error) {
	if err := ctx.Err(); err != nil {
		return FalkonPlan{}, err
	}
	man := set.Manifest
	n, d := man.N, man.D
	var cs centerShape
	mc := cfg.m
	if given.centers != nil {
		cs = givenShape(cfg.k, given.centers)
		mc = cs.m
	} else {
		cs = centerShape{m: cfg.m, d: d}
	}
	maxRows := 0
	for _, e := range man.Shards {
		maxRows = max(maxRows, e.Rows)
	}
	b := min(set.blockRows(), maxRows)
	b64, d64, t64, m64 := int64(b), int64(d), int64(t), int64(mc)
	stub := cs.stub()
	p := cfg.b.plan(cs, stub, t)
	if given.centers != nil {
		p.Centers *= 2
	}
	// The reader: two blocks of rows and targets, its decode buffer (1 MiB)
	// and buffered reader (64 KiB); for a float64 shard's targets, a second
	// buffered reader and a block's bytes.
	p.Data = bytesF64(2*b64*(d64+1)) + 1<<20 + 1<<16
	if man.Type != shard.Float32 {
		p.Data += 1<<16 + 8*b64
	}
	if bless && given.centers == nil {
		p.Data += bytesF64(int64(DefaultShardSubsample(n, d, mc, cfg.k, blessLambda)) * d64)
	}
	op := kernel.NewOp(cfg.k, mat.NewDense(b, d, nil), stub, cfg.passes)
	// A block's product, the shard's sum and the pass's total (M×t each),
	// the block's targets, and the jacobi pass's chunk of K.
	p.Engine, p.BlockRows = op.ScratchBytes(t)+bytesF64(3*m64*t64+b64*t64), op.BlockRows()
	if cfg.b.Preconditioner == PrecondJacobi {
		p.Engine += gramChunkBytes
	}
	if m.Validation != nil && m.Validation.X != nil {
		p.Validation = bytesF64(int64(m.Validation.X.RawMatrix().Rows)*t64) + op.ScratchBytes(t)
	}
	p.Total = p.Data + p.Centers + p.Precond + p.Engine + p.Solver + p.Validation
	return p, checkMemory(fmt.Sprintf("falkon on shards (n=%d, M=%d)", n, mc), p.Total, m.MemoryLimit)
}
