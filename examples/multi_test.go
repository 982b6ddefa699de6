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

// Multi-output regression: FitMulti solves one system with t right-hand
// sides, so each output must equal a single-output fit on that column.
// Predict returns the first output; PredictMulti all of them.
func TestFitMultiEqualsSeparateFits(t *testing.T) {
	train, test := smooth(t, 400, 50, false, 21)
	n := train.Len()
	y := mat.NewDense(n, 2, nil)
	y2 := make([]float64, n)
	for i := range n {
		y2[i] = 3*train.Y[i] + train.X.At(i, 0) // a second, different target
		y.Set(i, 0, train.Y[i])
		y.Set(i, 1, y2[i])
	}
	k := kernel.Gaussian{Gamma: 1}
	type multi = model.MultiOutput
	for _, c := range []struct {
		name string
		mk   func() multi
		tol  float64
	}{
		// Exact KRR: one Cholesky, two solves — identical up to the order
		// of the sums (1e-12).
		{"krr-exact", func() multi { return &model.KRR{Kernel: k, Lambda: 1e-4} }, 1e-12},
		{"krr-nystrom", func() multi {
			return &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.NystromKRR{M: 50}, Seed: 2}
		}, 1e-9}, // round-off amplified by the M×M system; measured 3e-11
		// FALKON runs CG on both columns at once. The iterates of each
		// column are those of a single fit but for rounding (blocked
		// products sum in another order), which CG amplifies as it goes
		// (measured on this problem: 1e-9 after the default 20 iterations,
		// 4e-5 after 50), so the comparison is at the default MaxIter.
		{"falkon", func() multi {
			return &model.Falkon{Kernel: k, Lambda: 1e-4, M: 50, Seed: 2}
		}, 1e-7},
	} {
		m := c.mk()
		if err := m.FitMulti(context.Background(), train.X, y); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		f, err := m.PredictMulti(test.X)
		if err != nil {
			t.Fatal(err)
		}
		if _, cols := f.Dims(); cols != 2 {
			t.Fatalf("%s: %d outputs, want 2", c.name, cols)
		}
		first := mustPredict(t, m, test.X)
		if d := maxRelDiff(first, mat.Col(nil, 0, f)); d != 0 {
			t.Errorf("%s: Predict is not the first output (differs by %.3g)", c.name, d)
		}
		for j, yj := range [][]float64{train.Y, y2} {
			single := c.mk()
			if err := single.Fit(context.Background(), train.X, yj); err != nil {
				t.Fatal(err)
			}
			want := mustPredict(t, single, test.X)
			d := maxRelDiff(mat.Col(nil, j, f), want)
			t.Logf("%s output %d: %.3g", c.name, j, d)
			if d > c.tol {
				t.Errorf("%s: output %d differs from a single fit by %.3g (relative)", c.name, j, d)
			}
		}
	}
}

// FitMulti takes sparse X too: the fit equals the one on the dense copy.
func TestFitMultiSparse(t *testing.T) {
	x, y1, err := datasets.SparseRegression(400, 60, 6, rand.New(rand.NewPCG(31, 1)))
	if err != nil {
		t.Fatal(err)
	}
	n := len(y1)
	y := mat.NewDense(n, 2, nil)
	for i := range n {
		y.Set(i, 0, y1[i])
		y.Set(i, 1, y1[i]*y1[i])
	}
	k := kernel.Gaussian{Gamma: 0.1}
	for _, mk := range []func() model.MultiOutput{
		func() model.MultiOutput { return &model.KRR{Kernel: k, Lambda: 1e-4} },
		func() model.MultiOutput { return &model.Falkon{Kernel: k, Lambda: 1e-6, M: 60, Seed: 1} },
	} {
		sparse, dense := mk(), mk()
		if err := sparse.FitMulti(context.Background(), x, y); err != nil {
			t.Fatalf("%T sparse: %v", sparse, err)
		}
		if err := dense.FitMulti(context.Background(), x.ToDense(), y); err != nil {
			t.Fatalf("%T dense: %v", dense, err)
		}
		ps, err := sparse.PredictMulti(x)
		if err != nil {
			t.Fatal(err)
		}
		pd, err := dense.PredictMulti(x.ToDense())
		if err != nil {
			t.Fatal(err)
		}
		// Only the order of the sums forming ‖x−y‖² differs (measured
		// ≤ 1.3e-11 for the single-output fits of TestSparseFitMatchesDense).
		if d := maxRelDiff(ps.RawMatrix().Data, pd.RawMatrix().Data); d > 1e-8 {
			t.Errorf("%T: sparse and dense multi-output fits differ by %.3g", sparse, d)
		}
	}
}
