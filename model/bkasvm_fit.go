package model

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// Fit partitions x, solves the per-cluster duals and collects the support
// vectors. A failed Fit keeps the previous model.
//
// Sparse x (kernel.Sparse) stays sparse: k-means runs on the sparse rows
// with dense centroids, and each cluster's kernel columns come from its
// sparse rows, as in SVM.
func (b *BKASVM) Fit(ctx context.Context, xIn mat.Matrix, y []float64) (err error) {
	defer named(&err, "bka-svm")
	if err := checkContext(ctx, "bka-svm"); err != nil {
		return err
	}
	ctx, pr := startProgress(ctx, b.Progress)
	f, err := b.train(ctx, pr, xIn, y)
	if err = pr.finish(err, "bka-svm"); err != nil {
		return err
	}
	b.fit = f
	return nil
}

// bkaRun is one BKASVM fit: the validated data, the resolved configuration
// and the binary sub-problems.
type bkaRun struct {
	b      *BKASVM
	pr     *progressRun
	x      mat.Matrix
	n, d   int
	dm     int // d, or the sparse rows' equivalent, for memory plans
	cfg    svmConfig
	k      int // clusters
	labels Labels
	cls    []int
	tasks  []svmTask
	// centroids and scatter are planned bytes held beside the solves; left
	// is what the solves may take of MemoryLimit (0: no limit).
	centroids, scatter, left int64
}

// train is Fit without the context check and the final assignment.
func (b *BKASVM) train(ctx context.Context, pr *progressRun, xIn mat.Matrix, y []float64) (*bkaFit, error) {
	r, err := b.setup(xIn, y)
	if err != nil {
		return nil, err
	}
	r.pr = pr
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.planBeforeClustering(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(b.Seed, 0x6b61))
	part, err := cluster.KMeans{K: r.k, Sketch: b.Sketch, Subsample: b.KMeansSubsample}.Fit(ctx, r.x, rng)
	if err != nil {
		return nil, fmt.Errorf("model: bka-svm partition: %w", err)
	}
	parts, infos, err := r.solve(ctx, part, r.tasks)
	if err != nil {
		return nil, err
	}
	f := &bkaFit{labels: r.labels, ovo: r.cfg.ovo && len(r.labels.Classes) > 2, d: r.d, part: part, ntasks: len(r.tasks)}
	f.info.Tasks, f.info.Refined = infos, b.Refine
	f.info.ClusterSizes = make([]int, r.k)
	for _, l := range part.Labels {
		f.info.ClusterSizes[l]++
	}
	f.global, f.local = bkaDecisions(r.cfg, r.x, parts, part, r.k)
	if !f.global.empty {
		f.info.SV, _ = f.global.sv.Dims()
	}
	if b.Probability {
		local, _ := b.local()
		if f.platt, err = r.platt(ctx, part, local); err != nil {
			return nil, fmt.Errorf("model: bka-svm probability: %w", err)
		}
		f.plattLocal = local
	}
	return f, nil
}

// setup validates the data and the configuration.
func (b *BKASVM) setup(xIn mat.Matrix, y []float64) (*bkaRun, error) {
	x, err := exactInput(xIn, y, 0)
	if err != nil {
		return nil, err
	}
	if err := b.Resources.validate("bka-svm"); err != nil {
		return nil, err
	}
	if err := refusePrecomputed(b.Kernel, "bka-svm"); err != nil {
		return nil, err
	}
	r := &bkaRun{b: b, x: x, dm: dataBytesPerRow(x)}
	r.n, r.d = x.Dims()
	if r.cfg, err = resolveSVM(b.Kernel, b.C, b.ClassWeights, b.Multiclass, b.Tol, b.MaxIter, b.CacheBytes, r.d); err != nil {
		return nil, err
	}
	r.cfg.noShrink = b.NoShrinking
	r.cfg.workers = parallel.Workers(b.Workers)
	r.k = b.Clusters
	if r.k == 0 {
		r.k = min(DefaultBKAClusters, r.n)
	}
	if r.k < 1 || r.k > r.n {
		return nil, fmt.Errorf("%w: Clusters = %d, want 1 ≤ Clusters ≤ n = %d", ErrInput, r.k, r.n)
	}
	if _, err := b.local(); err != nil {
		return nil, err
	}
	if r.labels, err = NewLabels(y); err != nil {
		return nil, fmt.Errorf("model: bka-svm: %w", err)
	}
	if err := r.cfg.checkWeights(r.labels); err != nil {
		return nil, err
	}
	r.cls = classIndex(r.labels, y)
	r.tasks = svmTasks(r.labels, r.cls, r.cfg.ovo)
	return r, nil
}

