package model

import (
	"context"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// A BKASolver that solves each problem with SolveBKAProblem (here, in
// reverse order, as another process might) must give the local fit exactly.
func TestBKASolverHook(t *testing.T) {
	x := mat.NewDense(120, 2, nil)
	y := make([]float64, 120)
	for i := range 120 {
		x.Set(i, 0, float64(i%12)/4+float64(i%3))
		x.Set(i, 1, float64(i/12)/5)
		y[i] = float64(i % 3)
	}
	cfg := BKASVM{Kernel: kernel.Gaussian{Gamma: 1}, C: 2, Clusters: 4, Seed: 5}
	local := cfg
	if err := local.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	calls := 0
	remote := cfg
	remote.Solver = func(ctx context.Context, k kernel.Kernel, ps []BKAProblem) ([]*solver.SVMResult, error) {
		calls++
		out := make([]*solver.SVMResult, len(ps))
		for j := len(ps) - 1; j >= 0; j-- {
			r, err := SolveBKAProblem(ctx, k, ps[j])
			if err != nil {
				return nil, err
			}
			out[j] = r
		}
		return out, nil
	}
	if err := remote.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	dl, _ := local.DecisionFunction(x)
	dr, _ := remote.DecisionFunction(x)
	if calls != 1 || !mat.Equal(dl, dr) {
		t.Fatalf("hook called %d times; decisions equal: %v", calls, mat.Equal(dl, dr))
	}
	il := local.Info()
	ir := remote.Info()
	if il.SV != ir.SV || !slices.Equal(il.ClusterSizes, ir.ClusterSizes) || il.Tasks[0].Objective != ir.Tasks[0].Objective {
		t.Fatalf("info differs: %+v vs %+v", il, ir)
	}
	if _, err := SolveBKAProblem(context.Background(), cfg.Kernel, BKAProblem{Rows: 2, D: 2, X: []float64{1}}); err == nil {
		t.Fatal("malformed problem accepted")
	}
}
