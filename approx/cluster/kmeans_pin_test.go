package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/internal/pin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestKMeansPinned fits k-means with fixed seeds in each of Fit's modes
// (all rows, a subsample, a sketch of a subsample; dense and sparse) and
// compares labels, centroids and objectives with the values the code gave
// before KMeans.Fit was split into pieces (commit 7d2b573), pinned to catch
// a reordered random draw (see package pin for the tolerance).
func TestKMeansPinned(t *testing.T) {
	xd, _ := synth.Dense(rand.New(rand.NewPCG(41, 42)), 600, 6, 5)
	xs := synth.Sparse(rand.New(rand.NewPCG(43, 44)), 600, 40)
	cases := []struct {
		x          mat.Matrix
		km         KMeans
		want       []float64
		wantDigest string
	}{
		{xd, KMeans{K: 7}, []float64{10622, 3.9602277323659223, 9.758677533687893, 5818.622966424464, 3393.629230801888, 17}, "bdd93d503abc5c9a"},
		{xd, KMeans{K: 7, Subsample: 200}, []float64{10207, 3.8285456330853207, -0.29514277595500554, 1796.2620280662086, 1060.131265512262, 5}, "254b56900ee83e2d"},
		{xd, KMeans{K: 7, Subsample: 200, Sketch: 3}, []float64{11666, -6.784753798233584, -4.698843523745559, 1920.0877129284286, 972.5371684367904, 6}, "9cd25486e8cf9c66"},
		{xs, KMeans{K: 5}, []float64{7624, 0.004579803730881484, -0.0015412280667795723, 5417.292959500074, 2576.9603936361486, 7}, "40b9bfd8925e4ad4"},
		{xs, KMeans{K: 5, Subsample: 300}, []float64{6658, 0.0607684073529494, 0, 2456.60646857383, 1512.36657469247, 4}, "93d6ffbfba671e85"},
		{xs, KMeans{K: 5, Subsample: 300, Sketch: 8}, []float64{10106, 0, -0.002665093454060067, 3454.149177380036, 1403.7337669937222, 11}, "3959094e50a6a8bb"},
	}
	for i, c := range cases {
		p, err := c.km.Fit(context.Background(), c.x, rand.New(rand.NewPCG(uint64(i)+1, 77)))
		if err != nil {
			t.Fatal(err)
		}
		labels := make([]float64, len(p.Labels))
		var sum float64
		for j, l := range p.Labels {
			labels[j] = float64(l)
			sum += float64(l * (j%13 + 1))
		}
		cents := p.Centroids.RawMatrix().Data
		got := []float64{sum, cents[0], cents[len(cents)-1], p.Objective[0], p.Objective[len(p.Objective)-1], float64(len(p.Objective))}
		_, sparse := c.x.(kernel.Sparse)
		pin.Floats(t, fmt.Sprintf("case %d (%+v, sparse %v)", i, c.km, sparse), pin.Tol, got, c.want, c.wantDigest, labels, cents, p.Objective)
	}
}
