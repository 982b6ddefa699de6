package model

import (
	"context"
	"math"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// opaque hides the concrete *mat.Dense behind the mat.Matrix interface, so
// estimators must take the "any other mat.Matrix" route (a dense copy). The
// datasets.CSR case takes the estimators' sparse paths (kernel.Sparse), and
// is compared with the dense predictions to 1e-10 below.
type opaque struct{ mat.Matrix }

// TestEstimatorsAcceptMatMatrix checks that every estimator fits and predicts
// from a generic mat.Matrix and gives exactly the predictions of the *mat.Dense
// path: the copy holds the same numbers and the same seeded algorithm runs, so
// any difference means the input route changed the computation.
func TestEstimatorsAcceptMatMatrix(t *testing.T) {
	x, y := krrTestData(3, 60, 4)
	// Zero the small entries so the data are sparse (about 38% of standard
	// normals fall below 0.5 in size), and build the same matrix in CSR form.
	var indptr []int
	var indices []int32
	var values []float64
	indptr = append(indptr, 0)
	for i := 0; i < 60; i++ {
		row := x.RawRowView(i)
		for j, v := range row {
			if math.Abs(v) < 0.5 {
				row[j] = 0
				continue
			}
			indices = append(indices, int32(j))
			values = append(values, v)
		}
		indptr = append(indptr, len(values))
	}
	csr, err := datasets.NewCSR(60, 4, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
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
		sparse := tc.new()
		if err := sparse.Fit(ctx, csr, tc.y); err != nil {
			t.Fatalf("%s CSR fit: %v", tc.name, err)
		}
		gotCSR, err := sparse.Predict(csr)
		if err != nil {
			t.Fatal(err)
		}
		// CSR input takes the sparse path where there is one (SVM, exact
		// KRR), whose kernel values differ from the dense engine's in the
		// last bits: equal to 1e-10, the tolerance, not bitwise.
		for i := range want {
			if got[i] != want[i] || math.Abs(gotCSR[i]-want[i]) > 1e-10*math.Max(1, math.Abs(want[i])) {
				t.Fatalf("%s prediction %d: mat.Matrix %v, CSR %v, *mat.Dense %v", tc.name, i, got[i], gotCSR[i], want[i])
			}
		}
	}
	var k KRR
	if err := k.Fit(ctx, nil, y); err == nil {
		t.Fatal("KRR.Fit(nil) gave no error")
	}
}
