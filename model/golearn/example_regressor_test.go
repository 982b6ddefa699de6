package golearn_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/model/golearn"
	"github.com/sjwhitworth/golearn/base"
)

// Regression in a golearn pipeline: golearn has no regressor interface, so
// Regressor follows its LinearRegression (Fit and Predict on grids, the
// prediction in the float class attribute). Here exact KRR on the bundled
// red-wine data (1,599 wines; quality 3–8).
func ExampleRegressor() {
	d, err := datasets.Load("winequality-red")
	if err != nil {
		fmt.Println(err)
		return
	}
	// A reproducible 75/25 split; standardization fitted on the training part.
	trainSet, testSet, err := d.TrainTest(0.25, false, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	var s datasets.Standardizer
	if err := s.Fit(trainSet.X); err != nil {
		fmt.Println(err)
		return
	}
	trainSet.X, _ = s.Transform(trainSet.X)
	testSet.X, _ = s.Transform(testSet.X)
	train, err := golearn.Instances(trainSet, model.Regression)
	if err != nil {
		fmt.Println(err)
		return
	}
	test, _ := golearn.Instances(testSet, model.Regression)

	// KRR fits no intercept: with targets around 5.6 a small λ keeps the
	// shrinkage towards 0 negligible (or centre the targets first).
	r := &golearn.Regressor{Estimator: &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.02}, Lambda: 1e-5}}
	if err := r.Fit(train); err != nil {
		fmt.Println(err)
		return
	}
	pred, err := r.Predict(test)
	if err != nil {
		fmt.Println(err)
		return
	}
	class := pred.AllClassAttributes()[0]
	spec, _ := pred.GetAttribute(class)
	var sse float64
	for i, y := range testSet.Y {
		p := base.UnpackBytesToFloat(pred.Get(spec, i))
		sse += (p - y) * (p - y)
	}
	fmt.Println(r)
	fmt.Printf("predicted %q of the first test wine: %.1f (rated %g)\n", class.GetName(),
		base.UnpackBytesToFloat(pred.Get(spec, 0)), testSet.Y[0])
	fmt.Printf("test RMSE %.2f\n", math.Sqrt(sse/float64(testSet.Len())))
	// Output:
	// landmark.Regressor(*model.KRR, 11 features, float class "Quality")
	// predicted "Quality" of the first test wine: 5.2 (rated 5)
	// test RMSE 0.65
}
