package kernel

import (
	"math"
	"runtime"

	gonumblas "gonum.org/v1/gonum/blas/gonum"
)

// Row-streaming products for package solver's triangular solves with one
// right-hand side (FALKON's preconditioner with one output applies four
// per CG iteration): L⁻¹x subtracts from each x[i] the dot of row i of the
// factor with the solved part (RowDots), L⁻ᵀx subtracts rows of the factor
// scaled by solved entries from the rest of x (RowAxpys). Both are bound by
// reading the factor, which they stream row by row, several rows at once
// (RowDots four on AVX-512 and two on AVX2, RowAxpys eight and four) so that x is read once per group;
// a float32 factor (RowDots32, RowAxpys32) is widened in registers, so it
// streams in half the bytes of a float64 one. The generated kernels are in
// internal/asmmulti. Every result is a fixed sequence of FMAs and additions
// described on each function, the same on the AVX-512, AVX2 and portable
// paths, and a float32 factor gives exactly the float64 function's result
// on its widened values, with one exception: RowDots and RowAxpys (float64)
// on the portable path on amd64 (LANDMARK_SIMD=portable, CPUs without
// AVX2) run gonum's SSE2 dot and axpy row by row (portableGonum), as the
// solves and K_MM·v did before these kernels: there every math.FMA of the
// Go loops tests for the instruction, and they read the factor at 0.8
// (L⁻¹x) and 0.5–0.7 (K_MM·v) of gonum's speed. Their results are then
// gonum's order of the same terms (within the same error bounds), not the
// FMA chains' bits, nor those of RowDots32 and RowAxpys32 on the widened
// values.

// PanelWidth is the number of values in a row of the panels of
// PanelAxpys: the few right-hand sides of a solve, padded with zeros.
const PanelWidth = multiPanel

// RowDots sets out[r] = Σ_j a[r·lda+j]·x[j] for r < len(out), j < len(x):
// the rows of a (row stride lda ≥ 0) times the vector x. With k = len(x)
// and k16 = k rounded down to a multiple of 16, each row's sum is, in this
// order: sixteen lane sums A[l] = Σ x[j]·a[r·lda+j] over j < k16 with j ≡ l
// (mod 16), each a chain of FMAs in j order from zero; B[l] = A[l] +
// A[l+8] for l < 8; s = B[0] + B[1] + … + B[7] from the left; then s =
// fma(a[r·lda+j], x[j], s) for k16 ≤ j < k (on the portable path on
// amd64, gonum's Ddot instead: see the top of this file). a must hold
// (len(out)−1)·lda + len(x) values (it panics otherwise); out must not
// overlap x.
func RowDots(out, a []float64, lda int, x []float64) {
	if !rowsFit(len(out), len(a), lda, len(x)) {
		return
	}
	k := len(x)
	if portableGonum && useAccel == accelPortable {
		for r := range out {
			out[r] = gonumDot.Ddot(k, a[r*lda:r*lda+k], 1, x, 1)
		}
		return
	}
	k16 := k &^ 15
	if useAccel == accelPortable || k16 == 0 {
		rowDotsGo(out, a, lda, x)
		return
	}
	var lanes [32]float64
	for i := 0; i < len(out); {
		n := min(len(out)-i, 4)
		switch {
		case n == 4 && useAccel == accelAVX512:
			dots4F64AVX512(k16, &a[i*lda], lda, &x[0], &lanes[0])
		case n >= 2:
			n = 2
			dots2F64AVX2(k16, &a[i*lda], lda, &x[0], &lanes[0])
		default: // the last row alone (lda 0: the row twice)
			dots2F64AVX2(k16, &a[i*lda], 0, &x[0], &lanes[0])
		}
		for r := range n {
			row := a[(i+r)*lda : (i+r)*lda+k]
			out[i+r] = dotFinish((*[8]float64)(lanes[8*r:]), row[k16:], x[k16:])
		}
		i += n
	}
}

// portableGonum says whether RowDots and RowAxpys take gonum's dot and
// axpy on the portable path: on amd64, where gonum's are SSE2 assembly and
// the Go loops' math.FMA tests for the instruction each time (elsewhere,
// arm64 say, math.FMA is one instruction and gonum's loops are Go).
// BenchmarkFewSolve M = 10,000 t = 1 float64 L⁻¹x, LANDMARK_SIMD=portable,
// GB of factor per CPU-second: 6.5–7.2 on the FMA chains, 8.9–9.1 on
// gonum's; BenchmarkMulKMM t = 1: 65–100 CPU-ms against 54–59
// (docs/performance.md).
const portableGonum = runtime.GOARCH == "amd64"

