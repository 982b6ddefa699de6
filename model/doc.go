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
package model
