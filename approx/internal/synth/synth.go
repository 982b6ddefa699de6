// Package synth draws the synthetic clustered data sets the tests of the
// approximation packages share (approx, approx/cluster, approx/meka): dense
// points around well-separated centers and sparse rows around sparse
// centers. Only tests import it.
package synth

import (
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Dense returns n points in d dimensions around c well-separated centers
// (spacing 10, unit noise), and the true center of each point.
func Dense(rng *rand.Rand, n, d, c int) (*mat.Dense, []int) {
	centers := make([][]float64, c)
	for j := range centers {
		centers[j] = make([]float64, d)
		for t := range centers[j] {
			centers[j][t] = 10 * rng.NormFloat64()
		}
	}
	x := mat.NewDense(n, d, nil)
	truth := make([]int, n)
	for i := 0; i < n; i++ {
		j := i % c
		truth[i] = j
		for t := 0; t < d; t++ {
			x.Set(i, t, centers[j][t]+rng.NormFloat64())
		}
	}
	return x, truth
}

// Sparse draws n sparse rows in d dimensions around 4 sparse centers
// (each row: its center's non-zeros plus noise on them, and a few random
// extra non-zeros); every 13th row is empty.
func Sparse(rng *rand.Rand, n, d int) *kernel.CSRRows {
	centers := make([]map[int32]float64, 4)
	for c := range centers {
		centers[c] = map[int32]float64{}
		for len(centers[c]) < 6 {
			centers[c][int32(rng.IntN(d))] = 3 * rng.NormFloat64()
		}
	}
	indptr := []int{0}
	var indices []int32
	var values []float64
	for i := 0; i < n; i++ {
		if i%13 != 0 {
			row := map[int32]float64{}
			// The center's features in ascending order: ranging over the
			// map would hand the noise draws out in Go's random map order,
			// a different data set on every call (that made
			// TestMEKABasisSolverMatchesLocal panic about once in 20 runs).
			for _, j := range slices.Sorted(maps.Keys(centers[i%4])) {
				row[j] = centers[i%4][j] + 0.3*rng.NormFloat64()
			}
			for range 2 {
				row[int32(rng.IntN(d))] = rng.NormFloat64()
			}
			cols := make([]int32, 0, len(row))
			for j := range row {
				cols = append(cols, j)
			}
			slices.Sort(cols)
			for _, j := range cols {
				indices = append(indices, j)
				values = append(values, row[j])
			}
		}
		indptr = append(indptr, len(values))
	}
	return kernel.NewCSRRows(d, indptr, indices, values)
}
