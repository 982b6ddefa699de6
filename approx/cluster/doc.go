// Package cluster partitions data with k-means: k-means++ seeding and
// Lloyd's iterations on a seeded subsample (20,000 rows by default, as the
// MEKA paper does), then every row assigned to its nearest centroid.
//
//	p, err := cluster.KMeans{K: 10}.Fit(ctx, X, rng)
//	labels, err := p.Assign(Xnew) // nearest centroid of each new row
//
// KMeans.Sketch selects randomized clustered sketching (Pourkamali-Anaraki &
// Becker, "Randomized Clustered Nyström for Large-Scale Kernel Machines",
// Algorithm 3): k-means runs on a ±1 random sketch XRᵀ/√p of p dimensions,
// and the centroids are then recomputed in the original space. Sparse X
// (kernel.Sparse) is clustered as it is, with dense centroids; PlanBytes
// states the memory before Fit allocates it.
//
// The resulting Partition feeds approx's clustered samplers (KMeansCenters,
// RandomizedClustered), MEKA and BKA (package meka) and model.BKASVM.
// SavePartition and LoadPartition write and read it.
package cluster
