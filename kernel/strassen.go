package kernel

import (
	"context"
	"os"
	"sync"
	"weak"

	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
)

// One level of Strassen's algorithm (Strassen 1969, "Gaussian elimination
// is not optimal"), in Winograd's variant (7 multiplications, 15 additions),
// for the distance product X_B·Cᵀ of the float64 fused training pass
// (MulTMul with one right-hand side and the Gaussian kernel) at large d.
// Neither is from the four papers the package implements; see doc.go.
//
// With A = X_B (rows split in halves, features in halves) and B = Cᵀ
// (features in halves, centers in halves), A = [A11 A12; A21 A22],
// B = [B11 B12; B21 B22]:
//
//	S1 = A21 + A22   S2 = S1 − A11   S3 = A11 − A21   S4 = A12 − S2
//	T1 = B12 − B11   T2 = B22 − T1   T3 = B22 − B12   T4 = T2 − B21
//	P1 = A11·B11  P2 = A12·B21  P3 = S4·B22  P4 = A22·T4
//	P5 = S1·T1    P6 = S2·T2    P7 = S3·T3
//	C11 = P1 + P2              C12 = ((P1 + P6) + P5) + P3
//	C21 = ((P1 + P6) + P7) − P4  C22 = ((P1 + P6) + P7) + P5
//
// (P1 + P6 = A11·B11 + S2·T2 expands to A21·B12 − A21·B11 + A22·B22 −
// A22·B12 + A11·B12 + A11·B11 − A11·B22 + ...; rather than expand all four
// by hand, TestWinogradIdentity checks them in exact integer arithmetic,
// with the indexing). The T operands depend on C only: each MulTMul forms
// and packs them (trainStrassen, in a buffer recycled between calls and
// Ops, reused as it is by the Op's next call), −T4 rather than T4
// (negation is exact, so A22·(−T4) is −(A22·T4) bit for bit, and every
// product adds). Per block the quadrants of X_B and the S operands are
// packed in one pass over X_B (packSumsSIMD; packQuads or packSums for
// other shapes), the seven products run on the tiles the classical product
// uses (k = d/2 features each, cut into feature blocks by kBlocks as
// usual), accumulating into the quadrants of w.blk; the two that finish U2
// and U3 (P6, P7) start from P1's quadrant and add the buffered P5 in their
// stores (tilesSum), so that no pass over the block copies or sums
// quadrants. The exp map and the accumulation then run unchanged.
//
// It does 7/8 of the multiplications of the product (the rows and centers
// outside the halves, at most 15 rows of the last block and 16 centers,
// take the classical k). Its error bound is normwise, not componentwise:
// an element's error is bounded by u·d²·max|X|·max|C| times a constant
// (strassenBound in the tests derives it), not by u·d·|x|·|c| as the
// classical product's, and a row of the result depends on the rounding of
// the row h further down (or up) in its block. So it serves only the
// training pass: predictions (Mul, Block) must give on a subset of rows
// the bits of the full prediction, and keep the classical product, as
// MulT does. The AVX-512 and AVX2 paths give each other's bits here, as
// they do in the classical product: the same partition, the same feature
// blocks, the same order of additions. LANDMARK_STRASSEN=0 turns it off
// (strassenEnv).
//
// One level only: at d = 784, M = 2,000 a 256-row block's seven products
// took 7.8–8.4 ms of one core against 8.8–10.8 for the classical product,
// and a second level's 49 products 7.3–7.6 ms (tiles alone, machine E,
// loaded); the second level's sums and combinations cost about what the
// first's do (≈ 0.8 ms a block), more than the 0.5 ms its products save.

// strassenEnv names the variable that turns the Strassen product off when
// set to "0" (the classical product's bits, at its speed).
const strassenEnv = "LANDMARK_STRASSEN"

// strassenOn is false when LANDMARK_STRASSEN=0; tests change it.
var strassenOn = os.Getenv(strassenEnv) != "0"

