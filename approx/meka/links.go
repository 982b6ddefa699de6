package meka

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/mat"
)

// The link blocks of Algorithm 1 (lines 5–9) and the eigendecomposition of
// L (the MEKA-PSD fix of Section 7.1, Woodbury solves, features).

// fitLinks fits every off-diagonal link block by least squares on a sampled
// submatrix: L⁽ˢᵗ⁾ = W̄⁽ˢ⁾⁺ Ḡ⁽ˢᵗ⁾ (W̄⁽ᵗ⁾⁺)ᵀ, which equals
// (W̄ₛᵀW̄ₛ)⁻¹W̄ₛᵀḠW̄ₜ(W̄ₜᵀW̄ₜ)⁻¹ when the sampled rows have full column rank.
func (m *Map) fitLinks(ctx context.Context, x mat.Matrix, seeds []uint64) error {
	c := len(m.members)
	o := m.opt
	type pair struct{ s, t int }
	var pairs []pair
	var cent []float64
	if o.Epsilon > 0 {
		cent = make([]float64, c*c)
		cb := mat.NewDense(c, c, cent)
		m.kern.Block(cb, m.part.Centroids, m.part.Centroids)
	}
	for s := 0; s < c; s++ {
		for t := s + 1; t < c; t++ {
			if m.w[s] == nil || m.w[t] == nil {
				continue
			}
			if cent != nil && cent[s*c+t] <= o.Epsilon {
				m.stats.Thresholded++
				continue
			}
			pairs = append(pairs, pair{s, t})
		}
	}
	m.stats.Linked = len(pairs)
	// Each cluster draws its ⌈(1+ρ)k_s⌉ sample rows once and reuses them for
	// all its pairs: every pair (s, t) still sees uniformly sampled rows of
	// V_s and V_t, and the pseudo-inverse of W̄⁽ˢ⁾ is computed c times
	// instead of c(c−1).
	samples := make([]*mat.Dense, c) // the sampled rows of X
	pinvs := make([]*mat.Dense, c)
	err := parallel.For(ctx, c, o.Workers, func(_, s int) {
		if m.w[s] == nil {
			return
		}
		rng := rand.New(rand.NewPCG(seeds[s], 0x6c696e6b))
		loc := m.sampleRows(s, rng)
		pinvs[s] = pinvRows(m.w[s], loc) // k_s × |v_s|
		g := make([]int, len(loc))
		for i, j := range loc {
			g[i] = m.members[s][j]
		}
		samples[s] = points.Gather(x, g)
	})
	if err != nil {
		return err
	}
	var done int
	var mu sync.Mutex
	return parallel.For(ctx, len(pairs), o.Workers, func(_, p int) {
		s, t := pairs[p].s, pairs[p].t
		ps, pt := pinvs[s], pinvs[t]
		g := mat.NewDense(samples[s].RawMatrix().Rows, samples[t].RawMatrix().Rows, nil)
		m.kern.Block(g, samples[s], samples[t])
		var tmp, lst mat.Dense
		tmp.Mul(ps, g)
		lst.Mul(&tmp, pt.T())
		ks, kt := m.w[s].RawMatrix().Cols, m.w[t].RawMatrix().Cols
		for i := 0; i < ks; i++ {
			for j := 0; j < kt; j++ {
				m.l.SetSym(m.off[s]+i, m.off[t]+j, lst.At(i, j))
			}
		}
		mu.Lock()
		done++
		o.progress("link", done, len(pairs))
		mu.Unlock()
	})
}

// sampleRows draws ⌈(1+ρ)k_s⌉ positions within cluster s (all of them when
// the cluster is smaller), ascending.
//
// The sample starts with the cluster's Nyström landmarks Z_s (a random
// subset of them when there are more than the sample size) and is filled up
// with rows drawn uniformly from the rest. The basis rows at the landmarks,
// W⁽ˢ⁾[Z_s] = U Σ^(1/2) R⁻¹, have full column rank, so the least-squares fit
// of L⁽ˢᵗ⁾ is well posed; a purely uniform sample can miss the few rows on
// which a basis vector lives when γ is large (the kernel is then nearly
// diagonal and so are the Nyström basis vectors) and blow the fit up.
func (m *Map) sampleRows(s int, rng *rand.Rand) []int {
	ns := len(m.members[s])
	ks := m.w[s].RawMatrix().Cols
	q := min(ns, int(math.Ceil((1+m.opt.Rho)*float64(ks))))
	lm := m.lm[s]
	if q <= len(lm) {
		pick := points.Sample(len(lm), q, rng)
		out := make([]int, q)
		for i, j := range pick {
			out[i] = lm[j]
		}
		return out
	}
	isLM := make([]bool, ns)
	for _, p := range lm {
		isLM[p] = true
	}
	rest := make([]int, 0, ns-len(lm))
	for p := 0; p < ns; p++ {
		if !isLM[p] {
			rest = append(rest, p)
		}
	}
	out := slices.Clone(lm)
	for _, j := range points.Sample(len(rest), q-len(lm), rng) {
		out = append(out, rest[j])
	}
	slices.Sort(out)
	return out
}

