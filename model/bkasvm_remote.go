package model

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// BKAProblem is one cluster's dual problem of a BKASVM fit, in a form that
// can be sent to another process: the cluster's rows (Rows×D, row-major),
// their ±1 targets and box bounds, and the solver's settings.
type BKAProblem struct {
	Rows, D     int
	X           []float64
	Y, C        []float64
	Tol         float64
	MaxIter     int
	CacheBytes  int64
	NoShrinking bool
}

// BKASolver solves a fit's cluster problems, returning one result per
// problem in the same order. BKASVM.Solver, when set, replaces the local
// parallel loop with it (module github.com/landmark-ml/landmark/distributed
// runs every problem as one element of an Apache Beam PCollection). To give
// the same model as a local fit it must solve each problem with
// SolveBKAProblem.
type BKASolver func(ctx context.Context, k kernel.Kernel, problems []BKAProblem) ([]*solver.SVMResult, error)

// SolveBKAProblem solves one cluster problem exactly as BKASVM.Fit does
// locally (dual coordinate descent, solver.SolveDCD, on the cluster's
// kernel columns).
func SolveBKAProblem(ctx context.Context, k kernel.Kernel, p BKAProblem) (*solver.SVMResult, error) {
	if p.Rows < 1 || p.D < 1 || len(p.X) != p.Rows*p.D || len(p.Y) != p.Rows || len(p.C) != p.Rows {
		return nil, fmt.Errorf("%w: bka problem with %d×%d rows, %d values, %d targets, %d bounds", ErrInput, p.Rows, p.D, len(p.X), len(p.Y), len(p.C))
	}
	opt := solver.SVMOptions{Tol: p.Tol, MaxIter: p.MaxIter, CacheBytes: p.CacheBytes, NoShrinking: p.NoShrinking}
	prob := solver.SVMProblem{K: newKernelColumns(k, mat.NewDense(p.Rows, p.D, p.X), 1), Y: p.Y, C: p.C}
	return solver.SolveDCD(ctx, prob, opt)
}
