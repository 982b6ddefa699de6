package model

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// Prediction modes of BKASVM.
const (
	// GlobalPrediction evaluates f(x) = Σ α_i y_i K(x, x_i) over the support
	// vectors of all clusters (Si, Hsieh & Dhillon, JMLR 2017, eq. 9). With
	// Refine it is the exact no-bias SVM's decision function; without it the
	// cross-cluster terms, which training never saw, add a bias (ijcnn1,
	// 64 clusters: 96.26% against 98.66% local; docs/performance.md, "Kernel SVM").
	GlobalPrediction = "global"
	// LocalPrediction assigns x to its nearest cluster and sums over that
	// cluster's support vectors only (DC-SVM's early prediction). It is the
	// default: it matched the paper's BKA-SVM accuracy on ijcnn1 and covtype
	// and predicts 15–70× faster than GlobalPrediction.
	LocalPrediction = "local"
)

// DefaultBKAClusters is the default number of clusters of BKASVM, the value
// of the paper's Table 2.
const DefaultBKAClusters = 64

// BKASVM is the block kernel approximation SVM of Si, Hsieh & Dhillon
// (Memory Efficient Kernel Approximation, JMLR 18, 2017, Sect. 4.2): the
// training set is partitioned into c clusters by k-means (approx.KMeans, or
// its randomized-projection variant with Sketch > 0); the kernel is replaced by
// its block-diagonal part, so the SVM dual without bias splits into one
// independent problem per cluster,
//
//	min ½α_sᵀQ_sα_s − eᵀα_s,  0 ≤ α_s ≤ C·w,  Q_s = y_sy_sᵀ∘K(X_s, X_s),
//
// solved in parallel by dual coordinate descent (solver.SolveDCD). The
// concatenated α predicts globally, f(x) = Σ_i α_i y_i K(x, x_i) (eq. 9), or
// locally with the cluster of x only. With Refine the exact no-bias problem
// over all points is then solved starting from the concatenated α, which is
// the conquer step of DC-SVM (Hsieh, Si & Dhillon, ICML 2014).
//
// Multi-class problems are split as for SVM (one-vs-one by default), all
// sub-problems sharing one partition. Units and defaults are those of SVM;
// the zero value of every field means its default, resolved into a local copy
// at Fit.
type BKASVM struct {
	// Kernel is the kernel; nil means Gaussian with γ = 1/d.
	Kernel kernel.Kernel `yaml:"kernel"`
	// C is the penalty C > 0; 0 means 1.
	C float64 `yaml:"c"`
	// ClassWeights multiplies C for the samples of a class: label → weight > 0.
	ClassWeights map[float64]float64 `yaml:"class_weights"`
	// Multiclass is OneVsOne ("ovo", default) or OneVsRest ("ovr").
	Multiclass string `yaml:"multiclass"`
	// Clusters is the number of clusters c; 0 means 64. It must not exceed n.
	Clusters int `yaml:"clusters"`
	// Sketch, when positive, clusters a ±1 random projection of X to Sketch
	// dimensions (randomized clustered k-means, approx.KMeans.Sketch).
	Sketch int `yaml:"sketch"`
	// KMeansSubsample is the number of points k-means is run on; 0 means the
	// approx package's default (approx.DefaultKMeansSubsample). All points
	// are assigned to the resulting centroids.
	KMeansSubsample int `yaml:"kmeans_subsample"`
	// Prediction is LocalPrediction ("local", default) or GlobalPrediction
	// ("global", the paper's eq. 9). It is read when predicting: it may be
	// changed after Fit.
	Prediction string `yaml:"prediction"`
	// Refine continues the exact no-bias solver from the concatenated α.
	Refine bool `yaml:"refine"`
	// Tol is the stopping tolerance of every dual solve; 0 means 1e-3.
	Tol float64 `yaml:"tol"`
	// MaxIter caps the updates of each dual solve; 0 means max(10⁷, 100n).
	MaxIter int `yaml:"max_iter"`
	// CacheBytes is the total kernel-column cache budget, shared by the
	// clusters solved at the same time; 0 means 200 MB, or less when
	// MemoryLimit leaves less.
	CacheBytes int64 `yaml:"cache_bytes"`
	// MemoryLimit, when positive, bounds the planned peak memory of a fit in
	// bytes: the Workers largest cluster problems solved at once with their
	// caches (or, with Refine, the exact solve), plus the support vectors
	// kept. What the fit keeps and k-means's plan are checked before
	// clustering, the cluster problems after it (their sizes come from the
	// clusters) and before they allocate; a fit over it fails with ErrMemory.
	// 0 means no limit.
	MemoryLimit int64 `yaml:"memory_limit"`
	// NoShrinking turns the solvers' shrinking heuristic off.
	NoShrinking bool `yaml:"no_shrinking"`
	// Seed seeds k-means.
	Seed uint64 `yaml:"seed"`
	// Workers is the number of clusters solved at once (and the goroutines of
	// predictions); 0 means GOMAXPROCS. Results do not depend on it.
	Workers int `yaml:"workers"`
	// Progress, when non-nil, is called after each cluster problem is solved
	// with the number solved so far and the total. Calls are serialized.
	Progress func(done, total int) `yaml:"-"`
	// Solver, when set, solves the cluster problems instead of the local
	// parallel loop (see BKASolver); Progress is then not called.
	Solver BKASolver `yaml:"-"`

	fit *bkaFit
}

