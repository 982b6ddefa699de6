package model_test

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// ring returns n points on two concentric circles (radius 1: label 0,
// radius 3: label 1), which no line separates.
func ring(n int) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		r := 1.0
		if i%2 == 1 {
			r, y[i] = 3, 1
		}
		a := 2 * math.Pi * float64(i) / float64(n)
		x.Set(i, 0, r*math.Cos(a))
		x.Set(i, 1, r*math.Sin(a))
	}
	return x, y
}

// An exact Gaussian-kernel SVM (C-SVC, as LIBSVM's svm-train -c 10 -g 0.5)
// on two concentric circles.
func ExampleSVM() {
	x, y := ring(40)
	s := &model.SVM{C: 10, Kernel: kernel.Gaussian{Gamma: 0.5}}
	if err := s.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	test := mat.NewDense(3, 2, []float64{0, 0.5, 2.9, 0, -1.1, -0.2})
	pred, _ := s.Predict(test)
	info := s.Info()
	fmt.Println("predicted:", pred)
	fmt.Println("converged:", info.Tasks[0].Status, "with bias:", info.Tasks[0].Bias != 0)
	// Output:
	// predicted: [0 1 0]
	// converged: converged with bias: true
}

// BKA-SVM: four k-means clusters, one no-bias SVM dual per cluster solved in
// parallel, predictions from all support vectors (global) or from the test
// point's cluster only (local).
func ExampleBKASVM() {
	x, y := ring(200)
	b := &model.BKASVM{C: 10, Kernel: kernel.Gaussian{Gamma: 0.5}, Clusters: 4, Seed: 1}
	if err := b.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	test := mat.NewDense(3, 2, []float64{0, 0.5, 2.9, 0, -1.1, -0.2})
	local, _ := b.Predict(test) // the default: the test point's cluster only
	b.Prediction = model.GlobalPrediction
	global, _ := b.Predict(test)
	info := b.Info()
	fmt.Println("clusters:", len(info.ClusterSizes))
	fmt.Println("global:", global, "local:", local)
	// Output:
	// clusters: 4
	// global: [0 1 0] local: [0 1 0]
}