// gonumDot is gonum's BLAS, whose Ddot and Daxpy run on slices in place.
var gonumDot gonumblas.Implementation

// RowDots32 is RowDots with the rows of a in float32, each value widened
// to float64 (exactly) before its product: the result is RowDots's on the
// widened a, bit for bit.
func RowDots32(out []float64, a []float32, lda int, x []float64) {
	if !rowsFit(len(out), len(a), lda, len(x)) {
		return
	}
	k := len(x)
	k16 := k &^ 15
	if useAccel == accelPortable || k16 == 0 {
		rowDotsGo(out, a, lda, x)
		return
	}
	var lanes [32]float64
	for i := 0; i < len(out); {
		n := min(len(out)-i, 4)
		switch {
		case n == 4 && useAccel == accelAVX512:
			dots4F32AVX512(k16, &a[i*lda], lda, &x[0], &lanes[0])
		case n >= 2:
			n = 2
			dots2F32AVX2(k16, &a[i*lda], lda, &x[0], &lanes[0])
		default:
			dots2F32AVX2(k16, &a[i*lda], 0, &x[0], &lanes[0])
		}
		for r := range n {
			row := a[(i+r)*lda : (i+r)*lda+k]
			out[i+r] = dotFinish((*[8]float64)(lanes[8*r:]), row[k16:], x[k16:])
		}
		i += n
	}
}

// RowAxpys sets y[j] = fma(s[r], a[r·lda+j], y[j]) for r = 0, 1, …,
// len(s)−1 in this order, for every j < len(y): y += Σ_r s[r]·(row r of
// a), one rounding per row (row stride lda ≥ 0); on the portable path on
// amd64, gonum's Daxpy row by row instead (see the top of this file). a
// must hold (len(s)−1)·lda + len(y) values (it panics otherwise); y must
// not overlap a or s.
func RowAxpys(y, s, a []float64, lda int) {
	if !rowsFit(len(s), len(a), lda, len(y)) {
		return
	}
	if portableGonum && useAccel == accelPortable {
		n := len(y)
		for r, c := range s {
			gonumDot.Daxpy(n, c, a[r*lda:r*lda+n], 1, y, 1)
		}
		return
	}
	k16 := len(y) &^ 15
	r := 0
	if useAccel != accelPortable && k16 > 0 {
		for ; r+8 <= len(s) && useAccel == accelAVX512; r += 8 {
			axpy8F64AVX512(k16, (*[8]float64)(s[r:]), &a[r*lda], lda, &y[0])
		}
		for ; r+4 <= len(s); r += 4 {
			c := (*[4]float64)(s[r:])
			if useAccel == accelAVX512 {
				axpy4F64AVX512(k16, c, &a[r*lda], lda, &y[0])
			} else {
				axpy4F64AVX2(k16, c, &a[r*lda], lda, &y[0])
			}
		}
		rowAxpysGo(y[k16:], s[:r], a[k16:], lda)
	}
	if r < len(s) {
		rowAxpysGo(y, s[r:], a[r*lda:], lda)
	}
}

// RowAxpys32 is RowAxpys with the rows of a in float32, widened to float64
// (exactly): the result is RowAxpys's on the widened a, bit for bit.
func RowAxpys32(y, s []float64, a []float32, lda int) {
	if !rowsFit(len(s), len(a), lda, len(y)) {
		return
	}
	k16 := len(y) &^ 15
	r := 0
	if useAccel != accelPortable && k16 > 0 {
		for ; r+8 <= len(s) && useAccel == accelAVX512; r += 8 {
			axpy8F32AVX512(k16, (*[8]float64)(s[r:]), &a[r*lda], lda, &y[0])
		}
		for ; r+4 <= len(s); r += 4 {
			c := (*[4]float64)(s[r:])
			if useAccel == accelAVX512 {
				keptAxpy4AVX512(k16, c, &a[r*lda], lda, &y[0])
			} else {
				keptAxpy4AVX2(k16, c, &a[r*lda], lda, &y[0])
			}
		}
		rowAxpysGo(y[k16:], s[:r], a[k16:], lda)
	}
	if r < len(s) {
		rowAxpysGo(y, s[r:], a[r*lda:], lda)
	}
}

// Widen sets dst[j] = float64(src[j]) for j < len(dst) (exact); src must
// hold len(dst) values.
func Widen(dst []float64, src []float32) {
	src = src[:len(dst)]
	n16 := len(dst) &^ 15
	if n16 > 0 && useAccel != accelPortable {
		if useAccel == accelAVX512 {
			widenAVX512(&dst[0], &src[0], n16)
		} else {
			widenAVX2(&dst[0], &src[0], n16)
		}
	} else {
		n16 = 0
	}
	for j, v := range src[n16:] {
		dst[n16+j] = float64(v)
	}
}

