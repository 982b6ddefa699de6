package experiments

import (
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/solver"
)

var allTasks = []string{TaskBinary, TaskMulticlass, TaskRegression}

// Options shared by several estimators.
var (
	optLambda    = Option{Name: "lambda", Kind: KindFloat, MinOpen: true, Required: true, Doc: "regularization λ > 0; the penalty is λn (model/doc.go)"}
	optWorkers   = Option{Name: "workers", Kind: KindInt, HasMin: true, Doc: "goroutines of the kernel engine (0: GOMAXPROCS; results do not depend on it)"}
	optMemLimit  = Option{Name: "memory_limit", Kind: KindFloat, HasMin: true, Doc: "largest planned peak memory of a fit, bytes (0: no limit)"}
	optJitter    = Option{Name: "jitter", Kind: KindFloat, HasMin: true, Doc: "first Cholesky jitter tried, relative to the mean diagonal (0: 1e-10)"}
	optMaxJitter = Option{Name: "max_jitter", Kind: KindFloat, HasMin: true, Doc: "largest relative Cholesky jitter before giving up (0: 1e-2)"}
)

// estimators is the one name→constructor table of the estimators a spec may
// name, sorted by name (a test checks the order).
var estimators = []EstimatorEntry{
	{
		Name:    "bka-svm",
		Summary: "BKA-SVM: k-means partition, per-cluster no-bias SVM duals, α concatenated (model.BKASVM; Si, Hsieh & Dhillon)",
		Tasks:   classTasks,
		Options: []Option{
			optC, optCacheBytes,
			{Name: "clusters", Kind: KindInt, HasMin: true, Min: 1, AtMostN: true, Doc: "number of k-means clusters c (default 64)"},
			{Name: "kmeans_subsample", Kind: KindInt, HasMin: true, Doc: "rows k-means runs on (0: approx default)"},
			optMaxIter, optMulticlass, optNoShrinking,
			{Name: "prediction", Kind: KindString, Values: []string{model.GlobalPrediction, model.LocalPrediction}, Doc: "global (default) or local (the cluster of x only)"},
			{Name: "refine", Kind: KindBool, Doc: "continue the exact no-bias solver from the concatenated α (DC-SVM)"},
			{Name: "sketch", Kind: KindInt, HasMin: true, Doc: "cluster a ±1 random projection to this many dimensions (0: none)"},
			optTol, optWorkers,
		},
		New: newBKASVM,
	},
	{
		Name:    "krr",
		Summary: "kernel ridge regression (K + λnI)α = y, exact (model.KRR)",
		Tasks:   allTasks,
		Approx:  []string{"exact"},
		Options: []Option{optJitter, optLambda, optMaxJitter, optMemLimit, optWorkers},
		New:     newKRR,
	},
	{
		Name:    "svm",
		Summary: "exact kernel SVM, C-SVC by SMO (model.SVM; LIBSVM's formulation)",
		Tasks:   classTasks,
		Options: []Option{
			optC, optCacheBytes, optMaxIter, optMulticlass,
			{Name: "no_bias", Kind: KindBool, Doc: "drop the bias b (dual coordinate descent)"},
			optNoShrinking, optTol, optWorkers,
		},
		New: newSVM,
	},
}

var classTasks = []string{TaskBinary, TaskMulticlass}

// SVM options shared by svm and bka-svm.
var (
	optC           = Option{Name: "c", Kind: KindFloat, MinOpen: true, Doc: "SVM penalty C > 0 (LIBSVM -c; default 1)"}
	optCacheBytes  = Option{Name: "cache_bytes", Kind: KindFloat, HasMin: true, Doc: "kernel-column cache budget, bytes (0: 200 MB)"}
	optMaxIter     = Option{Name: "max_iter", Kind: KindInt, HasMin: true, Doc: "cap on solver iterations (0: the estimator's default)"}
	optMulticlass  = Option{Name: "multiclass", Kind: KindString, Values: []string{model.OneVsOne, model.OneVsRest}, Doc: "ovo (default) or ovr"}
	optNoShrinking = Option{Name: "no_shrinking", Kind: KindBool, Doc: "turn the solver's shrinking heuristic off"}
	optTol         = Option{Name: "tol", Kind: KindFloat, HasMin: true, Doc: "stopping tolerance on the maximal KKT violation (0: 1e-3)"}
)

func newSVM(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	return &model.SVM{
		Kernel:      k,
		C:           c.Float("c", 0),
		Multiclass:  c.String("multiclass", ""),
		NoBias:      c.Bool("no_bias", false),
		Tol:         c.Float("tol", 0),
		MaxIter:     c.Int("max_iter", 0),
		CacheBytes:  int64(c.Float("cache_bytes", 0)),
		NoShrinking: c.Bool("no_shrinking", false),
		Workers:     c.Int("workers", 0),
	}, nil
}

func newBKASVM(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	return &model.BKASVM{
		Kernel:          k,
		C:               c.Float("c", 0),
		Multiclass:      c.String("multiclass", ""),
		Clusters:        c.Int("clusters", 0),
		Sketch:          c.Int("sketch", 0),
		KMeansSubsample: c.Int("kmeans_subsample", 0),
		Prediction:      c.String("prediction", ""),
		Refine:          c.Bool("refine", false),
		Tol:             c.Float("tol", 0),
		MaxIter:         c.Int("max_iter", 0),
		CacheBytes:      int64(c.Float("cache_bytes", 0)),
		NoShrinking:     c.Bool("no_shrinking", false),
		Seed:            c.Seed,
		Workers:         c.Int("workers", 0),
	}, nil
}

func newKRR(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	switch c.Approx {
	case "", "exact":
	default:
		return nil, fmt.Errorf("%w: krr: approx %q is not available", ErrSpec, c.Approx)
	}
	return &model.KRR{
		Kernel:      k,
		Lambda:      c.Float("lambda", 0),
		Task:        c.Task,
		Seed:        c.Seed,
		Workers:     c.Int("workers", 0),
		MemoryLimit: int64(c.Float("memory_limit", 0)),
		Cholesky:    solver.CholOptions{Jitter: c.Float("jitter", 0), MaxJitter: c.Float("max_jitter", 0)},
	}, nil
}
