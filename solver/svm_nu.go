package solver

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
)

// SolveNu solves the dual of the ν-SVMs (Chang & Lin, LIBSVM, 2011, Sect.
// 2.2 and 2.5; LIBSVM's Solver_NU): SolveSMO's problem with a second
// equality constraint, eᵀα = Δ' as well as yᵀα = p.Sum, both kept at the
// values of opt.Init, which is required. Every step moves two variables of
// the same label, chosen within each label by the second-order rule of
// SolveSMO, and the stopping rule and shrinking take the two labels apart,
// as LIBSVM's Solver_NU does. Result.R is LIBSVM's r and
// Result.Bias is −ρ, with ρ and r from the free variables' gradients of
// each label (their means r₁, r₂: ρ = (r₁ − r₂)/2, r = (r₁ + r₂)/2).
//
// ν-SVC (y the labels, p = 0, C = 1, Init with ν·n/2 on each label) then
// scales α and ρ by 1/r; ν-SVR (2n variables as ε-SVR's, p = (−z, z),
// Init with C·ν·n/2 on each half) finds ε = −r.
func SolveNu(ctx context.Context, p SVMProblem, opt SVMOptions) (*SVMResult, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("solver: nu: %w", err)
	}
	if opt.Init == nil {
		return nil, fmt.Errorf("%w: SolveNu needs a starting α (SVMOptions.Init): its eᵀα is kept", ErrSVMProblem)
	}
	if opt.Float32Cache {
		return solveNu[float32](ctx, p, opt)
	}
	return solveNu[float64](ctx, p, opt)
}

func solveNu[T float32 | float64](ctx context.Context, p SVMProblem, opt SVMOptions) (*SVMResult, error) {
	s, err := newSVM[T](ctx, p, opt, true)
	if err != nil {
		return nil, err
	}
	return s.loop(ctx, rules{
		pick: func() (int, int, float64) {
			i, j, gap := s.selectNu(true)
			return i, j, finite(gap)
		},
		gap: func() float64 {
			_, _, gap := s.selectNu(false)
			return finite(gap)
		},
		step:   s.stepSMO, // i and j share their label: both sums are kept
		shrink: s.shrinkNu,
		finish: s.finishNu,
	})
}

// finite is v, or 0 for ±Inf (no violating pair on a label).
func finite(v float64) float64 {
	if math.IsInf(v, 0) {
		return 0
	}
	return v
}

// selectNu returns LIBSVM's Solver_NU working pair (the same label for both)
// and the violation max(G⁺max + G⁺max2, G⁻max + G⁻max2) over the active set;
// i < 0 when no pair improves. With pair false it only computes the
// violation (no kernel column is read).
func (s *svm[T]) selectNu(pair bool) (int, int, float64) {
	gmaxp, gmaxp2 := math.Inf(-1), math.Inf(-1)
	gmaxn, gmaxn2 := math.Inf(-1), math.Inf(-1)
	ip, in := -1, -1
	for _, t := range s.active {
		if s.y[t] > 0 {
			if !s.atUpper(t) && -s.g[t] >= gmaxp {
				gmaxp, ip = -s.g[t], t
			}
			if !s.atLower(t) {
				gmaxp2 = max(gmaxp2, s.g[t])
			}
		} else {
			if !s.atLower(t) && s.g[t] >= gmaxn {
				gmaxn, in = s.g[t], t
			}
			if !s.atUpper(t) {
				gmaxn2 = max(gmaxn2, -s.g[t])
			}
		}
	}
	gap := max(gmaxp+gmaxp2, gmaxn+gmaxn2)
	if !pair {
		return -1, -1, gap
	}
	var kp, kn []T
	if ip >= 0 {
		kp = s.column(ip)
	}
	if in >= 0 {
		kn = s.column(in)
	}
	j := -1
	best := math.Inf(1)
	for _, t := range s.active {
		var b, a float64
		if s.y[t] > 0 {
			if s.atLower(t) || ip < 0 {
				continue
			}
			b = gmaxp + s.g[t]
			if b <= 0 {
				continue
			}
			a = s.qd[ip] + s.qd[t] - 2*float64(kp[s.pos[t]])
		} else {
			if s.atUpper(t) || in < 0 {
				continue
			}
			b = gmaxn - s.g[t]
			if b <= 0 {
				continue
			}
			a = s.qd[in] + s.qd[t] - 2*float64(kn[s.pos[t]])
		}
		if a <= 0 {
			a = tau
		}
		if v := -b * b / a; v <= best {
			best, j = v, t
		}
	}
	if j < 0 {
		return -1, -1, gap
	}
	if s.y[j] > 0 {
		return ip, j, gap
	}
	return in, j, gap
}

// shrinkNu is Solver_NU's do_shrinking: the bounds of each label apart.
func (s *svm[T]) shrinkNu() error {
	g1, g2 := math.Inf(-1), math.Inf(-1) // label +1: max −G over I_up, max G over I_low
	g3, g4 := math.Inf(-1), math.Inf(-1) // label −1: max G over I_low, max −G over I_up
	for _, t := range s.active {
		if !s.atUpper(t) {
			if s.y[t] > 0 {
				g1 = max(g1, -s.g[t])
			} else {
				g4 = max(g4, -s.g[t])
			}
		}
		if !s.atLower(t) {
			if s.y[t] > 0 {
				g2 = max(g2, s.g[t])
			} else {
				g3 = max(g3, s.g[t])
			}
		}
	}
	if err := s.unshrinkOnce(max(g1+g2, g3+g4)); err != nil {
		return err
	}
	s.dropBounded(g1, g4, g2, g3)
	return nil
}

// finishNu computes ρ and r as Solver_NU's calculate_rho: for each label
// the mean gradient of its free variables, or the midpoint of its feasible
// interval when none is free.
func (s *svm[T]) finishNu(iter int, gap float64, st SVMStatus) *SVMResult {
	var r [2]float64
	for k, label := range []float64{1, -1} {
		ub, lb := math.Inf(1), math.Inf(-1)
		var sum float64
		nfree := 0
		for t := range s.n {
			if s.y[t] != label {
				continue
			}
			switch {
			case s.atUpper(t):
				lb = max(lb, s.g[t])
			case s.atLower(t):
				ub = min(ub, s.g[t])
			default:
				nfree++
				sum += s.g[t]
			}
		}
		if nfree > 0 {
			r[k] = sum / float64(nfree)
		} else {
			r[k] = (ub + lb) / 2
		}
	}
	res := s.result(iter, gap, st)
	res.Bias = -(r[0] - r[1]) / 2
	res.R = (r[0] + r[1]) / 2
	return res
}
