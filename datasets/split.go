package datasets

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Fold is one cross-validation fold: disjoint, ascending row indices.
type Fold struct {
	Train, Test []int
}

func checkFraction(f float64) error {
	if !(f > 0 && f < 1) {
		return fmt.Errorf("datasets: %w: test fraction %v, want 0 < f < 1", ErrInput, f)
	}
	return nil
}

// testSize is round(f·n) clamped to [1, n−1].
func testSize(n int, f float64) int {
	return min(max(int(math.Round(f*float64(n))), 1), n-1)
}

// Split draws a random train/test partition of the rows 0…n−1: the test part
// has round(testFraction·n) rows (at least 1, at most n−1). Both slices are
// ascending. The same rng state gives the same partition.
func Split(n int, testFraction float64, rng *rand.Rand) (train, test []int, err error) {
	if err := checkFraction(testFraction); err != nil {
		return nil, nil, err
	}
	if n < 2 {
		return nil, nil, fmt.Errorf("datasets: %w: cannot split %d rows", ErrInput, n)
	}
	if rng == nil {
		return nil, nil, fmt.Errorf("datasets: %w: nil random source", ErrInput)
	}
	perm := rng.Perm(n)
	k := testSize(n, testFraction)
	test, train = perm[:k], perm[k:]
	slices.Sort(test)
	slices.Sort(train)
	return train, test, nil
}

// classGroups returns the row indices of each distinct label of y, the
// groups ordered by ascending label (never by map order).
func classGroups(y []float64) ([][]int, error) {
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("datasets: %w: label %d is %v", ErrInput, i, v)
		}
	}
	order := make([]int, len(y))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(y[a], y[b]) })
	var groups [][]int
	for i := 0; i < len(order); {
		j := i
		for j < len(order) && y[order[j]] == y[order[i]] {
			j++
		}
		groups = append(groups, order[i:j])
		i = j
	}
	return groups, nil
}

// StratifiedSplit is Split that keeps each class's share: class c with n_c
// rows puts floor(f·n_c) of them in the test part, and the rows still needed
// to reach round(f·n) go one each to the classes with the largest remainders
// f·n_c − floor(f·n_c) (ties to the larger class, then the smaller label).
// Within a class the rows are drawn uniformly at random.
func StratifiedSplit(y []float64, testFraction float64, rng *rand.Rand) (train, test []int, err error) {
	if err := checkFraction(testFraction); err != nil {
		return nil, nil, err
	}
	n := len(y)
	if n < 2 {
		return nil, nil, fmt.Errorf("datasets: %w: cannot split %d rows", ErrInput, n)
	}
	if rng == nil {
		return nil, nil, fmt.Errorf("datasets: %w: nil random source", ErrInput)
	}
	groups, err := classGroups(y)
	if err != nil {
		return nil, nil, err
	}
	quota := make([]int, len(groups))
	rem := make([]float64, len(groups))
	total := 0
	for c, g := range groups {
		exact := testFraction * float64(len(g))
		quota[c] = int(math.Floor(exact))
		rem[c] = exact - float64(quota[c])
		total += quota[c]
	}
	byRem := make([]int, len(groups))
	for c := range byRem {
		byRem[c] = c
	}
	slices.SortStableFunc(byRem, func(a, b int) int {
		if r := cmp.Compare(rem[b], rem[a]); r != 0 {
			return r
		}
		return cmp.Compare(len(groups[b]), len(groups[a]))
	})
	for _, c := range byRem[:min(max(testSize(n, testFraction)-total, 0), len(byRem))] {
		quota[c] = min(quota[c]+1, len(groups[c]))
	}
	for c, g := range groups {
		g = slices.Clone(g)
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		test = append(test, g[:quota[c]]...)
		train = append(train, g[quota[c]:]...)
	}
	slices.Sort(test)
	slices.Sort(train)
	return train, test, nil
}

func checkFolds(n, k int, rng *rand.Rand) error {
	if k < 2 || k > n {
		return fmt.Errorf("datasets: %w: %d folds for %d rows, want 2 ≤ k ≤ n", ErrInput, k, n)
	}
	if rng == nil {
		return fmt.Errorf("datasets: %w: nil random source", ErrInput)
	}
	return nil
}

// folds turns a fold assignment of every row into Fold values.
func folds(assign []int, k int) []Fold {
	out := make([]Fold, k)
	for i, f := range assign {
		for j := range out {
			if j == f {
				out[j].Test = append(out[j].Test, i)
			} else {
				out[j].Train = append(out[j].Train, i)
			}
		}
	}
	return out
}

// KFold partitions the rows 0…n−1 at random into k folds whose sizes differ by
// at most one; fold j tests on its rows and trains on all the others.
func KFold(n, k int, rng *rand.Rand) ([]Fold, error) {
	if err := checkFolds(n, k, rng); err != nil {
		return nil, err
	}
	assign := make([]int, n)
	for p, i := range rng.Perm(n) {
		assign[i] = p % k
	}
	return folds(assign, k), nil
}

// StratifiedKFold is KFold keeping each class's share in every fold: the rows
// of each class (classes by ascending label) are shuffled, the classes are
// laid end to end and dealt to the folds in turn, so every class's count per
// fold, and every fold's size, differ by at most one. A class with fewer than
// k rows is missing from some folds.
func StratifiedKFold(y []float64, k int, rng *rand.Rand) ([]Fold, error) {
	if err := checkFolds(len(y), k, rng); err != nil {
		return nil, err
	}
	groups, err := classGroups(y)
	if err != nil {
		return nil, err
	}
	assign := make([]int, len(y))
	p := 0
	for _, g := range groups {
		g = slices.Clone(g)
		rng.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		for _, i := range g {
			assign[i] = p % k
			p++
		}
	}
	return folds(assign, k), nil
}

// TrainTest splits d into a training and a test dataset with Split, or with
// StratifiedSplit on the labels when stratify is true.
func (d *Dataset) TrainTest(testFraction float64, stratify bool, rng *rand.Rand) (train, test *Dataset, err error) {
	if d == nil {
		return nil, nil, fmt.Errorf("datasets: %w: nil dataset", ErrInput)
	}
	var tr, te []int
	if stratify {
		tr, te, err = StratifiedSplit(d.Y, testFraction, rng)
	} else {
		tr, te, err = Split(d.Len(), testFraction, rng)
	}
	if err != nil {
		return nil, nil, err
	}
	if train, err = d.Subset(tr); err != nil {
		return nil, nil, err
	}
	if test, err = d.Subset(te); err != nil {
		return nil, nil, err
	}
	return train, test, nil
}
