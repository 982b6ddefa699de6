package solver

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
)

// SolveDCD solves the SVM dual without bias, min ½αᵀQα + pᵀα (p = −e unless
// SVMProblem.P is set) over the box only, by dual coordinate descent (Hsieh, Chang, Lin, Keerthi & Sundararajan,
// ICML 2008, Alg. 1 and Sect. 3.2 shrinking), the subproblem solver of
// BKA-SVM and DC-SVM. With a kernel the gradient Qα + p is kept for all active
// variables, so the coordinate is chosen greedily, as the one with the largest
// projected gradient |PG_i| (each update costs one kernel column whichever
// coordinate is chosen). The one-variable step is the exact minimizer
// α_i ← min(max(α_i − G_i/Q_ii, 0), C_i). Unless opt.SingleCoordinate is set,
// a second variable is updated with it (see stepDCD2).
func SolveDCD(ctx context.Context, p SVMProblem, opt SVMOptions) (*SVMResult, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("solver: dcd: %w", err)
	}
	if opt.Float32Cache {
		return solveDCD[float32](ctx, p, opt)
	}
	return solveDCD[float64](ctx, p, opt)
}

func solveDCD[T float32 | float64](ctx context.Context, p SVMProblem, opt SVMOptions) (*SVMResult, error) {
	s, err := newSVM[T](ctx, p, opt, false)
	if err != nil {
		return nil, err
	}
	step := func(i, _ int) { s.stepDCD2(i) }
	if s.opt.SingleCoordinate {
		step = func(i, _ int) { s.stepDCD(i) }
	}
	return s.loop(ctx, rules{
		pick: func() (int, int, float64) {
			i, gap := s.selectDCD()
			return i, -1, gap
		},
		gap: s.gapDCD, step: step, shrink: s.shrinkDCD, finish: s.result,
	})
}

// pg returns the projected gradient of variable t.
func (s *svm[T]) pg(t int) float64 {
	g := s.g[t]
	switch {
	case s.atLower(t):
		return min(g, 0)
	case s.atUpper(t):
		return max(g, 0)
	}
	return g
}

// selectDCD returns the variable with the largest |PG| and the violation
// max(max PG, 0) − min(min PG, 0).
func (s *svm[T]) selectDCD() (int, float64) {
	hi, lo := math.Inf(-1), math.Inf(1)
	i, best := -1, 0.0
	for _, t := range s.active {
		v := s.pg(t)
		hi = max(hi, v)
		lo = min(lo, v)
		if a := math.Abs(v); a > best {
			best, i = a, t
		}
	}
	if len(s.active) == 0 {
		return -1, 0
	}
	return i, max(hi, 0) - min(lo, 0)
}

func (s *svm[T]) gapDCD() float64 {
	_, gap := s.selectDCD()
	return gap
}

func (s *svm[T]) stepDCD(i int) {
	q := s.qd[i]
	if q <= 0 {
		q = tau
	}
	a := min(max(s.alpha[i]-s.g[i]/q, 0), s.c[i])
	d := (a - s.alpha[i]) * s.y[i]
	if d == 0 {
		return
	}
	s.alpha[i] = a
	ki := s.column(i)
	for _, t := range s.active {
		s.g[t] += s.y[t] * d * float64(ki[s.pos[t]])
	}
}

// shrinkDCD drops bounded variables whose gradient points out of the box by
// more than the current largest violation (Hsieh et al. 2008, Sect. 3.2),
// after a one-time full gradient rebuild once the violation is within 10·Tol.
func (s *svm[T]) shrinkDCD() error {
	hi, lo := math.Inf(-1), math.Inf(1)
	for _, t := range s.active {
		v := s.pg(t)
		hi = max(hi, v)
		lo = min(lo, v)
	}
	hi, lo = max(hi, 0), min(lo, 0)
	if err := s.unshrinkOnce(hi - lo); err != nil {
		return err
	}
	s.filter(func(t int) bool {
		switch {
		case s.atLower(t):
			return s.g[t] > hi
		case s.atUpper(t):
			return s.g[t] < lo
		}
		return false
	})
	return nil
}

