// Package model holds Landmark's estimators: kernel ridge regression (KRR),
// FALKON, kernel SVM, BKA-SVM, ε-support vector regression (SVR) and the
// one-class SVM (OneClassSVM). This is the package a Go program fits and
// predicts with.
//
// Each estimator is a config struct whose zero value means the defaults
// (fields carry yaml tags; Fit never writes them back). Set the kernel, the
// penalty and, for the approximate methods, the number of landmarks and how
// they are chosen, then call Fit(ctx, X, y) and Predict(X); X is any gonum
// mat.Matrix — a *mat.Dense, or a datasets.CSR that stays sparse throughout.
// Every estimator but SVR (a regressor only) implements Classifier (Estimator
// plus Classes, DecisionFunction and, with Probability set, PredictProba); KRR
// and Falkon are MultiOutput too. Each refuses bad input with errors that wrap ErrInput
// (a classifier refuses continuous-looking labels, a nil context is an
// error), stops when its context is cancelled or its ProgressFunc returns an
// error, plans its peak memory before allocating (Resources.MemoryLimit,
// ErrMemory), keeps its previous model when a fit fails, and gives the same
// model for the same Seed whatever the number of cores. Save and Load write
// and read any fitted estimator with its configuration, so that a loaded
// model refits as the saved one did.
//
// Which estimator: KRR with no backend is exact kernel ridge regression,
// O(n²) memory, for up to a few ten thousand rows; KRR with NystromKRR,
// FeatureRidge or MEKAKRR, and Falkon, scale to millions of rows by fitting
// on M landmarks (Falkon by preconditioned conjugate gradient, streaming the
// kernel matrix; the best choice for large n); SVM is LIBSVM's exact C-SVC;
// BKASVM solves one SVM per k-means cluster, far faster at a small cost in
// accuracy; SVR is LIBSVM's ε-SVR (Chang & Lin 2011, Sect. 2.4: the
// ε-insensitive loss, sparse in its support vectors, solved by the same SMO
// as SVM on 2n variables). With Nu set, SVM is ν-SVC and SVR ν-SVR (Sect.
// 2.2 and 2.5 there; LIBSVM's -s 1 and -s 4), solved by solver.SolveNu: ν
// bounds the fraction of margin errors (rows outside the tube) from above
// and of support vectors from below, in place of C (ν-SVC) or ε (ν-SVR). OneClassSVM is LIBSVM's one-class SVM (-s 2;
// Schölkopf et al., "Estimating the support of a high-dimensional
// distribution", Neural Computation 13 (2001), eq. (4)–(5); Chang & Lin
// 2011, Sect. 2.3): it fits without labels and predicts +1 inside the
// estimated support of the data and −1 outside, for outlier and novelty
// detection; ν bounds the fraction of training outliers. The landmark samplers (uniform, leverage scores, BLESS, k-means,
// …) are in package approx; the YAML names of all of these are in package
// experiments.
//
// Falkon's passes over tabular data with one-hot or binary columns run
// factored (Falkon.Factor, automatic by default): for the Gaussian and
// Laplacian kernels k(x, c) = k(x_D, c_D)·k(x_S, c_S) over the dense columns
// D and the two-valued ones S, so with the rows grouped by their pattern on
// S, K(X_p, C) = K_D(X_p, C_D)·diag(T[p]) with T[p][j] = k(s_p, c_{j,S}),
// and every K_nM product runs at dimension |D| (kernel.Factored; the fit is
// the same up to rounding).
//
// Regularization convention, used by every estimator here: λ multiplies n.
// Exact KRR solves (K + λnI)α = y; FALKON and Nyström KRR solve
// (K_nMᵀK_nM + λn K_MM)α = K_nMᵀy (Rudi et al., FALKON, NIPS 2017, eq. 8).
// scikit-learn's KernelRidge(alpha) and Ridge(alpha) on Nyström features use
// alpha = λn; FALKON's penalty is λ itself.
//
// Kernel ridge regression. KRR is exact KRR by default (Cholesky of K + λnI,
// jitter added and reported only if it fails) and takes a KRRApprox backend:
// NystromKRR solves the M×M Nyström system directly; FeatureRidge is ridge
// regression on any feature map (Nyström standard or QR, Pourkamali-Anaraki
// & Becker, JMLR, Alg. 1–2; random Fourier features), the "linearized" kernel
// machine (ΦᵀΦ + λnI)w = Φᵀy. Falkon solves the Nyström system by conjugate
// gradient with FALKON's preconditioner (Rudi, Carratino, Rosasco, NIPS 2017,
// Alg. 1; eq. 14 of Rudi, Calandriello, Carratino, Rosasco, NeurIPS 2018) or
// the BLESS-weighted one (eq. 15 there) — see packages precond and solver.
// Classification in all of them regresses ±1 one-vs-rest codes (Labels).
//
// Sample and class weights. SVM, SVR, OneClassSVM, KRR and Falkon are
// WeightedEstimators: FitWeighted takes one weight w_i ≥ 0 a row. The SVMs
// bound row i's dual variables by C·w_i, which is C-SVC's and ε-SVR's dual
// (Chang & Lin 2011, Sect. 2.1 and 2.4) with C_i in place of C, as
// scikit-learn's sample_weight; OneClassSVM bounds α_i by w_i and sets
// Σ α_i = ν·Σ w_i, as scikit-learn's OneClassSVM, and ν-SVC (SVM.Nu)
// bounds α_i by w_i with each label's sum ν·Σ w_i/2, as scikit-learn's
// NuSVC (class weights multiply w_i in all the SVMs). KRR and Falkon minimize
// (1/S)Σ w_i‖f(x_i) − y_i‖² + λ‖f‖² with S = Σ w_i. Both first rescale
// the weights to sum to n, which leaves the objective as it is and the
// penalty λn: the Nyström normal equations are then
// (K_nMᵀWK_nM + λn·K_MM)α = K_nMᵀWy, eq. 8 of FALKON (NIPS 2017) with
// W = diag(w) between K_nM's products (W = I: the unweighted system), and
// FALKON's preconditioner (Alg. 1, built for K_nMᵀK_nM ≈ (n/M)K_MM²) is
// used as it stands. KRR's and Falkon's ClassWeights multiply the weights of a class's
// rows.
//
// Data larger than memory. Falkon.FitShards fits on a shard set (package
// datasets/shard, `landmark data shard`) without holding X: every pass
// streams the shards in blocks of rows (ShardBlockRows), one block decoded
// ahead on a reader goroutine while the kernel engine computes on the
// other, each shard's CRC checked as it is read. Its memory is planned
// from the centers, K_MM and the preconditioner's factors and two row
// blocks (PlanShards), not n. The per-shard products (ShardPass) and the
// center draw over global row indices (FalkonBuilder.SampleShards) are the
// code the Beam fit (module distributed, beamfit.Falkon) runs on its
// workers and driver, so both give the same model bit for bit; block and
// shard sums are added in fixed order, so neither timing nor GOMAXPROCS
// changes a bit.
//
// Memory caps. Every estimator has MemoryLimit (YAML memory_limit, bytes; 0
// means no cap) and plans its peak before the large allocations: exact KRR
// (K + λnI and the blocked Cholesky's workspace), Nyström, feature and MEKA
// backends (MEKA gets what its solve leaves), Falkon (FalkonPlan), SVM (the
// largest sub-problem's state and kernel-column cache, which shrinks to what
// the cap leaves when CacheBytes is 0), SVR (the same for its 2n variables),
// OneClassSVM (the same for its one problem) and BKASVM (the clusters solved at once). Samplers plan through their PlanBytes methods and
// are checked before sampling. A fit over the cap fails with ErrMemory
// (which wraps ErrInput and is approx.ErrMemory too), naming the bytes it
// needs and the cap. Plans are estimates of the largest arrays; measured
// Go-heap peaks were within them or up to 3% over, except Falkon's, 1.5× its
// plan at n = 3000, M = 1000 (TestMemoryPlanPeak, opt-in).
//
// Saved models. Save, SaveFile and Marshal write a fitted KRR (every backend
// of this package: exact, NystromKRR, FeatureRidge on Nyström, QR-Nyström,
// random-Fourier or MEKA maps, MEKAKRR), Falkon, SVM, BKASVM, SVR or OneClassSVM; Load,
// LoadFile and Unmarshal read it back into an estimator whose predictions and
// decision values are bit-identical to the saved one's (and which re-saves to
// the same bytes). The format, version 10 (files of versions 2 to 9 still
// load; version 5 added Falkon's Float32Storage, version 6 its
// PrecondPrecision, version 7 its Factor and SVR, version 8 KRR's and
// Falkon's ClassWeights, version 9 the ν of SVM and SVR, version 10
// Falkon's NeverCacheKnm), is
//
//	offset  size  field
//	0       8     magic "LANDMARK"
//	8       2     format version, uint16 little-endian (10)
//	10      1     length L of the type tag (1…64)
//	11      L     type tag: model.KRR, model.Falkon, model.SVM, model.BKASVM,
//	              model.SVR (since 2026-11-28, in version 7: a build before
//	              it refuses the file as "not an estimator"), model.OneClassSVM
//	              (since 2026-11-28, in version 8, the same way)
//	              (approx.SaveMap, meka.SaveMap and cluster.SavePartition write the
//	              tags approx.NystromMap, approx.RFFMap, approx.MEKA, approx.Partition)
//	11+L    8     payload length P, uint64 little-endian
//	19+L    P     payload
//	19+L+P  4     CRC-32C (Castagnoli) of bytes [0, 19+L+P), little-endian
//
// The payload is a sequence of fields in a fixed order per type: unsigned
// and zig-zag signed varints, float64 bit patterns (8 bytes little-endian),
// length-prefixed strings and slices, and matrices (a kind byte — 0 nil,
// 1 empty, 2 dense: rows, columns and the row-major values; 3 sparse, since
// version 3: rows, columns, the number of non-zeros, each row's count, the
// column indices as gaps and the values). Kernels are
// stored by their kernel.Spec (type, γ, σ, degree, c₀) and rebuilt with
// kernel.New; a kernel defined outside package kernel cannot be saved.
// Feature maps and partitions are nested as complete files of their own.
// Support vectors (SVM, BKA-SVM, SVR) and exact KRR's training rows are stored in
// the fit's format: sparse rows of a sparse fit as a sparse field, loaded
// back as sparse rows, so a loaded model predicts on the same path; BKA-SVM's
// local decision functions give their support vectors as positions among the
// global ones. k-means centroids (BKA-SVM's partition, MEKA's) and MEKA's
// landmark rows, dense in memory, are written as a sparse field whenever
// that is smaller (exact zeros left out, so nothing is lost). Save and
// SaveFile encode twice (counting, then writing in 64 KiB chunks) and Load
// and LoadFile decode as they read when the input's size is known (a file, a
// byte slice), so neither holds the whole file.
// A payload holds the estimator's configuration, its fitted state and its
// Info, so that Load(Save(m)) refitted on the same data reproduces m (bit for
// bit: fits are seeded and deterministic). Since version 4 the configuration
// is complete: KRR's backend (ExactKRR, NystromKRR with its given Centers,
// FeatureRidge on NystromFeatures, RFFFeatures, MEKAFeatures or
// FixedFeatures, MEKAKRR)
// and every sampler of package approx (Uniform, BLESS, BLESSR,
// RecursiveRLS, ExactRLS, KMeansCenters, RandomizedClustered) with all their
// exported options; Falkon's Sampler, Centers, CenterWeights, CenterLambda,
// WarmStart and Validation; SVM's CacheFloat32 and MemoryLimit; BKASVM's
// MemoryLimit; the Probability setting of KRR, Falkon and BKASVM with
// PredictProba's fitted calibration (so a loaded model gives the same
// probabilities). Given centers equal to the fitted ones are stored once; a
// warm start adds its coefficients and a validation set its rows to the
// file.
//
// Not saved, because they are code: progress callbacks (Progress fields,
// the samplers' included), MEKAKRR's CG callback and BasisSolver, BKASVM's
// Solver (remote runners of the same computation: a refit without them
// runs it locally, to the same model when they follow their contracts). A
// sampler, KRR backend or feature mapper of a type defined outside this
// module cannot be saved either: Save writes a "not saved" marker with its
// type name instead of refusing, so the model can still be deployed, and
// Load puts a NotSaved{Type} in its place (Unsaved lists such fields of a
// loaded estimator). The loaded estimator predicts as
// the saved one did, but refitting it fails with an error wrapping
// ErrNotSaved until the field is set again: a loaded model never silently
// refits as another algorithm. Files of versions 2 and 3 carry KRR backends
// with the uniform sampler only, and no Falkon sampler or centers: other
// configurations load as exact KRR and uniform Falkon centers, as those
// versions documented.
//
// Loading never trusts the file: a wrong magic, version (ErrVersion), tag or
// checksum (ErrChecksum), a truncation, or contents that do not fit together
// (matrix shapes, class counts, label order, cluster offsets, non-finite
// coefficients) are errors wrapping ErrFormat, never panics; every length is
// checked against the bytes left before anything is allocated, so a hostile
// file costs at most its own size in memory. FuzzLoad and FuzzDecode check
// this on arbitrary bytes. Package model/golearn stores the same bytes inside
// golearn's model files.
package model
