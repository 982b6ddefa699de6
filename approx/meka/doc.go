// Package meka approximates a kernel matrix block-wise over a k-means
// partition of the rows, for kernel ridge regression and SVMs on data whose
// kernel matrix does not fit in memory (Si, Hsieh & Dhillon, "Memory
// Efficient Kernel Approximation", JMLR 2017).
//
//	m, err := meka.Fit(ctx, X, k, meka.Options{}, rng) // G ≈ W L Wᵀ
//	sol, err := m.Solve(ctx, lambda, y)                // (W L Wᵀ + λnI)α = y
//	beta, err := m.Coefficients(sol.Alpha)
//	err = m.Expand(ctx, pred, Xnew, beta)              // f(x) for new rows
//
// Map is MEKA (Algorithm 1): each cluster s gets an orthonormal Nyström
// basis W⁽ˢ⁾ of its diagonal block, and a small link matrix L couples the
// clusters, so G ≈ W L Wᵀ with W = diag(W⁽¹⁾, …, W⁽ᶜ⁾) in O(nk + (ck)²)
// memory. It is also an approx.FeatureMap. Solve and SolveCG solve the
// ridge system (Woodbury or CG, Sections 6.3 and 7.3); Options.PSD applies
// the MEKA-PSD fix (Section 7.1). BasisProblem and SolveBasis let another
// executor (the Beam module in distributed/) compute the per-cluster bases,
// bit-identical to the local fit.
//
// BKA (Section 4) keeps the exact diagonal blocks K(X_s, X_s) and zeros
// elsewhere; FitBKA builds it, Solve solves it block by block. model.BKASVM
// trains one SVM per block the same way.
//
// SaveMap and LoadMap write and read a fitted Map (and, through package
// approx, any other feature map).
package meka
