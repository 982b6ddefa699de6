package datasets

import (
	"errors"
	"math"
	"slices"
	"testing"
)

func TestSyntheticTextShape(t *testing.T) {
	opt := TextOptions{Rows: 3000, Dim: 50000, NNZ: 40}
	x, y, err := SyntheticText(seeded(3), opt)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := x.Dims(); r != 3000 || c != 50000 || len(y) != 3000 {
		t.Fatalf("%d×%d with %d labels, want 3000×50000 and 3000", r, c, len(y))
	}
	// NewCSR re-checks the arrays: indptr consistent, indices strictly
	// ascending (sorted and unique) within each row and in range, values finite.
	if _, err := NewCSR(3000, 50000, x.Indptr, x.Indices, x.Values); err != nil {
		t.Fatal(err)
	}
	minK, maxK := math.MaxInt, 0
	for i := range 3000 {
		k := x.Indptr[i+1] - x.Indptr[i]
		minK, maxK = min(minK, k), max(maxK, k)
		norm := 0.0
		for _, v := range x.Values[x.Indptr[i]:x.Indptr[i+1]] {
			if !(v > 0) {
				t.Fatalf("row %d: value %v, want > 0", i, v)
			}
			norm += v * v
		}
		if math.Abs(norm-1) > 1e-12 {
			t.Fatalf("row %d: ‖x‖² = %v, want 1", i, norm)
		}
	}
	// k_i is uniform on [20, 60]: 3,000 draws reach both ends (each has
	// probability 1/41 a row, so missing one has probability < 1e-32).
	if minK != 20 || maxK != 60 {
		t.Errorf("row lengths in [%d, %d], want [20, 60]", minK, maxK)
	}
	// Mean 40; the sample mean's standard deviation is √((41²−1)/12 / 3000) ≈ 0.22.
	if mean := float64(x.NNZ()) / 3000; math.Abs(mean-40) > 1 {
		t.Errorf("mean non-zeros a row %v, want 40 ± 1", mean)
	}
	// Labels ±1, about half each (binomial sd √3000/2 ≈ 27 rows; allow 5 sd).
	pos := 0
	for _, l := range y {
		switch l {
		case 1:
			pos++
		case -1:
		default:
			t.Fatalf("label %v, want ±1", l)
		}
	}
	if math.Abs(float64(pos)-1500) > 5*27 {
		t.Errorf("%d positive of 3000", pos)
	}
	// The most frequent background columns: column 0 (probability 0.9·p₀
	// per draw, p₀ = 1/H ≈ 0.088) is in most rows, column 9 (0.9·p₀/10) in
	// far fewer; document frequency falls with the rank.
	df := make([]int, 10)
	for _, j := range x.Indices {
		if j < 10 {
			df[j]++
		}
	}
	if df[0] < 2000 || df[0] <= df[1] || df[1] <= df[9] {
		t.Errorf("document frequencies of columns 0…9 %v: want falling, column 0 in most rows", df)
	}
	est, err := TextBytes(opt)
	if err != nil {
		t.Fatal(err)
	}
	got := int64(8*50000 + 12*x.NNZ() + 16*3001)
	if r := float64(est) / float64(got); r < 0.95 || r > 1.05 {
		t.Errorf("TextBytes %d, arrays of the draw %d bytes", est, got)
	}
}

func TestSyntheticTextDeterministic(t *testing.T) {
	opt := TextOptions{Rows: 500, Dim: 20000, NNZ: 30, Classes: 4}
	x1, y1, err := SyntheticText(seeded(9), opt)
	if err != nil {
		t.Fatal(err)
	}
	x2, y2, _ := SyntheticText(seeded(9), opt)
	if !slices.Equal(x1.Indptr, x2.Indptr) || !slices.Equal(x1.Indices, x2.Indices) || !slices.Equal(x1.Values, x2.Values) || !slices.Equal(y1, y2) {
		t.Fatal("same seed, different data")
	}
	x3, _, _ := SyntheticText(seeded(10), opt)
	if slices.Equal(x1.Indices, x3.Indices) {
		t.Fatal("different seeds, same columns")
	}
	for _, l := range y1 {
		if l != 1 && l != 2 && l != 3 && l != 4 {
			t.Fatalf("label %v, want 1…4", l)
		}
	}
}

// TestZipfFrequencies draws 400,000 ranks from the table over news20's
// dimension and compares the frequency of each of the ten top ranks with
// p_r = (r+1)^−s/H_{d,s}. A frequency is a binomial proportion with
// standard deviation √(p(1−p)/N) (0.00040 for p₀ at s = 1); the tolerance is
// 4.5 of those, and the ratio count₀/count_r is checked against (r+1)^s to
// the delta-method tolerance 4.5·ratio·√(1/(N p₀) + 1/(N p_r)).
func TestZipfFrequencies(t *testing.T) {
	if testing.Short() {
		t.Skip("10.8 MB table and 400,000 draws")
	}
	// H_d = Σ_{j≤d} 1/j = ln d + γ + 1/(2d) − 1/(12d²) + … (Euler–Maclaurin).
	const eulerGamma = 0.5772156649015329
	z := newZipf(News20Dim, 1)
	h := math.Log(News20Dim) + eulerGamma + 1/(2.0*News20Dim)
	if p0 := z.prob(0); math.Abs(p0*h-1) > 1e-10 {
		t.Fatalf("p₀ = %v, want 1/H_d = %v", p0, 1/h)
	}
	for _, s := range []float64{1, 0.8} {
		z := newZipf(News20Dim, s)
		const n = 400000
		rng := seeded(uint64(100 * s))
		counts := make([]int, 10)
		for range n {
			if r := z.draw(rng); r < 10 {
				counts[r]++
			}
		}
		p0 := z.prob(0)
		for r, c := range counts {
			p := z.prob(r)
			if want := p0 * math.Pow(float64(r+1), -s); math.Abs(p-want) > 1e-12 {
				t.Fatalf("s = %v: table p_%d = %v, analytic %v", s, r, p, want)
			}
			if f, sd := float64(c)/n, math.Sqrt(p*(1-p)/n); math.Abs(f-p) > 4.5*sd {
				t.Errorf("s = %v: rank %d frequency %.5f, want %.5f ± %.5f", s, r, f, p, 4.5*sd)
			}
			if r == 0 {
				continue
			}
			ratio, want := float64(counts[0])/float64(c), math.Pow(float64(r+1), s)
			if tol := 4.5 * want * math.Sqrt(1/(n*p0)+1/(n*p)); math.Abs(ratio-want) > tol {
				t.Errorf("s = %v: count₀/count_%d = %.3f, want %.3f ± %.3f", s, r, ratio, want, tol)
			}
		}
	}
}

func TestSyntheticTextBadOptions(t *testing.T) {
	for _, o := range []TextOptions{
		{Rows: -1}, {Dim: 100, NNZ: 40}, {Classes: 1}, {Exponent: 2}, {Exponent: -1},
		{TopicShare: 1.5}, {TopicShare: -0.1}, {Dim: math.MaxInt32 + 1},
	} {
		if _, _, err := SyntheticText(seeded(1), o); !errors.Is(err, ErrInput) {
			t.Errorf("%+v: err = %v, want ErrInput", o, err)
		}
	}
	if _, _, err := SyntheticText(nil, TextOptions{Rows: 2, Dim: 100, NNZ: 5}); !errors.Is(err, ErrInput) {
		t.Errorf("nil rng: err = %v", err)
	}
}
