package meka

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Defaults of CG.
const (
	// DefaultCGTol is the relative residual ‖(K̃+λnI)α − y‖/‖y‖ at which
	// CG stops: 1e-6 is well below the statistical error of KRR.
	DefaultCGTol = 1e-6
	// DefaultCGMaxIter bounds the CG iterations per right-hand side.
	DefaultCGMaxIter = 1000
)

// CG configures (*Map).SolveCG. The zero value means the defaults.
type CG struct {
	// Tol is the relative residual to reach; 0 means DefaultCGTol.
	Tol float64
	// MaxIter bounds the iterations per column; 0 means DefaultCGMaxIter.
	// Reaching it is reported in the result (Converged false), not an error.
	MaxIter int
	// Callback, if non-nil, is called after every iteration with the column
	// of y being solved, the iteration (from 1) and the relative residual;
	// returning false stops that column early.
	Callback func(col, iter int, residual float64) bool
}

// Solution is the result of a KRR solve on MEKA.
type Solution struct {
	// Alpha holds the coefficients (n×t), one column per column of y.
	Alpha *mat.Dense
	// Method is "woodbury" or "cg".
	Method string
	// Iterations holds the CG iterations per column (nil for Woodbury).
	Iterations []int
	// Residuals holds ‖(W L Wᵀ + λnI)α − y‖/‖y‖ per column.
	Residuals []float64
	// Converged reports that every column reached the tolerance (always true
	// for Woodbury unless the system is singular).
	Converged bool
	// Indefinite reports that W L Wᵀ + λnI is not positive definite: L has an
	// eigenvalue ≤ −λn (possible without the PSD fix). The solve is then
	// unreliable; fit with PSD.
	Indefinite bool
}

func (m *Map) checkSolve(lambda float64, y *mat.Dense) (mu float64, err error) {
	if err := check.Positive("lambda", lambda); err != nil {
		return 0, fmt.Errorf("approx: meka: %w", err)
	}
	if err := check.Matrix("y", y); err != nil {
		return 0, fmt.Errorf("approx: meka: %w", err)
	}
	if r, _ := y.Dims(); r != m.n {
		return 0, fmt.Errorf("approx: meka: %w: y has %d rows, the approximation %d", check.ErrInput, r, m.n)
	}
	return lambda * float64(m.n), nil
}

