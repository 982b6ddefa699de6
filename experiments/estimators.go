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
		Name:    "krr",
		Summary: "kernel ridge regression (K + λnI)α = y, exact (model.KRR)",
		Tasks:   allTasks,
		Approx:  []string{"exact"},
		Options: []Option{optJitter, optLambda, optMaxJitter, optMemLimit, optWorkers},
		New:     newKRR,
	},
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
