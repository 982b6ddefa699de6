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
package approx
