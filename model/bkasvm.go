package model

import (
	"context"
	"fmt"
	"slices"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
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
// training set is partitioned into c clusters by k-means (cluster.KMeans, or
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
// at Fit. A failed Fit keeps the previous model.
//
// Concurrency: after Fit returns, Predict, DecisionFunction, PredictProba, Info, Classes and
// Partition may be called from several goroutines
// at once. Fit must not run at the same time as any other method, and the
// fields must not be changed while other methods run.
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
	// dimensions (randomized clustered k-means, cluster.KMeans.Sketch).
	Sketch int `yaml:"sketch"`
	// KMeansSubsample is the number of points k-means is run on; 0 means the
	// approx package's default (cluster.DefaultKMeansSubsample). All points
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
	// NoShrinking turns the solvers' shrinking heuristic off.
	NoShrinking bool `yaml:"no_shrinking"`
	// Probability fits Platt sigmoids on 5-fold cross-validated decision
	// values, as LIBSVM's -b 1 does for SVM, which makes PredictProba
	// available and Fit about five times slower (see PredictProba).
	Probability bool `yaml:"probability"`
	// Seed seeds k-means and the cross-validation folds of Probability.
	Seed uint64 `yaml:"seed"`
	// Resources bounds the fit: Workers is the number of clusters solved at
	// once (and the goroutines of predictions); MemoryLimit bounds the
	// planned peak: the Workers largest cluster problems solved at once with
	// their caches (or, with Refine, the exact solve), plus the support
	// vectors kept. What the fit keeps and k-means's plan are checked before
	// clustering, the cluster problems after it (their sizes come from the
	// clusters) and before they allocate.
	Resources `yaml:",inline"`
	// Progress, when non-nil, receives a StageCluster report after each
	// cluster problem is solved and, with Refine, a StageTask report after
	// each refined sub-problem; an error from it stops the fit (ErrStopped).
	Progress ProgressFunc `yaml:"-"`
	// Solver, when set, solves the cluster problems instead of the local
	// parallel loop (see BKASolver); StageCluster is then reported once,
	// when all are solved.
	Solver BKASolver `yaml:"-"`

	fit *bkaFit
}

var _ Estimator = (*BKASVM)(nil)

// BKAInfo describes a BKASVM fit.
type BKAInfo struct {
	// Kernel is the kernel used, after defaults; "" when no cluster has a decision function (LIBSVM's kernel_type,
	// gamma, degree and coef0), as kernel.Kernel's String writes it.
	Kernel string
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
	part   *cluster.Partition
	global *svmDecision
	local  []*svmDecision // per cluster; nil when the cluster has no support vector
	ntasks int
	info   BKAInfo
	// platt holds one sigmoid per task when fitted with Probability, on
	// decision values of the prediction mode plattLocal says.
	platt      []sigmoid
	plattLocal bool
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

// Dim returns the number of features of the rows the BKASVM was fitted on
// (scikit-learn's n_features_in_): the columns Predict takes. It is 0
// before Fit (or Load).
func (b *BKASVM) Dim() int {
	if b.fit == nil {
		return 0
	}
	return b.fit.d
}

// Info describes the last successful fit; the zero BKAInfo before one.
func (b *BKASVM) Info() BKAInfo {
	if b.fit == nil {
		return BKAInfo{}
	}
	info := b.fit.info
	info.Tasks = slices.Clone(info.Tasks)
	info.ClusterSizes = slices.Clone(info.ClusterSizes)
	if k := b.fit.kernel(); k != nil {
		info.Kernel = k.String()
	}
	return info
}

// Classes returns the class labels seen in training, ascending; nil before Fit.
func (b *BKASVM) Classes() []float64 {
	if b.fit == nil {
		return nil
	}
	return slices.Clone(b.fit.labels.Classes)
}

// Partition returns the k-means partition of the training set; nil before Fit.
func (b *BKASVM) Partition() *cluster.Partition {
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
	defer named(&err, "bka-svm")
	if b.fit == nil {
		return nil, ErrNotFitted
	}
	local, err := b.local()
	if err != nil {
		return nil, err
	}
	return b.decision(xIn, local)
}

// decision is DecisionFunction in the given prediction mode.
func (b *BKASVM) decision(xIn mat.Matrix, local bool) (*mat.Dense, error) {
	x, scale, err := predictInput(xIn, b.fit.d, b.fit.kernel())
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
	lab, err := b.fit.part.Assign(x)
	if err != nil {
		return nil, err
	}
	return bkaLocalEval(ctx, b.fit.local, x, scale, lab, b.fit.ntasks, b.Workers)
}

// bkaLocalEval evaluates row i of x with the local decision of cluster
// lab[i] (0 for a cluster without support vectors), scaling the kernel part
// by scale[i] (beyondInput; nil: none).
func bkaLocalEval(ctx context.Context, locals []*svmDecision, x mat.Matrix, scale []float64, lab []int, ntasks, workers int) (*mat.Dense, error) {
	n, _ := x.Dims()
	out := mat.NewDense(n, ntasks, nil)
	groups := make([][]int, len(locals))
	for i, l := range lab {
		groups[l] = append(groups[l], i)
	}
	err := parallel.ForErr(ctx, len(groups), workers, func(_, s int) error {
		if len(groups[s]) == 0 || locals[s] == nil {
			return nil // no support vector in the cluster: f = 0
		}
		var sc []float64
		if scale != nil {
			sc = make([]float64, len(groups[s]))
			for r, i := range groups[s] {
				sc[r] = scale[i]
			}
		}
		dec, err := locals[s].evalScaled(ctx, pickRows(x, groups[s]), sc)
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
	defer named(&err, "bka-svm")
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
