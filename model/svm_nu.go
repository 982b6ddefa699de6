package model

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/solver"
)

// ν-SVC (SVM.Nu): LIBSVM's -s 1, scikit-learn's NuSVC (Chang & Lin 2011,
// Sect. 2.2), solved by solver.SolveNu.

// checkNuConfig refuses what ν-SVC does not take: ν outside (0, 1], a C
// (ν replaces it), class weights, NoBias and sample weights.
func (s *SVM) checkNuConfig(w []float64) error {
	switch {
	case !(s.Nu > 0 && s.Nu <= 1):
		return fmt.Errorf("%w: Nu = %g, want 0 < ν ≤ 1 (0: C-SVC)", ErrInput, s.Nu)
	case s.C != 0:
		return fmt.Errorf("%w: C = %g with Nu = %g: ν-SVC has no C (leave C at 0)", ErrInput, s.C, s.Nu)
	case len(s.ClassWeights) > 0:
		return fmt.Errorf("%w: ν-SVC (Nu) does not take class weights", ErrInput)
	case s.NoBias:
		return fmt.Errorf("%w: ν-SVC (Nu) has a bias: NoBias does not apply", ErrInput)
	case w != nil:
		return fmt.Errorf("%w: ν-SVC (Nu) does not take sample weights", ErrInput)
	}
	return nil
}

// solve solves one binary sub-problem: C-SVC by SMO, without bias by dual
// coordinate descent, or, with cfg.nu > 0, ν-SVC by solver.SolveNu from
// LIBSVM's start (on each label, in order, α_i = 1 until the label's sum is
// νn/2), its α, bias and objective then scaled by 1/r, 1/r and 1/r² as
// LIBSVM's solve_nu_svc does, so that the result is a C-SVC solution with
// C = 1/r.
func (cfg svmConfig) solve(ctx context.Context, noBias bool, prob solver.SVMProblem, opt solver.SVMOptions) (*solver.SVMResult, error) {
	switch {
	case cfg.nu > 0:
		n := len(prob.Y)
		left := map[float64]float64{1: cfg.nu * float64(n) / 2, -1: cfg.nu * float64(n) / 2}
		init := make([]float64, n)
		for i, y := range prob.Y {
			init[i] = min(prob.C[i], left[y])
			left[y] -= init[i]
		}
		opt.Init = init
		prob.P = make([]float64, n)
		r, err := solver.SolveNu(ctx, prob, opt)
		if err != nil {
			return nil, err
		}
		if !(r.R > 0) {
			return nil, fmt.Errorf("%w: ν-SVC found r = %g ≤ 0 (the classes cannot be separated at ν = %g)", ErrInput, r.R, cfg.nu)
		}
		for i := range r.Alpha {
			r.Alpha[i] /= r.R
		}
		r.Bias /= r.R
		r.Objective /= r.R * r.R
		return r, nil
	case noBias:
		return solver.SolveDCD(ctx, prob, opt)
	}
	return solver.SolveSMO(ctx, prob, opt)
}

// checkNu refuses a ν that no ν-SVC sub-problem can take: with n₁ and n₂
// rows in its two classes, ν·(n₁ + n₂)/2 ≤ min(n₁, n₂) (LIBSVM's "specified
// nu is infeasible").
func checkNu(nu float64, labels Labels, tasks []svmTask) error {
	for _, t := range tasks {
		var n1, n2 int
		for _, y := range t.y {
			if y > 0 {
				n1++
			} else {
				n2++
			}
		}
		if nu*float64(n1+n2)/2 > float64(min(n1, n2)) {
			other := "the other classes"
			if t.neg >= 0 {
				other = fmt.Sprintf("class %g", labels.Classes[t.neg])
			}
			return fmt.Errorf("%w: ν = %g is infeasible for class %g (%d rows) against %s (%d rows): ν-SVC needs ν ≤ 2·min(n₁, n₂)/(n₁ + n₂) = %.6g",
				ErrInput, nu, labels.Classes[t.pos], n1, other, n2, 2*float64(min(n1, n2))/float64(n1+n2))
		}
	}
	return nil
}
