package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// Every classifier satisfies model.Classifier: the same code fits any of
// them and reads Classes, Predict and PredictProba (Platt sigmoids for the
// SVMs, a fitted softmax temperature for the ridge models). Here on the
// bundled heart_scale data, 30% held out.
func ExampleClassifier() {
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

	k := kernel.Gaussian{Gamma: 1.0 / 13}
	for _, c := range []model.Classifier{
		&model.SVM{Kernel: k, C: 1, Probability: true, Seed: 1},
		&model.BKASVM{Kernel: k, C: 1, Clusters: 4, Probability: true, Seed: 1},
		&model.KRR{Kernel: k, Lambda: 1e-2, Task: model.Classification, Probability: true, Seed: 1},
		&model.Falkon{Kernel: k, Lambda: 1e-4, M: 50, Task: model.Classification, Probability: true, Seed: 1},
	} {
		if err := c.Fit(context.Background(), train.X, train.Y); err != nil {
			fmt.Println(err)
			return
		}
		pred, _ := c.Predict(test.X)
		proba, err := c.PredictProba(test.X)
		if err != nil {
			fmt.Println(err)
			return
		}
		correct := 0
		for i, p := range pred {
			if p == test.Y[i] {
				correct++
			}
		}
		fmt.Printf("%-14T classes %v, accuracy %.2f, first patient P(+1) = %.2f\n",
			c, c.Classes(), float64(correct)/float64(len(pred)), proba.At(0, 1))
	}
	// Output:
	// *model.SVM     classes [-1 1], accuracy 0.81, first patient P(+1) = 0.95
	// *model.BKASVM  classes [-1 1], accuracy 0.79, first patient P(+1) = 0.86
	// *model.KRR     classes [-1 1], accuracy 0.81, first patient P(+1) = 0.94
	// *model.Falkon  classes [-1 1], accuracy 0.77, first patient P(+1) = 0.83
}