// stepDCD2 updates the pair (i, j): i has the largest |PG|, j maximizes the
// decrease of the unconstrained two-variable step, (Q_jj g_i² − 2Q_ij g_i g_j
// + Q_ii g_j²) / (2(Q_ii Q_jj − Q_ij²)), over the active variables that can
// move (Steinwart, Hush & Scovel, "Training SVMs without offset", JMLR 12
// (2011), Sect. 3, second-order selection). The pair's box-constrained
// subproblem is then solved exactly (solveBox2). One-coordinate descent
// zig-zags along the near-constant direction a Gaussian kernel matrix
// typically has; the pair step removes most of that.
func (s *svm[T]) stepDCD2(i int) {
	ki := s.column(i)
	qii := max(s.qd[i], tau)
	gi := s.g[i]
	yi := s.y[i]
	j, best := -1, 0.0
	for _, t := range s.active {
		if t == i {
			continue
		}
		gt := s.g[t]
		// Variables at a bound whose gradient pushes them out cannot move alone;
		// they still can with i, but the unconstrained gain overstates it.
		if (s.atLower(t) && gt > 0) || (s.atUpper(t) && gt < 0) {
			continue
		}
		qit := yi * s.y[t] * float64(ki[s.pos[t]])
		qtt := s.qd[t]
		det := qii*qtt - qit*qit
		if det <= tau {
			continue
		}
		if gain := (qtt*gi*gi - 2*qit*gi*gt + qii*gt*gt) / det; gain > best {
			best, j = gain, t
		}
	}
	if j < 0 {
		s.stepDCD(i)
		return
	}
	kj := s.column(j)
	ki = s.column(i) // still cached: capacity ≥ 2
	qij := yi * s.y[j] * float64(ki[s.pos[j]])
	ai, aj := solveBox2(qii, max(s.qd[j], tau), qij, gi, s.g[j], s.alpha[i], s.alpha[j], s.c[i], s.c[j])
	di := (ai - s.alpha[i]) * yi
	dj := (aj - s.alpha[j]) * s.y[j]
	if di == 0 && dj == 0 {
		return
	}
	s.alpha[i], s.alpha[j] = ai, aj
	for _, t := range s.active {
		p := s.pos[t]
		s.g[t] += s.y[t] * (di*float64(ki[p]) + dj*float64(kj[p]))
	}
}

// solveBox2 minimizes ½[d_i d_j]·[[q_ii q_ij] [q_ij q_jj]]·[d_i d_j]ᵀ + g_i d_i
// + g_j d_j subject to 0 ≤ a_i + d_i ≤ c_i, 0 ≤ a_j + d_j ≤ c_j and returns the
// new (a_i, a_j). The stationary point is taken when it is feasible; otherwise
// the minimum of the convex quadratic lies on the boundary of the box, and
// each of the four edges is minimized in closed form.
func solveBox2(qii, qjj, qij, gi, gj, ai, aj, ci, cj float64) (float64, float64) {
	f := func(di, dj float64) float64 {
		return 0.5*(qii*di*di+qjj*dj*dj) + qij*di*dj + gi*di + gj*dj
	}
	if det := qii*qjj - qij*qij; det > tau {
		di := (-gi*qjj + gj*qij) / det
		dj := (-gj*qii + gi*qij) / det
		if ni, nj := ai+di, aj+dj; ni >= 0 && ni <= ci && nj >= 0 && nj <= cj {
			return ni, nj
		}
	}
	bi, bj, bf := ai, aj, 0.0 // staying put is feasible and has f = 0
	for _, ni := range [2]float64{0, ci} {
		di := ni - ai
		nj := min(max(aj-(gj+qij*di)/qjj, 0), cj)
		if v := f(di, nj-aj); v < bf {
			bi, bj, bf = ni, nj, v
		}
	}
	for _, nj := range [2]float64{0, cj} {
		dj := nj - aj
		ni := min(max(ai-(gi+qij*dj)/qii, 0), ci)
		if v := f(ni-ai, dj); v < bf {
			bi, bj, bf = ni, nj, v
		}
	}
	return bi, bj
}
