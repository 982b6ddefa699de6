package experiments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
)

var allTasks = []string{TaskBinary, TaskMulticlass, TaskRegression}

// Options shared by several estimators.
var (
	optLambda    = Option{Name: "lambda", Kind: KindFloat, MinOpen: true, Required: true, Doc: "regularization λ > 0; the penalty is λn (model/doc.go)"}
	optWorkers   = Option{Name: "workers", Kind: KindInt, HasMin: true, Doc: "goroutines of the kernel engine (0: GOMAXPROCS; results do not depend on it)"}
	optMemLimit  = Option{Name: "memory_limit", Kind: KindFloat, HasMin: true, Bytes: true, Doc: "largest planned peak memory of a fit, bytes or with a unit such as 4G or 512MiB (default: 75% of physical memory; 0: no limit)"}
	optJitter    = Option{Name: "jitter", Kind: KindFloat, HasMin: true, Doc: "first Cholesky jitter tried, relative to the mean diagonal (0: 1e-10)"}
	optMaxJitter = Option{Name: "max_jitter", Kind: KindFloat, HasMin: true, Doc: "largest relative Cholesky jitter before giving up (0: 1e-2)"}
	// optProbaRidge is krr's and falkon's probability.
	optProbaRidge = Option{Name: "probability", Kind: KindBool, Doc: "classification: fit a softmax temperature on 5-fold cross-validated scores, so that predict --output proba gives class probabilities (the predicted label has the largest); about 6 fits' time"}
)

// resources is the shared workers and memory_limit of every estimator.
func resources(c Config) model.Resources {
	return model.Resources{Workers: c.Int("workers", 0), MemoryLimit: int64(c.Float("memory_limit", 0))}
}

