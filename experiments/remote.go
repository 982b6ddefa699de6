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

// Folds returns the number of cross-validation fits of each grid point of
// s (repeats × folds), the range of EvalFold's fold index.
func Folds(s *Spec) (int, error) {
	r, err := newRunner(s, Options{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range r.cv {
		n += len(f)
	}
	return n, nil
}

// EvalFold computes fit j (0 ≤ j < Folds(s), repeats outer, folds inner)
// of grid point i of s, as EvalPoint does within a point; AssemblePoints
// turns a point's fold results into its PointResult. A failed fit is
// reported in the result's Error.
func EvalFold(ctx context.Context, s *Spec, i, j int) (FoldResult, error) {
	r, p, total, err := remoteRunner(s, i)
	if err != nil {
		return FoldResult{}, err
	}
	for rep, folds := range r.cv {
		if j < len(folds) {
			fr, _, err := r.evalFold(ctx, i, total, p, rep, j, nil)
			return fr, err
		}
		j -= len(folds)
	}
	return FoldResult{}, fmt.Errorf("experiments: fold index out of range for point %d", i)
}

// AssemblePoints returns the results of the given grid points from their
// fold results (fits[q] holds all Folds(s) results of points[q], in
// order), exactly as a local run summarizes them: the first failed fold
// makes the point failed.
func AssemblePoints(s *Spec, points []int, fits [][]FoldResult) ([]PointResult, error) {
	if len(fits) != len(points) {
		return nil, fmt.Errorf("experiments: fold results for %d points, want %d", len(fits), len(points))
	}
	r, _, _, err := remoteRunner(s, 0)
	if err != nil {
		return nil, err
	}
	want := 0
	for _, f := range r.cv {
		want += len(f)
	}
	pts := s.Grid.Points()
	out := make([]PointResult, len(points))
	for q, i := range points {
		if i < 0 || i >= len(pts) {
			return nil, fmt.Errorf("experiments: grid point %d of %d", i, len(pts))
		}
		if len(fits[q]) != want {
			return nil, fmt.Errorf("experiments: point %d: %d fold results, want %d", i, len(fits[q]), want)
		}
		out[q] = r.assemblePoint(i, pts[i], fits[q])
	}
	return out, nil
}

// remoteRunner is a loaded runner for computing parts of point i elsewhere.
func remoteRunner(s *Spec, i int) (*runner, Point, int, error) {
	r, err := newRunner(s, Options{})
	if err != nil {
		return nil, nil, 0, err
	}
	if !r.remotable() {
		return nil, nil, 0, fmt.Errorf("experiments: %s: this run's grid points are not independent", s.Name)
	}
	pts := s.Grid.Points()
	if i < 0 || i >= len(pts) {
		return nil, nil, 0, fmt.Errorf("experiments: grid point %d of %d", i, len(pts))
	}
	return r, pts[i], len(pts), nil
}