// rowsFit checks that rows rows of k values at stride lda lie in a slice
// of length n (it panics otherwise, as an index out of range would) and
// reports whether there is anything to do.
func rowsFit(rows, n, lda, k int) bool {
	if rows == 0 || k == 0 {
		return false
	}
	if lda < 0 || (rows-1)*lda+k > n {
		panic("kernel: rows of a past its end")
	}
	return true
}

// dotFinish returns RowDots's sum from the eight lanes B and the tail
// (a[j], x[j]) for j ≥ k16.
func dotFinish[T float32 | float64](b *[8]float64, a []T, x []float64) float64 {
	s := b[0]
	for _, v := range b[1:] {
		s += v
	}
	for j, v := range a {
		s = math.FMA(float64(v), x[j], s)
	}
	return s
}

// rowDotsGo is RowDots and RowDots32 in Go: the same lanes and order,
// the sixteen lane sums in local variables rather than an array indexed
// by lane (about 2.5× the elements per second on rows in cache, on the
// EPYC Zen 4; on amd64 below GOAMD64=v3 each math.FMA still tests for
// the instruction, which bounds this loop, see docs/performance.md).
func rowDotsGo[T float32 | float64](out []float64, a []T, lda int, x []float64) {
	k := len(x)
	k16 := k &^ 15
	for r := range out {
		row := a[r*lda : r*lda+k]
		var l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15 float64
		for j := 0; j < k16; j += 16 {
			ar := (*[16]T)(row[j : j+16])
			xr := (*[16]float64)(x[j : j+16])
			l0 = math.FMA(float64(ar[0]), xr[0], l0)
			l1 = math.FMA(float64(ar[1]), xr[1], l1)
			l2 = math.FMA(float64(ar[2]), xr[2], l2)
			l3 = math.FMA(float64(ar[3]), xr[3], l3)
			l4 = math.FMA(float64(ar[4]), xr[4], l4)
			l5 = math.FMA(float64(ar[5]), xr[5], l5)
			l6 = math.FMA(float64(ar[6]), xr[6], l6)
			l7 = math.FMA(float64(ar[7]), xr[7], l7)
			l8 = math.FMA(float64(ar[8]), xr[8], l8)
			l9 = math.FMA(float64(ar[9]), xr[9], l9)
			l10 = math.FMA(float64(ar[10]), xr[10], l10)
			l11 = math.FMA(float64(ar[11]), xr[11], l11)
			l12 = math.FMA(float64(ar[12]), xr[12], l12)
			l13 = math.FMA(float64(ar[13]), xr[13], l13)
			l14 = math.FMA(float64(ar[14]), xr[14], l14)
			l15 = math.FMA(float64(ar[15]), xr[15], l15)
		}
		b := [8]float64{l0 + l8, l1 + l9, l2 + l10, l3 + l11, l4 + l12, l5 + l13, l6 + l14, l7 + l15}
		out[r] = dotFinish(&b, row[k16:], x[k16:])
	}
}

// rowAxpysGo is RowAxpys and RowAxpys32 in Go: two rows at a time (y read
// and written once per two rows; each y[j] still gets its FMAs in row
// order, so the bits are row by row's), a last odd row alone.
func rowAxpysGo[T float32 | float64](y, s []float64, a []T, lda int) {
	n := len(y)
	n2 := n &^ 1
	r := 0
	for ; r+2 <= len(s); r += 2 {
		c0, c1 := s[r], s[r+1]
		a0 := a[r*lda : r*lda+n]
		a1 := a[(r+1)*lda : (r+1)*lda+n]
		for j := 0; j < n2; j += 2 {
			p0, p1 := (*[2]T)(a0[j:j+2]), (*[2]T)(a1[j:j+2])
			yr := (*[2]float64)(y[j : j+2])
			yr[0] = math.FMA(c1, float64(p1[0]), math.FMA(c0, float64(p0[0]), yr[0]))
			yr[1] = math.FMA(c1, float64(p1[1]), math.FMA(c0, float64(p0[1]), yr[1]))
		}
		if n2 < n {
			y[n2] = math.FMA(c1, float64(a1[n2]), math.FMA(c0, float64(a0[n2]), y[n2]))
		}
	}
	if r < len(s) {
		c := s[r]
		for j, v := range a[r*lda : r*lda+n] {
			y[j] = math.FMA(c, float64(v), y[j])
		}
	}
}

