// Package model holds Landmark's estimators: exact and approximate kernel ridge
// regression (KRR), FALKON, kernel SVM and BKA-SVM.
//
// Regularization convention, used by every estimator here: λ multiplies n.
// Exact KRR solves (K + λnI)α = y; FALKON and Nyström KRR solve
// (K_nMᵀK_nM + λn K_MM)α = K_nMᵀy (Rudi et al., FALKON, NIPS 2017, eq. 8).
// scikit-learn's KernelRidge(alpha) and Ridge(alpha) on Nyström features use
// alpha = λn; FALKON's penalty is λ itself.
package model
