package model

import (
	"context"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// opaque hides the concrete *mat.Dense behind the mat.Matrix interface, so
// estimators must take the "any other mat.Matrix" route (a dense copy).
type opaque struct{ mat.Matrix }

// TestEstimatorsAcceptMatMatrix checks that every estimator fits and predicts
// from a generic mat.Matrix and gives exactly the predictions of the *mat.Dense
// path: the copy holds the same numbers and the same seeded algorithm runs, so
// any difference means the input route changed the computation.
func TestEstimatorsAcceptMatMatrix(t *testing.T) {
	x, y := krrTestData(3, 60, 4)
	labels := make([]float64, len(y))
	for i, v := range y {
		if v > 0.5 {
			labels[i] = 1
		} else {
			labels[i] = -1
		}
	}
	cases := []struct {
		name string
		new  func() Estimator
		y    []float64
	}{
		{"KRR", func() Estimator { return &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3} }, y},
		{"Falkon", func() Estimator {
			return &Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-3, M: 20, Seed: 4}
		}, y},
		{"SVM", func() Estimator { return &SVM{C: 10} }, labels},
		{"BKASVM", func() Estimator { return &BKASVM{C: 10, Clusters: 3, Seed: 1} }, labels},
	}
	ctx := context.Background()
	for _, tc := range cases {
		dense, generic := tc.new(), tc.new()
		if err := dense.Fit(ctx, x, tc.y); err != nil {
			t.Fatalf("%s dense fit: %v", tc.name, err)
		}
		if err := generic.Fit(ctx, opaque{x}, tc.y); err != nil {
			t.Fatalf("%s mat.Matrix fit: %v", tc.name, err)
		}
		want, err := dense.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		got, err := generic.Predict(opaque{x})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s prediction %d: mat.Matrix %v, *mat.Dense %v", tc.name, i, got[i], want[i])
			}
		}
	}
	var k KRR
	if err := k.Fit(ctx, nil, y); err == nil {
		t.Fatal("KRR.Fit(nil) gave no error")
	}
}