// estimators is the one name→constructor table of the estimators a spec may
// name, sorted by name (a test checks the order).
var estimators = []EstimatorEntry{
	{
		Name:    "bka-svm",
		Summary: "BKA-SVM: k-means partition, per-cluster no-bias SVM duals, α concatenated (model.BKASVM; Si, Hsieh & Dhillon)",
		Tasks:   classTasks,
		Options: []Option{
			optC, optCacheBytes, optClassWeight,
			{Name: "clusters", Kind: KindInt, HasMin: true, Min: 1, AtMostN: true, Doc: "number of k-means clusters c (default 64)"},
			{Name: "kmeans_subsample", Kind: KindInt, HasMin: true, Doc: "rows k-means runs on (0: approx default)"},
			optMaxIter, optMemLimit, optMulticlass, optNoShrinking,
			{Name: "prediction", Kind: KindString, Values: []string{model.GlobalPrediction, model.LocalPrediction}, Doc: "local (default: the cluster of x only) or global (eq. 9: all support vectors)"},
			{Name: "probability", Kind: KindBool, Doc: "fit Platt sigmoids on 5-fold cross-validated decision values (as LIBSVM -b 1), so that predict --output proba gives class probabilities; about 6 fits' time"},
			{Name: "refine", Kind: KindBool, Doc: "continue the exact no-bias solver from the concatenated α (DC-SVM)"},
			{Name: "sketch", Kind: KindInt, HasMin: true, Doc: "cluster a ±1 random projection to this many dimensions (0: none)"},
			optTol, optWorkers,
		},
		New: newBKASVM,
	},
	{
		Name:    "falkon",
		Summary: "FALKON: Nyström KRR on m centers by preconditioned CG, (K_nMᵀK_nM + λn K_MM)α = K_nMᵀy (model.Falkon; FALKON-BLESS with approx bless)",
		Tasks:   allTasks,
		Approx:  samplerNames(),
		Options: []Option{
			{Name: "block_rows", Kind: KindInt, HasMin: true, Doc: "rows per kernel block (0: automatic)"},
			{Name: "cache_knm", Kind: KindBool, Doc: "keep K_nM in memory (as much as memory_limit leaves room for) instead of recomputing it every iteration; without it K_nM is kept anyway when d ≥ 64, in at most half the room memory_limit leaves"},
			optClassWeightRidge,
			{Name: "epsilon", Kind: KindFloat, HasMin: true, Doc: "relative jitter ε of the preconditioner (0: precond default)"},
			{Name: "factor", Kind: KindString, Values: []string{"auto", "off", "on"}, Doc: "K_nM passes factored over the two-valued (one-hot) columns of dense X, k = k(x_D, c_D)·k(x_S, c_S) for the gaussian and laplacian kernels, rows grouped by their pattern: auto (default: when the cost model predicts passes at least 25% faster), off, or on (whenever the data allow); same fit up to rounding"},
			{Name: "float32", Kind: KindBool, Doc: "float32 distance products in the K_nM passes (float64 sums; K_MM and CG stay float64; the preconditioner's factors are float32 unless precond_precision says float64)"},
			{Name: "float32_storage", Kind: KindBool, Doc: "hold dense X in float32 for the fit (implies float32; same passes on the rounded values); fit and run read a CSV or LIBSVM training file straight into float32 (no float64 copy of X; a value beyond float32's range is an error naming its line) and scale the float32 training rows of each fit in place (statistics in float64), scoring float64 validation and test rows; shards are read into float32 one at a time; bundled sets are read in float64 and each fit gets its float32 copy"},
			optJitter, optLambda,
			{Name: "m", Kind: KindInt, HasMin: true, Min: 1, AtMostN: true, Doc: "number of centers M (0: ⌈5√n⌉)"},
			optMaxIter, optMaxJitter, optMemLimit,
			{Name: "never_cache_knm", Kind: KindBool, Doc: "never keep K_nM (FALKON's never_store_kernel): form its blocks at every iteration, whatever d and memory_limit; not with cache_knm"},
			{Name: "precond_precision", Kind: KindString, Values: []string{string(precond.PrecisionFloat64), string(precond.PrecisionFloat32)}, Doc: "type of the falkon/bless preconditioner's factors (default: float32 with float32 or float32_storage, as FALKON for float32 data, else float64; same solution, float32 builds in about half the time)"},
			{Name: "preconditioner", Kind: KindString, Values: []string{model.PrecondFalkon, model.PrecondBLESS, model.PrecondJacobi, model.PrecondNone}, Doc: "falkon (eq. 14), bless (eq. 15), jacobi or none; default bless for BLESS centers, else falkon"},
			optProbaRidge,
			{Name: "tol", Kind: KindFloat, HasMin: true, Doc: "relative residual at which CG stops early (0: 1e-8)"},
			{Name: "warm_start", Kind: KindBool, Doc: "start each fit from the fit at the previous λ of the grid (same fold, same other values); chains are recomputed whole on resume", With: func(a string) bool { return a != "bless" && a != "bless-r" }},
			optWorkers,
		},
		ApproxOptions: []Option{
			{Name: "path", Kind: KindBool, With: isApprox("bless", "bless-r"), Doc: "one BLESS path per fold and λ chain serves every λ: the centers of λ are the path step at λ (M from d_eff, not m)"},
		},
		New:   newFalkon,
		Warm:  warmFalkon,
		Check: checkFalkon,
	},
	{
		Name:    "krr",
		Summary: "kernel ridge regression (K + λnI)α = y: exact, Nyström on m landmarks of a sampler (SoR, or ridge on rank-k QR features with SAMPLER-qr), rff, or meka (model.KRR)",
		Tasks:   allTasks,
		Approx:  krrApprox(),
		Options: []Option{
			optClassWeightRidge,
			{Name: "clusters", Kind: KindInt, HasMin: true, Min: 1, AtMostN: true, Doc: "MEKA clusters c (default min(10, ⌈√n/25⌉))", With: isApprox("meka")},
			optJitter, optLambda,
			{Name: "m", Kind: KindInt, HasMin: true, Min: 1, AtMostN: true, Doc: "landmarks M (Nyström) or features D (rff); 0: ⌈5√n⌉", With: func(a string) bool { return a != "" && a != "exact" && a != "meka" }},
			optMaxJitter, optMemLimit, optProbaRidge,
			{Name: "rank", Kind: KindInt, HasMin: true, Doc: "rank k: of the SAMPLER-qr maps (0: all), or MEKA's per-cluster rank (default min(128, ⌈5√n⌉))", With: func(a string) bool { return a == "meka" || strings.HasSuffix(a, "-qr") }},
			optWorkers,
		},
		New: newKRR,
	},
	{
		Name:    "one-class-svm",
		Summary: "one-class SVM for outlier and novelty detection, trained without labels (model.OneClassSVM; LIBSVM's -s 2, scikit-learn's OneClassSVM; Schölkopf et al. 2001)",
		Tasks:   []string{TaskBinary},
		Options: []Option{
			optCacheBytes,
			{Name: "cache_float32", Kind: KindBool, Doc: "keep cached kernel columns in float32 as LIBSVM (twice the columns per byte; α and gradients stay float64)"},
			optMaxIter, optMemLimit, optNoShrinking,
			{Name: "nu", Kind: KindFloat, MinOpen: true, HasMax: true, Max: 1, Doc: "ν ∈ (0, 1]: at most a fraction ν of the training rows fall outside and at least ν are support vectors (LIBSVM -n; default 0.5)"},
			optTol, optWorkers,
		},
		New: newOneClass,
	},
	{
		Name:    "svm",
		Summary: "exact kernel SVM, C-SVC by SMO (model.SVM; LIBSVM's formulation)",
		Tasks:   classTasks,
		Options: []Option{
			optC, optCacheBytes,
			{Name: "cache_float32", Kind: KindBool, Doc: "keep cached kernel columns in float32 as LIBSVM (twice the columns per byte; α and gradients stay float64)"},
			optClassWeight,
			optMaxIter, optMemLimit, optMulticlass,
			{Name: "no_bias", Kind: KindBool, Doc: "drop the bias b (dual coordinate descent)"},
			optNoShrinking,
			{Name: "nu", Kind: KindFloat, MinOpen: true, HasMax: true, Max: 1, Doc: "ν-SVC in place of C-SVC (LIBSVM -s 1 -n, scikit-learn's NuSVC): ν ∈ (0, 1] bounds the fraction of margin errors from above and of support vectors from below; no c or no_bias with it; class_weight and sample weights scale each row's share, as sample_weight does in scikit-learn's NuSVC"},
			{Name: "probability", Kind: KindBool, Doc: "fit Platt sigmoids on 5-fold cross-validated decision values (LIBSVM -b 1), so that predict --output proba gives class probabilities; about 6 fits' time"},
			optTol, optWorkers,
		},
		New:   newSVM,
		Check: checkNuSpec,
	},
	{
		Name:    "svr",
		Summary: "exact ε-support vector regression, ε-SVR by SMO (model.SVR; LIBSVM's -s 3, scikit-learn's SVR)",
		Tasks:   []string{TaskRegression},
		Options: []Option{
			optC, optCacheBytes,
			{Name: "cache_float32", Kind: KindBool, Doc: "keep cached kernel columns in float32 as LIBSVM (twice the columns per byte; α and gradients stay float64)"},
			{Name: "epsilon", Kind: KindFloat, HasMin: true, Doc: "half-width ε ≥ 0 of the insensitive tube, in the target's units (LIBSVM -p; default 0.1; 0: the absolute loss |y − f(x)|)"},
			optMaxIter, optMemLimit, optNoShrinking,
			{Name: "nu", Kind: KindFloat, MinOpen: true, HasMax: true, Max: 1, Doc: "ν-SVR in place of ε-SVR (LIBSVM -s 4 -n, scikit-learn's NuSVR): the fit finds ε, and ν ∈ (0, 1] bounds the fraction of rows outside the tube from above and of support vectors from below; no epsilon with it"},
			{Name: "probability", Kind: KindBool, Doc: "fit LIBSVM's probability model of a regression (svm-train -s 3 -b 1): target = prediction + z, z Laplace with scale σ from 5-fold cross-validated residuals (fit prints σ; model.SVR.PredictInterval); about 6 fits' time"},
			optTol, optWorkers,
		},
		New:   newSVR,
		Check: checkNuSpec,
	},
}

