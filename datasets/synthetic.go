package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// Clusters generates isotropic Gaussian clusters of geometrically decreasing
// size: cluster j holds a share of the rows proportional to Ratio^j (at least
// one row each). With the defaults (2,000 rows, 6 clusters, ratio 0.3) the
// sizes are 1,402, 420, 126, 38, 11 and 3 rows, so a uniform sample of 50
// landmarks misses the smallest clusters with high probability while
// leverage-score or k-means sampling finds them: the situation the
// Nyström papers use to motivate non-uniform sampling. Y holds the cluster
// index 0…K−1. The zero value means the defaults.
type Clusters struct {
	// N is the number of rows (default 2,000; at least K).
	N int
	// Dim is the number of features (default 2).
	Dim int
	// K is the number of clusters (default 6).
	K int
	// Ratio is the size of cluster j+1 relative to cluster j (default 0.3; 0 < Ratio ≤ 1).
	Ratio float64
	// Std is the within-cluster standard deviation per coordinate (default 1).
	Std float64
	// Separation is the smallest distance between two centres (default 10·Std).
	Separation float64
}

// Sizes returns the number of rows of each cluster (resolving defaults).
func (c Clusters) Sizes() ([]int, error) {
	r, err := c.resolve()
	if err != nil {
		return nil, err
	}
	return r.sizes(), nil
}

func (c Clusters) resolve() (Clusters, error) {
	if c.N == 0 {
		c.N = 2000
	}
	if c.Dim == 0 {
		c.Dim = 2
	}
	if c.K == 0 {
		c.K = 6
	}
	if c.Ratio == 0 {
		c.Ratio = 0.3
	}
	if c.Std == 0 {
		c.Std = 1
	}
	if c.Separation == 0 {
		c.Separation = 10 * c.Std
	}
	switch {
	case c.Dim < 1 || c.K < 1:
		return c, fmt.Errorf("datasets: %w: clusters: Dim %d and K %d must be ≥ 1", ErrInput, c.Dim, c.K)
	case c.N < c.K:
		return c, fmt.Errorf("datasets: %w: clusters: N = %d rows cannot fill K = %d clusters", ErrInput, c.N, c.K)
	case !(c.Ratio > 0 && c.Ratio <= 1):
		return c, fmt.Errorf("datasets: %w: clusters: Ratio %v, want 0 < Ratio ≤ 1", ErrInput, c.Ratio)
	case !(c.Std > 0) || math.IsInf(c.Std, 0) || !(c.Separation > 0) || math.IsInf(c.Separation, 0):
		return c, fmt.Errorf("datasets: %w: clusters: Std %v and Separation %v must be finite and > 0", ErrInput, c.Std, c.Separation)
	}
	return c, nil
}

func (c Clusters) sizes() []int {
	w := make([]float64, c.K)
	sum := 0.0
	for j := range w {
		w[j] = math.Pow(c.Ratio, float64(j))
		sum += w[j]
	}
	sizes := make([]int, c.K)
	used := 0
	for j := 1; j < c.K; j++ {
		sizes[j] = max(1, int(math.Round(float64(c.N)*w[j]/sum)))
		used += sizes[j]
	}
	sizes[0] = c.N - used
	return sizes
}

// Generate draws the clusters. Centres are drawn uniformly in a cube large
// enough to hold K of them at the required separation, redrawing a centre
// (up to 1,000 times) that falls closer than Separation to an earlier one.
func (c Clusters) Generate(rng *rand.Rand) (*Dataset, error) {
	c, err := c.resolve()
	if err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("datasets: %w: nil random source", ErrInput)
	}
	side := 2 * c.Separation * math.Ceil(math.Pow(float64(c.K), 1/float64(c.Dim)))
	centres := mat.NewDense(c.K, c.Dim, nil)
	for j := range c.K {
		best, bestDist := make([]float64, c.Dim), -1.0
		cand := make([]float64, c.Dim)
		for try := 0; try < 1000 && bestDist < c.Separation; try++ {
			for t := range cand {
				cand[t] = side * rng.Float64()
			}
			dist := math.Inf(1)
			for i := range j {
				dist = math.Min(dist, dist2(cand, centres.RawRowView(i)))
			}
			dist = math.Sqrt(dist)
			if dist > bestDist {
				bestDist = dist
				copy(best, cand)
			}
		}
		centres.SetRow(j, best)
	}
	x := newDense(c.N, c.Dim)
	y := make([]float64, c.N)
	i := 0
	for j, s := range c.sizes() {
		mu := centres.RawRowView(j)
		for range s {
			row := x.RawRowView(i)
			for t := range row {
				row[t] = mu[t] + c.Std*rng.NormFloat64()
			}
			y[i] = float64(j)
			i++
		}
	}
	return &Dataset{Name: "clusters", X: x, Y: y}, nil
}

