package kernel

import (
	"math"
	"slices"
)

// SparseIndex computes kernel columns k(x_r, y) between the rows of a sparse
// X and one sparse point y at a time through a column-major copy of X's
// non-zeros (an inverted index: for each column that occurs in X, the rows
// that use it and their values). x_r·y is accumulated, for each non-zero y_j
// in increasing j, from the entries of X's column j only, so a column costs
// Σ_{j∈nz(y)} nnz(X_{:,j}) multiply-adds — the entries X shares with y —
// where SparseColumns' scatter and gather costs nnz(X) loads from a
// d-element buffer. On text-like data with Zipf-distributed columns (news20
// shape: d = 1,355,191, 80 non-zeros a row) that is several times fewer
// operations, and the accumulator (one float64 per row of the range) stays
// in cache where the gather's buffer (8d bytes) does not.
//
// The products are added for each row in increasing column order, the order
// of SparseColumns' gather minus its exact-zero terms, so the two give
// bit-identical columns. Memory is 12 bytes per non-zero plus 12 per
// distinct column and 8 per row (squared norms); nothing is of length d.
// It serves the Gaussian, linear and polynomial kernels (NewSparseIndex
// reports false for others).
type SparseIndex struct {
	k     Kernel
	x     Sparse
	n     int
	entry []int32   // compact column of each non-zero of X, in X's (row) order
	cols  []int32   // distinct columns of X, ascending
	ptr   []int     // column cols[c] holds entries ptr[c]…ptr[c+1]−1
	rows  []int32   // row of each entry, ascending within a column
	vals  []float64 // value of each entry
	norms []float64 // squared row norms (Gaussian), else nil
}

// NewSparseIndex builds the index of x for kernel k; ok is false (and the
// index nil) for kernels other than Gaussian, Linear, Polynomial and
// Sigmoid.
func NewSparseIndex(k Kernel, x Sparse) (ix *SparseIndex, ok bool) {
	switch k.(type) {
	case Gaussian, Linear, Polynomial, Sigmoid:
	default:
		return nil, false
	}
	n, _ := x.Dims()
	indptr, indices, values := x.CSR()
	nnz := indptr[n] - indptr[0]
	ix = &SparseIndex{k: k, x: x, n: n}
	// Distinct columns: sort a copy of the indices.
	cols := make([]int32, 0, nnz)
	cols = append(cols, indices[indptr[0]:indptr[n]]...)
	slices.Sort(cols)
	ix.cols = slices.Clone(slices.Compact(cols)) // frees the nnz-long copy
	// Counting sort of the entries by column (rows stay ascending).
	id := make([]int32, nnz) // compact column of each entry, in row order
	ix.entry = id
	ix.ptr = make([]int, len(ix.cols)+1)
	for p := range nnz {
		c, _ := slices.BinarySearch(ix.cols, indices[indptr[0]+p])
		id[p] = int32(c)
		ix.ptr[c+1]++
	}
	for c := range ix.cols {
		ix.ptr[c+1] += ix.ptr[c]
	}
	ix.rows, ix.vals = make([]int32, nnz), make([]float64, nnz)
	next := slices.Clone(ix.ptr[:len(ix.cols)])
	for r := range n {
		for p := indptr[r]; p < indptr[r+1]; p++ {
			c := id[p-indptr[0]]
			q := next[c]
			next[c]++
			ix.rows[q], ix.vals[q] = int32(r), values[p]
		}
	}
	if _, g := k.(Gaussian); g {
		ix.norms = make([]float64, n)
		for i := range ix.norms {
			var s float64
			for _, v := range values[indptr[i]:indptr[i+1]] {
				s += v * v
			}
			ix.norms[i] = s
		}
	}
	return ix, true
}

// SparseIndexBytes bounds what NewSparseIndex allocates for n rows with nnz
// non-zeros, c ≤ nnz of them distinct columns: 16 bytes an entry kept (row,
// value and the column id of each non-zero of X), 4 for the construction's
// sorted copy of the indices, 20 a distinct column (the column, its pointer
// and the construction's fill pointer) and 8 a row (squared norms), at most
// 40·nnz + 8n + 64 bytes.
func SparseIndexBytes(n, nnz int) int64 {
	return 40*int64(nnz) + 8*int64(n) + 64
}

// Column writes k(x_r, y) for the rows r in [r0, r0+len(dst)) of X into dst,
// for the point y with strictly increasing column indices yi and values yv
// (the same values as SparseColumns.Column).
func (ix *SparseIndex) Column(dst []float64, r0 int, yi []int32, yv []float64) {
	clear(dst)
	c := 0
	for p, j := range yi {
		// The columns of y ascend: search only past the previous one.
		k, found := slices.BinarySearch(ix.cols[c:], j)
		c += k
		if found {
			ix.add(dst, r0, c, yv[p])
		}
	}
	ix.finish(dst, r0, yv)
}

// RowColumn is Column for y = x_i, row i of X itself (the SVM's kernel
// columns), without searching for its columns.
func (ix *SparseIndex) RowColumn(dst []float64, r0, i int) {
	indptr, _, values := ix.x.CSR()
	clear(dst)
	for p := indptr[i]; p < indptr[i+1]; p++ {
		ix.add(dst, r0, int(ix.entry[p-indptr[0]]), values[p])
	}
	ix.finish(dst, r0, values[indptr[i]:indptr[i+1]])
}

// add accumulates v·X[r, cols[c]] into dst[r−r0] for the rows of dst.
func (ix *SparseIndex) add(dst []float64, r0, c int, v float64) {
	lo, hi := ix.ptr[c], ix.ptr[c+1]
	if r0 > 0 {
		k, _ := slices.BinarySearch(ix.rows[lo:hi], int32(r0))
		lo += k
	}
	r1 := r0 + len(dst)
	rows, vals := ix.rows[lo:hi], ix.vals[lo:hi]
	for q, r := range rows {
		if int(r) >= r1 {
			break
		}
		dst[int(r)-r0] += vals[q] * v
	}
}

// finish maps the dot products in dst to kernel values.
func (ix *SparseIndex) finish(dst []float64, r0 int, yv []float64) {
	switch kk := ix.k.(type) {
	case Gaussian:
		var yn float64
		for _, v := range yv {
			yn += v * v
		}
		g := -kk.Gamma
		for r, dot := range dst {
			d := ix.norms[r0+r] + yn - 2*dot
			dst[r] = expNeg(g * max(d, 0))
		}
	case Polynomial:
		for r, dot := range dst {
			dst[r] = ipow(kk.Gamma*dot+kk.Coef0, kk.Degree)
		}
	case Sigmoid:
		for r, dot := range dst {
			dst[r] = math.Tanh(kk.Gamma*dot + kk.Coef0)
		}
	}
}
