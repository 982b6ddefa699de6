package meka

import (
	"math"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// The memory plan of Fit: what MEKA holds and the scratch of its stages,
// estimated before anything is allocated.

// plannedBytes estimates the memory Fit will hold, before allocating it.
func (m *Map) plannedBytes(x mat.Matrix) int64 {
	k := int64(m.opt.Rank)
	lm := int64(m.opt.Landmarks)
	if lm == 0 {
		lm = 2 * k
	}
	d := int64(m.d)
	// Held: heldBytes. Transient, per
	// worker: one cluster's rows (a dense copy, or CSR rows for sparse x),
	// its K(X_s, Z_s), the basis B and its copy.
	var big, rows int64
	xs, sparse := x.(kernel.Sparse)
	for _, mem := range m.members {
		big = max(big, int64(len(mem)))
		if !sparse {
			rows = max(rows, 8*int64(len(mem))*d)
			continue
		}
		indptr, _, _ := xs.CSR()
		var nnz int64
		for _, i := range mem {
			nnz += int64(indptr[i+1] - indptr[i])
		}
		rows = max(rows, 8*int64(len(mem)+1)+12*nnz)
	}
	w := int64(min(parallel.Workers(m.opt.Workers), len(m.members)))
	// The links' sample rows, ⌈(1+ρ)k⌉ of each cluster, are held as dense
	// rows (d each) all at once (fitLinks).
	var links int64
	q := int64(math.Ceil((1 + m.opt.Rho) * float64(k)))
	for _, mem := range m.members {
		links += min(int64(len(mem)), q)
	}
	plan := m.heldBytes(len(m.members)) + 8*w*big*(lm+2*k) + w*rows + 8*links*d
	if m.opt.BasisSolver != nil {
		// The problems hold a copy of X at once.
		plan += dataBytes(x)
	}
	return plan
}

// upperBytes bounds plannedBytes before clustering: c clusters, each as
// large as the data (n rows, all of x's non-zeros).
func (m *Map) upperBytes(x mat.Matrix, c int) int64 {
	k := int64(m.opt.Rank)
	lm := int64(m.opt.Landmarks)
	if lm == 0 {
		lm = 2 * k
	}
	n, d := int64(m.n), int64(m.d)
	w := int64(min(parallel.Workers(m.opt.Workers), c))
	q := min(n, int64(math.Ceil((1+m.opt.Rho)*float64(k))))
	return m.heldBytes(c) + 8*w*n*(lm+2*k) + w*dataBytes(x) + 8*int64(c)*q*d
}

// heldBytes is what a fit with c clusters holds whatever their sizes: W
// (n×k), L ((ck)²), the landmarks and their projections (c·lm×(d+k)), the
// partition's centroids (c×d, dense) and the bookkeeping (2n).
func (m *Map) heldBytes(clusters int) int64 {
	c, k := int64(clusters), int64(m.opt.Rank)
	lm := int64(m.opt.Landmarks)
	if lm == 0 {
		lm = 2 * k
	}
	n, d := int64(m.n), int64(m.d)
	return 8 * (n*k + c*k*c*k + c*lm*(d+k) + c*d + 2*n)
}

// dataBytes is the size of a copy of x: 8nd bytes dense, its CSR arrays
// (8 per row pointer, 12 per non-zero) sparse.
func dataBytes(x mat.Matrix) int64 {
	if xs, ok := x.(kernel.Sparse); ok {
		indptr, _, values := xs.CSR()
		return 8*int64(len(indptr)) + 12*int64(len(values))
	}
	n, d := x.Dims()
	return 8 * int64(n) * int64(d)
}

// bytes is the memory held by the fitted approximation.
func (m *Map) bytes() int64 {
	var f int64
	for s := range m.members {
		if m.w[s] != nil {
			r, c := m.w[s].Dims()
			f += int64(r * c)
			r, c = m.z[s].Dims()
			f += int64(r * c)
			r, c = m.proj[s].Dims()
			f += int64(r * c)
		}
	}
	r := int64(m.off[len(m.off)-1])
	f += r * r
	cr, cc := m.part.Centroids.Dims()
	f += int64(cr * cc)
	f += 3 * int64(m.n) // labels, positions and member lists (one int each)
	if m.vecs != nil {
		f += r*r + r
	}
	if m.feat != nil {
		a, b := m.feat.Dims()
		f += int64(a * b)
	}
	return 8 * f
}
