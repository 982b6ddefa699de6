package experiments

import (
	"fmt"
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/approx"
)

// samplerEntry is one landmark sampler a spec or the approx command may
// name: as an estimator's approx backend (falkon) or as a Nyström method of
// an approximation run. make builds it from the settings that tune it
// (compression, k-means iterations); their zero values give its defaults.
type samplerEntry struct {
	name, summary string
	make          func(p ApproxParams) approx.Sampler
}

// samplers is the landmark sampler table, sorted by name.
var samplers = []samplerEntry{
	{"bless", "BLESS landmarks, fixed-size mode: the λ path stops when 3·d_eff reaches m (Rudi et al. 2018, Alg. 1)",
		func(ApproxParams) approx.Sampler { return approx.BLESS{} }},
	{"bless-r", "BLESS-R landmarks, fixed-size mode, without replacement (Rudi et al. 2018, Alg. 2)",
		func(ApproxParams) approx.Sampler { return approx.BLESSR{} }},
	{"clustered", "randomized clustered k-means centroids: k-means on a ±1 sketch of ⌈(p/d)·d⌉ dims (Pourkamali-Anaraki & Becker, Alg. 3)",
		func(p ApproxParams) approx.Sampler {
			return approx.RandomizedClustered{Compression: p.Compression, MaxIter: p.KMeansIter}
		}},
	{"exact-rls", "landmarks drawn by exact ridge leverage scores, O(n³): small n only (approx.MaxExactPoints)",
		func(ApproxParams) approx.Sampler { return approx.ExactRLS{} }},
	{"kmeans", "k-means centroids (Zhang & Kwok)",
		func(p ApproxParams) approx.Sampler { return approx.KMeansCenters{MaxIter: p.KMeansIter} }},
	{"rls", "recursive RLS landmarks, fixed-sample-size variant (Musco & Musco, Alg. 2 and App. D)",
		func(ApproxParams) approx.Sampler { return approx.RecursiveRLS{} }},
	{"rls-accelerated", "recursive RLS with under-sampled intermediate levels (Musco & Musco, App. G)",
		func(ApproxParams) approx.Sampler { return approx.RecursiveRLS{Accelerated: true} }},
	{"uniform", "uniformly sampled landmarks, without replacement",
		func(ApproxParams) approx.Sampler { return approx.Uniform{} }},
}

func samplerNames() []string {
	n := make([]string, len(samplers))
	for i, s := range samplers {
		n[i] = s.name
	}
	return n
}

// SamplerName returns the name a spec gives sampler s (uniform, bless, …:
// the table entry of s's type; rls-accelerated for an accelerated
// approx.RecursiveRLS), and "" for a sampler no name builds.
func SamplerName(s approx.Sampler) string {
	if r, ok := s.(approx.RecursiveRLS); ok && r.Accelerated {
		return "rls-accelerated"
	}
	for _, e := range samplers {
		if e.name != "rls-accelerated" && fmt.Sprintf("%T", e.make(ApproxParams{})) == fmt.Sprintf("%T", s) {
			return e.name
		}
	}
	return ""
}

// samplerByName returns the named sampler with its default settings.
func samplerByName(name string) (approx.Sampler, bool) {
	i, ok := slices.BinarySearchFunc(samplers, name, func(e samplerEntry, n string) int { return strings.Compare(e.name, n) })
	if !ok {
		return nil, false
	}
	return samplers[i].make(ApproxParams{}), true
}
