package solver

import (
	"context"
	"errors"
	"math"
	"testing"
)

// oneClassStart is LIBSVM's starting point of the one-class dual
// (solve_one_class): the first ⌊νn⌋ variables at their bound 1, the next
// at νn − ⌊νn⌋, the rest 0, so that eᵀα = νn.
func oneClassStart(n int, nu float64) []float64 {
	a := make([]float64, n)
	k := int(nu * float64(n))
	for i := range k {
		a[i] = 1
	}
	if k < n {
		a[k] = nu*float64(n) - float64(k)
	}
	return a
}

// TestSMOOneClassMatchesBruteForceQP solves the one-class SVM dual
// (Schölkopf et al., "Estimating the support of a high-dimensional
// distribution", Neural Computation 13 (2001), eq. (4)–(5), scaled by νn as
// LIBSVM does: min ½αᵀKα, 0 ≤ α_i ≤ 1, eᵀα = νn) with SolveSMO's equality
// constraint at Sum = νn, and compares it with accelerated projected
// gradient onto the same set.
func TestSMOOneClassMatchesBruteForceQP(t *testing.T) {
	const n = 40
	k, _ := twoBlobs(n, 0.5, 3)
	y, c, p := constC(n, 1), constC(n, 1), make([]float64, n)
	for _, nu := range []float64{0.1, 0.3, 0.75} {
		delta := nu * n
		want := objective(k, y, p, bruteQPSum(k, y, c, p, true, delta))
		for _, cols := range []Columns{&denseK{k: k}, &subK{denseK{k: k}}} {
			r, err := SolveSMO(context.Background(), SVMProblem{K: cols, Y: y, C: c, P: p, Sum: delta},
				SVMOptions{Tol: 1e-8, Init: oneClassStart(n, nu)})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != SVMConverged {
				t.Fatalf("ν = %g: status %v", nu, r.Status)
			}
			got := objective(k, y, p, r.Alpha)
			if math.Abs(got-want) > 1e-6*math.Abs(want) {
				t.Errorf("ν = %g: objective %.10g, brute force %.10g", nu, got, want)
			}
			// checkKKTSum checks eᵀα = νn, the violation, and that every free
			// α_i has (Kα)_i − ρ = 0: those points lie on the boundary.
			checkKKTSum(t, k, y, c, p, r, true, 1e-8, delta)
			// At least νn variables are non-zero and at most νn at the
			// bound (Schölkopf et al. 2001, the ν-property, for the scaled dual).
			if float64(r.SV) < delta-1e-9 || float64(r.BoundedSV) > delta+1e-9 {
				t.Errorf("ν = %g: %d SVs, %d bounded, νn = %g", nu, r.SV, r.BoundedSV, delta)
			}
		}
	}
}

func TestSMOSumErrors(t *testing.T) {
	k, _ := twoBlobs(6, 0.5, 3)
	y, c, p := constC(6, 1), constC(6, 1), make([]float64, 6)
	for _, tc := range []struct {
		name  string
		sum   float64
		init  []float64
		solve func(context.Context, SVMProblem, SVMOptions) (*SVMResult, error)
	}{
		{"no start", 3, nil, SolveSMO},
		{"start off the constraint", 3, oneClassStart(6, 0.4), SolveSMO},
		{"NaN", math.NaN(), oneClassStart(6, 0.5), SolveSMO},
		{"Inf", math.Inf(1), oneClassStart(6, 0.5), SolveSMO},
		{"no equality in DCD", 3, oneClassStart(6, 0.5), SolveDCD},
	} {
		_, err := tc.solve(context.Background(), SVMProblem{K: &denseK{k: k}, Y: y, C: c, P: p, Sum: tc.sum}, SVMOptions{Init: tc.init})
		if !errors.Is(err, ErrSVMProblem) {
			t.Errorf("%s: err = %v, want ErrSVMProblem", tc.name, err)
		}
	}
	// The start LIBSVM uses is accepted.
	if _, err := SolveSMO(context.Background(), SVMProblem{K: &denseK{k: k}, Y: y, C: c, P: p, Sum: 3}, SVMOptions{Init: oneClassStart(6, 0.5)}); err != nil {
		t.Errorf("feasible start refused: %v", err)
	}
}