// pinvRows returns the pseudo-inverse (k × |rows|) of the rows of w at the
// given positions, with singular values below pinvRelTol·σ_max dropped.
func pinvRows(w *mat.Dense, rows []int) *mat.Dense {
	wb := points.Gather(w, rows)
	q, k := wb.Dims()
	var svd mat.SVD
	out := mat.NewDense(k, q, nil)
	if !svd.Factorize(wb, mat.SVDThin) {
		return out // all zeros: the link block stays zero
	}
	sv := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	// pinv = V Σ⁺ Uᵀ.
	for j, sj := range sv {
		inv := 0.0
		if sj > pinvRelTol*sv[0] {
			inv = 1 / sj
		}
		for a := 0; a < k; a++ {
			v.Set(a, j, v.At(a, j)*inv)
		}
	}
	out.Mul(&v, u.T())
	return out
}

// eigen eigendecomposes L once (lazily) and applies the PSD fix when asked.
func (m *Map) eigen() error {
	m.eigOnce.Do(func() {
		t0 := time.Now()
		r := m.off[len(m.off)-1]
		var es mat.EigenSym
		if !es.Factorize(m.l, true) {
			m.eigErr = fmt.Errorf("approx: meka: eigendecomposition of the %d×%d link matrix failed", r, r)
			return
		}
		vals := es.Values(nil)
		vecs := new(mat.Dense)
		es.VectorsTo(vecs)
		neg := 0
		for _, v := range vals {
			if v < 0 {
				neg++
			}
		}
		m.statsMu.Lock()
		m.stats.MinEigenvalue, m.stats.NegativeEigenvalues = vals[0], neg
		m.statsMu.Unlock()
		if m.opt.PSD {
			for i, v := range vals {
				if v < 0 {
					vals[i] = 0
				}
			}
			// L ← V Λ₊ Vᵀ.
			vl := mat.DenseCopyOf(vecs)
			for j, v := range vals {
				col := v
				for i := 0; i < r; i++ {
					vl.Set(i, j, vl.At(i, j)*col)
				}
			}
			var lf mat.Dense
			lf.Mul(vl, vecs.T())
			for i := 0; i < r; i++ {
				for j := i; j < r; j++ {
					m.l.SetSym(i, j, 0.5*(lf.At(i, j)+lf.At(j, i)))
				}
			}
			m.statsMu.Lock()
			m.stats.PSDFixed = true
			m.statsMu.Unlock()
		}
		// Features V₊Λ₊^(1/2) of the PSD-fixed L, dropping eigenvalues that
		// contribute below round-off (≤ 1e-14·r·λ_max).
		top := vals[r-1]
		var keep []int
		for i := r - 1; i >= 0; i-- {
			if vals[i] > 0 && vals[i] > 1e-14*float64(r)*top {
				keep = append(keep, i)
			}
		}
		feat := mat.NewDense(r, max(len(keep), 1), nil)
		for j, i := range keep {
			sq := math.Sqrt(vals[i])
			for a := 0; a < r; a++ {
				feat.Set(a, j, vecs.At(a, i)*sq)
			}
		}
		if len(keep) == 0 {
			feat = mat.NewDense(r, 1, nil)
		}
		m.statsMu.Lock()
		m.vals, m.vecs, m.feat = vals, vecs, feat
		m.stats.Eigendecomposed = true
		m.stats.EigenTime = time.Since(t0)
		m.stats.Bytes = m.bytes()
		m.statsMu.Unlock()
		m.opt.progress("eigen", 1, 1)
	})
	return m.eigErr
}
