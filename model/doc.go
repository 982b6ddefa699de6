// Package model holds Landmark's estimators: exact and approximate kernel ridge
// regression (KRR), FALKON, kernel SVM and BKA-SVM.
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
// Memory caps. Every estimator has MemoryLimit (YAML memory_limit, bytes; 0
// means no cap) and plans its peak before the large allocations: exact KRR
// (K + λnI and the blocked Cholesky's workspace), Nyström, feature and MEKA
// backends (MEKA gets what its solve leaves), Falkon (FalkonPlan), SVM (the
// largest sub-problem's state and kernel-column cache, which shrinks to what
// the cap leaves when CacheBytes is 0) and BKASVM (the clusters solved at
// once). Samplers plan through their PlanBytes methods (approx/plan.go) and
// are checked before sampling. A fit over the cap fails with ErrMemory
// (which wraps ErrInput and is approx.ErrMemory too), naming the bytes it
// needs and the cap. Plans are estimates of the largest arrays; measured
// Go-heap peaks were within them or up to 3% over, except Falkon's, 1.5× its
// plan at n = 3000, M = 1000 (TestMemoryPlanPeak, opt-in).
//
// Saved models. Save, SaveFile and Marshal write a fitted KRR (every backend
// of this package: exact, NystromKRR, FeatureRidge on Nyström, QR-Nyström,
// random-Fourier or MEKA maps, MEKAKRR), Falkon, SVM or BKASVM; Load,
// LoadFile and Unmarshal read it back into an estimator whose predictions and
// decision values are bit-identical to the saved one's (and which re-saves to
// the same bytes). The format, version 3 (files of version 2 still load), is
//
//	offset  size  field
//	0       8     magic "LANDMARK"
//	8       2     format version, uint16 little-endian (3)
//	10      1     length L of the type tag (1…64)
//	11      L     type tag: model.KRR, model.Falkon, model.SVM, model.BKASVM
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
// Support vectors (SVM, BKA-SVM) and exact KRR's training rows are stored in
// the fit's format: sparse rows of a sparse fit as a sparse field, loaded
// back as sparse rows, so a loaded model predicts on the same path; BKA-SVM's
// local decision functions give their support vectors as positions among the
// global ones. k-means centroids (BKA-SVM's partition, MEKA's) and MEKA's
// landmark rows, dense in memory, are written as a sparse field whenever
// that is smaller (exact zeros left out, so nothing is lost). Save and SaveFile encode twice (counting, then writing in
// 64 KiB chunks) and Load and LoadFile decode as they read when the input's
// size is known (a file, a byte slice), so neither holds the whole file.
// A payload holds the estimator's configuration, then its fitted state and
// its Info, so that a loaded estimator refitted on the same data reproduces
// the saved one. KRR.Approx is saved when it is one of this package's
// backends with the default (uniform) sampler: NystromKRR, FeatureRidge on
// NystromFeatures, RFFFeatures or MEKAFeatures, and MEKAKRR. Not saved,
// because they are code or data rather than settings: other samplers and
// feature mappers, fixed Centers, Falkon's Sampler, Centers, CenterWeights,
// Validation, WarmStart and Progress, SVM's and BKASVM's Progress and
// MemoryLimit (a fit-time cap, added after the format was fixed), SVM's
// CacheFloat32 (a fit-time setting, added later too), BKASVM's
// Solver, and MEKAKRR's CG callback and BasisSolver; a loaded estimator
// still predicts identically, and a refit uses the defaults for them unless
// they are set again.
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
