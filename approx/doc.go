// Package approx builds kernel approximations: landmark samplers for the
// Nyström method, Nyström feature maps (standard and via QR), random Fourier
// features, k-means partitions, MEKA and BKA, and the measures of their error.
//
// Papers:
//   - C. Musco, C. Musco. Recursive Sampling for the Nyström Method. NIPS 2017.
//   - A. Rudi, D. Calandriello, L. Carratino, L. Rosasco. On Fast Leverage Score
//     Sampling and Optimal Learning. NeurIPS 2018.
//   - F. Pourkamali-Anaraki, S. Becker. Randomized Clustered Nyström for
//     Large-Scale Kernel Machines.
//   - S. Si, C.-J. Hsieh, I. S. Dhillon. Memory Efficient Kernel Approximation.
//     JMLR 2017.
//
// Clustering and Nyström maps (kmeans.go, clustered.go, nystrom.go, rff.go):
//   - KMeans partitions X by k-means++ seeding and Lloyd iterations on a seeded
//     subsample (20,000 points by default, as the MEKA paper), optionally on a
//     ±1 random sketch (Pourkamali-Anaraki & Becker, Alg. 3); MEKA and BKA
//     consume its Partition.
//   - KMeansCenters (k-means Nyström: K. Zhang, J. T. Kwok. Clustered Nyström
//     Method for Large Scale Manifold Learning and Dimension Reduction. IEEE
//     TNN 2010) and RandomizedClustered (Alg. 3) are Samplers whose landmarks
//     are centroids.
//   - Nystrom fits, from any Sampler's landmarks, the standard rank-k map
//     K̃ = C W_k⁺ Cᵀ (Pourkamali-Anaraki & Becker, Alg. 1) or the best rank-k
//     approximation of C W⁺ Cᵀ via a thin QR of C (Alg. 2), with a relative
//     eigenvalue floor instead of inverting tiny eigenvalues of W.
//   - RFF: random Fourier features (A. Rahimi, B. Recht. Random Features for
//     Large-Scale Kernel Machines. NIPS 2007).
//
// MEKA and BKA (meka.go, meka_remote.go, meka_solve.go, bka.go; Si, Hsieh &
// Dhillon 2017):
//   - BKA (Section 4) keeps the exact diagonal blocks G⁽ˢˢ⁾ = K(X_s, X_s) of a
//     k-means partition and zeros elsewhere: memory 8·Σn_s² bytes, products
//     and the ridge solve (G_BKA + λnI)α = y block by block (Cholesky).
//   - MEKA (Algorithm 1) approximates G ≈ W L Wᵀ with W = diag(W⁽¹⁾…W⁽ᶜ⁾):
//     W⁽ˢ⁾ is an orthonormal basis of the rank-k_s Nyström approximation of
//     G⁽ˢˢ⁾ from m_s = 2k_s sampled columns (so L⁽ˢˢ⁾ = RRᵀ from its QR), and
//     each link block is the least-squares fit on a sampled submatrix,
//     L⁽ˢᵗ⁾ = W̄⁽ˢ⁾⁺ Ḡ⁽ˢᵗ⁾ (W̄⁽ᵗ⁾⁺)ᵀ (Section 5.2; (W̄ₛᵀW̄ₛ)⁻¹W̄ₛᵀḠW̄ₜ(W̄ₜᵀW̄ₜ)⁻¹
//     when W̄ has full column rank) on ⌈(1+ρ)k_s⌉ rows per cluster, or zero
//     when k(m_s, m_t) ≤ ε for the centroids. Rank strategies of Section 5.2:
//     same k, proportional to n_s, or the top c·k estimated eigenvalues.
//     Memory O(nk + (ck)²): W is kept as c blocks.
//   - Per-cluster bases elsewhere (meka_remote.go): each cluster's share of
//     Algorithm 1 lines 2–4 is a serializable MEKABasisProblem (its rows,
//     m_s, the landmark seed drawn on the driver, the target rank k_s), solved
//     by SolveMEKABasis — the function the local loop runs (with RankEigen,
//     its two halves: landmark factors for the rank choice, then the bases),
//     so results are bit-identical wherever it runs. MEKAOptions.BasisSolver
//     hands all the problems to another executor (module .../distributed:
//     one Apache Beam PCollection element each); k-means, the seeds,
//     RankEigen's rank choice, the link blocks (lines 5–9, 8–22% of the fit
//     in docs/performance.md ("MEKA and BKA") against 76–92% for the bases) and L stay on the driver.
//   - MEKA-PSD (Section 7.1): L = VΛVᵀ with negative eigenvalues set to 0.
//   - KRR on MEKA (Sections 6.3 and 7.3), with the project's λn convention:
//     Woodbury, α = (y − WWᵀy)/λn + WV(Λ + λnI)⁻¹VᵀWᵀy since WᵀW = I, or CG
//     with the O(nk + (ck)²) product W L Wᵀv; predictions extend a new point
//     x in cluster s by w(x) = k(x, Z_s)·U_kΣ_k^(−1/2)R⁻¹ (the Nyström
//     extension of that cluster's basis), f(x) = w(x)ᵀ(L Wᵀα)_s.
//
// Leverage scores, samplers and error measures (uniform.go, leverage.go,
// recursive.go, bless.go, quality.go):
//   - Ridge conventions: Musco & Musco write ℓᵢ(λ) = (K(K + λI)⁻¹)ᵢᵢ with an
//     absolute ridge; parameters holding that value are named Ridge. BLESS and
//     the rest of Landmark (model/doc.go) use K + λnI; those are named Lambda.
//     Ridge = Lambda·n describes the same scores. d_eff(λ) = Σᵢ ℓᵢ(λ).
//   - Uniform: M rows without replacement. ExactLeverage/ExactSpectrum: exact
//     scores and d_eff, O(n³), the reference for tests. ExactRLS samples by
//     them; SampleByScores is Musco & Musco's Algorithm 1 (keep i with
//     pᵢ = min(1, ℓ̃ᵢ·16·log(Σℓ̃/δ)), weight 1/√pᵢ).
//   - RecursiveRLS: Algorithm 2 (SampleRidge: each level keeps each point with
//     probability 1/2 (line 4), base case 192·log(1/δ) (line 1), δ/3 per
//     level (line 5), Lemma 6 scores (3/(2λ))(K − KS(SᵀKS + λI)⁻¹SᵀK)ᵢᵢ from
//     K_S and diag K (line 7), pᵢ = min{1, ℓ̃ᵢ·16·log(Σℓ̃/δ)} (line 8), columns
//     e_i/√pᵢ (line 9)), its fixed-sample-size variant (Sample; Section 5 and
//     Appendix D) and an accelerated one (Section 5.1, Appendix G). The paper
//     text in ../shared/papers stops before the appendices: the two variants
//     follow Section 5's description, and docs/FIDELITY.md lists what that
//     leaves to us.
//   - BLESS and BLESSR: Rudi et al.'s Algorithms 1 and 2, λ_h = λ_{h−1}/q from
//     λ₀ = κ², R_h = q₁·min(κ²/λ_h, n) candidates (Alg. 1) or each point with
//     probability β_h = min(q₁κ²/(λ_h n), 1) (Alg. 2), scores by their eq. 3
//     ℓ̃ = (λn)⁻¹(K_ii − K_Jiᵀ(K_JJ + λnA)⁻¹K_Ji) at λ_h (Alg. 1 line 6) or
//     λ_{h−1} (Alg. 2 line 10), A_h = (R_h M_h/n)·diag(p) (Alg. 1 line 10) or
//     diag(p) (Alg. 2 line 13); Path returns every (λ_h, J_h, A_h). Sample
//     with Lambda > 0 ends the path at Lambda (the paper's use, λ_bless);
//     with Lambda = 0 it stops where q₂·d_h reaches m (a fixed-size mode of
//     ours, not in the paper).
//   - RelFrobeniusError (MEKA protocol: sampled rows), SpectralError (Musco
//     protocol: dense K − K̃ on a random subset, Lanczos), ScoreAccuracy
//     (BLESS's R-ACC: ratios ℓ̃ᵢ/ℓᵢ, mean and 5th/95th percentiles).
//
// Persistence: SaveMap and LoadMap write and read fitted feature maps
// (*NystromMap, *RFFMap and the whole *MEKA approximation, including its
// partition, bases, link matrix and eigendecomposition), SavePartition and
// LoadPartition k-means partitions, in Landmark's versioned, checksummed
// format (described in package model, "Saved models"); reloaded objects
// transform, multiply and assign bit-identically, and damaged files give
// errors wrapping ErrFormat.
package approx