var classTasks = []string{TaskBinary, TaskMulticlass}

// SVM options shared by svm and bka-svm.
var (
	optC           = Option{Name: "c", Kind: KindFloat, MinOpen: true, Doc: "SVM penalty C > 0 (LIBSVM -c; default 1)"}
	optCacheBytes  = Option{Name: "cache_bytes", Kind: KindFloat, HasMin: true, Bytes: true, Doc: "kernel-column cache budget, bytes (0: 200 MB)"}
	optMaxIter     = Option{Name: "max_iter", Kind: KindInt, HasMin: true, Doc: "cap on solver iterations (0: the estimator's default)"}
	optMulticlass  = Option{Name: "multiclass", Kind: KindString, Values: []string{model.OneVsOne, model.OneVsRest}, Doc: "ovo (default) or ovr"}
	optNoShrinking = Option{Name: "no_shrinking", Kind: KindBool, Doc: "turn the solver's shrinking heuristic off"}
	optTol         = Option{Name: "tol", Kind: KindFloat, HasMin: true, Doc: "stopping tolerance on the maximal KKT violation (0: 1e-3)"}
)

func newFalkon(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	var factor model.FactorMode
	if err := factor.UnmarshalText([]byte(c.String("factor", "auto"))); err != nil {
		return nil, fmt.Errorf("%w: falkon: %w", ErrSpec, err)
	}
	w, err := classWeights(c)
	if err != nil {
		return nil, err
	}
	f := &model.Falkon{
		ClassWeights:     w,
		Kernel:           k,
		Lambda:           c.Float("lambda", 0),
		M:                c.Int("m", 0),
		Preconditioner:   c.String("preconditioner", ""),
		Epsilon:          c.Float("epsilon", 0),
		PrecondPrecision: precond.Precision(c.String("precond_precision", "")),
		MaxIter:          c.Int("max_iter", 0),
		Tol:              c.Float("tol", 0),
		Task:             c.Task,
		Seed:             c.Seed,
		Resources:        resources(c),
		BlockRows:        c.Int("block_rows", 0),
		CacheKnm:         c.Bool("cache_knm", false),
		NeverCacheKnm:    c.Bool("never_cache_knm", false),
		Float32:          c.Bool("float32", false),
		Float32Storage:   c.Bool("float32_storage", false),
		Probability:      c.Bool("probability", false),
		Factor:           factor,
		Cholesky:         solver.CholOptions{Jitter: c.Float("jitter", 0), MaxJitter: c.Float("max_jitter", 0)},
	}
	if c.Centers != nil {
		f.Centers, f.CenterWeights, f.CenterLambda = c.Centers, c.CenterWeights, c.CenterLambda
	} else if c.Approx != "" {
		s, ok := samplerByName(c.Approx)
		if !ok {
			return nil, fmt.Errorf("%w: falkon: unknown sampler %q", ErrSpec, c.Approx)
		}
		f.Sampler = s
	}
	if c.Progress != nil || c.Setup != nil {
		f.Progress = func(p model.Progress) error {
			switch {
			case p.Stage == model.StageIteration && c.Progress != nil:
				c.Progress(p.Done, p.Residual)
			case p.Stage == model.StageSetup && c.Setup != nil:
				c.Setup(p.Step, p.Done, p.Total)
			}
			return nil
		}
	}
	return f, nil
}

