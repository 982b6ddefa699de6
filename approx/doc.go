// Package approx approximates a kernel matrix K by a low-rank one, so that
// kernel methods scale to many rows: you pick landmarks with a Sampler, fit
// a FeatureMap φ with K(x, y) ≈ φ(x)·φ(y), and measure how good it is.
//
//	lm, err := approx.BLESS{Lambda: 1e-3}.Sample(ctx, X, k, 0, rng) // or Uniform{}, RecursiveRLS{}, …
//	m, err := approx.Nystrom{}.Fit(ctx, X, k, lm)                    // K ≈ C W⁺ Cᵀ
//	err = m.Transform(ctx, features, X)                             // rows φ(x_i)
//	fr, err := approx.NewFeatureRows(ctx, m, X)
//	e, err := approx.RelFrobeniusError(ctx, X, k, fr, 0, rng)       // ‖K − K̃‖_F/‖K‖_F
//
// Samplers: Uniform (rows without replacement); ExactRLS and SampleByScores
// (ridge leverage scores, Musco & Musco NIPS 2017, Algorithm 1);
// RecursiveRLS (their Algorithm 2, plus fixed-size and accelerated
// variants); BLESS and BLESSR (Rudi et al. NeurIPS 2018, Algorithms 1 and
// 2, whose weights FALKON's preconditioner uses); KMeansCenters and
// RandomizedClustered, whose landmarks are k-means centroids (Zhang & Kwok
// 2010; Pourkamali-Anaraki & Becker, Algorithm 3). Maps: Nystrom (standard
// rank-k K̃ = C W_k⁺ Cᵀ, or the best rank-k approximation via a thin QR of
// C, Pourkamali-Anaraki & Becker Algorithms 1 and 2) and RFF (random
// Fourier features, Rahimi & Recht NIPS 2007). Measures: RelFrobeniusError
// (sampled rows, the MEKA paper's protocol), SpectralError (Musco &
// Musco's), ScoreAccuracy (BLESS's R-ACC), ExactLeverage and ExactSpectrum
// as references on small problems.
//
// Ridge conventions: parameters named Ridge are absolute, as in Musco &
// Musco's ℓᵢ(λ) = (K(K + λI)⁻¹)ᵢᵢ; those named Lambda scale with n, as BLESS
// and the rest of Landmark write K + λnI (Ridge = Lambda·n).
//
// Sparse X (kernel.Sparse, such as datasets.CSR) stays sparse in every
// sampler and map. Each sampler's PlanBytes states its peak memory before
// it allocates. SaveMap and LoadMap write and read fitted maps in
// Landmark's checksummed format.
//
// Related packages: approx/meka (MEKA and BKA, block approximations over a
// k-means partition) and approx/cluster (k-means). docs/FIDELITY.md lists
// where the code departs from the papers.
package approx
