package kernel

import "gonum.org/v1/gonum/blas/blas64"

// Panels is a k×t matrix B packed for the multi-output tiles (multi.go):
// ⌈t/16⌉ panels [k][16], zero past column t. SubMul and SubMulT subtract
// products of a strided matrix with it, eight rows or columns at a time on
// the AVX-512 tiles (plain loops elsewhere); solver's triangular solves with
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
	if useAccel != accelAVX512 {
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
	for i0 := 0; i0 < m; i0 += panelRows {
		rows := min(panelRows, m-i0)
		ap, lda := &a.Data[i0*a.Stride], a.Stride
		if rows < panelRows {
			// The last rows, copied so that the tile reads eight rows in bounds.
			pad = make([]float64, panelRows*k)
			for r := range rows {
				copy(pad[r*k:(r+1)*k], a.Data[(i0+r)*a.Stride:])
			}
			ap, lda = &pad[0], k
		}
		for q := 0; q*multiPanel < p.t; q++ {
			rowsPanel8x16AVX512(k, ap, lda, &p.data[q*k*multiPanel], &out[0])
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
	if useAccel != accelAVX512 {
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
	for j0 := 0; j0 < m; j0 += panelRows {
		cols := min(panelRows, m-j0)
		ap, lda := &a.Data[j0], a.Stride
		if cols < panelRows {
			// The last columns, copied so that the tile reads eight in bounds.
			pad = make([]float64, k*panelRows)
			for r := range k {
				copy(pad[r*panelRows:r*panelRows+cols], a.Data[r*a.Stride+j0:r*a.Stride+m])
			}
			ap, lda = &pad[0], panelRows
		}
		for q := 0; q*multiPanel < p.t; q++ {
			clear(acc[:])
			colsPanel8x16AVX512(k, ap, lda, &p.data[q*k*multiPanel], &acc[0])
			for r := range cols {
				yr := y.Data[(j0+r)*y.Stride+q*multiPanel : (j0+r)*y.Stride+min(p.t, (q+1)*multiPanel)]
				for s := range yr {
					yr[s] -= acc[r*multiPanel+s]
				}
			}
		}
	}
}