// planBeforeClustering checks what the fit keeps whatever the clusters
// (bkaSVMPlan's kept bytes) and k-means's own plan before clustering.
// k-means keeps dense centroids, K×d whatever the form of x (wide sparse
// data included), and the fit keeps them (the partition) to the end,
// beside the solves and their scatter vectors (sparse x with a kernel that
// needs them). The solves are bounded before clustering by planning each
// task as one cluster: a task's clusters partition its rows and a solve's
// state is linear in its rows, so the tasks that could run at once hold at
// least the state of any clusters that run at once. This check, not the
// one after clustering, is then what refuses a cap too small, before
// k-means allocates its K×d centroids.
func (r *bkaRun) planBeforeClustering() error {
	b := r.b
	km := cluster.KMeans{K: r.k, Sketch: b.Sketch, Subsample: b.KMeansSubsample}
	r.centroids = 8 * int64(r.k) * int64(r.d)
	r.scatter = scatterPlan(r.cfg.k, r.x, r.cfg.workers)
	r.left = b.MemoryLimit
	if r.left > 0 {
		r.left = max(1, r.left-r.centroids-r.scatter)
	}
	solves, _ := bkaSVMPlan(r.n, r.dm, r.taskSizes(r.tasks), r.taskSizes(r.tasks), r.cfg.workers, b.Refine, r.cfg.cacheBytes, b.CacheBytes > 0, r.left)
	return checkMemory(fmt.Sprintf("bka-svm before clustering (n=%d, d=%d)", r.n, r.d),
		max(solves+r.centroids+r.scatter, km.PlanFor(r.x)), b.MemoryLimit)
}

func (r *bkaRun) taskSizes(tasks []svmTask) []int {
	s := make([]int, len(tasks))
	for i, t := range tasks {
		s[i] = len(t.rows)
	}
	return s
}

// bkaJob is one cluster problem of a task: positions in the task's rows.
type bkaJob struct {
	task int
	loc  []int
}

// bkaJobs lists one job per (task, non-empty cluster), in a fixed order.
func bkaJobs(tasks []svmTask, part *cluster.Partition, k int) []bkaJob {
	var jobs []bkaJob
	for ti, t := range tasks {
		byCluster := make([][]int, k)
		for r, i := range t.rows {
			byCluster[part.Labels[i]] = append(byCluster[part.Labels[i]], r)
		}
		for _, loc := range byCluster {
			if len(loc) > 0 {
				jobs = append(jobs, bkaJob{ti, loc})
			}
		}
	}
	return jobs
}

// solve solves the cluster problems of tasks on partition part, then, with
// Refine, the exact no-bias problems from the concatenated α. It returns
// the solution of each task and its description: Objective, SV, BoundedSV
// and Iterations summed over the clusters, Status SVMMaxIter if any cluster
// hit the cap (the exact solve's values after Refine).
func (r *bkaRun) solve(ctx context.Context, part *cluster.Partition, tasks []svmTask) ([]svmPart, []SVMTaskInfo, error) {
	cfg := r.cfg
	jobs := bkaJobs(tasks, part, r.k)
	bounds := make([][]float64, len(tasks))
	for ti, t := range tasks {
		bounds[ti] = cfg.bounds(r.labels, r.cls, t, nil)
	}
	jobSizes := make([]int, len(jobs))
	for j, jb := range jobs {
		jobSizes[j] = len(jb.loc)
	}
	need, cache := bkaSVMPlan(r.n, r.dm, jobSizes, r.taskSizes(tasks), cfg.workers, r.b.Refine, cfg.cacheBytes, r.b.CacheBytes > 0, r.left)
	need += r.centroids + r.scatter
	if err := checkMemory(fmt.Sprintf("bka-svm (n=%d, d=%d, %d cluster problems, %d at once, cache %s)", r.n, r.d, len(jobs), cfg.workers, formatBytes(cache)), need, r.b.MemoryLimit); err != nil {
		return nil, nil, err
	}
	cfg.cacheBytes = max(cache, 1)
	results, err := r.solveJobs(ctx, cfg, tasks, jobs, bounds)
	if err != nil {
		return nil, nil, err
	}
	infos := make([]SVMTaskInfo, len(tasks))
	parts := make([]svmPart, len(tasks))
	for ti, t := range tasks {
		infos[ti] = taskInfo(r.labels, t, &solver.SVMResult{})
		parts[ti] = svmPart{rows: t.rows, y: t.y, alpha: make([]float64, len(t.rows))}
	}
	for j, jb := range jobs {
		res := results[j]
		for q, l := range jb.loc {
			parts[jb.task].alpha[l] = res.Alpha[q]
		}
		ti := &infos[jb.task]
		ti.Objective += res.Objective
		ti.SV += res.SV
		ti.BoundedSV += res.BoundedSV
		ti.Iterations += res.Iterations
		ti.Violation = max(ti.Violation, res.Violation)
		if res.Status == solver.SVMMaxIter {
			ti.Status = solver.SVMMaxIter
		}
	}
	if !r.b.Refine {
		return parts, infos, nil
	}
	for ti, t := range tasks {
		prob := solver.SVMProblem{K: newKernelColumns(cfg.k, taskRows(r.x, t.rows), cfg.workers), Y: t.y, C: bounds[ti]}
		res, err := solver.SolveDCD(ctx, prob, cfg.options(parts[ti].alpha))
		if err != nil {
			return nil, nil, fmt.Errorf("model: bka-svm refinement of task %d: %w", ti, err)
		}
		parts[ti].alpha = res.Alpha
		infos[ti] = taskInfo(r.labels, t, res)
		if err := r.pr.report(Progress{Stage: StageTask, Task: ti, Done: ti + 1, Total: len(tasks), Residual: res.Violation, ValError: noValue}); err != nil {
			return nil, nil, err
		}
	}
	return parts, infos, nil
}

