package datasets

import (
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestClusters(t *testing.T) {
	sizes, err := Clusters{}.Sizes()
	if err != nil {
		t.Fatal(err)
	}
	// The sizes documented on Clusters: round(2000·0.3^j/Σ0.3^i) for j ≥ 1.
	if want := []int{1402, 420, 126, 38, 11, 3}; !slices.Equal(sizes, want) {
		t.Fatalf("default sizes %v, want %v", sizes, want)
	}
	c := Clusters{N: 600, Dim: 3, K: 4, Ratio: 0.05, Std: 0.5}
	d, err := c.Generate(seeded(11))
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 600 || d.Dim() != 3 {
		t.Fatalf("%d×%d, want 600×3", d.Len(), d.Dim())
	}
	sizes, _ = c.Sizes()
	// round(600·0.05^j/1.052625) = round(28.50011, 1.43, 0.07) = 29, 1, 0: the smallest
	// cluster is raised to one row and the largest takes the rest.
	if want := []int{569, 29, 1, 1}; !slices.Equal(sizes, want) {
		t.Fatalf("sizes %v, want %v", sizes, want)
	}
	counts := ClassCounts(d.Y)
	for j, cc := range counts {
		if cc.Label != float64(j) || cc.Count != sizes[j] {
			t.Errorf("cluster %d: label %v with %d rows, want %d", j, cc.Label, cc.Count, sizes[j])
		}
	}
	// Cluster means are at least Separation (10·Std = 5) apart, up to the
	// sampling error of a mean (Std·√(Dim/n_j) ≤ 0.87 for the 1-row cluster).
	means := make([][]float64, 4)
	for j := range 4 {
		means[j] = make([]float64, 3)
	}
	for i, l := range d.Y {
		for q := range 3 {
			means[int(l)][q] += d.X.At(i, q) / float64(sizes[int(l)])
		}
	}
	for a := range 4 {
		for b := range a {
			if dist := math.Sqrt(dist2(means[a], means[b])); dist < 5-2*0.87 {
				t.Errorf("clusters %d and %d are %.2f apart, want ≥ 5", a, b, dist)
			}
		}
	}
	// Within-cluster spread matches Std in the largest cluster (569 rows: the
	// sample std has relative error about 1/√(2·569) ≈ 3%; allow 15%).
	var xs []float64
	for i, l := range d.Y {
		if l == 0 {
			xs = append(xs, d.X.At(i, 0))
		}
	}
	if sd := stat.PopStdDev(xs, nil); math.Abs(sd-0.5) > 0.075 {
		t.Errorf("cluster 0 std %v, want 0.5", sd)
	}
	again, _ := c.Generate(seeded(11))
	if !mat.Equal(again.X, d.X) {
		t.Error("same seed, different data")
	}
	for _, bad := range []Clusters{{N: 3, K: 4}, {Ratio: 2}, {Std: -1}, {Dim: -1}} {
		if _, err := bad.Generate(seeded(1)); !errors.Is(err, ErrInput) {
			t.Errorf("%+v: err = %v", bad, err)
		}
	}
	if _, err := c.Generate(nil); !errors.Is(err, ErrInput) {
		t.Errorf("nil rng: err = %v", err)
	}
}

func TestSmooth(t *testing.T) {
	d, err := Smooth{N: 300, Dim: 3, Noiseless: true}.Generate(seeded(12))
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Len() {
		row := d.X.RawRowView(i)
		for _, v := range row {
			if v < -1 || v > 1 {
				t.Fatalf("x outside [−1, 1]: %v", v)
			}
		}
		want := math.Sin(math.Pi*row[0]) + math.Sin(math.Pi*row[1])/2 + math.Sin(math.Pi*row[2])/3 + row[0]*row[1]
		if math.Abs(d.Y[i]-want) > 1e-15 {
			t.Fatalf("noiseless y %v, f(x) = %v", d.Y[i], want)
		}
	}
	// With noise 0.3 the residuals y − f(x) have std 0.3 (4,000 draws: relative
	// error ~1/√8000 ≈ 1.1%; allow 5%).
	n, err := Smooth{N: 4000, Noise: 0.3}.Generate(seeded(13))
	if err != nil {
		t.Fatal(err)
	}
	res := make([]float64, n.Len())
	for i := range res {
		res[i] = n.Y[i] - SmoothFunc(n.X.RawRowView(i))
	}
	if sd := stat.PopStdDev(res, nil); math.Abs(sd-0.3) > 0.015 {
		t.Errorf("noise std %v, want 0.3", sd)
	}
	if _, err := (Smooth{Noise: -1}).Generate(seeded(1)); !errors.Is(err, ErrInput) {
		t.Errorf("negative noise: err = %v", err)
	}
}

func TestMoons(t *testing.T) {
	d, err := Moons{N: 501, Dim: 4, Noise: 0.05}.Generate(seeded(14))
	if err != nil {
		t.Fatal(err)
	}
	counts := ClassCounts(d.Y)
	if len(counts) != 2 || counts[0] != (ClassCount{-1, 250}) || counts[1] != (ClassCount{1, 251}) {
		t.Fatalf("class counts %v, want 250 × −1 and 251 × +1", counts)
	}
	// Points lie near their circles: class +1 at distance 1 from (0,0),
	// class −1 at distance 1 from (1, ½); noise 0.05 per coordinate moves
	// the distance by more than 0.3 with negligible probability (6σ).
	for i := range d.Len() {
		x0, x1 := d.X.At(i, 0), d.X.At(i, 1)
		cx, cy := 0.0, 0.0
		if d.Y[i] < 0 {
			cx, cy = 1, 0.5
		}
		if r := math.Hypot(x0-cx, x1-cy); math.Abs(r-1) > 0.3 {
			t.Fatalf("row %d (class %v) at radius %v from its centre", i, d.Y[i], r)
		}
	}
	if _, err := (Moons{Dim: 1}).Generate(seeded(1)); !errors.Is(err, ErrInput) {
		t.Errorf("Dim 1: err = %v", err)
	}
}
