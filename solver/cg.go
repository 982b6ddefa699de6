package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// Status says why conjugate gradient stopped. Reaching MaxIter is a status,
// not an error.
type Status string

// The statuses.
const (
	// Converged: every column reached the tolerance.
	Converged Status = "converged"
	// MaxIter: the iteration limit was reached first.
	MaxIter Status = "max-iter"
	// Stopped: the callback asked to stop.
	Stopped Status = "stopped"
	// Breakdown: for some column pᵀAp was not positive (A or P is not
	// positive definite to working precision); that column was frozen at its
	// last iterate and the others continued.
	Breakdown Status = "breakdown"
	// Cancelled: the context was cancelled; the error is the context's.
	Cancelled Status = "cancelled"
)

// Options controls CG and PCG. The zero value means the defaults below.
type Options struct {
	// Tol is the relative residual ‖b − Ax‖/‖b‖ at which a column counts as
	// converged. 0 means 1e-10.
	Tol float64 `yaml:"tol,omitempty" json:"tol,omitempty"`
	// MaxIter is the largest number of iterations. 0 means n, the size of the
	// operator (where exact-arithmetic CG terminates).
	MaxIter int `yaml:"max_iter,omitempty" json:"max_iter,omitempty"`
	// PrecondNorm measures residuals in the preconditioner's norm,
	// √(rᵀPr)/√(bᵀPb), instead of ‖r‖/‖b‖. With P = BBᵀ this is the Euclidean
	// relative residual of the split system BᵀABβ = Bᵀb, the quantity
	// FALKON's CG monitors. Ignored without a preconditioner.
	PrecondNorm bool `yaml:"precond_norm,omitempty" json:"precond_norm,omitempty"`
	// Callback, when set, is called after every iteration with the current
	// state. Returning false stops the run with status Stopped.
	Callback func(Progress) bool `yaml:"-" json:"-"`
}

// DefaultTol is the relative residual tolerance used when Options.Tol is 0.
const DefaultTol = 1e-10

// Progress is what the callback sees after an iteration.
type Progress struct {
	// Iteration counts completed iterations, from 1.
	Iteration int
	// Residual is the largest relative residual over the columns, as updated
	// by the recurrence.
	Residual float64
	// X is the current iterate (n×t). It is read-only and valid only during
	// the call.
	X *mat.Dense
}

// Result reports a CG or PCG run.
type Result struct {
	// Status says why the run stopped.
	Status Status
	// Iterations is the number of iterations done (0 when the starting point
	// already met the tolerance).
	Iterations int
	// Residual is the largest relative residual ‖b − Ax‖/‖b‖ over the
	// columns, as updated by the recurrence; Residuals holds it per column.
	Residual  float64
	Residuals []float64
}

// CG solves A·x = b by conjugate gradient; it is PCG without a preconditioner.
func CG(ctx context.Context, a Operator, b, x *mat.Dense, opt Options) (Result, error) {
	return PCG(ctx, a, nil, b, x, opt)
}

// PCG solves A·X = B for the n×t blocks B and X by preconditioned conjugate
// gradient, with p a preconditioner P ≈ A⁻¹ (nil means none).
//
// Multiple right-hand sides are solved as t independent CG recurrences that
// share each application of A and P: every column has its own step lengths,
// so the result for a column does not depend on the others, while the
// operator (a pass over the data for kernel operators) is applied once per
// iteration for all of them. A column that converges is frozen.
//
// x holds the starting point on entry (warm start; a zero matrix for a cold
// start) and the solution on return. Columns of b that are zero get x = 0.
// The run stops when every column's relative residual is at most Tol (status
// Converged), after MaxIter iterations (status MaxIter), when the callback
// returns false (Stopped), or when the context is cancelled (the error is
// ctx.Err() and x holds the last iterate).
func PCG(ctx context.Context, a Operator, p Preconditioner, b, x *mat.Dense, opt Options) (Result, error) {
	if err := check.Context(ctx); err != nil {
		return Result{}, fmt.Errorf("solver: cg: %w", err)
	}
	if a == nil {
		return Result{}, fmt.Errorf("solver: cg: %w: nil operator", check.ErrInput)
	}
	n := a.Size()
	if err := opCheckBlock(n, x, b); err != nil {
		return Result{}, err
	}
	opt, err := opt.resolved(n)
	if err != nil {
		return Result{}, err
	}
	s := &pcgState{a: a, p: p, x: x, opt: opt}
	if err := s.start(ctx, b); err != nil {
		return cgCancelled(s.res, err)
	}
	if s.nActive == 0 {
		s.res.Status = Converged
		return s.res, nil
	}
	_, t := b.Dims()
	s.dir, s.q = mat.DenseCopyOf(s.z), mat.NewDense(n, t, nil)
	s.step, s.beta = make([]float64, t), make([]float64, t)
	for it := 1; it <= opt.MaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return cgCancelled(s.res, err)
		}
		if err := s.iterate(ctx); err != nil {
			return cgCancelled(s.res, err)
		}
		s.res.Iterations = it
		s.res.Residual = cgMax(s.res.Residuals)
		if opt.Callback != nil && !opt.Callback(Progress{Iteration: it, Residual: s.res.Residual, X: x}) {
			s.res.Status = Stopped
			return s.res, nil
		}
		if s.nActive == 0 {
			break
		}
		// dir = z + β·dir, column by column.
		cgScaleCols(s.dir, s.beta)
		s.dir.Add(s.dir, s.z)
	}
	switch {
	case s.nActive > 0:
		s.res.Status = MaxIter
	case s.broke:
		s.res.Status = Breakdown
	default:
		s.res.Status = Converged
	}
	return s.res, nil
}

