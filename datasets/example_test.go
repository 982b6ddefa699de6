package datasets_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// Load a bundled regression set, split it, and standardize features and
// target with statistics of the training part only.
func ExampleLoad() {
	d, err := datasets.Load("cadata")
	if err != nil {
		fmt.Println(err)
		return
	}
	rng := rand.New(rand.NewPCG(1, 2))
	train, test, err := d.TrainTest(0.2, false, rng)
	if err != nil {
		fmt.Println(err)
		return
	}
	var s datasets.Standardizer
	if err := s.Fit(train.X); err != nil {
		fmt.Println(err)
		return
	}
	xtr, _ := s.Transform(train.X)
	xte, _ := s.Transform(test.X)
	var ys datasets.TargetScaler
	_ = ys.Fit(train.Y)
	ytr := ys.Transform(train.Y)
	fmt.Println(d.Len(), d.Dim())
	fmt.Println(xtr.RawMatrix().Rows, xte.RawMatrix().Rows, len(ytr))
	// Output:
	// 20640 8
	// 16512 4128 16512
}

// Read LIBSVM text; errors name the line.
func ExampleReadLIBSVM() {
	d, err := datasets.ReadLIBSVM(strings.NewReader("+1 1:0.5 3:2 # comment\n-1 2:1\n"), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Len(), d.Dim(), d.Y, d.X.RawRowView(0))
	_, err = datasets.ReadLIBSVM(strings.NewReader("1 1:1\n1 3:1 2:1\n"), 0)
	fmt.Println(err)
	// Output:
	// 2 3 [1 -1] [0.5 0 2]
	// datasets: line 2: feature index 2 after 3: indices must ascend
}

// Stratified cross-validation folds keep each class's share.
func ExampleStratifiedKFold() {
	y := []float64{0, 0, 0, 0, 0, 0, 1, 1, 1}
	folds, err := datasets.StratifiedKFold(y, 3, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range folds {
		var labels []float64
		for _, i := range f.Test {
			labels = append(labels, y[i])
		}
		fmt.Println(len(f.Train), len(f.Test), labels)
	}
	// Output:
	// 6 3 [0 0 1]
	// 6 3 [0 0 1]
	// 6 3 [0 0 1]
}

// Clusters of very unequal size: where uniform landmarks fail.
func ExampleClusters() {
	c := datasets.Clusters{N: 1000, K: 4, Ratio: 0.1}
	sizes, _ := c.Sizes()
	d, _ := c.Generate(rand.New(rand.NewPCG(1, 1)))
	fmt.Println(sizes, d.Len(), d.Dim())
	// Output:
	// [900 90 9 1] 1000 2
}

// Bundled lists the datasets compiled into the binary.
func ExampleBundled() {
	for _, b := range datasets.Bundled() {
		fmt.Printf("%-17s %5d × %2d  %s\n", b.Name, b.N, b.D, b.Task)
	}
	// Output:
	// cadata            20640 ×  8  regression
	// cpusmall           8192 × 12  regression
	// heart_scale         270 × 13  binary
	// pendigits          7494 × 16  multiclass
	// pendigits.test     3498 × 16  multiclass
	// satimage           4435 × 36  multiclass
	// satimage.test      2000 × 36  multiclass
	// winequality-red    1599 × 11  regression
	// winequality-white  4898 × 11  regression
}

// Scale features to [−1, 1] as svm-scale does, with the training range.
func ExampleMinMax() {
	train := mat.NewDense(3, 2, []float64{0, 10, 5, 10, 10, 10})
	test := mat.NewDense(1, 2, []float64{20, 10})
	var m datasets.MinMax // zero value: [−1, 1]
	if err := m.Fit(train); err != nil {
		fmt.Println(err)
		return
	}
	a, _ := m.Transform(train)
	b, _ := m.Transform(test)
	fmt.Println(mat.Col(nil, 0, a), mat.Col(nil, 1, a), b.RawRowView(0))
	// Output:
	// [-1 0 1] [0 0 0] [3 0]
}

// Read a file; the format comes from the name and compression from the content.
func ExampleReadFile() {
	d, err := datasets.ReadFile("testdata/small.libsvm.bz2", datasets.ReadOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Name, d.Len(), d.Dim(), d.Y)
	// Output:
	// small.libsvm.bz2 3 3 [1 -1 2]
}
