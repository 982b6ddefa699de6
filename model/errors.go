package model

import "github.com/landmark-ml/landmark/internal/check"

// named gives an error leaving an estimator's exported method the prefix
// "model: who: " unless it already carries "model: " (see check.Prefix), so
// that every error of the package reads "model: estimator: what: why".
// Deferred: defer named(&err, "krr").
func named(err *error, who string) {
	*err = check.Prefix(*err, "model", who)
}
