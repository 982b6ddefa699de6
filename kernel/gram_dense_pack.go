package kernel

// Packing for Dense's products: the operand type reads Â and B̂ (rows or
// columns of a, or the rows of a lower triangle for LauumRows) into the
// panels the tiles take, and records the trailing zero features of each
// panel that the tiles then skip (trailing).

import "gonum.org/v1/gonum/mat"

// operand is a matrix read as its rows (trans false) or its columns (trans
// true): row i of the operand is a[i][:] or a[:][i]. With tri (LauumRows,
// trans only), a is read as the rows of a lower-triangular matrix: the
// elements of its row p right of column p+diag are zeros, not read.
type operand struct {
	a     *mat.Dense
	trans bool
	tri   bool
	diag  int
}

// pack writes rows [i0, i0+w) of the operand, features [p0, p0+kl), scaled
// by s, into dst as [kl][w] (feature-major), zero-filling rows ≥ rows.
func (o operand) pack(dst []float64, w, i0, rows, p0, kl int, s float64) {
	raw := o.a.RawMatrix()
	n := min(w, rows-i0)
	if o.trans {
		// Row i of the operand is column i of a: feature p is a[p][i].
		for p := 0; p < kl; p++ {
			src := raw.Data[(p0+p)*raw.Stride+i0 : (p0+p)*raw.Stride+i0+n]
			out := dst[p*w : p*w+w]
			for i, v := range src {
				out[i] = s * v
			}
			clear(out[n:])
		}
		return
	}
	// Eight (or, in panels of 6, six) rows at a time, read side by side:
	// each step of p writes 64 (48) contiguous bytes of dst (instead of one
	// double every w·8 bytes) while the rows stream in order.
	i := 0
	for ; w == 6 && i+6 <= n; i += 6 {
		row := func(r int) []float64 {
			o := (i0+i+r)*raw.Stride + p0
			return raw.Data[o : o+kl : o+kl]
		}
		r0, r1, r2, r3, r4, r5 := row(0), row(1), row(2), row(3), row(4), row(5)
		for p := range r0 {
			o := dst[p*w+i : p*w+i+6 : p*w+i+6]
			o[0], o[1], o[2], o[3], o[4], o[5] = s*r0[p], s*r1[p], s*r2[p], s*r3[p], s*r4[p], s*r5[p]
		}
	}
	packRows8(dst, raw.Data, raw.Stride, i0, i, n, w, p0, kl, s, w != 6)
}

// packRows8 writes rows i0+i … i0+n−1 of data (row stride stride; features
// p0 … p0+kl−1), scaled by s, into the feature-major panel dst of w rows
// from its row i: eight rows at a time while eight remain when eights is
// set (read side by side: each step of p writes 8 contiguous values of dst
// while the rows stream in order), then one at a time, then zeros for rows
// n … w−1. Dense (float64) and DenseF32 (float32) pack with it.
func packRows8[T float32 | float64](dst, data []T, stride, i0, i, n, w, p0, kl int, s T, eights bool) {
	for ; eights && i+8 <= n; i += 8 {
		row := func(r int) []T {
			o := (i0+i+r)*stride + p0
			return data[o : o+kl : o+kl]
		}
		r0, r1, r2, r3, r4, r5, r6, r7 := row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)
		for p := range r0 {
			o := dst[p*w+i : p*w+i+8 : p*w+i+8]
			o[0], o[1], o[2], o[3] = s*r0[p], s*r1[p], s*r2[p], s*r3[p]
			o[4], o[5], o[6], o[7] = s*r4[p], s*r5[p], s*r6[p], s*r7[p]
		}
	}
	for ; i < n; i++ {
		src := data[(i0+i)*stride+p0 : (i0+i)*stride+p0+kl]
		for p, v := range src {
			dst[p*w+i] = s * v
		}
	}
	for i := n; i < w; i++ {
		for p := 0; p < kl; p++ {
			dst[p*w+i] = 0
		}
	}
}