func dist2(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// Smooth generates a regression problem y = f(x) + ε with x uniform on
// [−1, 1]^Dim, f = SmoothFunc and ε ~ N(0, Noise²). The zero value means
// 1,000 rows, 2 features and noise 0.1.
type Smooth struct {
	// N is the number of rows (default 1,000).
	N int
	// Dim is the number of features (default 2).
	Dim int
	// Noise is the standard deviation of ε (default 0.1; ignored when Noiseless).
	Noise float64
	// Noiseless sets ε = 0, so Y is f(x) exactly.
	Noiseless bool
}

// SmoothFunc is the regression function of Smooth:
// f(x) = Σ_j sin(π x_j)/j + x₁x₂ (the product term when there are two or
// more features), smooth and of order 1 on [−1, 1]^d.
func SmoothFunc(x []float64) float64 {
	s := 0.0
	for j, v := range x {
		s += math.Sin(math.Pi*v) / float64(j+1)
	}
	if len(x) >= 2 {
		s += x[0] * x[1]
	}
	return s
}

// Generate draws the data.
func (s Smooth) Generate(rng *rand.Rand) (*Dataset, error) {
	if s.N == 0 {
		s.N = 1000
	}
	if s.Dim == 0 {
		s.Dim = 2
	}
	if s.Noise == 0 {
		s.Noise = 0.1
	}
	if s.Noiseless {
		s.Noise = 0
	}
	if s.N < 1 || s.Dim < 1 || s.Noise < 0 || math.IsNaN(s.Noise) || math.IsInf(s.Noise, 0) {
		return nil, fmt.Errorf("datasets: %w: smooth: N %d, Dim %d must be ≥ 1 and Noise %v finite and ≥ 0", ErrInput, s.N, s.Dim, s.Noise)
	}
	if rng == nil {
		return nil, fmt.Errorf("datasets: %w: nil random source", ErrInput)
	}
	x := newDense(s.N, s.Dim)
	y := make([]float64, s.N)
	for i := range y {
		row := x.RawRowView(i)
		for t := range row {
			row[t] = 2*rng.Float64() - 1
		}
		y[i] = SmoothFunc(row)
		if s.Noise > 0 {
			y[i] += s.Noise * rng.NormFloat64()
		}
	}
	return &Dataset{Name: "smooth", X: x, Y: y}, nil
}

// Moons generates a two-class problem that no linear classifier solves: two
// interleaved half circles of radius 1 in the first two features (class +1:
// (cos t, sin t); class −1: (1 − cos t, ½ − sin t), t uniform on [0, π]),
// plus Gaussian noise of standard deviation Noise on every feature; features
// beyond the second are pure noise. Labels are ±1, ⌈N/2⌉ of them +1. The zero
// value means 1,000 rows, 2 features and noise 0.1.
type Moons struct {
	// N is the number of rows (default 1,000; at least 2).
	N int
	// Dim is the number of features (default 2; at least 2).
	Dim int
	// Noise is the standard deviation of the added noise (default 0.1).
	Noise float64
}

// Generate draws the data; rows alternate +1, −1, +1, ….
func (m Moons) Generate(rng *rand.Rand) (*Dataset, error) {
	if m.N == 0 {
		m.N = 1000
	}
	if m.Dim == 0 {
		m.Dim = 2
	}
	if m.Noise == 0 {
		m.Noise = 0.1
	}
	if m.N < 2 || m.Dim < 2 || m.Noise < 0 || math.IsNaN(m.Noise) || math.IsInf(m.Noise, 0) {
		return nil, fmt.Errorf("datasets: %w: moons: N %d must be ≥ 2, Dim %d ≥ 2 and Noise %v finite and ≥ 0", ErrInput, m.N, m.Dim, m.Noise)
	}
	if rng == nil {
		return nil, fmt.Errorf("datasets: %w: nil random source", ErrInput)
	}
	x := mat.NewDense(m.N, m.Dim, nil)
	y := make([]float64, m.N)
	for i := range y {
		row := x.RawRowView(i)
		t := math.Pi * rng.Float64()
		if i%2 == 0 {
			y[i] = 1
			row[0], row[1] = math.Cos(t), math.Sin(t)
		} else {
			y[i] = -1
			row[0], row[1] = 1-math.Cos(t), 0.5-math.Sin(t)
		}
		for j := range row {
			row[j] += m.Noise * rng.NormFloat64()
		}
	}
	return &Dataset{Name: "moons", X: x, Y: y}, nil
}
