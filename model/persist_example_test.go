package model_test

import (
	"bytes"
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Save a fitted model and load it back: the reloaded model predicts the same
// values, bit for bit.
func ExampleSave() {
	x := mat.NewDense(5, 1, []float64{-2, -1, 0, 1, 2})
	y := []float64{4, 1, 0, 1, 4}
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-6}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer // or model.SaveFile(path, m)
	if err := model.Save(&buf, m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("file starts with %q\n", buf.Bytes()[:8])
	loaded, err := model.Load(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	xt := mat.NewDense(2, 1, []float64{0.5, 1.5})
	before, _ := m.Predict(xt)
	after, _ := loaded.Predict(xt)
	fmt.Printf("%T predicts %.4f, same as before: %v\n", loaded, after, before[0] == after[0] && before[1] == after[1])
	// Output:
	// file starts with "LANDMARK"
	// *model.KRR predicts [0.1803 2.5602], same as before: true
}
