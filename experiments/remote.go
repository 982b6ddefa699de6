package experiments

import (
	"context"
	"fmt"
)

// PointEvaluator computes the given grid points elsewhere (module
// github.com/landmark-ml/landmark/distributed fans them out as an Apache
// Beam PCollection) and returns their results in the same order. Each must
// come from EvalPoint on the same spec, so that the run's results.log and
// results.csv are those of a local run (timings aside).
type PointEvaluator func(ctx context.Context, points []int) ([]PointResult, error)

// EvalPoint computes grid point i of s — its cross-validated fits — as Run
// does locally; it is what a PointEvaluator's workers run. Runs whose points
// depend on one another (warm starts along λ, one BLESS path for all λ) and
// approximation runs are not split this way: Run keeps them local.
func EvalPoint(ctx context.Context, s *Spec, i int) (PointResult, error) {
	r, err := newRunner(s, Options{})
	if err != nil {
		return PointResult{}, err
	}
	if !r.remotable() {
		return PointResult{}, fmt.Errorf("experiments: %s: this run's grid points are not independent", s.Name)
	}
	pts := s.Grid.Points()
	if i < 0 || i >= len(pts) {
		return PointResult{}, fmt.Errorf("experiments: grid point %d of %d", i, len(pts))
	}
	return r.evalPoint(ctx, i, len(pts), pts[i])
}

// remotable says whether the grid points can be computed independently.
func (r *runner) remotable() bool {
	return r.s.Approximation == nil && !r.warm && !r.path
}