// checkFalkon rejects settings that give the centers twice: a BLESS path
// with m or with warm starts.
func checkFalkon(s *Spec) error {
	if s.Estimator.Approx.Options["path"] != true {
		return nil
	}
	if hasKey(s.Estimator.Options, "m") || hasKey(s.Grid, "m") {
		where := []string{"estimator", "m"}
		if hasKey(s.Grid, "m") {
			where = []string{"grid", "m"}
		}
		return s.errAt("with approx path: true the BLESS path sets the centers; m does not apply", where...)
	}
	if s.Estimator.Options["warm_start"] == true {
		return s.errAt("warm_start and approx path: true both choose the centers; use one", "estimator", "warm_start")
	}
	return nil
}

// warmFalkon gives next the centers and coefficients of prev.
func warmFalkon(next, prev model.Estimator) error {
	n, ok1 := next.(*model.Falkon)
	p, ok2 := prev.(*model.Falkon)
	if !ok1 || !ok2 {
		return fmt.Errorf("experiments: warm start between %T and %T", next, prev)
	}
	n.WarmStart = p.Solution()
	return nil
}

// checkNuSpec refuses, at their lines, the options ν-SVC (svm) and ν-SVR
// (svr) replace: c and no_bias for svm, epsilon for svr.
func checkNuSpec(s *Spec) error {
	if !hasKey(s.Estimator.Options, "nu") && !hasKey(s.Grid, "nu") {
		return nil
	}
	what := map[string][]string{"svm": {"c", "no_bias"}, "svr": {"epsilon"}}[s.Estimator.Type]
	for _, k := range what {
		where := []string{"estimator", k}
		if hasKey(s.Grid, k) {
			where = []string{"grid", k}
		} else if !hasKey(s.Estimator.Options, k) {
			continue
		}
		if s.Estimator.Type == "svr" {
			return s.errAt("with nu the fit is ν-SVR, which finds ε: epsilon does not apply", where...)
		}
		return s.errAt(fmt.Sprintf("with nu the fit is ν-SVC, which has no %s", k), where...)
	}
	return nil
}

