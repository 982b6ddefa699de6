package model

import (
	"context"
	"errors"
	"fmt"

	"github.com/landmark-ml/landmark/solver"
)

// ν-SVC (SVM.Nu): LIBSVM's -s 1, scikit-learn's NuSVC (Chang & Lin 2011,
// Sect. 2.2), solved by solver.SolveNu.

// checkNuConfig refuses what ν-SVC does not take: ν outside (0, 1], a C
// (ν replaces it) and NoBias.
func (s *SVM) checkNuConfig() error {
	switch {
	case !(s.Nu > 0 && s.Nu <= 1):
		return fmt.Errorf("%w: Nu = %g, want 0 < ν ≤ 1 (0: C-SVC)", ErrInput, s.Nu)
	case s.C != 0:
		return fmt.Errorf("%w: C = %g with Nu = %g: ν-SVC has no C (leave C at 0)", ErrInput, s.C, s.Nu)
	case s.NoBias:
		return fmt.Errorf("%w: ν-SVC (Nu) has a bias: NoBias does not apply", ErrInput)
	}
	return nil
}

// solve solves one binary sub-problem: C-SVC by SMO, without bias by dual
// coordinate descent, or, with cfg.nu > 0, ν-SVC by solver.SolveNu. ν-SVC
// starts where LIBSVM's solve_nu_svc does, with scikit-learn's sample
// weights: each row's bound is its weight b_i (prob.C), each label's α sum
// is ν·Σb/2, reached by filling the label's rows in order, α_i = min(b_i,
// what is left). Its α, bias and objective are then scaled by 1/r, 1/r and
// 1/r², so that the result is a C-SVC solution with C = 1/r (bounds b_i/r).
// A sub-problem whose ν is infeasible (nuFeasible) is refused with an
// *infeasibleNu.
func (cfg svmConfig) solve(ctx context.Context, noBias bool, prob solver.SVMProblem, opt solver.SVMOptions) (*solver.SVMResult, error) {
	switch {
	case cfg.nu > 0:
		if err := nuFeasible(cfg.nu, prob.Y, prob.C); err != nil {
			return nil, err
		}
		n := len(prob.Y)
		var total float64
		for _, c := range prob.C {
			total += c
		}
		left := map[float64]float64{1: cfg.nu * total / 2, -1: cfg.nu * total / 2}
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

// infeasibleNu is a ν that a ν-SVC sub-problem cannot take: its labels'
// weights (row counts when unweighted) are pos and neg, and ν·(pos + neg)/2
// exceeds min(pos, neg), so no α with 0 ≤ α_i ≤ b_i reaches ν·Σb/2 on both
// labels (LIBSVM's "specified nu is infeasible"; scikit-learn counts sample
// weights the same way).
type infeasibleNu struct {
	nu, pos, neg float64
}

func (e *infeasibleNu) Error() string {
	return fmt.Sprintf("ν = %g is infeasible: ν-SVC needs ν ≤ 2·min(n₁, n₂)/(n₁ + n₂) = %.6g", e.nu, e.max())
}

// Unwrap makes an infeasible ν an input error.
func (e *infeasibleNu) Unwrap() error { return ErrInput }

// max is the largest feasible ν.
func (e *infeasibleNu) max() float64 { return 2 * min(e.pos, e.neg) / (e.pos + e.neg) }

// nuFeasible returns an *infeasibleNu when ν·(n₁ + n₂)/2 > min(n₁, n₂),
// where n₁ and n₂ are the sums of the bounds b of the positive and the
// negative rows (their counts when every b_i is 1).
func nuFeasible(nu float64, y, b []float64) error {
	var pos, neg float64
	for i, v := range y {
		if v > 0 {
			pos += b[i]
		} else {
			neg += b[i]
		}
	}
	if nu*(pos+neg)/2 > min(pos, neg) {
		return &infeasibleNu{nu: nu, pos: pos, neg: neg}
	}
	return nil
}

// checkNu refuses a ν that some ν-SVC sub-problem cannot take (nuFeasible
// on the task's bounds), naming its two classes and their sizes: row counts,
// or total weights with sample or class weights.
func checkNu(cfg svmConfig, labels Labels, cls []int, tasks []svmTask, w []float64) error {
	for _, t := range tasks {
		err := nuFeasible(cfg.nu, t.y, cfg.bounds(labels, cls, t, w))
		var inf *infeasibleNu
		if !errors.As(err, &inf) {
			continue
		}
		other := "the other classes"
		if t.neg >= 0 {
			other = fmt.Sprintf("class %g", labels.Classes[t.neg])
		}
		size := func(v float64) string {
			if w == nil && len(cfg.weights) == 0 {
				return fmt.Sprintf("%g rows", v)
			}
			return fmt.Sprintf("weight %.6g", v)
		}
		return fmt.Errorf("%w: ν = %g is infeasible for class %g (%s) against %s (%s): ν-SVC needs ν ≤ 2·min(n₁, n₂)/(n₁ + n₂) = %.6g",
			ErrInput, cfg.nu, labels.Classes[t.pos], size(inf.pos), other, size(inf.neg), inf.max())
	}
	return nil
}