// solveJobs solves the cluster problems, by the Solver when set, else in
// parallel, cfg.workers at a time sharing cfg.cacheBytes.
func (r *bkaRun) solveJobs(ctx context.Context, cfg svmConfig, tasks []svmTask, jobs []bkaJob, bounds [][]float64) ([]*solver.SVMResult, error) {
	perCache := max(cfg.cacheBytes/int64(cfg.workers), 1)
	if r.b.Solver != nil {
		probs := make([]BKAProblem, len(jobs))
		for j, jb := range jobs {
			t := tasks[jb.task]
			p := BKAProblem{Rows: len(jb.loc), D: r.d, Tol: cfg.tol, MaxIter: cfg.maxIter, CacheBytes: perCache, NoShrinking: cfg.noShrink}
			for _, l := range jb.loc {
				p.X = appendRow(p.X, r.x, t.rows[l])
				p.Y = append(p.Y, t.y[l])
				p.C = append(p.C, bounds[jb.task][l])
			}
			probs[j] = p
		}
		res, err := r.b.Solver(ctx, cfg.k, probs)
		if err != nil {
			return nil, fmt.Errorf("model: bka-svm cluster problems: %w", err)
		}
		if len(res) != len(jobs) {
			return nil, fmt.Errorf("model: bka-svm: solver returned %d results for %d problems", len(res), len(jobs))
		}
		if err := r.pr.report(Progress{Stage: StageCluster, Done: len(jobs), Total: len(jobs), Residual: noValue, ValError: noValue}); err != nil {
			return nil, err
		}
		return res, nil
	}
	results := make([]*solver.SVMResult, len(jobs))
	done := 0 // guarded by r.pr's lock through report
	err := parallel.ForErr(ctx, len(jobs), cfg.workers, func(_, j int) error {
		jb := jobs[j]
		t := tasks[jb.task]
		rows := make([]int, len(jb.loc))
		yy := make([]float64, len(jb.loc))
		cc := make([]float64, len(jb.loc))
		for q, l := range jb.loc {
			rows[q], yy[q], cc[q] = t.rows[l], t.y[l], bounds[jb.task][l]
		}
		opt := cfg.options(nil)
		opt.CacheBytes = perCache
		prob := solver.SVMProblem{K: newKernelColumns(cfg.k, pickRows(r.x, rows), 1), Y: yy, C: cc}
		var err error
		if results[j], err = solver.SolveDCD(ctx, prob, opt); err != nil {
			return fmt.Errorf("model: bka-svm cluster problem %d: %w", j, err)
		}
		return r.pr.reportCount(&done, Progress{Stage: StageCluster, Total: len(jobs), Residual: noValue, ValError: noValue})
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// bkaDecisions builds the global decision function over all support
// vectors and one local decision per cluster (nil when the cluster has no
// support vector). Both prediction modes are kept, so that Prediction can
// be changed after Fit; the local models hold each support vector a second
// time.
func bkaDecisions(cfg svmConfig, x mat.Matrix, parts []svmPart, part *cluster.Partition, k int) (*svmDecision, []*svmDecision) {
	global := newSVMDecision(cfg.k, x, parts, cfg.workers)
	local := make([]*svmDecision, k)
	for s := range k {
		sub := make([]svmPart, len(parts))
		any := false
		for ti, p := range parts {
			var q svmPart
			for r, i := range p.rows {
				if part.Labels[i] == s {
					q.rows = append(q.rows, i)
					q.y = append(q.y, p.y[r])
					q.alpha = append(q.alpha, p.alpha[r])
					any = any || p.alpha[r] > 0
				}
			}
			sub[ti] = q
		}
		if any {
			local[s] = newSVMDecision(cfg.k, x, sub, 1)
		}
	}
	return global, local
}