// PanelAxpys sets y[16p+s] = fma(a[r·lda+p], b[16r+s], y[16p+s]) for r =
// 0, 1, …, len(b)/16 − 1 in this order, for every p < len(y)/16 and s <
// 16: y += aᵀ·b with y and b panels of rows of 16 values (m = len(y)/16
// and rows = len(b)/16; a is rows×m, row stride lda ≥ 0), one rounding
// per row of a. The rows of a are streamed eight (AVX-512; PanelAxpys32
// four) or four (AVX2) at a time (solver's L⁻ᵀX
// with a few right-hand sides padded to 16). The same bits on every path.
// len(y) and len(b) must be multiples of 16 and a must hold (rows−1)·lda +
// m values (it panics otherwise); y must not overlap a or b.
func PanelAxpys(y, b, a []float64, lda int) {
	m, rows := panelDims(len(y), len(b))
	if !rowsFit(rows, len(a), lda, m) {
		return
	}
	r := 0
	for ; r+8 <= rows && useAccel == accelAVX512; r += 8 {
		panelAxpy8F64AVX512(m, &b[16*r], &a[r*lda], lda, &y[0])
	}
	for ; r+4 <= rows && useAccel != accelPortable; r += 4 {
		if useAccel == accelAVX512 {
			panelAxpy4F64AVX512(m, &b[16*r], &a[r*lda], lda, &y[0])
			continue
		}
		panelAxpy4x16F64AVX2(m, &b[16*r], &a[r*lda], lda, &y[0])
	}
	panelAxpysGo(y, b[16*r:], a, r, lda, m)
}

// PanelAxpys32 is PanelAxpys with the rows of a in float32, widened to
// float64 (exactly): the result is PanelAxpys's on the widened a, bit for
// bit.
func PanelAxpys32(y, b []float64, a []float32, lda int) {
	m, rows := panelDims(len(y), len(b))
	if !rowsFit(rows, len(a), lda, m) {
		return
	}
	r := 0
	for ; r+4 <= rows && useAccel != accelPortable; r += 4 {
		if useAccel == accelAVX512 {
			panelAxpy4F32AVX512(m, &b[16*r], &a[r*lda], lda, &y[0])
			continue
		}
		panelAxpy4x16F32AVX2(m, &b[16*r], &a[r*lda], lda, &y[0])
	}
	panelAxpysGo(y, b[16*r:], a, r, lda, m)
}

// panelDims returns PanelAxpys's m and rows, panicking unless both lengths
// are multiples of 16.
func panelDims(ny, nb int) (m, rows int) {
	if ny%PanelWidth != 0 || nb%PanelWidth != 0 {
		panic("kernel: panel length not a multiple of 16")
	}
	return ny / multiPanel, nb / multiPanel
}

// panelAxpysGo is PanelAxpys in Go for the rows r0, r0+1, … of a (b holds
// theirs), two rows at a time (each value of y gets its FMAs in row order,
// so the bits are row by row's), a last odd row alone.
func panelAxpysGo[T float32 | float64](y, b []float64, a []T, r0, lda, m int) {
	rows := len(b) / multiPanel
	r := 0
	for ; r+2 <= rows; r += 2 {
		b0 := (*[multiPanel]float64)(b[r*multiPanel:])
		b1 := (*[multiPanel]float64)(b[(r+1)*multiPanel:])
		a0 := a[(r0+r)*lda : (r0+r)*lda+m]
		a1 := a[(r0+r+1)*lda : (r0+r+1)*lda+m]
		for p, v := range a0 {
			v0, v1 := float64(v), float64(a1[p])
			yp := (*[multiPanel]float64)(y[p*multiPanel:])
			for s := range yp {
				yp[s] = math.FMA(v1, b1[s], math.FMA(v0, b0[s], yp[s]))
			}
		}
	}
	if r < rows {
		br := (*[multiPanel]float64)(b[r*multiPanel:])
		for p, v := range a[(r0+r)*lda : (r0+r)*lda+m] {
			yp := (*[multiPanel]float64)(y[p*multiPanel:])
			for s := range yp {
				yp[s] = math.FMA(float64(v), br[s], yp[s])
			}
		}
	}
}

