package model

import (
	"errors"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
)

// named gives an error leaving an estimator's exported method the prefix
// "model: who: " unless it already carries "model: " (see check.Prefix), so
// that every error of the package reads "model: estimator: what: why".
// Deferred: defer named(&err, "krr").
func named(err *error, who string) {
	*err = check.Prefix(*err, "model", who)
}

// indefinite says why a factorization failed in a fit with the sigmoid
// kernel, which is not positive definite in general (kernel.Sigmoid):
// deferred after named, as defer indefinite(&err, m.Kernel), so that it
// runs first.
func indefinite(err *error, k kernel.Kernel) {
	if _, ok := k.(kernel.Sigmoid); ok && errors.Is(*err, solver.ErrNotPD) {
		*err = fmt.Errorf("%w (the sigmoid kernel %v is not positive definite here: a smaller gamma or a negative coef0 often is, Lin & Lin 2003; the svm and svr estimators take it as it is)", *err, k)
	}
}