// strassenMinDim is the smallest d the fused pass uses Strassen at. One
// 256-row block at M = 2,000 (BenchmarkStrassenDots, machine E, loaded):
// AVX-512 0.99–1.02× the classical product's speed at d = 256, 1.03× at
// 384, 1.00–1.06× at 512, 1.02–1.03× at 784; AVX2 1.04–1.14× throughout.
// Below 512 it pays too little to be worth the normwise error.
const strassenMinDim = 512

// strassenPlan holds the C side of the product: the seven operands B11,
// B21, B22, T1, T2, T3 and −T4 (the sign folded into C's side so that every
// product adds), each hc centers × dh features packed as the plan's
// panels (d×16 or two d×8 halves, plan.half) with d = dh.
type strassenPlan struct {
	hc, dh int // centers in a half (a multiple of panelCols) and features in a half
	half   bool
	b      [7][]float64
	// rem holds the centers past 2·hc (mp − 2·hc of them, 0 or panelCols)
	// on the first and on the second dh features, packed as b.
	rem [2][]float64
}

// Indices of strassenPlan.b.
const (
	opB11 = iota
	opB21
	opB22
	opT1
	opT2
	opT3
	opT4n // −T4
)

// strassenApplies reports whether MulTMul's fused Gaussian pass on o uses
// the Strassen product for workers on the inner kernels acc: a
// wideGaussian Op (float64, not Float32, dense X and C, d ≥
// strassenMinDim), at least 2·panelCols centers, the AVX-512 or AVX2
// tiles, LANDMARK_STRASSEN not 0.
func (o *Op) strassenApplies(acc accel) bool {
	if !strassenOn || !o.wideGaussian() {
		return false
	}
	_, m := o.Dims()
	if roundUp(m, panelCols) < 2*panelCols || o.BlockRows() < 2*panelRows {
		return false
	}
	return acc == accelAVX512 || acc == accelAVX2
}

// strassenState remembers the buffer of C-side operands an Op's last
// MulTMul formed (trainStrassen), held weakly: while strassenPacks still
// keeps it as a spare, the Op's next call (or that of an Op sharing its
// packed centers) takes it back without forming the operands again.
type strassenState struct {
	mu   sync.Mutex
	last weak.Pointer[[]float64]
}

// strassenPacks recycles the buffers of C-side operands between MulTMul
// calls of any Op, as packCache does the dense products' packing buffers.
// An Op used to form its operands once and keep them (22 MB at M = 2,000,
// d = 784) for its lifetime; each new Op then took them in fresh memory,
// whose first touch cost 0.05–0.07 CPU-s on machine E against 0.008–0.011
// s to form them in recycled memory (docs/performance.md, "New Ops'
// costs: X's norms, the Strassen operands, X's pages"): about 1.5% of a
// fused pass at d = 784, paid by every new Op (a cross-validation's fits,
// `landmark bench kernel`'s repeats). An Op whose buffer is still a spare takes it back
// unchanged (strassenState), so an iterative solver's passes on one Op
// form the operands once. trainStrassen makes the new buffers itself
// (reuse, never get: no alloc function).
var strassenPacks packCache[float64]

// trainStrassen returns the Strassen plan MulTMul's fused pass on o uses
// (p being o's plan), or nil for the classical product (see
// strassenApplies; on AVX-512 the centers must be packed as d×16 panels,
// not plan.half, as dots requires), and the function handing its buffer
// back to strassenPacks once the pass is done. The operands are those
// o's last call formed when their buffer is still a spare, else formed
// anew in a recycled or new buffer.
func (o *Op) trainStrassen(p *plan) (*strassenPlan, func()) {
	if !o.strassenApplies(useAccel) || (useAccel == accelAVX512 && p.half) {
		return nil, func() {}
	}
	st := &o.st
	if o.centers != nil {
		st = &o.centers.st // the same centers, packed the same (prepare): the same operands
	}
	st.mu.Lock()
	last := st.last.Value()
	st.mu.Unlock()
	if last != nil && strassenPacks.take(last) {
		return strassenView(*last, p.mp, p.d, p.half), func() { strassenPacks.put(last) }
	}
	// A header of its own for the buffer: the Op that formed what it held
	// before finds its header no longer among the spares (take), so it
	// cannot take back another Op's operands for its own.
	b := new([]float64)
	if r := strassenPacks.reuse(strassenLen(p.mp, p.d)); r != nil {
		*b = *r
	} else {
		*b = newStrassenBuf(p.mp, p.d, p.collapseWork())
	}
	s := formStrassen(*b, p.c, p.m, p.d, p.mp, p.half, o.opt.Workers)
	st.mu.Lock()
	st.last = weak.Make(b)
	st.mu.Unlock()
	return s, func() { strassenPacks.put(b) }
}

