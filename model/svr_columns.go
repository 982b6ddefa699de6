package model

import (
	"context"

	"github.com/landmark-ml/landmark/solver"
)

// svrColumns serves the 2n×2n kernel matrix of the ε-SVR dual, whose
// variable t stands for sample t mod n (t < n: α_t, t ≥ n: α*_{t−n}), from
// the n×n columns of base: element (r, c) is K(x_{r mod n}, x_{c mod n}).
// A column costs one column of base, copied into both halves (LIBSVM's SVR_Q
// does the same). idx maps positions to samples of base: nil means the full
// problem (position t is sample t mod n, n = base.Len()); otherwise position
// r is sample idx[r] of base, which then holds only distinct samples.
//
// Column uses a scratch buffer and must not be called concurrently (the
// solvers call it from one goroutine).
type svrColumns struct {
	base    solver.Columns
	idx     []int // position → row of base; nil: t mod n
	len     int
	scratch []float64
}

var (
	_ solver.Columns    = (*svrColumns)(nil)
	_ solver.Subsetter  = (*svrColumns)(nil)
	_ solver.Multiplier = (*svrColumns)(nil)
)

// newSVRColumns returns the ε-SVR columns over the n samples of base (2n
// variables).
func newSVRColumns(base solver.Columns) *svrColumns {
	n := base.Len()
	return &svrColumns{base: base, len: 2 * n, scratch: make([]float64, n)}
}

// sample returns the row of base that position t stands for.
func (c *svrColumns) sample(t int) int {
	if c.idx == nil {
		return t % c.base.Len()
	}
	return c.idx[t]
}

// Len returns the number of variables.
func (c *svrColumns) Len() int { return c.len }

// Diag returns K(x_t, x_t) of the sample of variable t.
func (c *svrColumns) Diag(t int) float64 { return c.base.Diag(c.sample(t)) }

// Column writes K(x_{sample(r)}, x_{sample(i)}) for every position r.
func (c *svrColumns) Column(i int, dst []float64) {
	c.base.Column(c.sample(i), c.scratch)
	if c.idx == nil {
		n := len(c.scratch)
		copy(dst[:n], c.scratch)
		copy(dst[n:], c.scratch)
		return
	}
	for r, s := range c.idx {
		dst[r] = c.scratch[s]
	}
}

// Subset returns the columns of the variables idx: their distinct samples
// are taken from base once (base's Subset when it has one), so a sample
// whose α and α* are both active costs one kernel row, not two.
func (c *svrColumns) Subset(idx []int) solver.Columns {
	seen := map[int]int{} // sample of c.base → position in the new base
	var samples []int
	pos := make([]int, len(idx))
	for r, t := range idx {
		s := c.sample(t)
		p, ok := seen[s]
		if !ok {
			p = len(samples)
			seen[s] = p
			samples = append(samples, s)
		}
		pos[r] = p
	}
	sub, ok := c.base.(solver.Subsetter)
	if !ok {
		return &svrColumns{base: c.base, idx: remap(idx, c), len: len(idx), scratch: make([]float64, c.base.Len())}
	}
	b := sub.Subset(samples)
	return &svrColumns{base: b, idx: pos, len: len(idx), scratch: make([]float64, len(samples))}
}

// remap returns the samples of the positions idx.
func remap(idx []int, c *svrColumns) []int {
	out := make([]int, len(idx))
	for r, t := range idx {
		out[r] = c.sample(t)
	}
	return out
}

// MulVec sets dst[r] = Σ_c K(x_{sample(rows[r])}, x_{sample(cols[c])})·v[c]:
// the coefficients of α_t and α*_t (one sample) are summed first, and each
// distinct sample's row is computed once.
func (c *svrColumns) MulVec(ctx context.Context, rows, cols []int, v, dst []float64) error {
	colAt := map[int]int{}
	var cs []int
	var cv []float64
	for k, t := range cols {
		s := c.sample(t)
		p, ok := colAt[s]
		if !ok {
			p = len(cs)
			colAt[s] = p
			cs = append(cs, s)
			cv = append(cv, 0)
		}
		cv[p] += v[k]
	}
	rowAt := map[int]int{}
	var rs []int
	rpos := make([]int, len(rows))
	for r, t := range rows {
		s := c.sample(t)
		p, ok := rowAt[s]
		if !ok {
			p = len(rs)
			rowAt[s] = p
			rs = append(rs, s)
		}
		rpos[r] = p
	}
	out := make([]float64, len(rs))
	if m, ok := c.base.(solver.Multiplier); ok {
		if err := m.MulVec(ctx, rs, cs, cv, out); err != nil {
			return err
		}
	} else {
		col := make([]float64, c.base.Len())
		for k, s := range cs {
			if err := ctx.Err(); err != nil {
				return err
			}
			c.base.Column(s, col)
			for p, r := range rs {
				out[p] += cv[k] * col[r]
			}
		}
	}
	for r, p := range rpos {
		dst[r] = out[p]
	}
	return nil
}
