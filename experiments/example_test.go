package experiments_test

import (
	"fmt"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
)

// A spec is decoded strictly; its grid expands to the cartesian product, λ
// varying fastest.
func ExampleDecode() {
	spec := `name: cadata-krr
dataset: {name: cadata, standardize: true, test_fraction: 0.2}
task: regression
estimator:
  type: krr
  kernel: {type: gaussian}
grid:
  gamma: [0.1, 1]
  lambda: [1.0e-3, 1.0e-6]
cv: {folds: 5, metric: rmse}
seed: 1
`
	s, err := experiments.Decode(strings.NewReader(spec), ".")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range s.Grid.Points() {
		fmt.Println(p.Key())
	}
	// Output:
	// gamma=0.1,lambda=0.001
	// gamma=0.1,lambda=1e-06
	// gamma=1,lambda=0.001
	// gamma=1,lambda=1e-06
}

// Mistakes are errors naming the line.
func ExampleDecode_error() {
	spec := `name: typo
dataset: {name: cadata}
task: regression
estimator: {type: krr, kernel: {type: gaussian, gamma: 1}}
grid:
  lambda: [1.0e-3, -1]
`
	_, err := experiments.Decode(strings.NewReader(spec), ".")
	fmt.Println(err)
	// Output:
	// experiment spec: line 6: grid.lambda[1]: lambda = -1, want > 0
}
