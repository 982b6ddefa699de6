// Package examples is Landmark's external-module test: a separate Go module
// that imports github.com/landmark-ml/landmark through a replace directive
// and uses only its exported API, the way a new user's program does.
//
// It holds no library code. Its tests fit every estimator (FALKON, KRR with
// the exact, Nyström, MEKA and random-feature backends, SVM, BKA-SVM) on small
// generated or bundled problems and check the results against exact
// computations or stated accuracy bars; check sparse fits against dense ones
// and the estimator contract (model.Classifier, MultiOutput, ProgressFunc,
// a failed Fit keeping the model, zero-value backends); save, load and refit
// models; drive the golearn adapter and YAML experiments from Go; and check
// cancellation, memory caps and the errors a misuse gets. CI runs it from
// .ci/run:
//
//	cd examples && go vet ./... && go test ./...
//
// Because it is its own module, a change to the main module that breaks a
// user's code (a renamed or moved exported name, a changed signature) breaks
// this build too.
package examples
