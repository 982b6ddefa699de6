package kernel

import "gonum.org/v1/gonum/blas/blas64"

// Panels is a k×t matrix B packed for the multi-output tiles (multi.go):
// ⌈t/16⌉ panels [k][16], zero past column t. SubMul and SubMulT subtract
// products of a strided matrix with it, eight rows or columns at a time on
// the AVX-512 tiles, six on the AVX2 ones (plain loops on the portable path); solver's triangular solves with
// a few right-hand sides (FALKON's preconditioner with one output per
// class) use them to read each row of the factor once for all columns
// instead of once per column. Every element is summed over p = 0 … k−1 in
// order, whatever the caller's split of the rows.
type Panels struct {
	k, t int
	data []float64
}

// PackPanels packs b (k×t) into buf when it holds PanelsLen(k, t) values
// (reused: a sequence of packs makes no garbage), else into new storage.
func PackPanels(b blas64.General, buf []float64) Panels {
	n := PanelsLen(b.Rows, b.Cols)
	if cap(buf) < n {
		buf = make([]float64, n)
	}
	buf = buf[:n]
	clear(buf)
	p := Panels{k: b.Rows, t: b.Cols, data: buf}
	for i := range b.Rows {
		for c, v := range b.Data[i*b.Stride : i*b.Stride+b.Cols] {
			p.data[(c/multiPanel)*b.Rows*multiPanel+i*multiPanel+c%multiPanel] = v
		}
	}
	return p
}

// PanelsLen is the number of values a packed k×t matrix takes: k·16 per
// 16 columns (rounded up).
func PanelsLen(k, t int) int { return (t + multiPanel - 1) / multiPanel * multiPanel * k }

// SubMul sets y −= a·B for a (m×k, row stride a.Stride) and y (m×t).
func (p Panels) SubMul(y, a blas64.General) {
	m, k := a.Rows, p.k
	if m == 0 || k == 0 || p.t == 0 {
		return
	}
	if useAccel == accelPortable {
		for i := range m {
			yi := y.Data[i*y.Stride : i*y.Stride+p.t]
			for j, v := range a.Data[i*a.Stride : i*a.Stride+k] {
				for c := range yi {
					yi[c] -= v * p.data[(c/multiPanel)*k*multiPanel+j*multiPanel+c%multiPanel]
				}
			}
		}
		return
	}
	var out [panelRows * multiPanel]float64
	var pad []float64
	h := tileRows()
	for i0 := 0; i0 < m; i0 += h {
		rows := min(h, m-i0)
		ap, lda := &a.Data[i0*a.Stride], a.Stride
		if rows < h {
			// The last rows, copied so that the tile reads h rows in bounds.
			pad = make([]float64, h*k)
			for r := range rows {
				copy(pad[r*k:(r+1)*k], a.Data[(i0+r)*a.Stride:])
			}
			ap, lda = &pad[0], k
		}
		for q := 0; q*multiPanel < p.t; q++ {
			rowsPanelTile(k, ap, lda, p.data[q*k*multiPanel:], out[:])
			for r := range rows {
				yr := y.Data[(i0+r)*y.Stride+q*multiPanel : (i0+r)*y.Stride+min(p.t, (q+1)*multiPanel)]
				for s := range yr {
					yr[s] -= out[r*multiPanel+s]
				}
			}
		}
	}
}

// SubMulT sets y −= aᵀ·B for a (k×m, row stride a.Stride) and y (m×t).
func (p Panels) SubMulT(y, a blas64.General) {
	k, m := p.k, a.Cols
	if m == 0 || k == 0 || p.t == 0 {
		return
	}
	if useAccel == accelPortable {
		for j := range k {
			for i, v := range a.Data[j*a.Stride : j*a.Stride+m] {
				yi := y.Data[i*y.Stride : i*y.Stride+p.t]
				for c := range yi {
					yi[c] -= v * p.data[(c/multiPanel)*k*multiPanel+j*multiPanel+c%multiPanel]
				}
			}
		}
		return
	}
	var acc [panelRows * multiPanel]float64
	var pad []float64
	h := tileRows()
	for j0 := 0; j0 < m; j0 += h {
		cols := min(h, m-j0)
		ap, lda := &a.Data[j0], a.Stride
		if cols < h {
			// The last columns, copied so that the tile reads h in bounds.
			pad = make([]float64, k*h)
			for r := range k {
				copy(pad[r*h:r*h+cols], a.Data[r*a.Stride+j0:r*a.Stride+m])
			}
			ap, lda = &pad[0], h
		}
		for q := 0; q*multiPanel < p.t; q++ {
			clear(acc[:])
			colsPanelTile(k, ap, lda, p.data[q*k*multiPanel:], acc[:])
			for r := range cols {
				yr := y.Data[(j0+r)*y.Stride+q*multiPanel : (j0+r)*y.Stride+min(p.t, (q+1)*multiPanel)]
				for s := range yr {
					yr[s] -= acc[r*multiPanel+s]
				}
			}
		}
	}
}

// tileRows is the rows (or columns of K) one multi-output tile covers on
// the current path: 8 on AVX-512, 6 on AVX2.
func tileRows() int {
	if useAccel == accelAVX2 {
		return 6
	}
	return panelRows
}

// rowsPanelTile sets out[r·16+s] = Σ_p a[r·lda+p]·b[p·16+s] for r <
// tileRows(), s < 16: the AVX-512 8×16 tile, or the AVX2 6×8 tile on each
// half of the panel.
func rowsPanelTile(k int, a *float64, lda int, b, out []float64) {
	if useAccel == accelAVX2 {
		rowsPanel6x8AVX2(k, a, lda, &b[0], &out[0])
		rowsPanel6x8AVX2(k, a, lda, &b[multiPanel/2], &out[multiPanel/2])
		return
	}
	rowsPanel8x16AVX512(k, a, lda, &b[0], &out[0])
}

// colsPanelTile adds Σ_p a[p·lda+r]·b[p·16+s] to c[r·16+s] for r <
// tileRows(), s < 16, on the tiles of the current path.
func colsPanelTile(k int, a *float64, lda int, b, c []float64) {
	if useAccel == accelAVX2 {
		colsPanel6x8AVX2(k, a, lda, &b[0], &c[0])
		colsPanel6x8AVX2(k, a, lda, &b[multiPanel/2], &c[multiPanel/2])
		return
	}
	colsPanel8x16AVX512(k, a, lda, &b[0], &c[0])
}
