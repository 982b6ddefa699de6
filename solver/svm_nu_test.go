package solver

import (
	"context"
	"errors"
	"math"
	"testing"
)

// bruteNu minimizes ½αᵀQα + pᵀα over 0 ≤ α ≤ C with the sum of α over
// each label fixed (yᵀα = s₊ − s₋ and eᵀα = s₊ + s₋ together), by
// accelerated projected gradient: the feasible set is a product of one
// box-and-sum set a label, so the projection is project's on each.
func bruteNu(k [][]float64, y, c, p []float64, sums map[float64]float64) []float64 {
	n := len(y)
	proj := func(v []float64) []float64 {
		out := make([]float64, n)
		for label, sum := range sums {
			var idx []int
			for i := range y {
				if y[i] == label {
					idx = append(idx, i)
				}
			}
			sv, sc, ones := make([]float64, len(idx)), make([]float64, len(idx)), make([]float64, len(idx))
			for q, i := range idx {
				sv[q], sc[q], ones[q] = v[i], c[i], 1
			}
			for q, x := range project(sv, ones, sc, true, sum) {
				out[idx[q]] = x
			}
		}
		return out
	}
	return fista(k, y, p, proj)
}

// nuStart is LIBSVM's solve_nu_svc start: on each label, in order, α_i up
// to its bound until the label's sum reaches half.
func nuStart(y, c []float64, half float64) []float64 {
	a := make([]float64, len(y))
	left := map[float64]float64{1: half, -1: half}
	for i := range y {
		a[i] = min(c[i], left[y[i]])
		left[y[i]] -= a[i]
	}
	return a
}

// TestSolveNuMatchesBruteForceQP: ν-SVC's dual (Chang & Lin 2011, Sect. 2.2,
// as LIBSVM scales it: p = 0, C = 1, eᵀα = νn, yᵀα = 0) and ν-SVR's
// (2n variables, p = (−z, z), the halves' sums Cνn/2 each) solved by
// SolveNu agree with projected gradient on the same feasible set to 1e-6
// relative; both sums are kept; the free variables of each label have the
// gradient r₁ (label +1) or r₂ (label −1) to the tolerance, with
// ρ = (r₁ − r₂)/2 and r = (r₁ + r₂)/2 (LIBSVM's calculate_rho).
func TestSolveNuMatchesBruteForceQP(t *testing.T) {
	const n = 40
	k, y := twoBlobs(n, 0.5, 5)
	type tc struct {
		name    string
		y, c, p []float64
		rows    []int
		half    float64
		kk      [][]float64
	}
	var cases []tc
	for _, nu := range []float64{0.2, 0.6} {
		cases = append(cases, tc{name: "nu-svc", y: y, c: constC(n, 1), p: make([]float64, n), half: nu * n / 2, kk: k})
	}
	// ν-SVR on targets z = first coordinate's sign-weighted blob: 2n
	// variables over n points, α on label +1, α* on label −1.
	z := make([]float64, n)
	for i := range z {
		z[i] = math.Sin(float64(i)) + 0.5*y[i]
	}
	sy, sp, rows := make([]float64, 2*n), make([]float64, 2*n), make([]int, 2*n)
	k2 := make([][]float64, 2*n)
	for i := range n {
		sy[i], sy[n+i] = 1, -1
		sp[i], sp[n+i] = -z[i], z[i]
		rows[i], rows[n+i] = i, i
	}
	for i := range 2 * n {
		k2[i] = make([]float64, 2*n)
		for j := range 2 * n {
			k2[i][j] = k[rows[i]][rows[j]]
		}
	}
	const cSVR, nuSVR = 2.0, 0.3
	cases = append(cases, tc{name: "nu-svr", y: sy, c: constC(2*n, cSVR), p: sp, rows: rows, half: cSVR * nuSVR * n / 2, kk: k2})
	for _, c := range cases {
		init := nuStart(c.y, c.c, c.half)
		want := objective(c.kk, c.y, c.p, bruteNu(c.kk, c.y, c.c, c.p, map[float64]float64{1: c.half, -1: c.half}))
		r, err := SolveNu(context.Background(), SVMProblem{K: &denseK{k: k}, Rows: c.rows, Y: c.y, C: c.c, P: c.p}, SVMOptions{Tol: 1e-8, Init: init})
		if err != nil {
			t.Fatal(err)
		}
		got := objective(c.kk, c.y, c.p, r.Alpha)
		if r.Status != SVMConverged || math.Abs(got-want) > 1e-6*max(1, math.Abs(want)) {
			t.Errorf("%s (sums %g): objective %.10g (%v), brute force %.10g", c.name, c.half, got, r.Status, want)
		}
		var sp, sn float64
		var r1, r2 []float64
		for i, a := range r.Alpha {
			if a < 0 || a > c.c[i] {
				t.Fatalf("%s: α[%d] = %g outside [0, %g]", c.name, i, a, c.c[i])
			}
			free := a > 0 && a < c.c[i]
			if c.y[i] > 0 {
				sp += a
				if free {
					r1 = append(r1, r.Gradient[i])
				}
			} else {
				sn += a
				if free {
					r2 = append(r2, r.Gradient[i])
				}
			}
		}
		if math.Abs(sp-c.half) > 1e-9*c.half || math.Abs(sn-c.half) > 1e-9*c.half {
			t.Errorf("%s: label sums %.12g and %.12g, want %g each", c.name, sp, sn, c.half)
		}
		if len(r1) == 0 || len(r2) == 0 {
			t.Fatalf("%s: %d and %d free variables: the test needs both", c.name, len(r1), len(r2))
		}
		rho, rr := (r1[0]-r2[0])/2, (r1[0]+r2[0])/2
		if math.Abs(-r.Bias-rho) > 1e-7 || math.Abs(r.R-rr) > 1e-7 {
			t.Errorf("%s: ρ = %.10g, r = %.10g; from free gradients %.10g, %.10g", c.name, -r.Bias, r.R, rho, rr)
		}
		for _, v := range r1 {
			if math.Abs(v-r1[0]) > 1e-7 {
				t.Errorf("%s: free gradients of label +1 %g and %g differ", c.name, v, r1[0])
			}
		}
		for _, v := range r2 {
			if math.Abs(v-r2[0]) > 1e-7 {
				t.Errorf("%s: free gradients of label −1 %g and %g differ", c.name, v, r2[0])
			}
		}
	}
	if _, err := SolveNu(context.Background(), SVMProblem{K: &denseK{k: k}, Y: y, C: constC(n, 1), P: make([]float64, n)}, SVMOptions{}); !errors.Is(err, ErrSVMProblem) {
		t.Errorf("SolveNu without a start: err = %v, want ErrSVMProblem", err)
	}
}
