package experiments_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
)

// CrossValidate scores one setting by k-fold cross-validation, as LIBSVM's
// svm-train -v and scikit-learn's cross_validate do: here the SVM with C = 1
// and LIBSVM's default γ = 1/d on heart_scale, 5 stratified folds.
func ExampleCrossValidate() {
	spec := `name: heart
dataset: {name: heart_scale}
task: binary
estimator: {type: svm, kernel: {type: gaussian, gamma: auto}, c: 1}
cv: {folds: 5}
seed: 1
`
	s, err := experiments.Decode(strings.NewReader(spec), ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	cv, err := experiments.CrossValidate(context.Background(), s, experiments.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	acc, _ := cv.Point.Metric("accuracy")
	fmt.Printf("%d folds of %d rows: accuracy %.3f ± %.3f\n", cv.Folds, cv.NTrain, acc.Mean, acc.Std)
	// Output:
	// 5 folds of 270 rows: accuracy 0.819 ± 0.036
}