var _ Estimator = (*BKASVM)(nil)

// BKAInfo describes a BKASVM fit.
type BKAInfo struct {
	// ClusterSizes holds the number of training points of each cluster.
	ClusterSizes []int
	// Tasks holds one entry per binary sub-problem. Objective, SV, BoundedSV
	// and Iterations are summed over the clusters: the objective is that of
	// the block-diagonal problem (the exact no-bias objective after Refine).
	// Status is SVMMaxIter if any cluster hit the cap.
	Tasks []SVMTaskInfo
	// SV is the number of distinct training points that are support vectors.
	SV int
	// Refined says the exact solver continued from the concatenated α.
	Refined bool
}

type bkaFit struct {
	labels Labels
	ovo    bool
	d      int
	part   *approx.Partition
	global *svmDecision
	local  []*svmDecision // per cluster; nil when the cluster has no support vector
	ntasks int
	info   BKAInfo
}

// kernel is the fitted kernel (that of the decision functions; nil when
// there is none).
func (f *bkaFit) kernel() kernel.Kernel {
	if f.global != nil {
		return f.global.k
	}
	for _, l := range f.local {
		if l != nil {
			return l.k
		}
	}
	return nil
}

// Fit partitions x, solves the per-cluster duals and collects the support vectors.
//
// Sparse x (kernel.Sparse) stays sparse: k-means runs on the sparse rows
// with dense centroids, and each cluster's kernel columns come from its
// sparse rows, as in SVM.
func (b *BKASVM) Fit(ctx context.Context, xIn mat.Matrix, y []float64) (err error) {
	defer named(&err, "bkasvm")
	if err := checkContext(ctx, "bkasvm"); err != nil {
		return err
	}
	b.fit = nil
	x, err := exactInput(xIn, y, 0)
	if err != nil {
		return err
	}
	n, d := x.Dims()
	dm := dataBytesPerRow(x) // d, or the sparse rows' equivalent, for memory plans
	cfg, err := resolveSVM(b.Kernel, b.C, b.ClassWeights, b.Multiclass, b.Tol, b.MaxIter, b.CacheBytes, d)
	if err != nil {
		return err
	}
	cfg.noShrink = b.NoShrinking
	cfg.workers = parallel.Workers(b.Workers)
	k := b.Clusters
	if k == 0 {
		k = min(DefaultBKAClusters, n)
	}
	if k < 1 || k > n {
		return fmt.Errorf("%w: clusters = %d, want 1 ≤ clusters ≤ n = %d", ErrInput, k, n)
	}
	if _, err := b.local(); err != nil {
		return err
	}
	if b.MemoryLimit < 0 {
		return fmt.Errorf("%w: memory limit %d bytes is negative", ErrInput, b.MemoryLimit)
	}
	labels, err := NewLabels(y)
	if err != nil {
		return fmt.Errorf("model: bkasvm: %w", err)
	}
	if err := cfg.checkWeights(labels); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// What the fit keeps whatever the clusters (bkaSVMPlan's kept bytes), and
	// k-means's own plan, are checked before clustering. k-means keeps dense
	// centroids, K×d whatever the form of x (wide sparse data included), and
	// the fit keeps them (the partition) to the end, beside the solves and
	// their scatter vectors (sparse x with a kernel that needs them). The
	// solves are bounded before clustering by planning each task as one
	// cluster: a task's clusters partition its rows and a solve's state is
	// linear in its rows, so the tasks that could run at once hold at least
	// the state of any clusters that run at once. This check, not the one
	// after clustering, is then what refuses a cap too small, before
	// k-means allocates its K×d centroids.
	km := approx.KMeans{K: k, Sketch: b.Sketch, Subsample: b.KMeansSubsample}
	centroids := 8 * int64(k) * int64(d)
	scatter := scatterPlan(cfg.k, x, cfg.workers)
	left := b.MemoryLimit // what the solves may take besides the centroids and scatter vectors
	if left > 0 {
		left = max(1, left-centroids-scatter)
	}
	var taskSizes []int
	for _, t := range svmTasks(labels, classIndex(labels, y), cfg.ovo) {
		taskSizes = append(taskSizes, len(t.rows))
	}
	solves, _ := bkaSVMPlan(n, dm, taskSizes, taskSizes, cfg.workers, b.Refine, cfg.cacheBytes, b.CacheBytes > 0, left)
	if err := checkMemory(fmt.Sprintf("bka-svm before clustering (n=%d, d=%d)", n, d),
		max(solves+centroids+scatter, km.PlanBytes(n, d)), b.MemoryLimit); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(b.Seed, 0x6b61))
	part, err := approx.KMeans{K: k, Sketch: b.Sketch, Subsample: b.KMeansSubsample}.Fit(ctx, x, rng)
	if err != nil {
		return fmt.Errorf("model: bka-svm partition: %w", err)
	}
	cls := classIndex(labels, y)
	tasks := svmTasks(labels, cls, cfg.ovo)

	// One job per (task, cluster), in a fixed order.
	type job struct {
		task int
		loc  []int // positions in the task's rows
	}
	var jobs []job
	for ti, t := range tasks {
		byCluster := make([][]int, k)
		for r, i := range t.rows {
			byCluster[part.Labels[i]] = append(byCluster[part.Labels[i]], r)
		}
		for _, loc := range byCluster {
			if len(loc) > 0 {
				jobs = append(jobs, job{ti, loc})
			}
		}
	}
	alphas := make([][]float64, len(tasks))
	bounds := make([][]float64, len(tasks))
	for ti, t := range tasks {
		alphas[ti] = make([]float64, len(t.rows))
		bounds[ti] = cfg.bounds(labels, cls, t)
	}
	jobSizes := make([]int, len(jobs))
	for j, jb := range jobs {
		jobSizes[j] = len(jb.loc)
	}
	need, cache := bkaSVMPlan(n, dm, jobSizes, taskSizes, cfg.workers, b.Refine, cfg.cacheBytes, b.CacheBytes > 0, left)
	need += centroids + scatter
	if err := checkMemory(fmt.Sprintf("bka-svm (n=%d, d=%d, %d cluster problems, %d at once, cache %s)", n, d, len(jobs), cfg.workers, formatBytes(cache)), need, b.MemoryLimit); err != nil {
		return err
	}
	cfg.cacheBytes = max(cache, 1)
	results := make([]*solver.SVMResult, len(jobs))
	perCache := max(cfg.cacheBytes/int64(cfg.workers), 1)
	var mu sync.Mutex
	done := 0
	if b.Solver != nil {
		probs := make([]BKAProblem, len(jobs))
		for j, jb := range jobs {
			t := tasks[jb.task]
			p := BKAProblem{Rows: len(jb.loc), D: d, Tol: cfg.tol, MaxIter: cfg.maxIter, CacheBytes: perCache, NoShrinking: cfg.noShrink}
			for _, l := range jb.loc {
				p.X = appendRow(p.X, x, t.rows[l])
				p.Y = append(p.Y, t.y[l])
				p.C = append(p.C, bounds[jb.task][l])
			}
			probs[j] = p
		}
		res, err := b.Solver(ctx, cfg.k, probs)
		if err != nil {
			return fmt.Errorf("model: bka-svm cluster problems: %w", err)
		}
		if len(res) != len(jobs) {
			return fmt.Errorf("model: bka-svm: solver returned %d results for %d problems", len(res), len(jobs))
		}
		copy(results, res)
	} else {
		err = parallel.ForErr(ctx, len(jobs), cfg.workers, func(_, j int) error {
			jb := jobs[j]
			t := tasks[jb.task]
			rows := make([]int, len(jb.loc))
			yy := make([]float64, len(jb.loc))
			cc := make([]float64, len(jb.loc))
			for r, l := range jb.loc {
				rows[r], yy[r], cc[r] = t.rows[l], t.y[l], bounds[jb.task][l]
			}
			opt := cfg.options(nil)
			opt.CacheBytes = perCache
			prob := solver.SVMProblem{K: newKernelColumns(cfg.k, pickRows(x, rows), 1), Y: yy, C: cc}
			var err error
			if results[j], err = solver.SolveDCD(ctx, prob, opt); err != nil {
				return fmt.Errorf("model: bka-svm cluster problem %d: %w", j, err)
			}
			if b.Progress != nil {
				mu.Lock()
				done++
				b.Progress(done, len(jobs))
				mu.Unlock()
			}
			return nil
		})
	}
	if err != nil {
		return err
	}
	f := &bkaFit{labels: labels, ovo: cfg.ovo && len(labels.Classes) > 2, d: d, part: part, ntasks: len(tasks)}
	f.info.ClusterSizes = make([]int, k)
	for _, l := range part.Labels {
		f.info.ClusterSizes[l]++
	}
	f.info.Tasks = make([]SVMTaskInfo, len(tasks))
	for ti, t := range tasks {
		f.info.Tasks[ti] = taskInfo(labels, t, &solver.SVMResult{})
	}
	for j, jb := range jobs {
		r := results[j]
		for q, l := range jb.loc {
			alphas[jb.task][l] = r.Alpha[q]
		}
		ti := &f.info.Tasks[jb.task]
		ti.Objective += r.Objective
		ti.SV += r.SV
		ti.BoundedSV += r.BoundedSV
		ti.Iterations += r.Iterations
		ti.Violation = max(ti.Violation, r.Violation)
		if r.Status == solver.SVMMaxIter {
			ti.Status = solver.SVMMaxIter
		}
	}
	if b.Refine {
		for ti, t := range tasks {
			opt := cfg.options(alphas[ti])
			prob := solver.SVMProblem{K: newKernelColumns(cfg.k, taskRows(x, t.rows), cfg.workers), Y: t.y, C: bounds[ti]}
			r, err := solver.SolveDCD(ctx, prob, opt)
			if err != nil {
				return fmt.Errorf("model: bka-svm refinement of task %d: %w", ti, err)
			}
			alphas[ti] = r.Alpha
			f.info.Tasks[ti] = taskInfo(labels, t, r)
		}
		f.info.Refined = true
	}
	parts := make([]svmPart, len(tasks))
	for ti, t := range tasks {
		parts[ti] = svmPart{rows: t.rows, y: t.y, alpha: alphas[ti]}
	}
	f.global = newSVMDecision(cfg.k, x, parts, cfg.workers)
	if !f.global.empty {
		f.info.SV, _ = f.global.sv.Dims()
	}
	{
		// Both prediction modes are kept, so that Prediction can be changed
		// after Fit; the local models hold each support vector a second time.
		f.local = make([]*svmDecision, k)
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
				f.local[s] = newSVMDecision(cfg.k, x, sub, 1)
			}
		}
	}
	b.fit = f
	return nil
}

