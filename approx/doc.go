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
package approx
