package examples_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Sparse rows (datasets.CSR) go to every estimator as they are; the model
// is documented to be the one fitted on the dense copy, predictions equal to
// rounding. Text-like data: 600 rows of 2,000 columns, about 20 non-zeros a
// row, two classes.
func TestSparseFitMatchesDense(t *testing.T) {
	x, y, err := datasets.SyntheticText(rand.New(rand.NewPCG(20, 1)),
		datasets.TextOptions{Rows: 800, Dim: 2000, NNZ: 20, TopicShare: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	trIdx, teIdx := make([]int, 600), make([]int, 200)
	for i := range trIdx {
		trIdx[i] = i
	}
	for i := range teIdx {
		teIdx[i] = 600 + i
	}
	xtr, err := x.Rows(trIdx)
	if err != nil {
		t.Fatal(err)
	}
	xte, err := x.Rows(teIdx)
	if err != nil {
		t.Fatal(err)
	}
	ytr, yte := y[:600], y[600:]
	dtr, dte := xtr.ToDense(), xte.ToDense()
	// Rows of 20 words: squared distances up to ~40 × the squared values;
	// γ = 0.05 keeps kernel values away from 0.
	k := kernel.Gaussian{Gamma: 0.05}
	for _, c := range []struct {
		name string
		mk   func() model.Estimator
		bar  float64
	}{
		{"krr-exact", func() model.Estimator {
			return &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification}
		}, 0.9},
		{"krr-nystrom", func() model.Estimator {
			return &model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification, Approx: model.NystromKRR{M: 100}, Seed: 1}
		}, 0.9},
		{"falkon", func() model.Estimator {
			return &model.Falkon{Kernel: k, Lambda: 1e-5, M: 100, Task: model.Classification, Seed: 1}
		}, 0.9},
		{"svm", func() model.Estimator { return &model.SVM{Kernel: k, C: 1} }, 0.9},
		{"bka-svm", func() model.Estimator { return &model.BKASVM{Kernel: k, C: 1, Clusters: 3, Seed: 1} }, 0.8},
	} {
		sparse, dense := c.mk(), c.mk()
		if err := sparse.Fit(context.Background(), xtr, ytr); err != nil {
			t.Fatalf("%s sparse: %v", c.name, err)
		}
		if err := dense.Fit(context.Background(), dtr, ytr); err != nil {
			t.Fatalf("%s dense: %v", c.name, err)
		}
		fs, fd := decision(t, sparse, xte), decision(t, dense, dte)
		d := maxRelDiff(fs, fd)
		acc := accuracy(t, yte, mustPredict(t, sparse, xte))
		t.Logf("%s: sparse vs dense decision values %.3g, accuracy %.3f", c.name, d, acc)
		// Sparse and dense kernel values differ only in the order of the
		// sums forming ‖x−y‖² (1e-16 relative each); SVM documents
		// agreement to 1e-10, the ridge solves amplify by cond ≤ 1/λ.
		if d > 1e-8 {
			t.Errorf("%s: sparse and dense fits differ by %.3g (relative)", c.name, d)
		}
		// Half of each row's words come from its class's topic: the exact
		// and Nyström machines measured 0.97–0.985, BKA-SVM (3 clusters,
		// each point predicted by its cluster's support vectors only) 0.865;
		// chance is 0.5.
		if acc < c.bar {
			t.Errorf("%s: test accuracy %.3f, want ≥ %.2f", c.name, acc, c.bar)
		}
	}
}

// decision returns the first column of e's decision values.
func decision(t *testing.T, e model.Estimator, x mat.Matrix) []float64 {
	t.Helper()
	df, ok := e.(model.Classifier)
	if !ok {
		t.Fatalf("%T has no DecisionFunction", e)
	}
	f, err := df.DecisionFunction(x)
	if err != nil {
		t.Fatal(err)
	}
	return mat.Col(nil, 0, f)
}
