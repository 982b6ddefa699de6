package kernel

import (
	"fmt"
	"math"
	"slices"
)

// This file is the engine's path for sparse centers C (CSR rows, M×d), with
// X sparse or dense. Op keeps its structure — row blocks on all workers,
// per-worker scratch, the fixed-order reductions, the vectorized maps from
// dot products to kernel values — and only the step that forms the dot
// products x·c_j of a block changes. Nothing of size M·d and nothing of
// size d per row is allocated:
//
//   - X sparse: C is stored by column (CSC) restricted to the features C
//     uses, renumbered to a compact range 0..u−1 (u ≤ nnz(C)); a feature id
//     of X is mapped to its slot by a table of length d when d is small
//     next to nnz(C) (at most 4 bytes a feature, see centerLookupDense) and
//     by a hash map otherwise, so d may be anything up to 2³¹−1. Each
//     non-zero x_k of a row adds x_k·c_j[k] to the row's dot products for
//     the centers j that have feature k (the entries of C's column k): a row
//     costs Σ_{k∈nz(x)} nnz(C[:,k]) multiply-adds. The slot of every
//     non-zero of X is looked up once per Op (4 bytes a non-zero of X), so
//     the repeated passes of an iterative solver do no lookups (on the
//     news20-shaped Falkon fit, lookups on every pass took 18% of the CPU
//     time); so is the entry range of its column (8 bytes a non-zero of X),
//     which spares the pass two random reads of the column pointers. The
//     heavy columns — at least M/heavyShare entries, the frequent words of
//     a Zipf-distributed text set — are also held dense (zero-padded rows
//     of length mp, capped at the bytes of the column copy's entries), and
//     a non-zero x_k in one of them adds x_k·C[k, :] with one SIMD axpy
//     instead of the scatter. Each dot product is summed over x's non-zeros
//     in column order, the order of SparseDot's merge, fixed whatever the
//     scheduling; the dense rows keep the scatter's bits (buildHeavy).
//   - X dense: each center's dot product gathers x at the center's own
//     non-zeros, in column order (nnz(C) multiply-adds a row).
//
// The kernel values then come from the same code as the dense path
// (‖x‖² + ‖c‖² − 2x·c with both norms from the full rows, the vectorized
// exp for the Gaussian; fromDots for the polynomial, sigmoid and linear
// kernels).
// The Laplacian kernel uses
//
//	‖x − c‖₁ = Σ|x_k| + Σ|c_k| + Σ_{k∈nz(x)∩nz(c)} (|x_k − c_k| − |x_k| − |c_k|),
//
// the two full sums computed once per row and per center. Options.Float32
// does not apply to sparse centers (products run in float64).

// SparseCenterForm reports whether NewOp keeps sparse centers sparse for k:
// true for the Gaussian, Laplacian, polynomial, sigmoid and linear kernels;
// any other kernel gets a dense copy of C.
func SparseCenterForm(k Kernel) bool {
	switch k.(type) {
	case Gaussian, Laplacian, Polynomial, Sigmoid, Linear:
		return true
	}
	return false
}

// centerLookupDense bounds the feature-to-slot table: it has length d, and
// is used only when 4d bytes are at most 16 bytes per non-zero of C plus
// 256 KiB (so the table costs no more than the CSC copy it indexes, about
// 12 bytes a non-zero); otherwise a hash map of the u features C uses.
func centerLookupDense(d, nnz int) bool {
	return int64(d) <= 4*int64(nnz)+1<<16
}

// centerPlan is the part of a plan for sparse centers.
type centerPlan struct {
	// C's CSR arrays (the caller's, not copied).
	cp   []int
	ci   []int32
	cv   []float64
	slot []int32         // feature → slot table (length d), or nil
	smap map[int32]int32 // feature → slot map when slot is nil
	// C by column over its u used features (X sparse only).
	xslot  []int32   // slot of each non-zero of X (−1: no center has it), from X's first
	colptr []int     // u+1
	rows   []int32   // center of each entry
	vals   []float64 // value of each entry
	l1     []float64 // Laplacian: Σ_k |c_j[k]| per center, length mp
	// Heavy columns (dot-product kernels on sparse X with SIMD kernels
	// only): heavy holds them dense, 8·mp bytes each, zero-padded; hslot[h]
	// is the slot of heavy row h. xslot holds −2−h for a non-zero of X in
	// heavy column h, so the pass finds it without a lookup.
	hslot []int32
	heavy []float64
	// xoff holds, for each non-zero of X in a light column, its column's
	// entry range start<<32 | end (0 for the others), so that the pass
	// reads it in order instead of two colptr entries at random (when C
	// uses more than rangesFrom features and nnz(C) < 2³²; nil otherwise).
	xoff []uint64
}