// Info describes the fit; it returns ErrNotFitted before Fit.
func (b *BKASVM) Info() (_ BKAInfo, err error) {
	defer named(&err, "bkasvm")
	if b.fit == nil {
		return BKAInfo{}, ErrNotFitted
	}
	info := b.fit.info
	info.Tasks = slices.Clone(info.Tasks)
	info.ClusterSizes = slices.Clone(info.ClusterSizes)
	return info, nil
}

// Partition returns the k-means partition of the training set; nil before Fit.
func (b *BKASVM) Partition() *approx.Partition {
	if b.fit == nil {
		return nil
	}
	return b.fit.part
}

// DecisionFunction returns the decision values of the rows of x, with the
// columns of SVM.DecisionFunction, globally or locally as configured.
//
// Sparse x is used as it is; a non-zero at a column at or beyond the
// training dimension is a coordinate in which every training row is zero
// (beyondInput): it adds the same ‖x_out‖² to the distance to every
// centroid, so the cluster is that of the columns below d.
func (b *BKASVM) DecisionFunction(xIn mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "bkasvm")
	if b.fit == nil {
		return nil, ErrNotFitted
	}
	x, scale, err := predictInput(xIn, b.fit.d, b.fit.kernel())
	if err != nil {
		return nil, err
	}
	local, err := b.local()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if !local {
		return b.fit.global.evalScaled(ctx, x, scale)
	}
	if len(b.fit.local) != len(b.fit.info.ClusterSizes) {
		return nil, fmt.Errorf("%w: this fitted BKA-SVM has no local decision functions", ErrInput)
	}
	n, _ := x.Dims()
	out := mat.NewDense(n, b.fit.ntasks, nil)
	lab, err := b.fit.part.Assign(x)
	if err != nil {
		return nil, err
	}
	groups := make([][]int, len(b.fit.local))
	for i, l := range lab {
		groups[l] = append(groups[l], i)
	}
	err = parallel.ForErr(ctx, len(groups), b.Workers, func(_, s int) error {
		if len(groups[s]) == 0 || b.fit.local[s] == nil {
			return nil // no support vector in the cluster: f = 0
		}
		var sc []float64
		if scale != nil {
			sc = make([]float64, len(groups[s]))
			for r, i := range groups[s] {
				sc[r] = scale[i]
			}
		}
		dec, err := b.fit.local[s].evalScaled(ctx, pickRows(x, groups[s]), sc)
		if err != nil {
			return err
		}
		for r, i := range groups[s] {
			copy(out.RawRowView(i), dec.RawRowView(r))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Predict returns the predicted class label of each row of x.
func (b *BKASVM) Predict(x mat.Matrix) (_ []float64, err error) {
	defer named(&err, "bkasvm")
	dec, err := b.DecisionFunction(x)
	if err != nil {
		return nil, err
	}
	return decodeSVM(b.fit.labels, b.fit.ovo, dec), nil
}

// local resolves Prediction.
func (b *BKASVM) local() (bool, error) {
	switch b.Prediction {
	case GlobalPrediction:
		return false, nil
	case "", LocalPrediction:
		return true, nil
	}
	return false, fmt.Errorf("%w: prediction %q, want %q or %q", ErrInput, b.Prediction, GlobalPrediction, LocalPrediction)
}