// resolved returns opt with defaults for an operator of size n, or an error.
func (opt Options) resolved(n int) (Options, error) {
	if opt.Tol == 0 {
		opt.Tol = DefaultTol
	}
	if !(opt.Tol > 0) || math.IsInf(opt.Tol, 0) {
		return opt, fmt.Errorf("solver: cg: %w: tolerance %g, want finite and > 0", check.ErrInput, opt.Tol)
	}
	if opt.MaxIter < 0 {
		return opt, fmt.Errorf("solver: cg: %w: max iterations %d, want ≥ 0", check.ErrInput, opt.MaxIter)
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = n
	}
	return opt, nil
}

// pcgState is the state of one PCG run: t recurrences, one per column.
type pcgState struct {
	a   Operator
	p   Preconditioner
	x   *mat.Dense // the iterate
	opt Options
	res Result

	r, z     *mat.Dense // residual b − Ax and preconditioned residual Pr (z = r without P)
	dir, q   *mat.Dense // search directions and A·dir
	rz       []float64  // rᵀz per column
	bnorm    []float64  // ‖b‖ per column, or √(bᵀPb) in the preconditioner's norm
	precNorm bool
	active   []bool // columns still iterating
	nActive  int
	broke    bool      // some column broke down
	step     []float64 // step lengths, then their negatives
	beta     []float64
}

// start forms the first residual r = b − Ax (b when x = 0), z = Pr, rᵀz
// and the norms residuals are relative to, and marks the columns above
// the tolerance active; a zero column of b gets x = 0.
func (s *pcgState) start(ctx context.Context, b *mat.Dense) error {
	n, t := b.Dims()
	s.res = Result{Residuals: make([]float64, t)}
	s.r = mat.NewDense(n, t, nil)
	if cgIsZero(s.x) {
		s.r.Copy(b)
	} else {
		if err := s.a.Apply(ctx, s.r, s.x); err != nil {
			return err
		}
		s.r.Sub(b, s.r)
	}
	s.z = s.r
	if s.p != nil {
		s.z = mat.NewDense(n, t, nil)
		if err := s.p.Precondition(ctx, s.z, s.r); err != nil {
			return err
		}
	}
	s.rz = cgColDots(s.r, s.z)
	s.precNorm = s.opt.PrecondNorm && s.p != nil
	if err := s.rhsNorms(ctx, b); err != nil {
		return err
	}
	s.active = make([]bool, t)
	for j := 0; j < t; j++ {
		if s.bnorm[j] == 0 {
			cgSetCol(s.x, j, 0)
			cgSetCol(s.r, j, 0)
			cgSetCol(s.z, j, 0)
			s.rz[j] = 0
			continue
		}
		s.res.Residuals[j] = s.resid(j)
		if s.res.Residuals[j] > s.opt.Tol {
			s.active[j] = true
			s.nActive++
		}
	}
	s.res.Residual = cgMax(s.res.Residuals)
	return nil
}