// checkCSR checks the CSR arrays of a sparse C: consistent lengths and
// column indices strictly ascending within a row and below the declared
// dimension, so that the engine never indexes out of range.
func checkCSR(what string, s Sparse) error {
	n, d := s.Dims()
	indptr, indices, values := s.CSR()
	if len(indptr) != n+1 || indptr[0] != 0 || indptr[n] != len(indices) || len(indices) != len(values) {
		return fmt.Errorf("%w: %s: sparse arrays inconsistent (rows %d, indptr %d, indices %d, values %d)",
			ErrParam, what, n, len(indptr), len(indices), len(values))
	}
	for i := 0; i < n; i++ {
		if indptr[i+1] < indptr[i] {
			return fmt.Errorf("%w: %s: row pointers decrease at row %d", ErrParam, what, i)
		}
		prev := int32(-1)
		for q := indptr[i]; q < indptr[i+1]; q++ {
			if j := indices[q]; j <= prev || int(j) >= d {
				return fmt.Errorf("%w: %s row %d: column %d after %d (columns must ascend, below %d)", ErrParam, what, i, j, prev, d)
			}
			prev = indices[q]
		}
	}
	return nil
}

// initCenters is prepare for sparse centers.
func (p *plan) initCenters(o *Op) {
	if o.sx != nil {
		indptr, indices, values := o.sx.CSR()
		p.sp = &sparsePlan{indptr: indptr, indices: indices, values: values}
	} else {
		p.x = o.x.RawMatrix()
	}
	p.n, p.m = o.Dims()
	p.d = o.dim()
	p.mp = roundUp(p.m, panelCols)
	sc := &centerPlan{}
	sc.cp, sc.ci, sc.cv = o.sc.CSR()
	p.sc = sc
	if dk, ok := o.k.(dotForm); ok {
		if p.setDotForm(o, dk, nil) {
			for j := 0; j < p.m; j++ {
				var s float64
				for _, v := range sc.cv[sc.cp[j]:sc.cp[j+1]] {
					s += v * v
				}
				p.cn[j] = s
			}
		}
	} else {
		sc.l1 = make([]float64, p.mp)
		for j := 0; j < p.m; j++ {
			var s float64
			for _, v := range sc.cv[sc.cp[j]:sc.cp[j+1]] {
				s += math.Abs(v)
			}
			sc.l1[j] = s
		}
	}
	if p.sp != nil {
		sc.buildColumns(p.m, p.d)
		sp := p.sp
		q0 := sp.indptr[0]
		sc.xslot = make([]int32, sp.indptr[p.n]-q0)
		for q := range sc.xslot {
			sc.xslot[q] = int32(sc.slotOf(sp.indices[q0+q]))
		}
		if p.dk != nil && useAccel != accelPortable {
			sc.buildHeavy(p.m, p.mp)
		}
		if len(sc.colptr) > rangesMin && int64(len(sc.rows)) < math.MaxUint32 {
			sc.xoff = make([]uint64, len(sc.xslot))
			for q, s := range sc.xslot {
				if s >= 0 {
					sc.xoff[q] = uint64(sc.colptr[s])<<32 | uint64(sc.colptr[s+1])
				}
			}
		}
	}
}