// strassenDims returns the half sizes of the product for M centers (mp
// padded) and d features: hc centers and dh features.
func strassenDims(mp, d int) (hc, dh int) {
	return (mp &^ (2*panelCols - 1)) / 2, (d + 1) / 2
}

// strassenLen is the length of the C-side operands' buffer for mp centers
// and d features: the seven operands of hc·dh values and the two of the
// centers past 2·hc, (mp − 2·hc)·dh each.
func strassenLen(mp, d int) int {
	hc, dh := strassenDims(mp, d)
	return (7*hc + 2*(mp-2*hc)) * dh
}

// strassenView returns the plan whose operands are in buf (formStrassen's
// layout) for mp centers and d features.
func strassenView(buf []float64, mp, d int, half bool) *strassenPlan {
	hc, dh := strassenDims(mp, d)
	s := &strassenPlan{hc: hc, dh: dh, half: half}
	for i := range s.b {
		s.b[i] = buf[i*hc*dh : (i+1)*hc*dh : (i+1)*hc*dh]
	}
	nr, at := (mp-2*hc)*dh, 7*hc*dh
	s.rem = [2][]float64{buf[at : at+nr : at+nr], buf[at+nr : at+2*nr : at+2*nr]}
	return s
}

// newStrassenBuf returns a new buffer for the C-side operands (strassenLen
// values) advised onto huge pages, as the packed centers, and merged into
// them at once with collapse (for long passes: when Go hands back memory
// already faulted in as 4 KiB pages, the products lost a quarter of their
// speed in them).
func newStrassenBuf(mp, d int, collapse bool) []float64 {
	buf := make([]float64, strassenLen(mp, d))
	adviseHuge(buf, collapse)
	return buf
}

// newStrassenPlan forms the C-side operands (formStrassen) in a new buffer
// (newStrassenBuf).
func newStrassenPlan(c blas64.General, m, d, mp int, half, collapse bool, workers int) *strassenPlan {
	return formStrassen(newStrassenBuf(mp, d, collapse), c, m, d, mp, half, workers)
}

// formStrassen forms and packs the C-side operands from the m rows of c
// (d columns) into buf (strassenLen(mp, d) values, any contents), mp being
// m padded to panelCols; centers past m and the feature past d (odd d) are
// zeros. It returns the plan viewing them.
func formStrassen(buf []float64, c blas64.General, m, d, mp int, half bool, workers int) *strassenPlan {
	s := strassenView(buf, mp, d, half)
	hc, dh := s.hc, s.dh
	hw := panelCols
	if half {
		hw = panelCols / 2
	}
	nr := mp - 2*hc
	at := func(j, k int) float64 {
		if j >= m || k >= d {
			return 0
		}
		return c.Data[j*c.Stride+k]
	}
	for j := range nr {
		o := (j%panelCols)/hw*hw*dh + j%hw
		for k := 0; k < dh; k++ {
			s.rem[0][o+k*hw], s.rem[1][o+k*hw] = at(2*hc+j, k), at(2*hc+j, dh+k)
		}
	}
	parallel.For(context.Background(), hc/panelCols, workers, func(_, jp int) {
		for j := jp * panelCols; j < (jp+1)*panelCols; j++ {
			base := jp*panelCols*dh + (j%panelCols)/hw*hw*dh + j%hw
			for k := 0; k < dh; k++ {
				b11, b12 := at(j, k), at(hc+j, k)
				b21, b22 := at(j, dh+k), at(hc+j, dh+k)
				t1 := b12 - b11
				t2 := b22 - t1
				t3 := b22 - b12
				t4 := t2 - b21
				o := base + k*hw
				s.b[opB11][o], s.b[opB21][o], s.b[opB22][o] = b11, b21, b22
				s.b[opT1][o], s.b[opT2][o], s.b[opT3][o], s.b[opT4n][o] = t1, t2, t3, -t4
			}
		}
	})
	return s
}

