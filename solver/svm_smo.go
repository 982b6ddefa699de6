package solver

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
)

// SolveSMO solves the SVM dual with bias (LIBSVM's C-SVC) by sequential
// minimal optimization with the second-order working-set selection of Fan,
// Chen & Lin (JMLR 2005, WSS 2) and LIBSVM's shrinking. Columns are computed
// on demand and kept in an LRU cache of opt.CacheBytes. The equality
// constraint is yᵀα = p.Sum (0 for the SVMs; νn for the one-class SVM,
// started from opt.Init).
func SolveSMO(ctx context.Context, p SVMProblem, opt SVMOptions) (*SVMResult, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("solver: smo: %w", err)
	}
	if opt.Float32Cache {
		return solveSMO[float32](ctx, p, opt)
	}
	return solveSMO[float64](ctx, p, opt)
}

func solveSMO[T float32 | float64](ctx context.Context, p SVMProblem, opt SVMOptions) (*SVMResult, error) {
	s, err := newSVM[T](ctx, p, opt, true)
	if err != nil {
		return nil, err
	}
	return s.loop(ctx, rules{pick: s.selectSMO, gap: s.gapSMO, step: s.stepSMO, shrink: s.shrinkSMO, finish: s.finishSMO})
}

// selectSMO returns the working pair by WSS 2 and the maximal violation
// Gmax + Gmax2; i < 0 when no violating pair exists.
func (s *svm[T]) selectSMO() (int, int, float64) {
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	i := -1
	for _, t := range s.active {
		if s.y[t] > 0 {
			if !s.atUpper(t) && -s.g[t] >= gmax {
				gmax, i = -s.g[t], t
			}
		} else if !s.atLower(t) && s.g[t] >= gmax {
			gmax, i = s.g[t], t
		}
	}
	if i < 0 {
		return -1, -1, 0
	}
	ki := s.column(i)
	j := -1
	best := math.Inf(1)
	for _, t := range s.active {
		var yg float64 // y_t G_t
		if s.y[t] > 0 {
			if s.atLower(t) {
				continue
			}
			yg = s.g[t]
		} else {
			if s.atUpper(t) {
				continue
			}
			yg = -s.g[t]
		}
		gmax2 = max(gmax2, yg)
		b := gmax + yg
		if b > 0 {
			a := s.qd[i] + s.qd[t] - 2*float64(ki[s.pos[t]])
			if a <= 0 {
				a = tau
			}
			if v := -b * b / a; v <= best {
				best, j = v, t
			}
		}
	}
	if j < 0 {
		return -1, -1, gmax + gmax2
	}
	return i, j, gmax + gmax2
}

// gapSMO returns the maximal violation over the active set.
func (s *svm[T]) gapSMO() float64 {
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	for _, t := range s.active {
		if s.y[t] > 0 {
			if !s.atUpper(t) {
				gmax = max(gmax, -s.g[t])
			}
			if !s.atLower(t) {
				gmax2 = max(gmax2, s.g[t])
			}
		} else {
			if !s.atLower(t) {
				gmax = max(gmax, s.g[t])
			}
			if !s.atUpper(t) {
				gmax2 = max(gmax2, -s.g[t])
			}
		}
	}
	if math.IsInf(gmax, -1) || math.IsInf(gmax2, -1) {
		return 0
	}
	return gmax + gmax2
}

// stepSMO solves the two-variable subproblem in (α_i, α_j) and updates the gradient.
func (s *svm[T]) stepSMO(i, j int) {
	ki := s.column(i)
	kj := s.column(j)
	yi, yj := s.y[i], s.y[j]
	ci, cj := s.c[i], s.c[j]
	ai, aj := s.alpha[i], s.alpha[j]
	kij := float64(ki[s.pos[j]])
	quad := s.qd[i] + s.qd[j] - 2*kij
	if quad <= 0 {
		quad = tau
	}
	if yi != yj {
		delta := (-s.g[i] - s.g[j]) / quad
		diff := ai - aj
		ai += delta
		aj += delta
		if diff > 0 {
			if aj < 0 {
				aj, ai = 0, diff
			}
		} else if ai < 0 {
			ai, aj = 0, -diff
		}
		if diff > ci-cj {
			if ai > ci {
				ai, aj = ci, ci-diff
			}
		} else if aj > cj {
			aj, ai = cj, cj+diff
		}
	} else {
		delta := (s.g[i] - s.g[j]) / quad
		sum := ai + aj
		ai -= delta
		aj += delta
		if sum > ci {
			if ai > ci {
				ai, aj = ci, sum-ci
			}
		} else if aj < 0 {
			aj, ai = 0, sum
		}
		if sum > cj {
			if aj > cj {
				aj, ai = cj, sum-cj
			}
		} else if ai < 0 {
			ai, aj = 0, sum
		}
	}
	di := (ai - s.alpha[i]) * yi
	dj := (aj - s.alpha[j]) * yj
	s.alpha[i], s.alpha[j] = ai, aj
	for _, t := range s.active {
		p := s.pos[t]
		s.g[t] += s.y[t] * (di*float64(ki[p]) + dj*float64(kj[p]))
	}
}

// shrinkSMO is LIBSVM's do_shrinking: it drops the bounded variables that
// cannot enter a violating pair, after a one-time full gradient rebuild once
// the violation is within 10·Tol.
func (s *svm[T]) shrinkSMO() error {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for _, t := range s.active {
		if s.y[t] > 0 {
			if !s.atUpper(t) {
				gmax1 = max(gmax1, -s.g[t])
			}
			if !s.atLower(t) {
				gmax2 = max(gmax2, s.g[t])
			}
		} else {
			if !s.atUpper(t) {
				gmax2 = max(gmax2, -s.g[t])
			}
			if !s.atLower(t) {
				gmax1 = max(gmax1, s.g[t])
			}
		}
	}
	if err := s.unshrinkOnce(gmax1 + gmax2); err != nil {
		return err
	}
	s.dropBounded(gmax1, gmax2, gmax2, gmax1)
	return nil
}

// finishSMO computes the bias as LIBSVM's calculate_rho: the mean of y_tG_t
// over free variables, or the midpoint of the feasible interval when none is free.
func (s *svm[T]) finishSMO(iter int, gap float64, st SVMStatus) *SVMResult {
	ub, lb := math.Inf(1), math.Inf(-1)
	var sum float64
	nfree := 0
	for t := range s.n {
		yg := s.y[t] * s.g[t]
		switch {
		case s.atUpper(t):
			if s.y[t] < 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		case s.atLower(t):
			if s.y[t] > 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		default:
			nfree++
			sum += yg
		}
	}
	var rho float64
	if nfree > 0 {
		rho = sum / float64(nfree)
	} else {
		rho = (ub + lb) / 2
	}
	r := s.result(iter, gap, st)
	r.Bias = -rho
	return r
}