// buildColumns stores C by column over the features it uses: slots are
// numbered in increasing feature order, and within a slot the entries are
// in increasing center order.
func (sc *centerPlan) buildColumns(m, d int) {
	nnz := len(sc.ci)
	var count []int // entries per slot
	if centerLookupDense(d, nnz) {
		sc.slot = make([]int32, d)
		for k := range sc.slot {
			sc.slot[k] = -1
		}
		for _, k := range sc.ci {
			sc.slot[k] = 0
		}
		u := int32(0)
		for k, s := range sc.slot {
			if s == 0 {
				sc.slot[k] = u
				u++
			}
		}
		count = make([]int, u+1)
		for _, k := range sc.ci {
			count[sc.slot[k]+1]++
		}
	} else {
		// The distinct features in increasing order, by a counting pass
		// through a map; the map is only looked up, never iterated.
		seen := make(map[int32]int32, nnz)
		for _, k := range sc.ci {
			seen[k]++
		}
		feats := make([]int32, 0, len(seen))
		for _, k := range sc.ci {
			if seen[k] > 0 {
				feats = append(feats, k)
				seen[k] = -seen[k] // mark taken, keep the count
			}
		}
		slices.Sort(feats)
		count = make([]int, len(feats)+1)
		sc.smap = make(map[int32]int32, len(feats))
		for s, k := range feats {
			sc.smap[k] = int32(s)
			count[s+1] = int(-seen[k])
		}
	}
	sc.colptr = count
	for s := 1; s < len(count); s++ {
		sc.colptr[s] += sc.colptr[s-1]
	}
	sc.rows = make([]int32, nnz)
	sc.vals = make([]float64, nnz)
	next := make([]int, len(sc.colptr))
	copy(next, sc.colptr)
	for j := 0; j < m; j++ {
		for q := sc.cp[j]; q < sc.cp[j+1]; q++ {
			s := sc.slotOf(sc.ci[q])
			sc.rows[next[s]] = int32(j)
			sc.vals[next[s]] = sc.cv[q]
			next[s]++
		}
	}
}

// rangesFrom is the number of used features of C above which the pass
// reads precomputed entry ranges (xoff) rather than the column pointers:
// 2¹⁵ features are 256 KiB of pointers, about what stays in a core's L2;
// below it the pointers are cache-resident and the ranges would only add
// 8 bytes of traffic a non-zero (BenchmarkSparseCenters, d = 784: no gain).
const rangesFrom = 1 << 15

// rangesMin is the bound in use: rangesFrom, changed only by tests.
var rangesMin = rangesFrom

// heavyShare sets which columns of C are held dense: those with at least
// M/heavyShare entries. Text columns are Zipf-distributed: on manpages
// (M = 2,000 centers, 510,309 non-zeros over 128,861 features) the 78
// columns with ≥ 500 entries hold 15% of C's entries but 72% of the
// multiply-adds of the scatter (a column's work is its entries times the
// rows of X that have the feature), and cost 1.25 MB dense.
// BenchmarkSparseCentersManpages and BenchmarkSparseCentersHeavy
// (docs/performance.md, "Kernel engine") chose the value: 4 and 8 beat 16 and 32 on both, 4
// was the faster on the real set.
const heavyShare = 4

// heavyDiv is the divisor in use: heavyShare, changed only by tests and
// benchmarks (0 keeps every column sparse).
var heavyDiv = heavyShare

// heavyBytes bounds the dense copy of the heavy columns of a C with nnz
// non-zeros: the bytes of its column copy's entries (12 a non-zero), and
// at most heavyMaxBytes. A dense column of M/heavyShare entries costs
// 8·mp/(12·M/heavyShare) ≈ 2.7 times its CSC entries, so the cap binds
// only when the heavy columns hold more than about a third of C.
func heavyBytes(nnz int64) int64 { return min(12*nnz, heavyMaxBytes) }

// heavyMaxBytes is the fixed cap of the dense heavy columns.
const heavyMaxBytes = 256 << 20

// buildHeavy picks the heavy columns — at least m/heavyShare entries, the
// longest first, as many as heavyBytes allows — and stores them dense.
// Each dot product still sums over X's non-zeros in column order: a dense
// column adds x_k·0 = ±0 for the centers without feature k, which leaves
// every partial sum unchanged (a sum that starts at +0 is never −0), and
// axpyRound rounds each product before the add, as the scatter does; so
// the dot products keep their bits. Non-finite x_k take the scatter
// (x_k·0 would be NaN).
func (sc *centerPlan) buildHeavy(m, mp int) {
	u := len(sc.colptr) - 1
	if u <= 0 || m == 0 || heavyDiv <= 0 {
		return
	}
	var cand []int32
	for s := 0; s < u; s++ {
		if (sc.colptr[s+1]-sc.colptr[s])*heavyDiv >= m {
			cand = append(cand, int32(s))
		}
	}
	if len(cand) == 0 {
		return
	}
	slices.SortStableFunc(cand, func(a, b int32) int {
		return (sc.colptr[b+1] - sc.colptr[b]) - (sc.colptr[a+1] - sc.colptr[a])
	})
	nh := min(len(cand), int(heavyBytes(int64(len(sc.rows)))/(8*int64(mp))))
	if nh == 0 {
		return
	}
	sc.hslot = cand[:nh:nh]
	hrow := make([]int32, u)
	for s := range hrow {
		hrow[s] = -1
	}
	sc.heavy = make([]float64, nh*mp)
	for h, s := range sc.hslot {
		hrow[s] = int32(h)
		row := sc.heavy[h*mp : (h+1)*mp]
		for e := sc.colptr[s]; e < sc.colptr[s+1]; e++ {
			row[sc.rows[e]] = sc.vals[e]
		}
	}
	for q, s := range sc.xslot {
		if s >= 0 && hrow[s] >= 0 {
			sc.xslot[q] = -2 - hrow[s]
		}
	}
}

