package main

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// buildMEKA fits MEKA with rank --rank per cluster (0: 128) on --clusters
// clusters (0: 10); --m is not used (each cluster samples 2k_s landmarks).
// The note reports the memory held and the paper's per-stage times.
func buildMEKA(ctx context.Context, x mat.Matrix, k kernel.Kernel, o approxOpts, rng *rand.Rand) (approxBuilt, error) {
	m, err := meka.Fit(ctx, x, k, meka.Options{
		Rank: o.rank, Clusters: o.clusters, KMeans: cluster.KMeans{MaxIter: o.maxIter}, MaxBytes: capLeft(o),
	}, rng)
	if err != nil {
		return approxBuilt{}, err
	}
	st := m.Stats()
	note := fmt.Sprintf("c=%d clusters, ranks Σk_s=%d, %d linked pairs, %d thresholded; memory %d bytes (W + L + extension); T_C=%.3fs T_W=%.3fs T_L=%.3fs",
		m.Clusters(), m.Rank(), st.Linked, st.Thresholded, m.Bytes(),
		st.ClusterTime.Seconds(), st.BasisTime.Seconds(), st.LinkTime.Seconds())
	return approxBuilt{rows: m, rank: m.Rank(), note: note}, nil
}

// buildBKA fits the block-diagonal approximation on --clusters clusters (0: 64).
func buildBKA(ctx context.Context, x mat.Matrix, k kernel.Kernel, o approxOpts, rng *rand.Rand) (approxBuilt, error) {
	b, err := meka.FitBKA(ctx, x, k, meka.BKAOptions{
		Clusters: o.clusters, KMeans: cluster.KMeans{MaxIter: o.maxIter}, MaxBytes: capLeft(o),
	}, rng)
	if err != nil {
		return approxBuilt{}, err
	}
	st := b.Stats()
	n, _ := x.Dims()
	note := fmt.Sprintf("c=%d clusters; memory %d bytes (8·Σn_s²); clustering %.3fs, blocks %.3fs",
		len(st.Sizes), b.Bytes(), st.ClusterTime.Seconds(), st.BlockTime.Seconds())
	return approxBuilt{rows: b, rank: n, note: note}, nil
}

// capLeft is the MaxBytes of MEKA and BKA under --memory: the cap less the
// error measures' plan (at least 1 byte, so a cap smaller than the measures
// is still refused), or 0 (the package default) without a cap.
func capLeft(o approxOpts) int64 {
	if o.memory <= 0 {
		return 0
	}
	return max(o.memory-o.measure, 1)
}
