package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// Class probabilities from an SVM, as LIBSVM's svm-train -b 1: with
// Probability set, Fit also fits Platt's sigmoid on 5-fold cross-validated
// decision values, and PredictProba returns one column per class in the
// order of Classes. Here on the bundled heart_scale data (270 patients,
// labels −1 and +1).
func ExampleSVM_PredictProba() {
	d, err := datasets.Load("heart_scale")
	if err != nil {
		fmt.Println(err)
		return
	}
	trainIdx, testIdx, err := datasets.StratifiedSplit(d.Y, 0.3, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		fmt.Println(err)
		return
	}
	train, _ := d.Subset(trainIdx)
	test, _ := d.Subset(testIdx)

	s := &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}, C: 1, Probability: true, Seed: 1}
	if err := s.Fit(context.Background(), train.X, train.Y); err != nil {
		fmt.Println(err)
		return
	}
	proba, err := s.PredictProba(test.X)
	if err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := s.Predict(test.X)
	fmt.Println("classes:", s.Classes())
	for i := range 4 {
		fmt.Printf("patient %d: P(-1) = %.2f, P(+1) = %.2f, predicted %+g, true %+g\n",
			testIdx[i], proba.At(i, 0), proba.At(i, 1), pred[i], test.Y[i])
	}
	// Output:
	// classes: [-1 1]
	// patient 7: P(-1) = 0.05, P(+1) = 0.95, predicted +1, true +1
	// patient 9: P(-1) = 0.13, P(+1) = 0.87, predicted +1, true +1
	// patient 10: P(-1) = 0.38, P(+1) = 0.62, predicted +1, true -1
	// patient 11: P(-1) = 0.11, P(+1) = 0.89, predicted +1, true -1
}
