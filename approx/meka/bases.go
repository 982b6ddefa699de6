package meka

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// The per-cluster Nyström bases of Algorithm 1 (lines 2–4) and the rank
// strategies of Section 5.2.

// basisFactor holds what stage 2 computes for one cluster.
type basisFactor struct {
	idx   []int      // landmark rows (global)
	loc   []int      // landmark positions within the cluster
	vals  []float64  // eigenvalues of K(Z,Z), descending
	vecs  *mat.Dense // matching eigenvectors (m × m)
	nrank int        // numerical rank of K(Z,Z)
}

// fitBases computes W⁽ˢ⁾ for every cluster (Algorithm 1 lines 2–4): Nyström
// on the diagonal block with m_s sampled columns, B = K(X_s, Z_s)·U_k·Σ_k^(−1/2)
// (so G⁽ˢˢ⁾ ≈ BBᵀ), then B = QR, W⁽ˢ⁾ = Q and L⁽ˢˢ⁾ = RRᵀ. Each cluster is a
// BasisProblem solved by SolveBasis, here in parallel or by
// BasisSolver. RankEigen needs the landmark eigenvalues of every cluster
// before any rank is known: they are computed here first (phase A), the
// ranks chosen, and each basis (phase B) is then built from its cluster's
// factor — or, by a BasisSolver, from the same landmarks and factor
// recomputed by SolveBasis from the same seed.
func (m *Map) fitBases(ctx context.Context, x mat.Matrix, seeds []uint64) error {
	c := len(m.members)
	o := m.opt
	target := m.targetRanks()
	land := make([]int, c) // m_s
	for s, mem := range m.members {
		ms := o.Landmarks
		if ms == 0 {
			ms = 2 * target[s]
		}
		land[s] = min(max(ms, 1), len(mem))
	}
	want := target // the rank asked of each cluster's problem
	var fac []basisFactor
	if o.Strategy == RankEigen {
		// Phase A: landmarks and their eigendecomposition.
		fac = make([]basisFactor, c)
		err := parallel.For(ctx, c, o.Workers, func(_, s int) {
			mem := m.members[s]
			if len(mem) == 0 {
				return
			}
			loc := landmarkPositions(len(mem), land[s], seeds[s])
			idx := make([]int, len(loc))
			for i, j := range loc {
				idx[i] = mem[j]
			}
			fac[s] = factorLandmarks(m.kern, points.Gather(x, idx))
			fac[s].idx, fac[s].loc = idx, loc
		})
		if err != nil {
			return err
		}
		want = m.chooseRanks(target, fac)
	}
	res := make([]Basis, c)
	if o.BasisSolver != nil {
		var probs []BasisProblem
		for s, mem := range m.members {
			if len(mem) > 0 {
				probs = append(probs, m.basisProblem(x, s, land[s], seeds[s], want[s]))
			}
		}
		out, err := o.BasisSolver(ctx, m.kern, probs)
		if err != nil {
			return fmt.Errorf("approx: meka: basis problems: %w", err)
		}
		if len(out) != len(probs) {
			return fmt.Errorf("approx: meka: basis solver returned %d results for %d problems", len(out), len(probs))
		}
		for i := range probs {
			s, exact := probs[i].Cluster, -1
			if fac != nil {
				exact = want[s]
			}
			if err := checkBasis(&probs[i], &out[i], exact); err != nil {
				return fmt.Errorf("approx: meka: basis of cluster %d: %w", s, err)
			}
			res[s] = out[i]
		}
		o.progress("basis", c, c)
	} else {
		var done int
		var mu sync.Mutex
		err := parallel.ForErr(ctx, c, o.Workers, func(_, s int) error {
			if len(m.members[s]) == 0 {
				return nil
			}
			var err error
			if fac != nil {
				// Phase B from the factor of phase A.
				res[s] = basisFromFactor(m.kern, m.clusterRows(x, s), fac[s], want[s])
			} else {
				res[s], err = SolveBasis(ctx, m.kern, m.basisProblem(x, s, land[s], seeds[s], want[s]))
			}
			if res[s].Rank > 0 {
				mu.Lock()
				done++
				o.progress("basis", done, c)
				mu.Unlock()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
	}
	return m.setBases(x, target, res)
}

// setBases installs the cluster bases: W⁽ˢ⁾, P_s, the landmarks Z_s (rows
// of x) and the diagonal blocks L⁽ˢˢ⁾ of a new L.
func (m *Map) setBases(x mat.Matrix, target []int, res []Basis) error {
	c := len(m.members)
	ranks := make([]int, c)
	m.z = make([]*mat.Dense, c)
	m.proj = make([]*mat.Dense, c)
	m.w = make([]*mat.Dense, c)
	m.lm = make([][]int, c)
	m.off = make([]int, c+1)
	for s := range res {
		ranks[s] = res[s].Rank
		m.lm[s] = res[s].Landmarks
		m.off[s+1] = m.off[s] + ranks[s]
	}
	r := m.off[c]
	m.l = mat.NewSymDense(max(r, 1), nil)
	if r == 0 {
		return fmt.Errorf("approx: meka: %w: every cluster has numerical rank 0 under %s", check.ErrInput, m.kern)
	}
	for s, b := range res {
		ks := b.Rank
		if ks == 0 {
			continue
		}
		mem := m.members[s]
		idx := make([]int, len(b.Landmarks))
		for i, j := range b.Landmarks {
			idx[i] = mem[j]
		}
		m.z[s] = points.Gather(x, idx)
		m.proj[s] = mat.NewDense(len(idx), ks, b.P)
		m.w[s] = mat.NewDense(len(mem), ks, b.W)
		for i := 0; i < ks; i++ {
			for j := i; j < ks; j++ {
				m.l.SetSym(m.off[s]+i, m.off[s]+j, b.L[i*ks+j])
			}
		}
	}
	m.stats.Sizes = make([]int, c)
	m.stats.Ranks = ranks
	for s := range m.members {
		m.stats.Sizes[s] = len(m.members[s])
		m.stats.RankDeficit += max(0, target[s]-ranks[s])
	}
	if m.opt.Strategy == RankEigen {
		m.stats.RankDeficit = max(0, c*m.opt.Rank-r)
	}
	return nil
}

// targetRanks returns the ranks the strategy aims at before numerical caps
// (for RankEigen: the landmark budget basis, k per cluster).
func (m *Map) targetRanks() []int {
	c := len(m.members)
	k := m.opt.Rank
	t := make([]int, c)
	switch m.opt.Strategy {
	case RankProportional:
		budget := c * k
		type rem struct {
			s    int
			frac float64
		}
		var rems []rem
		total := 0
		for s, mem := range m.members {
			if len(mem) == 0 {
				continue
			}
			exact := float64(budget) * float64(len(mem)) / float64(m.n)
			t[s] = max(1, int(exact))
			total += t[s]
			rems = append(rems, rem{s, exact - math.Floor(exact)})
		}
		sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
		for i := 0; total < budget && len(rems) > 0; i = (i + 1) % len(rems) {
			t[rems[i].s]++
			total++
		}
	default:
		for s := range t {
			if len(m.members[s]) > 0 {
				t[s] = k
			}
		}
	}
	for s := range t {
		t[s] = min(t[s], len(m.members[s]))
	}
	return t
}

// chooseRanks turns targets into the final ranks k_s, capped by m_s and the
// numerical rank of each landmark block; RankEigen picks the c·k largest
// scaled eigenvalues (n_s/m_s)·σ_i across clusters.
func (m *Map) chooseRanks(target []int, fac []basisFactor) []int {
	c := len(m.members)
	ranks := make([]int, c)
	if m.opt.Strategy != RankEigen {
		for s := range ranks {
			ranks[s] = min(target[s], fac[s].nrank)
		}
		return ranks
	}
	type cand struct {
		v    float64
		s, i int
	}
	var all []cand
	for s, f := range fac {
		sc := float64(len(m.members[s])) / float64(max(len(f.idx), 1))
		for i := 0; i < f.nrank; i++ {
			all = append(all, cand{sc * f.vals[i], s, i})
		}
	}
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].v != all[b].v {
			return all[a].v > all[b].v
		}
		if all[a].s != all[b].s {
			return all[a].s < all[b].s
		}
		return all[a].i < all[b].i
	})
	budget := min(c*m.opt.Rank, len(all))
	// Eigenvalues within a cluster are sorted, so counting per cluster picks
	// each cluster's leading ones.
	for _, a := range all[:budget] {
		ranks[a.s]++
	}
	return ranks
}
