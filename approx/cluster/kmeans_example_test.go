package cluster_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/cluster"
	"gonum.org/v1/gonum/mat"
)

// Partition six points on a line into two clusters and assign new points.
func ExampleKMeans() {
	x := mat.NewDense(6, 1, []float64{0, 1, 2, 10, 11, 12})
	p, err := cluster.KMeans{K: 2}.Fit(context.Background(), x, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	// Cluster numbers depend on the seeding; the grouping does not.
	fmt.Println(p.Labels[0] == p.Labels[2], p.Labels[0] != p.Labels[3])
	fmt.Println(p.Members()[p.Labels[0]], p.Members()[p.Labels[3]])
	fmt.Printf("centroid of the first group: %.0f\n", p.Centroids.At(p.Labels[0], 0))
	a, err := p.Assign(mat.NewDense(2, 1, []float64{1.5, 9}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a[0] == p.Labels[0], a[1] == p.Labels[3])
	// Output:
	// true true
	// [0 1 2] [3 4 5]
	// centroid of the first group: 1
	// true true
}
