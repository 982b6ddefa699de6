package experiments

import (
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/approx"
)

// samplerEntry is one landmark sampler a spec may name: as an estimator's
// approx backend (falkon) or as a Nyström method of an approximation run.
type samplerEntry struct {
	name, summary string
	s             approx.Sampler
}

// samplers is the landmark sampler table, sorted by name.
var samplers = []samplerEntry{
	{"bless", "BLESS landmarks, fixed-size mode (Rudi et al. 2018, Alg. 1)", approx.BLESS{}},
	{"bless-r", "BLESS-R landmarks, without replacement (Rudi et al. 2018, Alg. 2)", approx.BLESSR{}},
	{"clustered", "randomized clustered k-means centroids (Pourkamali-Anaraki & Becker, Alg. 3)", approx.RandomizedClustered{}},
	{"exact-rls", "landmarks drawn by exact ridge leverage scores (n ≤ a few thousand)", approx.ExactRLS{}},
	{"kmeans", "k-means centroids (Zhang & Kwok)", approx.KMeansCenters{}},
	{"rls", "recursive RLS landmarks (Musco & Musco, Alg. 2, fixed size)", approx.RecursiveRLS{}},
	{"rls-accelerated", "recursive RLS with under-sampled intermediate levels (Musco & Musco, App. G)", approx.RecursiveRLS{Accelerated: true}},
	{"uniform", "uniformly sampled landmarks", approx.Uniform{}},
}

func samplerNames() []string {
	n := make([]string, len(samplers))
	for i, s := range samplers {
		n[i] = s.name
	}
	return n
}

func samplerByName(name string) (approx.Sampler, bool) {
	i, ok := slices.BinarySearchFunc(samplers, name, func(e samplerEntry, n string) int { return strings.Compare(e.name, n) })
	if !ok {
		return nil, false
	}
	return samplers[i].s, true
}