// rhsNorms sets bnorm: ‖b‖ per column, or √(bᵀPb) in the preconditioner's
// norm (rᵀz itself for a cold start, where r = b).
func (s *pcgState) rhsNorms(ctx context.Context, b *mat.Dense) error {
	if !s.precNorm {
		s.bnorm = cgColNorms(b)
		return nil
	}
	if cgIsZero(s.x) {
		s.bnorm = slices.Clone(s.rz)
	} else {
		n, t := b.Dims()
		pb := mat.NewDense(n, t, nil)
		if err := s.p.Precondition(ctx, pb, b); err != nil {
			return err
		}
		s.bnorm = cgColDots(b, pb)
	}
	for j, v := range s.bnorm {
		s.bnorm[j] = math.Sqrt(math.Max(v, 0))
	}
	return nil
}

// resid is column j's relative residual.
func (s *pcgState) resid(j int) float64 {
	if s.precNorm {
		return math.Sqrt(math.Max(s.rz[j], 0)) / s.bnorm[j]
	}
	return cgColNorm(s.r, j) / s.bnorm[j]
}

// iterate does one iteration for the active columns: q = A·dir, the step
// along dir, the new residual and its preconditioned form, β, and the
// columns that converged (or broke down: pᵀAp or rᵀz not positive).
func (s *pcgState) iterate(ctx context.Context) error {
	t := len(s.active)
	for j := 0; j < t; j++ {
		if !s.active[j] {
			cgSetCol(s.dir, j, 0)
		}
	}
	if err := s.a.Apply(ctx, s.q, s.dir); err != nil {
		return err
	}
	pq := cgColDots(s.dir, s.q)
	for j := 0; j < t; j++ {
		s.step[j] = 0
		if !s.active[j] {
			continue
		}
		if !(pq[j] > 0) || !(s.rz[j] > 0) {
			s.active[j], s.broke = false, true
			s.nActive--
			continue
		}
		s.step[j] = s.rz[j] / pq[j]
	}
	cgAxpyCols(s.x, s.step, s.dir)
	for j := range s.step {
		s.step[j] = -s.step[j]
	}
	cgAxpyCols(s.r, s.step, s.q)
	if s.p != nil {
		if err := s.p.Precondition(ctx, s.z, s.r); err != nil {
			return err
		}
	}
	rzNew := cgColDots(s.r, s.z)
	for j := range s.beta {
		s.beta[j] = 0
		if s.active[j] {
			s.beta[j] = rzNew[j] / s.rz[j]
		}
	}
	s.rz = rzNew
	for j := 0; j < t; j++ {
		if !s.active[j] {
			continue
		}
		s.res.Residuals[j] = s.resid(j)
		if s.res.Residuals[j] <= s.opt.Tol {
			s.active[j] = false
			s.nActive--
		}
	}
	return nil
}

func cgCancelled(res Result, err error) (Result, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		res.Status = Cancelled
	}
	return res, err
}

func cgIsZero(x *mat.Dense) bool {
	raw := x.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for _, v := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

func cgColDots(a, b *mat.Dense) []float64 {
	ra, rb := a.RawMatrix(), b.RawMatrix()
	out := make([]float64, ra.Cols)
	for i := 0; i < ra.Rows; i++ {
		x := ra.Data[i*ra.Stride : i*ra.Stride+ra.Cols]
		y := rb.Data[i*rb.Stride : i*rb.Stride+ra.Cols]
		for j := range x {
			out[j] += x[j] * y[j]
		}
	}
	return out
}

func cgColNorms(a *mat.Dense) []float64 {
	out := cgColDots(a, a)
	for j := range out {
		out[j] = math.Sqrt(out[j])
	}
	return out
}

func cgColNorm(a *mat.Dense, j int) float64 {
	raw := a.RawMatrix()
	var s float64
	for i := 0; i < raw.Rows; i++ {
		v := raw.Data[i*raw.Stride+j]
		s += v * v
	}
	return math.Sqrt(s)
}

func cgSetCol(a *mat.Dense, j int, v float64) {
	raw := a.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		raw.Data[i*raw.Stride+j] = v
	}
}

// cgAxpyCols sets y[:, j] += s[j]·x[:, j].
func cgAxpyCols(y *mat.Dense, s []float64, x *mat.Dense) {
	ry, rx := y.RawMatrix(), x.RawMatrix()
	for i := 0; i < ry.Rows; i++ {
		yr := ry.Data[i*ry.Stride : i*ry.Stride+ry.Cols]
		xr := rx.Data[i*rx.Stride : i*rx.Stride+ry.Cols]
		for j := range yr {
			yr[j] += s[j] * xr[j]
		}
	}
}

func cgScaleCols(a *mat.Dense, s []float64) {
	raw := a.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		r := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j := range r {
			r[j] *= s[j]
		}
	}
}

func cgMax(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, x)
	}
	return m
}
