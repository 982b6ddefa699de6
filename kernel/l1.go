package kernel

//go:generate go run ./internal/asml1 -out l1_amd64.s -stubs l1_stub_amd64.go -pkg kernel

import (
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The Laplacian kernel's dense blocks with the inner kernels of
// internal/asml1: rows of X packed in panels of l1Rows (feature-major,
// [d][8]) meet centers packed in panels of l1Cols ([d][16]); a tile sums
// |x_i[k] − c_j[k]| for 8 rows × 16 centers in registers, then the
// Gaussian's row map turns each sum s into exp(−γ·s). Each sum adds the
// features in order, each addition rounded once (an FMA by 1.0), so it has
// the bits of Laplacian.Eval's sum; the kernel values then differ from it only by the exponential
// (within a few ulps, see TestLaplacianSIMD).
const (
	l1Rows = 8
	l1Cols = 16
)

// l1Plan is what an Op of the Laplacian kernel on dense C keeps for the SIMD
// path (X dense, or sparse and expanded block by block): C packed in panels and a row of zeros (the row map's xx and cc).
type l1Plan struct {
	ng   float64   // −γ
	cp   []float64 // C packed: mp/16 panels, each d×16
	zero []float64 // mp zeros
}

// newL1Plan packs c (m×d, row-major) for the SIMD path, or returns nil when
// k is not the Laplacian, the CPU (or LANDMARK_SIMD) allows only the
// portable code, or mp is not a whole number of panels.
func newL1Plan(k Kernel, c blas64.General, mp int) *l1Plan {
	if !l1Applies(k, mp) {
		return nil
	}
	q := &l1Plan{ng: -k.(Laplacian).Gamma, cp: make([]float64, mp*c.Cols), zero: make([]float64, mp)}
	packL1Centers(q.cp, c)
	return q
}

// l1Applies reports whether an Op of kernel k on dense X and C with mp
// padded centers uses the SIMD path (newL1Plan does not return nil).
func l1Applies(k Kernel, mp int) bool {
	_, ok := k.(Laplacian)
	return ok && bestAccel != accelPortable && mp%l1Cols == 0
}

// packL1Centers packs the rows of c into dst as panels of l1Cols centers,
// feature-major ([d][16]); dst must be zero past the last center.
func packL1Centers(dst []float64, c blas64.General) {
	d := c.Cols
	for j := 0; j < c.Rows; j++ {
		row := c.Data[j*c.Stride : j*c.Stride+d]
		panel := dst[(j/l1Cols)*l1Cols*d:]
		for k, v := range row {
			panel[k*l1Cols+j%l1Cols] = v
		}
	}
}

// packL1Rows packs rows [r0, r0+rows) of x into dst as panels of l1Rows rows,
// feature-major ([d][8]), the rows past the end of the last panel zero.
func packL1Rows(dst []float64, x blas64.General, r0, rows int) {
	d := x.Cols
	for ip := 0; ip < rows; ip += l1Rows {
		panel := dst[ip*d : (ip+l1Rows)*d]
		for i := 0; i < l1Rows; i++ {
			if ip+i >= rows {
				for k := 0; k < d; k++ {
					panel[k*l1Rows+i] = 0
				}
				continue
			}
			row := x.Data[(r0+ip+i)*x.Stride : (r0+ip+i)*x.Stride+d]
			for k, v := range row {
				panel[k*l1Rows+i] = v
			}
		}
	}
}

// l1Panel writes exp(ng·‖x_i − c_j‖₁) into out[i·ldo + j] for the l1Rows
// rows of the packed panel a (d features) and the j < mp centers of cp (the
// padding centers get values of zero vectors, finite), with the inner
// kernels acc (AVX2 or AVX-512). out must hold l1Rows rows of mp values.
// With vp (length mp, zero past M) it also sets kv[i] = Σ_j out[i][j]·vp[j]
// for the rows i < len(kv) (the row map's fused dot product).
func l1Panel(acc accel, a, cp, zero []float64, d, mp int, ng float64, out []float64, ldo int, vp, kv []float64) {
	for jp := 0; jp < mp; jp += l1Cols {
		l1Tile(acc, d, a, cp[jp*d:], out[jp:], ldo)
	}
	l1Map(acc, out, ldo, zero, mp, ng, vp, kv)
}

// l1GroupPanels is the number of panels of rows l1Block runs together with
// the inner kernels acc at d features: 8 with AVX2 for d ≥ 256, else 1 (each
// panel of rows meets all the centers, then is mapped). At large d the
// packed centers (M·d values, 12.5 MB at M = 2,000, d = 784) are read from
// L3 once per group instead of once per panel. l1Fused on 256-row blocks,
// M = 2,000, one core of a Zen 4 EPYC, groups of 1 / 4 / 8 panels
// interleaved in one process (thread CPU, 20–30 blocks each, three runs,
// load ≈ 9), G feature-pairs per second: AVX2 d = 784 best 12.7–14.9 /
// 14.1–14.9 / 15.2–15.6, median 10.8–13.1 / 13.5–14.3 / 14.7–15.2; AVX2
// d = 54 median 12.9 / 12.2 / 10.7 and AVX-512 (d = 54 and 784) no gain, so
// only AVX2 at large d groups.
func l1GroupPanels(acc accel, d int) int {
	if acc == accelAVX2 && d >= 256 {
		return 8
	}
	return 1
}

// l1Map maps the l1Rows rows of out (row stride ldo, mp values each, every
// value −½·s) through exp(ng·s) and, with vp, sets kv[i] = Σ_j out[i][j]·vp[j]
// for the rows i < len(kv).
func l1Map(acc accel, out []float64, ldo int, zero []float64, mp int, ng float64, vp, kv []float64) {
	// Each value is −½·s (exact): the Gaussian row map's argument
	// xx + cc − 2·row with xx = cc = 0 is then s itself.
	for i := 0; i < l1Rows; i++ {
		row := &out[i*ldo]
		switch {
		case vp != nil && i < len(kv) && acc == accelAVX512:
			kv[i] = expRowDotAVX512(row, &zero[0], &vp[0], mp, 0, ng)
		case vp != nil && i < len(kv):
			kv[i] = expRowDotAVX2(row, &zero[0], &vp[0], mp, 0, ng)
		case acc == accelAVX512:
			expRowAVX512(row, &zero[0], mp, 0, ng)
		default:
			expRowAVX2(row, &zero[0], mp, 0, ng)
		}
	}
}

// l1Block forms the Laplacian K(X[r0:r1], C) in w.blk (stride mp) with the
// SIMD inner kernels (w.acc is AVX2 or AVX-512), expanding the rows of a
// sparse X to dense first. With vp (v padded with
// zeros to mp) it also sets kv[i] = K(x_{r0+i}, C)·v for i < r1 − r0.
func (p *plan) l1Block(w *work, r0, r1 int, vp, kv []float64) {
	rows, d, mp := r1-r0, p.d, p.mp
	rp := roundUp(rows, l1Rows)
	if len(w.a) < rp*max(d, 1) {
		w.a = make([]float64, rp*max(d, 1))
	}
	a := w.a
	if d == 0 {
		a[0] = 0 // the tiles read no feature; &a[0] must exist
	}
	x, x0 := p.x, r0
	if p.sp != nil {
		// Sparse X with dense-enough rows: expanded block by block.
		x, x0 = p.sp.denseRows(w, r0, r1, d), 0
	}
	packL1Rows(a, x, x0, rows)
	// Whole panels in groups (l1GroupPanels): the tiles of a group with the
	// panels of centers outermost (each panel of C read from L3 once a
	// group, then from L2), then the group's row maps.
	full := 0
	if g := l1GroupPanels(w.acc, d) * l1Rows; g > l1Rows {
		full = len(w.blk[:rows*mp]) / (l1Rows * mp) * l1Rows // rows whose panel fits w.blk
		full = min(full, rows/l1Rows*l1Rows)
		for g0 := 0; g0 < full; g0 += g {
			g1 := min(g0+g, full)
			for jp := 0; jp < mp; jp += l1Cols {
				for ip := g0; ip < g1; ip += l1Rows {
					l1Tile(w.acc, d, a[ip*d:], p.l1.cp[jp*d:], w.blk[ip*mp+jp:], mp)
				}
			}
			for ip := g0; ip < g1; ip += l1Rows {
				var kvp []float64
				if vp != nil {
					kvp = kv[ip : ip+l1Rows]
				}
				l1Map(w.acc, w.blk[ip*mp:], mp, p.l1.zero, mp, p.l1.ng, vp, kvp)
			}
		}
	}
	var tail []float64
	for ip := full; ip < rows; ip += l1Rows {
		out := w.blk[ip*mp:]
		if len(out) < l1Rows*mp {
			// The block's last panel of rows sticks out of w.blk (a block
			// height that is not a multiple of l1Rows): form it aside.
			tail = make([]float64, l1Rows*mp)
			out = tail
		}
		var kvp []float64
		if vp != nil {
			kvp = kv[ip:min(ip+l1Rows, rows)]
		}
		l1Panel(w.acc, a[ip*d:], p.l1.cp, p.l1.zero, d, mp, p.l1.ng, out, mp, vp, kvp)
		if tail != nil {
			copy(w.blk[ip*mp:], tail[:(rows-ip)*mp])
		}
	}
}

// l1Tile sets the 8×16 tile at c (row stride ldc) to −½·Σ_p |a[8p+i] −
// b[16p+j]| over the d features of the packed panels a and b, with the
// inner kernels acc: AVX-512's 8×16 tile, or with AVX2 two 3×16 pieces and a
// 2×16 one (12 and 8 of the 16 ymm registers as accumulators; measured
// against other shapes in internal/asml1's package comment).
func l1Tile(acc accel, d int, a, b, c []float64, ldc int) {
	if acc == accelAVX512 {
		l1Tile8x16AVX512(d, &a[0], &b[0], &c[0], ldc, -0.5)
		return
	}
	l1Tile3x16AVX2(d, &a[0], &b[0], &c[0], ldc, -0.5)
	l1Tile3x16AVX2(d, &a[3], &b[0], &c[3*ldc], ldc, -0.5)
	l1Tile2x16AVX2(d, &a[6], &b[0], &c[6*ldc], ldc, -0.5)
}

// l1DenseBlock writes K(A, B) of the Laplacian with γ = −ng into dst with
// the SIMD inner kernels (useAccel is AVX2 or AVX-512): Laplacian.Block's
// fast path, packing both sides per call.
func l1DenseBlock(ng float64, dst, a, b *mat.Dense) {
	ra, rb, rd := a.RawMatrix(), b.RawMatrix(), dst.RawMatrix()
	d, m := ra.Cols, rb.Rows
	mp := roundUp(m, l1Cols)
	cp := make([]float64, mp*max(d, 1))
	packL1Centers(cp, rb)
	rp := roundUp(ra.Rows, l1Rows)
	ap := make([]float64, rp*max(d, 1))
	packL1Rows(ap, ra, 0, ra.Rows)
	zero := make([]float64, mp)
	// Panels of rows in groups as in l1Block, the group's rows formed in
	// tile (at most 2 MiB more than one panel's rows, whatever M).
	g := min(l1GroupPanels(useAccel, d), max(1, (2<<20)/(8*l1Rows*mp)))
	tile := make([]float64, g*l1Rows*mp)
	for g0 := 0; g0 < ra.Rows; g0 += g * l1Rows {
		np := min(g, (ra.Rows-g0+l1Rows-1)/l1Rows) // ap is padded to whole panels
		for jp := 0; jp < mp; jp += l1Cols {
			for q := range np {
				l1Tile(useAccel, d, ap[(g0+q*l1Rows)*d:], cp[jp*d:], tile[q*l1Rows*mp+jp:], mp)
			}
		}
		for q := range np {
			l1Map(useAccel, tile[q*l1Rows*mp:], mp, zero, mp, ng, nil, nil)
		}
		for i := g0; i < min(g0+np*l1Rows, ra.Rows); i++ {
			copy(rd.Data[i*rd.Stride:i*rd.Stride+m], tile[(i-g0)*mp:])
		}
	}
}

// l1Fused handles a row block X[r0:r1] of the Laplacian's single-vector
// passes: it forms the block, sets kv[i] = K(x_{r0+i}, C)·v (vp is v padded
// with zeros to mp) and, when acc is not nil, adds Σ_i kv[i]·K(x_{r0+i}, C)
// to acc (length mp), four rows at a time as the Gaussian's fused pass does
// (accumulateRows). On the SIMD paths K·v comes from the row map's fused dot
// product; the portable path forms the block with Laplacian.Block and sums
// K·v in column order. With row weights wt (nil: none) the rows of kv are
// multiplied by wt[r0:r1] before they are added to acc.
func (p *plan) l1Fused(w *work, r0, r1 int, vp, kv, acc, wt []float64) {
	rows, m, mp := r1-r0, p.m, p.mp
	kv = kv[:rows]
	if m == 0 {
		clear(kv)
		return
	}
	if w.acc != accelPortable {
		p.l1Block(w, r0, r1, vp, kv)
	} else {
		p.kernelBlock(w, r0, r1)
		for i := range kv {
			kv[i] = dot(w.blk[i*mp:i*mp+m], vp[:m])
		}
	}
	if acc != nil {
		if wt != nil {
			for i := range kv {
				kv[i] *= wt[r0+i]
			}
		}
		p.accumulateRows(w, w.blk, kv, acc)
	}
}
