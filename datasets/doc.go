// Package datasets reads and writes LIBSVM/svmlight and CSV data, scales
// features, splits data for testing and cross-validation, generates synthetic
// problems, and ships small real datasets inside the binary.
package datasets