func newSVM(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	w, err := classWeights(c)
	if err != nil {
		return nil, err
	}
	return &model.SVM{
		Kernel:       k,
		C:            c.Float("c", 0),
		ClassWeights: w,
		Multiclass:   c.String("multiclass", ""),
		NoBias:       c.Bool("no_bias", false),
		Nu:           c.Float("nu", 0),
		Tol:          c.Float("tol", 0),
		MaxIter:      c.Int("max_iter", 0),
		CacheBytes:   int64(c.Float("cache_bytes", 0)),
		CacheFloat32: c.Bool("cache_float32", false),
		Resources:    resources(c),
		NoShrinking:  c.Bool("no_shrinking", false),
		Probability:  c.Bool("probability", false),
		Seed:         c.Seed,
	}, nil
}

func newSVR(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	eps, nu := c.Float("epsilon", model.DefaultSVREpsilon), c.Float("nu", 0)
	if nu > 0 {
		eps = -1 // ν-SVR finds ε: Epsilon and AbsoluteLoss stay unset
	}
	return &model.SVR{
		Kernel:       k,
		C:            c.Float("c", 0),
		Epsilon:      max(eps, 0),
		AbsoluteLoss: eps == 0,
		Nu:           nu,
		Tol:          c.Float("tol", 0),
		MaxIter:      c.Int("max_iter", 0),
		CacheBytes:   int64(c.Float("cache_bytes", 0)),
		CacheFloat32: c.Bool("cache_float32", false),
		NoShrinking:  c.Bool("no_shrinking", false),
		Probability:  c.Bool("probability", false),
		Seed:         c.Seed,
		Resources:    resources(c),
	}, nil
}

func newOneClass(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	return &model.OneClassSVM{
		Kernel:       k,
		Nu:           c.Float("nu", 0),
		Tol:          c.Float("tol", 0),
		MaxIter:      c.Int("max_iter", 0),
		CacheBytes:   int64(c.Float("cache_bytes", 0)),
		CacheFloat32: c.Bool("cache_float32", false),
		NoShrinking:  c.Bool("no_shrinking", false),
		Resources:    resources(c),
	}, nil
}

func newBKASVM(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	w, err := classWeights(c)
	if err != nil {
		return nil, err
	}
	return &model.BKASVM{
		Kernel:          k,
		C:               c.Float("c", 0),
		ClassWeights:    w,
		Multiclass:      c.String("multiclass", ""),
		Clusters:        c.Int("clusters", 0),
		Sketch:          c.Int("sketch", 0),
		KMeansSubsample: c.Int("kmeans_subsample", 0),
		Prediction:      c.String("prediction", ""),
		Refine:          c.Bool("refine", false),
		Probability:     c.Bool("probability", false),
		Tol:             c.Float("tol", 0),
		MaxIter:         c.Int("max_iter", 0),
		CacheBytes:      int64(c.Float("cache_bytes", 0)),
		Resources:       resources(c),
		NoShrinking:     c.Bool("no_shrinking", false),
		Seed:            c.Seed,
	}, nil
}