// packPanels packs panels [q0, q1) of width w (panel q: rows [q·w, q·w+w)
// of the operand, zero-filled at and beyond rows) into dst, panel q at
// dst[(q−q0)·w·kl:], as pack does, and sets lead[q−q0] to the number of
// leading features of panel q known to be zero (Dense's leading zeros). A transposed
// operand is read one feature (one row of a) at a time across all the
// panels, so that each read is a contiguous run of (q1−q0)·w doubles instead
// of w doubles from each of kl rows (which, for a wide a, misses the cache
// on every read); its leading zero features are counted (rows of a that
// are zero over a panel's columns: the zeros above the diagonal of a
// triangular block), those of a row-major operand are not (lead 0). When
// trail is not nil, trail[q−q0] is set to one past the last feature of
// panel q that is not zero over the panel (kl for a row-major operand; at
// most its lead for a panel of zeros: nothing to sum).
func (o operand) packPanels(dst []float64, lead, trail []int32, w, q0, q1, rows, p0, kl int, s float64) {
	if !o.trans {
		for q := q0; q < q1; q++ {
			o.pack(dst[(q-q0)*w*kl:(q-q0+1)*w*kl], w, q*w, rows, p0, kl, s)
		}
		clear(lead[:q1-q0])
		if trail != nil {
			for q := range trail[:q1-q0] {
				trail[q] = int32(kl)
			}
		}
		return
	}
	raw := o.a.RawMatrix()
	packTrans(dst, lead, trail, raw.Data, raw.Stride, o.tri, o.diag, w, q0, q1, rows, p0, kl, s)
}

// packTrans is packPanels for a transposed operand, in either precision:
// row p of data (stride apart) holds feature p of every row of the
// operand, so feature p0+p of panel q is data[(p0+p)·stride + q·w:][:w],
// cut at rows and, for a triangular operand (tri), at the diagonal shifted
// by diag. It sets lead[q−q0] to the panel's first nonzero feature (kl
// when none) and, through trailing, trail[q−q0] when trail is not nil.
func packTrans[T float32 | float64](dst []T, lead, trail []int32, data []T, stride int, tri bool, diag, w, q0, q1, rows, p0, kl int, s T) {
	i0, i1 := q0*w, min(q1*w, rows)
	lead = lead[:q1-q0]
	for q := range lead {
		lead[q] = -1 // no nonzero seen yet
	}
	for p := 0; p < kl; p++ {
		e := i1
		if tri {
			e = max(i0, min(i1, p0+p+diag+1)) // zeros right of the diagonal
		}
		src := data[(p0+p)*stride+i0 : (p0+p)*stride+e]
		for q := q0; q < q1; q++ {
			out := dst[(q-q0)*w*kl+p*w : (q-q0)*w*kl+p*w+w]
			lo := (q - q0) * w
			if lo >= len(src) {
				clear(out)
				continue
			}
			seg := src[lo:min(lo+w, len(src))]
			if lead[q-q0] < 0 && !allZero(seg) {
				lead[q-q0] = int32(p)
			}
			if s == 1 {
				copy(out, seg)
			} else {
				for i, v := range seg {
					out[i] = s * v
				}
			}
			clear(out[len(seg):])
		}
	}
	for q, l := range lead {
		if l < 0 {
			lead[q] = int32(kl)
		}
	}
	trailing(trail, dst, lead, w, kl)
}

// trailing sets trail[q] (when trail is not nil) to one past the last
// feature of the q-th packed panel in dst ([kl][w] each) that is not zero,
// scanning back from the last to the panel's leading zeros lead[q]: one
// look at the last feature of a dense panel.
func trailing[T float32 | float64](trail []int32, dst []T, lead []int32, w, kl int) {
	for q := range trail[:min(len(trail), len(lead))] {
		pd := dst[q*w*kl : (q+1)*w*kl]
		e := int(lead[q])
		for p := kl - 1; p >= e; p-- {
			if !allZero(pd[p*w : p*w+w]) {
				e = p + 1
				break
			}
		}
		trail[q] = int32(e)
	}
}

// allZero reports whether every value of x is zero (a NaN is not).
func allZero[T float32 | float64](x []T) bool {
	for _, v := range x {
		if v != 0 {
			return false
		}
	}
	return true
}
