package kernel

import "math"

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
// on its widened values.

// PanelWidth is the number of values in a row of the panels of
// PanelAxpys: the few right-hand sides of a solve, padded with zeros.
const PanelWidth = multiPanel

// RowDots sets out[r] = Σ_j a[r·lda+j]·x[j] for r < len(out), j < len(x):
// the rows of a (row stride lda ≥ 0) times the vector x. With k = len(x)
// and k16 = k rounded down to a multiple of 16, each row's sum is, in this
// order: sixteen lane sums A[l] = Σ x[j]·a[r·lda+j] over j < k16 with j ≡ l
// (mod 16), each a chain of FMAs in j order from zero; B[l] = A[l] +
// A[l+8] for l < 8; s = B[0] + B[1] + … + B[7] from the left; then s =
// fma(a[r·lda+j], x[j], s) for k16 ≤ j < k. a must hold (len(out)−1)·lda +
// len(x) values (it panics otherwise); out must not overlap x.
func RowDots(out, a []float64, lda int, x []float64) {
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
// a), one rounding per row (row stride lda ≥ 0). a must hold
// (len(s)−1)·lda + len(y) values (it panics otherwise); y must not overlap
// a or s.
func RowAxpys(y, s, a []float64, lda int) {
	if !rowsFit(len(s), len(a), lda, len(y)) {
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

// rowDotsGo is RowDots and RowDots32 in Go: the same lanes and order.
func rowDotsGo[T float32 | float64](out []float64, a []T, lda int, x []float64) {
	k := len(x)
	k16 := k &^ 15
	for r := range out {
		row := a[r*lda : r*lda+k]
		var l [16]float64
		for j := 0; j < k16; j += 16 {
			for q, v := range row[j : j+16] {
				l[q] = math.FMA(float64(v), x[j+q], l[q])
			}
		}
		var b [8]float64
		for q := range b {
			b[q] = l[q] + l[q+8]
		}
		out[r] = dotFinish(&b, row[k16:], x[k16:])
	}
}

// rowAxpysGo is RowAxpys and RowAxpys32 in Go, row by row.
func rowAxpysGo[T float32 | float64](y, s []float64, a []T, lda int) {
	for r, c := range s {
		row := a[r*lda : r*lda+len(y)]
		for j, v := range row {
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
// theirs), row by row.
func panelAxpysGo[T float32 | float64](y, b []float64, a []T, r0, lda, m int) {
	for r := 0; r < len(b)/multiPanel; r++ {
		br := b[r*multiPanel : (r+1)*multiPanel]
		for p, v := range a[(r0+r)*lda : (r0+r)*lda+m] {
			yp := y[p*multiPanel : (p+1)*multiPanel]
			for s, c := range br {
				yp[s] = math.FMA(float64(v), c, yp[s])
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
// half of the panel), which also take the rows left over on AVX-512.
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
			var acc [PanelWidth]float64
			for p, v := range a[r*lda : r*lda+k] {
				bp := b[p*PanelWidth : (p+1)*PanelWidth]
				for s, c := range bp {
					acc[s] = math.FMA(float64(v), c, acc[s])
				}
			}
			copy(out[r*PanelWidth:], acc[:])
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
		default: // a last row alone: the two-row tile on it twice
			one := make([]float64, 2*PanelWidth)
			tile = t642[2]
			tile(k, &a[i*lda], 0, &b[0], &one[0])
			tile(k, &a[i*lda], 0, &b[PanelWidth/2], &one[PanelWidth/2])
			copy(out[i*PanelWidth:], one[:PanelWidth])
			i++
			continue
		}
		tile(k, &a[i*lda], lda, &b[0], &out[i*PanelWidth])
		tile(k, &a[i*lda], lda, &b[PanelWidth/2], &out[i*PanelWidth+PanelWidth/2])
		i += n
	}
}
