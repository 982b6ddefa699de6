package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// A one-class SVM learns where the data lies without labels (LIBSVM's
// svm-train -s 2, scikit-learn's OneClassSVM) and marks new rows +1 inside
// that region and −1 outside. ν = 0.05 lets about 5% of the training rows
// fall outside.
func ExampleOneClassSVM() {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(500, 2, nil)
	for i := range 500 {
		x.Set(i, 0, rng.NormFloat64())
		x.Set(i, 1, rng.NormFloat64())
	}
	s := &model.OneClassSVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.05}
	if err := s.Fit(context.Background(), x, nil); err != nil {
		fmt.Println(err)
		return
	}
	in := s.Info()
	fmt.Printf("%.0f%% of the training rows outside\n", 100*float64(in.Outliers)/float64(in.N))
	p, err := s.Predict(mat.NewDense(3, 2, []float64{0, 0, 1, -1, 4, 4}))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("(0, 0), (1, −1), (4, 4):", p)
	// Output:
	// 5% of the training rows outside
	// (0, 0), (1, −1), (4, 4): [1 1 -1]
}
