package model

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestPredictDecision: PredictDecision gives, bit for bit, what Predict and
// DecisionFunction give, for Falkon and KRR on a regression, a binary and
// a three-class task (labels from krrTestData's targets: their sign, and
// their thirds), labels that follow from its decision values (checked here
// by their rule, not by Predict, which is built on it), and ErrNotFitted
// before a fit.
func TestPredictDecision(t *testing.T) {
	ctx := context.Background()
	x, y := krrTestData(11, 150, 4)
	binary, three := make([]float64, len(y)), make([]float64, len(y))
	for i, v := range y {
		binary[i] = -1
		if v > 0 {
			binary[i] = 1
		}
		three[i] = float64(min(2, max(0, int(v+1.5))))
	}
	type fitter interface {
		Fit(context.Context, mat.Matrix, []float64) error
		Predict(mat.Matrix) ([]float64, error)
		DecisionFunction(mat.Matrix) (*mat.Dense, error)
		PredictDecision(mat.Matrix) ([]float64, *mat.Dense, error)
	}
	k := kernel.Gaussian{Gamma: 0.5}
	for _, c := range []struct {
		task    Task
		y       []float64
		outputs int
	}{{Regression, y, 1}, {Classification, binary, 1}, {Classification, three, 3}} {
		for _, est := range []fitter{
			&Falkon{Kernel: k, Lambda: 1e-4, M: 30, MaxIter: 50, Seed: 1, Task: c.task},
			&KRR{Kernel: k, Lambda: 1e-4, Task: c.task},
		} {
			if _, _, err := est.PredictDecision(x); !errors.Is(err, ErrNotFitted) {
				t.Errorf("%T before Fit: err = %v, want ErrNotFitted", est, err)
			}
			if err := est.Fit(ctx, x, c.y); err != nil {
				t.Fatal(err)
			}
			p, err := est.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			f, err := est.DecisionFunction(x)
			if err != nil {
				t.Fatal(err)
			}
			gp, gf, err := est.PredictDecision(x)
			if err != nil {
				t.Fatal(err)
			}
			if _, cols := f.Dims(); cols != c.outputs {
				t.Fatalf("%T %s: %d outputs, want %d", est, c.task, cols, c.outputs)
			}
			if !slices.Equal(gp, p) || !mat.Equal(gf, f) {
				t.Errorf("%T %s (%d outputs): PredictDecision differs from Predict and DecisionFunction", est, c.task, f.RawMatrix().Cols)
			}
			// The labels follow from the decision values: the value itself
			// (regression), its sign (binary, classes sorted: -1 then 1),
			// the class of the largest (three classes 0, 1, 2).
			for i, v := range gp {
				row := f.RawRowView(i)
				want := row[0]
				switch {
				case c.task == Classification && c.outputs == 1:
					want = -1
					if row[0] > 0 {
						want = 1
					}
				case c.task == Classification:
					want = float64(slices.Index(row, slices.Max(row)))
				}
				if v != want {
					t.Fatalf("%T %s: row %d labelled %v, its decision values %v say %v", est, c.task, i, v, row, want)
				}
			}
		}
	}
}
