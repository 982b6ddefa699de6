package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randomBlock(rng *rand.Rand, n, t int) *mat.Dense {
	b := mat.NewDense(n, t, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < t; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	return b
}

func relDiff(a, b mat.Matrix) float64 {
	return maxAbsDiff(a, b) / math.Max(mat.Norm(b, math.Inf(1)), 1e-300)
}

// diagPrecond is the Jacobi preconditioner of a matrix, written here so that
// the solver's tests do not depend on package precond.
type diagPrecond []float64

func (d diagPrecond) Precondition(_ context.Context, dst, r *mat.Dense) error {
	n, t := r.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < t; j++ {
			dst.Set(i, j, r.At(i, j)/d[i])
		}
	}
	return nil
}

// CG and PCG must agree with a Cholesky solve on random SPD systems. With
// randomSPD(60, 1) the condition number is about 250, so a relative residual
// of 1e-12 bounds the relative error by about 3e-10; 1e-8 leaves margin.
func TestPCGMatchesCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := 0; trial < 3; trial++ {
		a := randomSPD(rng, 60, 1)
		b := randomBlock(rng, 60, 3)
		c, err := Cholesky(a, CholOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want := mat.DenseCopyOf(b)
		if err := c.Solve(want); err != nil {
			t.Fatal(err)
		}
		diag := make(diagPrecond, 60)
		for i := range diag {
			diag[i] = a.At(i, i)
		}
		for name, p := range map[string]Preconditioner{"cg": nil, "jacobi": diag} {
			x := mat.NewDense(60, 3, nil)
			res, err := PCG(context.Background(), Matrix{A: a}, p, b, x, Options{Tol: 1e-12, MaxIter: 1000})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != Converged || res.Residual > 1e-12 || len(res.Residuals) != 3 {
				t.Errorf("%s: result %+v, want converged below 1e-12", name, res)
			}
			if d := relDiff(x, want); d > 1e-8 {
				t.Errorf("%s: solution differs from Cholesky by %g relative", name, d)
			}
			// The reported residual is the recurrence's; the true one agrees
			// to rounding (‖A‖‖x‖ε ≈ 1e-13 relative here).
			var r mat.Dense
			r.Mul(a, x)
			r.Sub(b, &r)
			if tr := mat.Norm(&r, 2) / mat.Norm(b, 2); tr > 1e-11 {
				t.Errorf("%s: true relative residual %g", name, tr)
			}
		}
	}
}

// Each column runs its own recurrence: solving three right-hand sides at
// once equals solving them one by one (to rounding: gonum may multiply one
// column and three columns with different kernels).
func TestPCGColumnsIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	a := randomSPD(rng, 40, 2)
	b := randomBlock(rng, 40, 3)
	// A zero column must give a zero solution without disturbing the others.
	for i := 0; i < 40; i++ {
		b.Set(i, 1, 0)
	}
	x := mat.NewDense(40, 3, nil)
	x.Set(0, 1, 5) // a nonzero start in the zero column
	opt := Options{Tol: 1e-9, MaxIter: 25}
	if _, err := CG(context.Background(), Matrix{A: a}, b, x, opt); err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 3; j++ {
		bj := mat.DenseCopyOf(b.Slice(0, 40, j, j+1))
		xj := mat.NewDense(40, 1, nil)
		if j == 1 {
			xj.Set(0, 0, 5)
		}
		if _, err := CG(context.Background(), Matrix{A: a}, bj, xj, opt); err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(xj, x.Slice(0, 40, j, j+1)); d > 1e-12 {
			t.Errorf("column %d differs from its single solve by %g", j, d)
		}
	}
	if n := mat.Norm(x.Slice(0, 40, 1, 2), 2); n != 0 {
		t.Errorf("zero right-hand side gave ‖x‖ = %g", n)
	}
}