// Solve solves (W L Wᵀ + λnI)α = y directly with the Woodbury identity
// (Section 7.3). λ follows the project's convention (model/doc.go): it is
// multiplied by n, so λ here equals scikit-learn's alpha divided by n.
//
// W has orthonormal columns, so with L = VΛVᵀ
//
//	α = (y − W Wᵀy)/μ + W V (Λ + μI)⁻¹ Vᵀ Wᵀ y,  μ = λn,
//
// which costs one eigendecomposition of L (O((ck)³), cached and reused
// across λ) and O(nkt) per solve. y is n×t (one column per output).
func (m *Map) Solve(ctx context.Context, lambda float64, y *mat.Dense) (*Solution, error) {
	mu, err := m.checkSolve(lambda, y)
	if err != nil {
		return nil, err
	}
	if err := m.eigen(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	_, t := y.Dims()
	r := m.Rank()
	sol := &Solution{Method: "woodbury", Converged: true}
	u := m.wtMul(y) // Wᵀy, r×t
	var vu mat.Dense
	vu.Mul(m.vecs.T(), u)
	for i, lam := range m.vals {
		den := lam + mu
		if den <= 0 {
			sol.Indefinite = true
		}
		if math.Abs(den) <= 1e-14*math.Max(mu, math.Abs(lam)) {
			return nil, fmt.Errorf("approx: meka: W L Wᵀ + λnI is singular (eigenvalue %g of L, λn = %g); fit with PSD", lam, mu)
		}
		row := vu.RawRowView(i)
		for j := range row {
			row[j] /= den
		}
	}
	// coef = V (Λ+μ)⁻¹ Vᵀ Wᵀ y − Wᵀ y / μ, then α = y/μ + W coef.
	coef := mat.NewDense(r, t, nil)
	coef.Mul(m.vecs, &vu)
	u.Scale(1/mu, u)
	coef.Sub(coef, u)
	alpha := mat.NewDense(m.n, t, nil)
	if err := m.wMul(ctx, alpha, coef); err != nil {
		return nil, err
	}
	var ys mat.Dense
	ys.Scale(1/mu, y)
	alpha.Add(alpha, &ys)
	sol.Alpha = alpha
	sol.Residuals, err = m.residuals(ctx, mu, alpha, y)
	if err != nil {
		return nil, err
	}
	return sol, nil
}

// residuals returns ‖(W L Wᵀ + μI)α − y‖/‖y‖ per column.
func (m *Map) residuals(ctx context.Context, mu float64, alpha, y *mat.Dense) ([]float64, error) {
	_, t := y.Dims()
	ka := mat.NewDense(m.n, t, nil)
	if err := m.Mul(ctx, ka, alpha); err != nil {
		return nil, err
	}
	res := make([]float64, t)
	for j := 0; j < t; j++ {
		var num, den float64
		for i := 0; i < m.n; i++ {
			e := ka.At(i, j) + mu*alpha.At(i, j) - y.At(i, j)
			num += e * e
			den += y.At(i, j) * y.At(i, j)
		}
		if den == 0 {
			res[j] = math.Sqrt(num)
		} else {
			res[j] = math.Sqrt(num / den)
		}
	}
	return res, nil
}

// SolveCG solves (W L Wᵀ + λnI)α = y by conjugate gradient with MEKA's
// matrix–vector product (Section 6.3), O(nk + (ck)²) per iteration and no
// factorization. λ is multiplied by n as in Solve. Each column of y is
// solved separately from α = 0. CG needs a positive definite system: when
// a curvature pᵀAp ≤ 0 appears the column stops and Indefinite is set.
func (m *Map) SolveCG(ctx context.Context, lambda float64, y *mat.Dense, opt CG) (*Solution, error) {
	mu, err := m.checkSolve(lambda, y)
	if err != nil {
		return nil, err
	}
	tol, maxIter := opt.Tol, opt.MaxIter
	switch {
	case tol < 0 || math.IsNaN(tol) || math.IsInf(tol, 0):
		return nil, fmt.Errorf("approx: meka: %w: CG Tol = %g, want finite and ≥ 0", check.ErrInput, tol)
	case maxIter < 0:
		return nil, fmt.Errorf("approx: meka: %w: CG MaxIter = %d < 0", check.ErrInput, maxIter)
	}
	if tol == 0 {
		tol = DefaultCGTol
	}
	if maxIter == 0 {
		maxIter = DefaultCGMaxIter
	}
	n := m.n
	_, t := y.Dims()
	sol := &Solution{Method: "cg", Converged: true, Alpha: mat.NewDense(n, t, nil), Iterations: make([]int, t)}
	apply := func(dst, v []float64) error {
		if err := m.Mul(ctx, mat.NewDense(n, 1, dst), mat.NewDense(n, 1, v)); err != nil {
			return err
		}
		floats.AddScaled(dst, mu, v)
		return nil
	}
	x := make([]float64, n)
	rv := make([]float64, n)
	p := make([]float64, n)
	ap := make([]float64, n)
	for col := 0; col < t; col++ {
		b := mat.Col(nil, col, y)
		bn := floats.Norm(b, 2)
		clear(x)
		copy(rv, b)
		copy(p, b)
		rr := floats.Dot(rv, rv)
		it := 0
		converged := bn == 0
		for !converged && it < maxIter {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := apply(ap, p); err != nil {
				return nil, err
			}
			pap := floats.Dot(p, ap)
			if !(pap > 0) {
				sol.Indefinite = true
				break
			}
			a := rr / pap
			floats.AddScaled(x, a, p)
			floats.AddScaled(rv, -a, ap)
			rrNew := floats.Dot(rv, rv)
			it++
			res := math.Sqrt(rrNew) / bn
			if res <= tol {
				converged = true
			}
			if opt.Callback != nil && !opt.Callback(col, it, res) {
				break
			}
			beta := rrNew / rr
			rr = rrNew
			for i := range p {
				p[i] = rv[i] + beta*p[i]
			}
		}
		sol.Iterations[col] = it
		if !converged {
			sol.Converged = false
		}
		sol.Alpha.SetCol(col, x)
	}
	sol.Residuals, err = m.residuals(ctx, mu, sol.Alpha, y)
	if err != nil {
		return nil, err
	}
	return sol, nil
}
