package experiments_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"gonum.org/v1/gonum/mat"
)

// Fit trains one setting of a spec (no grid search) on the whole training
// set, with the spec's scaling, and scores it on the test set. FitResult
// then predicts raw rows: it applies the feature scaling, the model and the
// target scaling itself. Here FALKON on the bundled red-wine data (1,599
// wines, 11 measurements, quality 3–8).
func ExampleFit() {
	spec := `name: wine
dataset: {name: winequality-red, standardize: true, standardize_target: true, test_fraction: 0.2}
task: regression
estimator:
  type: falkon
  kernel: {type: gaussian, gamma: 0.1}
  lambda: 1.0e-6
  m: 300
seed: 1
`
	s, err := experiments.Decode(strings.NewReader(spec), ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	fit, err := experiments.Fit(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(fit.NTrain, "training and", fit.NTest, "test wines, features scaled:", strings.Fields(fit.ScalingUsed)[0])
	for _, m := range fit.Test {
		if m.Name == "rmse" {
			fmt.Printf("test RMSE %.2f quality points\n", m.Mean)
		}
	}

	// New wines come in raw units: the first two rows of the file.
	d, err := datasets.Load("winequality-red")
	if err != nil {
		fmt.Println(err)
		return
	}
	x := d.X.Slice(0, 2, 0, d.Dim()).(*mat.Dense)
	pred, err := fit.Predict(x)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("predicted %.1f and %.1f, rated %g and %g\n", pred[0], pred[1], d.Y[0], d.Y[1])
	// Output:
	// 1279 training and 320 test wines, features scaled: standardize
	// test RMSE 0.68 quality points
	// predicted 5.3 and 4.8, rated 5 and 5
}
