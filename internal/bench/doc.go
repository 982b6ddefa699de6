// Package bench holds the benchmarks of "landmark bench": the kernel
// engine's fused products and dense factorizations beside numpy/scipy
// (kernel, linalg), Falkon beside scikit-learn's Nystroem + Ridge and the
// FALKON library (falkon, sparse; Meanti et al. 2020, Rudi et al. 2017), and
// the exact and BKA-SVM solvers beside LIBSVM's svm-train (svm; Si, Hsieh &
// Dhillon, JMLR 2017, Table 2). Each target parses its own flags and prints
// a Markdown or aligned table; the Python side of a comparison is embedded
// from the bench_*.py files beside the Go code. Fits whose peak memory is
// compared run in child processes of the landmark executable.
package bench