// slotOf returns the slot of feature k, or −1 when no center has it.
func (sc *centerPlan) slotOf(k int32) int {
	if sc.slot != nil {
		return int(sc.slot[k])
	}
	if s, ok := sc.smap[k]; ok {
		return int(s)
	}
	return -1
}

// centerDots writes x_i·c_j into w.blk (stride mp, the padding getting
// zeros) for the rows of X[r0:r1] against sparse centers.
func (p *plan) centerDots(w *work, r0, r1 int) {
	sc, mp := p.sc, p.mp
	if sp := p.sp; sp != nil {
		q0 := sp.indptr[0]
		for i := r0; i < r1; i++ {
			out := w.blk[(i-r0)*mp : (i-r0+1)*mp]
			clear(out)
			for q := sp.indptr[i]; q < sp.indptr[i+1]; q++ {
				s := sc.xslot[q-q0]
				v := sp.values[q]
				if s < 0 {
					if s == -1 {
						continue
					}
					h := int(-2 - s)
					if v-v == 0 { // finite
						ck := sc.heavy[h*mp : (h+1)*mp]
						switch w.acc {
						case accelAVX512:
							axpyRoundAVX512(mp, v, &ck[0], &out[0])
						case accelAVX2:
							axpyRoundAVX2(mp, v, &ck[0], &out[0])
						default:
							axpy(v, ck, out)
						}
						continue
					}
					s = sc.hslot[h]
				}
				var a, b int
				if sc.xoff != nil && s == sc.xslot[q-q0] {
					o := sc.xoff[q-q0]
					a, b = int(o>>32), int(uint32(o))
				} else {
					a, b = sc.colptr[s], sc.colptr[s+1]
				}
				rows, vals := sc.rows[a:b], sc.vals[a:b]
				for e, j := range rows {
					out[j] += v * vals[e]
				}
			}
		}
		return
	}
	for i := r0; i < r1; i++ {
		out := w.blk[(i-r0)*mp : (i-r0+1)*mp]
		x := p.x.Data[i*p.x.Stride : i*p.x.Stride+p.d]
		for j := 0; j < p.m; j++ {
			var s float64
			for q := sc.cp[j]; q < sc.cp[j+1]; q++ {
				s += sc.cv[q] * x[sc.ci[q]]
			}
			out[j] = s
		}
		clear(out[p.m:])
	}
}

// centersLaplacian forms the Laplacian K(X[r0:r1], C) in w.blk for sparse
// centers from Σ|x| + Σ|c| + Σ over the common features of
// |x_k − c_k| − |x_k| − |c_k|.
func (p *plan) centersLaplacian(w *work, r0, r1 int) {
	sc, m, mp := p.sc, p.m, p.mp
	if r1 <= r0 || m == 0 {
		return
	}
	ng := -p.k.(Laplacian).Gamma
	for i := r0; i < r1; i++ {
		out := w.blk[(i-r0)*mp : (i-r0)*mp+m]
		var l1x float64
		if sp := p.sp; sp != nil {
			for _, v := range sp.values[sp.indptr[i]:sp.indptr[i+1]] {
				l1x += math.Abs(v)
			}
			for j := range out {
				out[j] = l1x + sc.l1[j]
			}
			for q := sp.indptr[i]; q < sp.indptr[i+1]; q++ {
				s := sc.xslot[q-sp.indptr[0]]
				if s < 0 {
					continue
				}
				v := sp.values[q]
				av := math.Abs(v)
				a, b := sc.colptr[s], sc.colptr[s+1]
				if sc.xoff != nil {
					o := sc.xoff[q-sp.indptr[0]]
					a, b = int(o>>32), int(uint32(o))
				}
				rows, vals := sc.rows[a:b], sc.vals[a:b]
				for e, j := range rows {
					c := vals[e]
					out[j] += math.Abs(v-c) - av - math.Abs(c)
				}
			}
		} else {
			x := p.x.Data[i*p.x.Stride : i*p.x.Stride+p.d]
			for _, v := range x {
				l1x += math.Abs(v)
			}
			for j := range out {
				s := l1x + sc.l1[j]
				for q := sc.cp[j]; q < sc.cp[j+1]; q++ {
					v, c := x[sc.ci[q]], sc.cv[q]
					s += math.Abs(v-c) - math.Abs(v) - math.Abs(c)
				}
				out[j] = s
			}
		}
		for j, s := range out {
			out[j] = expNeg(ng * math.Max(s, 0))
		}
	}
}

