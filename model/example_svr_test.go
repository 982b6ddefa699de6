package model_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// ε-SVR (LIBSVM's svm-train -s 3, scikit-learn's SVR) on the bundled red
// wine data, 20% held out, features standardized on the training rows: the
// residuals within ε = 0.1 of the target cost nothing, so the model keeps a
// subset of the training rows as support vectors (here most of them: the
// quality scores are integers, few rows lie within 0.1 of the fit).
func ExampleSVR() {
	d, err := datasets.Load("winequality-red")
	if err != nil {
		fmt.Println(err)
		return
	}
	trainIdx, testIdx, err := datasets.Split(d.Len(), 0.2, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	train, _ := d.Subset(trainIdx)
	test, _ := d.Subset(testIdx)
	var std datasets.Standardizer
	if err := std.Fit(train.X); err != nil {
		fmt.Println(err)
		return
	}
	xTrain, _ := std.Transform(train.X)
	xTest, _ := std.Transform(test.X)

	k := kernel.Gaussian{Gamma: 1.0 / 11}
	svr := &model.SVR{Kernel: k, C: 1, Epsilon: 0.1}
	if err := svr.Fit(context.Background(), xTrain, train.Y); err != nil {
		fmt.Println(err)
		return
	}
	p, err := svr.Predict(xTest)
	if err != nil {
		fmt.Println(err)
		return
	}
	var sse float64
	for i, v := range p {
		sse += (v - test.Y[i]) * (v - test.Y[i])
	}
	in := svr.Info()
	fmt.Printf("svr: %d support vectors of %d rows, test RMSE %.3f\n", in.SV, in.N, math.Sqrt(sse/float64(len(p))))
	// Output:
	// svr: 1004 support vectors of 1279 rows, test RMSE 0.629
}