// strassenHeldBytes is the size of the C-side operands' buffer for mp
// centers and d features (strassenLen values).
func strassenHeldBytes(mp, d int) int64 {
	return 8 * int64(strassenLen(mp, d))
}

// strassenWorkLen is the length of a worker's Strassen scratch (work.st)
// for blocks of b rows (rounded up to panelRows): eight packed operands of X's side (the quadrants
// A11, A12, A21, A22 and S1 … S4, h·dh values each, h = b/2 rounded down
// to panelRows) and one product (h·hc).
func strassenWorkLen(b, mp, d int) int {
	hc, dh := strassenDims(mp, d)
	h := (roundUp(b, panelRows) &^ (2*panelRows - 1)) / 2
	return 8*h*dh + h*hc
}

// strassenDots writes x_i·c_j into w.blk (stride mp) for the rows i of
// X[r0:r1] and j < mp, as dots does, with one Winograd level on the first
// rs = (r1−r0) rounded down to 2·panelRows rows and the first 2·hc centers.
// The centers past 2·hc (at most panelCols) take the packed quadrants of X
// on the first and second halves of the features (s.rem), the rows past rs
// (the last block's, under 2·panelRows) the classical tiles.
func (p *plan) strassenDots(w *work, s *strassenPlan, r0, r1 int) {
	rows, mp := r1-r0, p.mp
	hc, dh := s.hc, s.dh
	rs := rows &^ (2*panelRows - 1)
	h := rs / 2
	th := panelRows
	if w.acc == accelAVX2 {
		th = avx2TileRows
	}
	if cap(w.st) < 8*h*dh+h*hc {
		// Sized for the work's largest block (len(w.blk)/mp rows), once.
		w.st = make([]float64, strassenWorkLen(len(w.blk)/mp, mp, p.d))
	}
	if h > 0 {
		sz := h * dh
		var q [8][]float64 // A11, A12, A21, A22, S1, S2, S3, S4
		for i := range q {
			q[i] = w.st[i*sz : (i+1)*sz : (i+1)*sz]
		}
		a11, a12, a21, a22, s1, s2, s3, s4 := q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]
		tm := w.st[8*sz : 8*sz+h*hc]
		switch {
		case packSumsOn && p.d == 2*dh && dh%packSumsStep(w.acc) == 0:
			packSumsSIMD(w.st[:8*sz], sz, p.x, r0, h, dh, th, w.acc)
		case p.d == 2*dh:
			packQuads(&q, p.x, r0, h, dh, th, w.acc)
		default:
			packSums(&q, p.x, r0, h, dh, p.d, th, 0)
		}
		blk := w.blk
		q11, q12 := blk, blk[hc:]
		q21, q22 := blk[h*mp:], blk[h*mp+hc:]
		mul := func(a, b []float64, cols int, c []float64, ldc int, add bool) {
			tiles(w.acc, s.half, a, b, h, cols, dh, c, ldc, add, th)
		}
		if nr := mp - 2*hc; nr > 0 {
			mul(a11, s.rem[0], nr, blk[2*hc:], mp, false)
			mul(a12, s.rem[1], nr, blk[2*hc:], mp, true)
			mul(a21, s.rem[0], nr, blk[h*mp+2*hc:], mp, false)
			mul(a22, s.rem[1], nr, blk[h*mp+2*hc:], mp, true)
		}
		// sum sets q21 = src + a·b and, with u, u = q21 + P5, in the
		// tiles' stores (tilesSum).
		sum := func(a, b, src, u []float64) {
			tilesSum(w.acc, s.half, a, b, h, hc, dh, q21, src, mp, tm, hc, u, th)
		}
		b := &s.b
		mul(s1, b[opT1], hc, tm, hc, false)    // P5
		mul(a11, b[opB11], hc, q11, mp, false) // P1
		sum(s2, b[opT2], q11, q12)             // U2 = P1 + P6, and U2 + P5
		mul(a12, b[opB21], hc, q11, mp, true)  // C11 = P1 + P2
		sum(s3, b[opT3], q21, q22)             // U3 = U2 + P7, and C22 = U3 + P5
		mul(s4, b[opB22], hc, q12, mp, true)   // C12 = (U2 + P5) + P3
		mul(a22, b[opT4n], hc, q21, mp, true)  // C21 = U3 − P4
	}
	if rs < rows {
		// The last rows, under 2·panelRows: the classical product into
		// their rows of the block.
		rest := *w
		rest.blk = w.blk[rs*mp:]
		p.dots(&rest, r0+rs, r1)
	}
}

