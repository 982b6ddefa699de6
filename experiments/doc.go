// Package experiments runs YAML-described experiments: a grid of settings
// (λ, γ or σ, sample size m, clusters, rank, SVM C, any numeric estimator
// option), each cross-validated, then the best setting refitted on the whole
// training set and scored on the test set. It is what `landmark run` and
// `landmark fit` call.
//
// From Go: DecodeFile reads a spec, Run(ctx, spec, Options{}) runs its grid
// and returns the best point and every point's scores (Options.Progress
// reports each fold, CG iteration and grid point), and Fit fits one setting
// and returns a FitResult that predicts on new rows with the spec's scaling
// and saves with it (LoadFit reads it back). Estimators, ApproximationNames
// and Metrics list the names a spec may use; every YAML key is described in
// docs/yaml.md, which a test keeps equal to this package's spec table.
//
// A spec (see Spec and experiments/examples/) names the data, the task, an
// estimator from one explicit table (EstimatorNames), its kernel
// (kernel.Spec), approximation backend and options, the grid, the
// cross-validation (k folds, stratified for classification, a selection
// metric) and a seed. Decoding is strict: unknown keys, wrong types and
// impossible values (λ ≤ 0, folds < 2, and with the data loaded m > n) are
// errors naming the YAML line (SpecError, ErrSpec).
//
// Regularization follows the project convention (package model): lambda is λ
// with penalty λn, as in (K + λnI)α = y and FALKON's
// (K_nMᵀK_nM + λn K_MM)α = K_nMᵀy (Rudi et al. 2017, eq. 8). A spec may
// instead give scikit-learn's alpha = λn explicitly; it is converted with the
// n of each fit (λ = alpha/n), never guessed.
//
// Run writes into the output folder: results.log (one JSON line per finished
// grid point, fsynced, so an interrupted run resumes without recomputing and
// a changed spec — detected by the hash of its canonical JSON — is refused
// unless Options.Fresh), results.csv and results.json (one row per grid point
// with the mean and sample standard deviation of every metric of the task over
// folds × repeats, fit and predict time, peak Go-heap growth), summary.md,
// plots (CV metric against λ, γ and the other axes; metric and fit time
// against m) as PNG and SVG, and manifest.json. Every output is written to a
// temporary file, fsynced and renamed, so no half-written result is ever left.
//
// Randomness: the train/test split, subsampling, folds (one PCG stream per
// repeat) and the estimators' seeds (one per repeat and fold, the same for
// every grid point) all derive from the spec's seed, so the same spec gives
// byte-identical results.csv apart from the timing columns.
//
// Data and scaling: the dataset block's storage (DatasetSpec.Storage) holds
// X dense or sparse (CSR); auto keeps a LIBSVM file sparse below density
// SparseDensity. Its scale is fitted on each fit's training rows and applied
// to validation, test and, through a saved fit, new rows: standardize
// (centre, divide by the standard deviation) and minmax (to [−1, 1], as
// svm-scale) move zeros and so need dense X (auto goes dense; storage:
// sparse with minmax is an error); maxabs (divide by the largest |x|,
// scikit-learn's MaxAbsScaler) and std (divide by the standard deviation
// without centering, StandardScaler(with_mean=False)) keep zeros and sparse
// X sparse (datasets.ColumnScaler). With storage: sparse, standardize is
// std: subtracting a mean would fill in every zero. Fit and Run report the
// scaling used (FitResult.ScalingUsed, Result.Scaling), and landmark fit and
// run print it. A sparse fit with maxabs or std predicts as the dense fit
// with the same scaling (to 1e-10; the factors are the same bits).
//
// Metrics: rmse, mae, r2 (regression); accuracy, error, balanced_accuracy, f1
// (classification); auc (binary, the Mann–Whitney statistic, from decision
// values when the estimator exposes DecisionFunction).
//
// Reuse of work along a regularization path: the grid is ordered so that
// consecutive points differ only in λ (Grid.Axes). With warm_start: true a
// falkon fit starts from the fit of the same fold at the previous λ — its
// centers and coefficients (FALKON's warm start along a decreasing λ
// sequence) — so the centers are sampled once per chain; a chain is resumed
// or recomputed whole, so interrupted runs still reproduce uninterrupted
// ones. With approx {type: bless, path: true} (or bless-r) one BLESS path
// (Rudi et al. 2018, Alg. 1/2) per fold and λ chain, run down to the chain's
// smallest λ, serves every λ: the centers and weights of λ are (J_h, A_h) of
// the first step with λ_h ≤ λ, and FALKON-BLESS uses them with the weighted
// preconditioner (eq. 15, regularized with that λ_h): the mode driven by the
// fit's λ. Without path, bless runs in fixed-size mode (the path stops where
// 3·d_h reaches m, independent of the fit's λ). Warm starts are refused with BLESS centers
// because a fitted model does not carry the weights eq. 15 needs.
//
// Approximation-only runs (Spec.Approximation) build each method of a table
// (Nyström on any sampler, standard rank-k or QR rank-k; rff; meka; bka) for
// every grid point and score ‖K − K̃‖ with approx.RelFrobeniusError and
// approx.SpectralError, relative to ‖K‖. Fit fits one setting and FitResult
// saves it with its preprocessing (Save, LoadFit).
package experiments
