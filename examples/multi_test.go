package examples_test

import (
	"context"
	"testing"

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
