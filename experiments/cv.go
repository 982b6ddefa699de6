package experiments

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Folds splits the rows 0…n−1 (n = len(y)) into k disjoint validation folds
// that together cover every row, each sorted ascending. Rows are shuffled
// with rng. When stratified is set, each class (distinct value of y) is
// shuffled and dealt round-robin across the folds, continuing where the
// previous class stopped, so every fold holds ⌊c/k⌋ or ⌈c/k⌉ rows of a class
// of c rows and fold sizes differ by at most one.
func Folds(y []float64, k int, stratified bool, rng *rand.Rand) ([][]int, error) {
	n := len(y)
	if k < 2 {
		return nil, fmt.Errorf("%w: folds = %d, want at least 2", ErrSpec, k)
	}
	if k > n {
		return nil, fmt.Errorf("%w: folds = %d exceeds the %d rows", ErrSpec, k, n)
	}
	folds := make([][]int, k)
	next := 0
	for _, group := range groups(y, stratified) {
		rng.Shuffle(len(group), func(i, j int) { group[i], group[j] = group[j], group[i] })
		for _, i := range group {
			folds[next] = append(folds[next], i)
			next = (next + 1) % k
		}
	}
	for _, f := range folds {
		slices.Sort(f)
	}
	return folds, nil
}

// groups returns the row indices grouped by class (sorted by label) when
// stratified, else one group of all rows.
func groups(y []float64, stratified bool) [][]int {
	if !stratified {
		g := make([]int, len(y))
		for i := range g {
			g[i] = i
		}
		return [][]int{g}
	}
	cs := classes(y)
	out := make([][]int, len(cs))
	for i, v := range y {
		c, _ := slices.BinarySearch(cs, v)
		out[c] = append(out[c], i)
	}
	return out
}

// complement returns the rows of 0…n−1 not in the sorted set idx.
func complement(n int, idx []int) []int {
	out := make([]int, 0, n-len(idx))
	j := 0
	for i := 0; i < n; i++ {
		if j < len(idx) && idx[j] == i {
			j++
			continue
		}
		out = append(out, i)
	}
	return out
}

// holdOut picks round(frac·c) random rows of every group (class when
// stratified) as a test set and returns (train, test) row indices, sorted.
func holdOut(y []float64, frac float64, stratified bool, rng *rand.Rand) (train, test []int) {
	for _, g := range groups(y, stratified) {
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		t := int(frac*float64(len(g)) + 0.5)
		test = append(test, g[:t]...)
	}
	slices.Sort(test)
	return complement(len(y), test), test
}

// subsample returns m random rows of 0…n−1, sorted (all rows when m ≤ 0 or m ≥ n).
func subsample(n, m int, rng *rand.Rand) []int {
	if m <= 0 || m >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := rng.Perm(n)[:m]
	slices.Sort(idx)
	return idx
}