// Starting from the solution, CG must stop before iterating.
func TestPCGWarmStartFromAnswer(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	a := randomSPD(rng, 30, 1)
	b := randomBlock(rng, 30, 2)
	x := mat.NewDense(30, 2, nil)
	if _, err := CG(context.Background(), Matrix{A: a}, b, x, Options{Tol: 1e-12, MaxIter: 1000}); err != nil {
		t.Fatal(err)
	}
	calls := 0
	res, err := CG(context.Background(), Matrix{A: a}, b, x, Options{Tol: 1e-10, Callback: func(Progress) bool { calls++; return true }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations != 0 || res.Status != Converged || calls != 0 {
		t.Errorf("warm start from the answer: %d iterations, status %s, %d callbacks; want 0, converged, 0", res.Iterations, res.Status, calls)
	}
}

// A diagonal scaling over six orders of magnitude makes plain CG slow; the
// Jacobi preconditioner undoes it exactly, so PCG converges in the iterations
// of the well-conditioned core (randomSPD(80, 40), condition ≈ 9).
func TestPCGPreconditionerHelps(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	s := randomSPD(rng, 80, 40)
	d := make([]float64, 80)
	for i := range d {
		d[i] = math.Pow(10, 6*float64(i)/79-3)
	}
	a := mat.NewSymDense(80, nil)
	for i := 0; i < 80; i++ {
		for j := i; j < 80; j++ {
			a.SetSym(i, j, math.Sqrt(d[i]*d[j])*s.At(i, j))
		}
	}
	diag := make(diagPrecond, 80)
	for i := range diag {
		diag[i] = a.At(i, i)
	}
	b := randomBlock(rng, 80, 1)
	opt := Options{Tol: 1e-8, MaxIter: 2000}
	plain, err := CG(context.Background(), Matrix{A: a}, b, mat.NewDense(80, 1, nil), opt)
	if err != nil {
		t.Fatal(err)
	}
	pre, err := PCG(context.Background(), Matrix{A: a}, diag, b, mat.NewDense(80, 1, nil), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("iterations to 1e-8: CG %d (%s), Jacobi PCG %d (%s)", plain.Iterations, plain.Status, pre.Iterations, pre.Status)
	if pre.Status != Converged || 3*pre.Iterations > plain.Iterations {
		t.Errorf("Jacobi PCG took %d iterations (%s), CG %d: want at least 3× fewer", pre.Iterations, pre.Status, plain.Iterations)
	}
}

func TestPCGStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	a := randomSPD(rng, 50, 0.01)
	b := randomBlock(rng, 50, 1)
	op := Matrix{A: a}

	res, err := CG(context.Background(), op, b, mat.NewDense(50, 1, nil), Options{Tol: 1e-14, MaxIter: 3})
	if err != nil || res.Status != MaxIter || res.Iterations != 3 {
		t.Errorf("MaxIter 3: %+v, %v; want status max-iter after 3 and no error", res, err)
	}

	var seen []int
	res, err = CG(context.Background(), op, b, mat.NewDense(50, 1, nil), Options{Tol: 1e-14, Callback: func(p Progress) bool {
		seen = append(seen, p.Iteration)
		return p.Iteration < 4
	}})
	if err != nil || res.Status != Stopped || res.Iterations != 4 || len(seen) != 4 || seen[3] != 4 {
		t.Errorf("callback stop at 4: %+v, %v, calls %v", res, err, seen)
	}

	ctx, cancel := context.WithCancel(context.Background())
	res, err = CG(ctx, op, b, mat.NewDense(50, 1, nil), Options{Tol: 1e-14, Callback: func(p Progress) bool {
		if p.Iteration == 2 {
			cancel()
		}
		return true
	}})
	if !errors.Is(err, context.Canceled) || res.Status != Cancelled || res.Iterations != 2 {
		t.Errorf("cancel at 2: %+v, %v; want context.Canceled after 2 iterations", res, err)
	}

	if _, err := CG(context.Background(), op, b, mat.NewDense(49, 1, nil), Options{}); !errors.Is(err, ErrShape) {
		t.Errorf("49-row x: err = %v, want ErrShape", err)
	}
	for _, o := range []Options{{Tol: -1}, {Tol: math.NaN()}, {MaxIter: -1}} {
		if _, err := CG(context.Background(), op, b, mat.NewDense(50, 1, nil), o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
}

// An indefinite operator makes pᵀAp ≤ 0: the run reports Breakdown, not NaN.
func TestPCGBreakdown(t *testing.T) {
	a := mat.NewSymDense(2, []float64{1, 0, 0, -1})
	b := mat.NewDense(2, 1, []float64{1, 1})
	x := mat.NewDense(2, 1, nil)
	res, err := CG(context.Background(), Matrix{A: a}, b, x, Options{})
	if err != nil || res.Status != Breakdown {
		t.Errorf("indefinite: %+v, %v; want status breakdown", res, err)
	}
	if math.IsNaN(x.At(0, 0)) || math.IsNaN(x.At(1, 0)) {
		t.Errorf("breakdown left NaN in x: %v", mat.Formatted(x))
	}
}

// With PrecondNorm the reported residual is √(rᵀPr)/√(bᵀPb), recomputed here
// densely from the returned x (agreement to 1e-6 relative: the recurrence's
// residual drifts from the true one by rounding only).
func TestPCGPrecondNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	a := randomSPD(rng, 50, 0.5)
	b := randomBlock(rng, 50, 2)
	diag := make(diagPrecond, 50)
	for i := range diag {
		diag[i] = a.At(i, i)
	}
	x := mat.NewDense(50, 2, nil)
	res, err := PCG(context.Background(), Matrix{A: a}, diag, b, x, Options{Tol: 1e-30, MaxIter: 12, PrecondNorm: true})
	if err != nil {
		t.Fatal(err)
	}
	var r mat.Dense
	r.Mul(a, x)
	r.Sub(b, &r)
	for j := 0; j < 2; j++ {
		var rpr, bpb float64
		for i := 0; i < 50; i++ {
			rpr += r.At(i, j) * r.At(i, j) / diag[i]
			bpb += b.At(i, j) * b.At(i, j) / diag[i]
		}
		want := math.Sqrt(rpr / bpb)
		if got := res.Residuals[j]; math.Abs(got-want) > 1e-6*want {
			t.Errorf("column %d: residual %g, dense √(rᵀPr/bᵀPb) = %g", j, got, want)
		}
	}
}