func isApprox(names ...string) func(string) bool {
	return func(a string) bool { return slices.Contains(names, a) }
}

// weightedEstimators are the estimators that take sample weights
// (model.WeightedEstimator), sorted.
var weightedEstimators = []string{"falkon", "krr", "one-class-svm", "svm", "svr"}

// checkWeighted refuses krr's and falkon's class_weight for regression or
// with meka, and sample_weights for an estimator, backend or option that
// does not take them, naming the line of class_weight or sample_weights.
func (s *Spec) checkWeighted() error {
	e := s.Estimator
	if _, ok := e.Options["class_weight"]; ok && (e.Type == "krr" || e.Type == "falkon") {
		switch {
		case s.Task == TaskRegression:
			return s.errAt("class_weight weighs classes: it needs task binary or multiclass", "estimator", "class_weight")
		case e.Approx.Type == "meka":
			return s.errAt("krr with approx meka does not take class weights (exact, the samplers, their -qr forms and rff do)", "estimator", "class_weight")
		}
	}
	if s.Dataset.SampleWeights == "" {
		return nil
	}
	at := []string{"dataset", "sample_weights"}
	switch {
	case !slices.Contains(weightedEstimators, e.Type):
		return s.errAt(fmt.Sprintf("estimator %s does not take sample weights (%s do)", e.Type, strings.Join(weightedEstimators, ", ")), at...)
	case e.Type == "krr" && e.Approx.Type == "meka":
		return s.errAt("krr with approx meka does not take sample weights (exact, the samplers, their -qr forms and rff do)", at...)
	case e.Options["probability"] == true:
		return s.errAt(fmt.Sprintf("probability: true with sample weights: %s's calibration fits do not take them", e.Type), at...)
	}
	return nil
}

// krrApprox lists KRR's backends: exact, every sampler (Nyström SoR), every
// sampler with -qr (ridge on QR rank-k Nyström features), meka and rff.
func krrApprox() []string {
	a := []string{"exact", "meka", "rff"}
	for _, s := range samplerNames() {
		a = append(a, s, s+"-qr")
	}
	slices.Sort(a)
	return a
}

func newKRR(c Config) (model.Estimator, error) {
	k, err := kernel.New(c.Kernel)
	if err != nil {
		return nil, err
	}
	var backend model.KRRApprox
	m := c.Int("m", 0)
	switch a := c.Approx; {
	case a == "" || a == "exact":
	case a == "rff":
		if m == 0 {
			return nil, fmt.Errorf("%w: krr with rff needs m (the number of features)", ErrSpec)
		}
		backend = model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: m}}}
	case a == "meka":
		backend = &model.MEKAKRR{Options: meka.Options{Rank: c.Int("rank", 0), Clusters: c.Int("clusters", 0)}}
	case strings.HasSuffix(a, "-qr"):
		smp, ok := samplerByName(strings.TrimSuffix(a, "-qr"))
		if !ok {
			return nil, fmt.Errorf("%w: krr: unknown approx %q", ErrSpec, a)
		}
		backend = model.FeatureRidge{Features: model.NystromFeatures{M: m, Sampler: smp, Nystrom: approx.Nystrom{Rank: c.Int("rank", 0), QR: true}}}
	default:
		smp, ok := samplerByName(a)
		if !ok {
			return nil, fmt.Errorf("%w: krr: unknown approx %q", ErrSpec, a)
		}
		backend = model.NystromKRR{M: m, Sampler: smp}
	}
	w, err := classWeights(c)
	if err != nil {
		return nil, err
	}
	return &model.KRR{
		ClassWeights: w,
		Approx:       backend,
		Kernel:       k,
		Lambda:       c.Float("lambda", 0),
		Task:         c.Task,
		Seed:         c.Seed,
		Resources:    resources(c),
		Probability:  c.Bool("probability", false),
		Cholesky:     solver.CholOptions{Jitter: c.Float("jitter", 0), MaxJitter: c.Float("max_jitter", 0)},
	}, nil
}