// PanelDots sets out[16r+s] = Σ_p a[r·lda+p]·b[16p+s] over p < len(b)/16,
// for r < len(out)/16 and s < 16: the rows of a (row stride lda ≥ 0)
// times the panel b of rows of 16 values, each element a chain of FMAs in
// p order from zero; the same bits on every path (eight rows at a time on
// the AVX-512 tile, six on AVX2's; solver's L⁻¹X with a few right-hand
// sides padded to 16). len(out) and len(b) must be multiples of 16 and a
// must hold (rows−1)·lda + len(b)/16 values (it panics otherwise); out
// must not overlap a or b.
func PanelDots(out, b, a []float64, lda int) {
	panelDots(out, b, a, lda, rowsPanel8x16AVX512, [3]func(int, *float64, int, *float64, *float64){
		rowsPanel6x8AVX2, rowsPanel4x8AVX2, rowsPanel2x8AVX2})
}

// PanelDots32 is PanelDots with the rows of a in float32, widened to
// float64 (exactly) in registers: the result is PanelDots's on the widened
// a, bit for bit.
func PanelDots32(out, b []float64, a []float32, lda int) {
	panelDots(out, b, a, lda, rowsPanel8x16F32AVX512, [3]func(int, *float32, int, *float64, *float64){
		rowsPanel6x8F32AVX2, rowsPanel4x8F32AVX2, rowsPanel2x8F32AVX2})
}

// panelDots is PanelDots on the tiles of a's precision: t8 the AVX-512
// tile's eight rows, t642 the AVX2 tiles' six, four and two rows (on
// half of the panel), which also take the rows left over on AVX-512. A
// last row left over goes to the two-row tile with the row before it
// (recomputed: each row's sums do not depend on the rows beside it), a
// single row in all to panelDotGo: no scratch (before, a two-row buffer
// for the tile on the row twice, 256 B allocated on every such call).
func panelDots[T float32 | float64](out, b []float64, a []T, lda int,
	t8 func(int, *T, int, *float64, *float64), t642 [3]func(int, *T, int, *float64, *float64)) {
	rows, k := panelDims(len(out), len(b))
	if rows == 0 {
		return
	}
	if k == 0 {
		clear(out)
		return
	}
	rowsFit(rows, len(a), lda, k)
	if useAccel == accelPortable {
		for r := range rows {
			panelDotGo((*[PanelWidth]float64)(out[r*PanelWidth:]), b, a[r*lda:r*lda+k])
		}
		return
	}
	for i := 0; i < rows; {
		rem := rows - i
		if useAccel == accelAVX512 && rem >= 8 {
			t8(k, &a[i*lda], lda, &b[0], &out[i*PanelWidth])
			i += 8
			continue
		}
		n, tile := 6, t642[0]
		switch {
		case rem >= 6:
		case rem >= 4:
			n, tile = 4, t642[1]
		case rem >= 2:
			n, tile = 2, t642[2]
		case i > 0: // a last row: the two-row tile on it and the row before again (same bits)
			i--
			n, tile = 2, t642[2]
		default: // a single row in all: Go's loop, the same sums
			panelDotGo((*[PanelWidth]float64)(out), b, a[:k])
			i++
			continue
		}
		tile(k, &a[i*lda], lda, &b[0], &out[i*PanelWidth])
		tile(k, &a[i*lda], lda, &b[PanelWidth/2], &out[i*PanelWidth+PanelWidth/2])
		i += n
	}
}

// panelDotGo sets o[s] = Σ_p a[p]·b[16p+s], each a chain of FMAs in p
// order from zero (PanelDots's portable path for one row), the sixteen
// sums in local variables rather than an array indexed in the loop.
func panelDotGo[T float32 | float64](o *[PanelWidth]float64, b []float64, a []T) {
	var l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15 float64
	for p, v := range a {
		x := float64(v)
		bp := (*[PanelWidth]float64)(b[p*PanelWidth:])
		l0 = math.FMA(x, bp[0], l0)
		l1 = math.FMA(x, bp[1], l1)
		l2 = math.FMA(x, bp[2], l2)
		l3 = math.FMA(x, bp[3], l3)
		l4 = math.FMA(x, bp[4], l4)
		l5 = math.FMA(x, bp[5], l5)
		l6 = math.FMA(x, bp[6], l6)
		l7 = math.FMA(x, bp[7], l7)
		l8 = math.FMA(x, bp[8], l8)
		l9 = math.FMA(x, bp[9], l9)
		l10 = math.FMA(x, bp[10], l10)
		l11 = math.FMA(x, bp[11], l11)
		l12 = math.FMA(x, bp[12], l12)
		l13 = math.FMA(x, bp[13], l13)
		l14 = math.FMA(x, bp[14], l14)
		l15 = math.FMA(x, bp[15], l15)
	}
	*o = [PanelWidth]float64{l0, l1, l2, l3, l4, l5, l6, l7, l8, l9, l10, l11, l12, l13, l14, l15}
}