// centersScratchBytes is ScratchBytes for sparse centers: per worker one
// block of K and its products' packing buffers, the reductions' partial
// sums, the norms, and the column copy of C with its feature lookup (X
// sparse). The CSR arrays of X and C belong to the caller and are not
// counted.
func (o *Op) centersScratchBytes(t int) int64 {
	n, m := o.Dims()
	b := o.BlockRows()
	mp := int64(roundUp(m, panelCols))
	w := o.scratchWorkers()
	seg := int64(segments((n+b-1)/b, int(mp)*t))
	total := 8*(seg*mp*int64(t)+mp+int64(n)) + w*(o.workBytes(t)+blockPackBytes(b, m, t)) + callBytes
	if o.sx != nil {
		indptr, _, _ := o.sx.CSR()
		total += CenterColumnBytes(o.sc) + 12*int64(indptr[n]-indptr[0]) // column copy, slots and ranges of X's non-zeros
	}
	return total
}

// CenterColumnBytes is the memory an Op on sparse X keeps for sparse
// centers c besides c's own arrays: the column copy (12 bytes a non-zero,
// 8 a used feature), the feature lookup (a 4-byte table of length d, or
// a hash map costed at 24 bytes a used feature, counted as if every
// non-zero were a distinct feature), and the dense heavy columns with
// their 4-byte slot table, counted at their cap (heavyBytes): it reads
// only c's shape and non-zero count.
func CenterColumnBytes(c Sparse) int64 {
	_, d := c.Dims()
	indptr, _, _ := c.CSR()
	nnz := int64(0)
	if len(indptr) > 0 {
		nnz = int64(indptr[len(indptr)-1])
	}
	b := 12*nnz + 8*(nnz+2)      // entries, colptr and the fill pointers
	b += heavyBytes(nnz) + 8*nnz // dense heavy columns, their slots and the slot → row table
	if centerLookupDense(d, int(nnz)) {
		return b + 4*int64(d)
	}
	return b + 4*nnz + 24*nnz // sorted feature list and the map
}

// CSRBytes is the memory of a CSR matrix's own arrays: 12 bytes a non-zero
// (an int32 index and a float64 value) and 8 bytes a row pointer.
func CSRBytes(rows int, nnz int64) int64 { return 12*nnz + 8*int64(rows+1) }

// denseCentersFrom is the density (non-zeros / (M·d)) from which centers
// are better held dense. BenchmarkSparseCenters (Gaussian MulTMul, CSR X of
// n = 4,000 rows, M = 500 centers of the same density; 2-core AVX-512 EPYC
// shared with other jobs, load 4–6, two runs each) took, sparse vs dense
// centers: d = 784: 14 vs 24 ms at density 0.01, 23 vs 52 at 0.05, 38–73 vs
// 211–259 at 0.1, 75–135 vs 159–201 at 0.2, 245–321 vs 146–174 at 0.3,
// 245–448 vs 294–568 at 0.4; d = 5,000: 10 vs 204 ms at 0.01, 77 vs 774 at
// 0.05, 149 vs 838 at 0.1; d = 50,000: 7 vs 80 ms at 0.001, 57 vs 1,635 at
// 0.01. Sparse centers win at every point below 0.2 whatever d and lose from
// 0.3: they break even near 0.25. Above it the dense copy costs at most
// 8/(12·0.25) ≈ 2.7 times the CSR arrays.
const denseCentersFrom = 0.25

// PreferDenseCenters reports whether the engine runs faster with the
// centers c held dense (DenseOf) than sparse: when at least a quarter of
// their entries are non-zero (denseCentersFrom, measured). An empty c is
// dense.
func PreferDenseCenters(c Sparse) bool {
	m, d := c.Dims()
	if m == 0 || d == 0 {
		return true
	}
	indptr, _, _ := c.CSR()
	nnz := float64(indptr[len(indptr)-1] - indptr[0])
	return nnz >= denseCentersFrom*float64(m)*float64(d)
}