// packSums packs the quadrants of the 2h rows of x from r0 (d columns, the
// features split at dh, features past d read as zeros) as panels of th
// rows, feature-major (the last panel holding the rows left: packPanels's
// layout, and packRows's when th divides h), into q[0…3] = A11, A12, A21,
// A22, and the Winograd sums of X's side into q[4…7] = S1 = A21 + A22,
// S2 = S1 − A11, S3 = A11 − A21, S4 = A12 − S2, in one pass over x; the
// panels from row ip0 on (a multiple of th) only.
func packSums(q *[8][]float64, x blas64.General, r0, h, dh, d, th, ip0 int) {
	var top, bot [panelRows][]float64
	for ip := ip0; ip < h; ip += th {
		ph := min(th, h-ip)
		for i := 0; i < ph; i++ {
			top[i] = x.Data[(r0+ip+i)*x.Stride:][:d]
			bot[i] = x.Data[(r0+h+ip+i)*x.Stride:][:d]
		}
		o := ip * dh
		for k := 0; k < dh; k++ {
			for i := 0; i < ph; i++ {
				a11, a21 := top[i][k], bot[i][k]
				var a12, a22 float64
				if dh+k < d {
					a12, a22 = top[i][dh+k], bot[i][dh+k]
				}
				s1 := a21 + a22
				s2 := s1 - a11
				q[0][o], q[1][o], q[2][o], q[3][o] = a11, a12, a21, a22
				q[4][o], q[5][o], q[6][o], q[7][o] = s1, s2, a11-a21, a12-s2
				o++
			}
		}
	}
}

// packQuads is packSums for even d: the quadrants packed by packRows (th =
// panelRows) or packPanels, the sums formed by copies and axpy with ±1 (one
// rounding each, a + b or a − b: packSums's bits).
func packQuads(q *[8][]float64, x blas64.General, r0, h, dh, th int, acc accel) {
	for i, at := range [4][2]int{{r0, 0}, {r0, dh}, {r0 + h, 0}, {r0 + h, dh}} {
		if th == panelRows {
			packRows(q[i], x.Data[at[1]:], x.Stride, at[0], h, dh)
		} else {
			packPanels(q[i], x.Data[at[1]:], x.Stride, at[0], h, dh, th)
		}
	}
	a11, a12, a21, a22, s1, s2, s3, s4 := q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]
	axpy := axpyAVX512
	if acc == accelAVX2 {
		axpy = axpyAVX2
	}
	n := len(a11)
	v := n &^ 15
	sum := func(dst, a, b []float64, sign float64) { // dst = a + sign·b
		copy(dst, a)
		if v > 0 {
			axpy(v, sign, &b[0], &dst[0])
		}
		for j := v; j < n; j++ {
			dst[j] = a[j] + sign*b[j]
		}
	}
	sum(s1, a22, a21, 1)
	sum(s3, a11, a21, -1)
	sum(s2, s1, a11, -1)
	sum(s4, a12, s2, -1)
}
