package kernel

//go:generate go run ./internal/asmtrsm -out trsm_amd64.s -stubs trsm_stub_amd64.go -pkg kernel

import (
	"fmt"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// Products for blocked triangular solves with many right-hand sides
// (solver's L⁻¹X): the solved rows of X are packed once into panels of
// 16 float64 (32 float32) columns, and the rows of the factor are read in
// place, eight at a time, by a register tile (kernel/internal/asmtrsm) that
// stores or subtracts its 8×16 (8×32) block of the result directly. The
// factor is not packed: on AVX-512 this tile ran at 97% of the 8×16 tile's
// in-cache peak on the solves' update shape (8 rows × 512 of the factor, a
// 16-column panel of 512 solved rows), where kernel.Dense, which packs the
// factor's block first, spent 5% of the update packing and ran its tile at
// 94% (docs/performance.md, "Triangular solves with many right-hand
// sides"). Every element of a product is the sum over p ascending from
// zero, then stored or subtracted: whatever the caller's split of the rows
// or columns, the same bits.

// RowPanels is a k×t float64 matrix B packed for RowPanels.MulRows:
// ⌈t/16⌉ panels, panel q holding columns [16q, 16q+16) of B as [k][16]
// (zeros past column t). Rows gives a view of some of its rows.
type RowPanels struct {
	k, t, stride int
	data         []float64
}

// RowPanelsLen is the length of the buffer PackRowPanels needs for a k×t
// matrix: k·16 values per 16 columns (rounded up).
func RowPanelsLen(k, t int) int { return (t + 15) / 16 * 16 * k }

// NewRowPanels returns a k×t packed matrix on buf, which must hold
// RowPanelsLen(k, t) values (contents as they are; Pack fills them).
func NewRowPanels(k, t int, buf []float64) RowPanels {
	n := RowPanelsLen(k, t)
	if len(buf) < n {
		panic(fmt.Sprintf("kernel: NewRowPanels: buffer of %d for %d×%d", len(buf), k, t))
	}
	return RowPanels{k: k, t: t, stride: 16 * k, data: buf[:n]}
}

// PackRowPanels packs b (k×t) into buf, which must hold
// RowPanelsLen(k, t) values, and returns the packed matrix (sharing buf).
func PackRowPanels(b blas64.General, buf []float64) RowPanels {
	p := NewRowPanels(b.Rows, b.Cols, buf)
	p.Pack(b)
	return p
}

// Pack overwrites p with b (p's size), zeros past its last column.
func (p RowPanels) Pack(b blas64.General) {
	if b.Rows != p.k || b.Cols != p.t {
		panic(fmt.Sprintf("kernel: RowPanels.Pack: %d×%d into %d×%d", b.Rows, b.Cols, p.k, p.t))
	}
	for i := range p.k {
		row := b.Data[i*b.Stride : i*b.Stride+p.t]
		for q := 0; 16*q < p.t; q++ {
			dst := p.data[q*p.stride+16*i : q*p.stride+16*i+16]
			clear(dst[copy(dst, row[16*q:]):])
		}
	}
}

// Rows returns rows [r0, r1) of p (no copy).
func (p RowPanels) Rows(r0, r1 int) RowPanels {
	if r0 < 0 || r1 < r0 || r1 > p.k {
		panic(fmt.Sprintf("kernel: RowPanels.Rows(%d, %d) of %d rows", r0, r1, p.k))
	}
	return RowPanels{k: r1 - r0, t: p.t, stride: p.stride, data: p.data[16*r0:]}
}

// MulRows sets y = a·B, or y −= a·B when sub, for a m×k (read in place,
// row stride a.Stride) and y m×t.
func (p RowPanels) MulRows(y, a blas64.General, sub bool) {
	m, k := a.Rows, p.k
	if a.Cols != k || y.Rows != m || y.Cols != p.t {
		panic(fmt.Sprintf("kernel: RowPanels.MulRows: a %d×%d, B %d×%d, y %d×%d", a.Rows, a.Cols, k, p.t, y.Rows, y.Cols))
	}
	if m == 0 || p.t == 0 {
		return
	}
	if k == 0 || useAccel != accelAVX512 {
		mulRowsGo(k, p.t, p.stride, 16, p.data, a.Data, a.Stride, y.Data, y.Stride, m, sub)
		return
	}
	var tmp [8 * 16]float64
	var pad []float64
	for i0 := 0; i0 < m; i0 += 8 {
		rows := min(8, m-i0)
		ap, lda := &a.Data[i0*a.Stride], a.Stride
		if rows < 8 {
			pad = padRows(pad, a.Data[i0*a.Stride:], a.Stride, rows, k)
			ap, lda = &pad[0], k
		}
		for q := 0; 16*q < p.t; q++ {
			cols := min(16, p.t-16*q)
			b := &p.data[q*p.stride]
			if rows == 8 && cols == 16 {
				trsmRows8x16AVX512(k, ap, lda, b, &y.Data[i0*y.Stride+16*q], y.Stride, sub)
				continue
			}
			trsmRows8x16AVX512(k, ap, lda, b, &tmp[0], 16, false)
			edgeStore(tmp[:], 16, y.Data[i0*y.Stride+16*q:], y.Stride, rows, cols, sub)
		}
	}
}

// RowPanels32 is RowPanels in float32, in panels of 32 columns ([k][32]).
type RowPanels32 struct {
	k, t, stride int
	data         []float32
}

// RowPanels32Len is the length of the buffer PackRowPanels32 needs for a
// k×t matrix: k·32 values per 32 columns (rounded up).
func RowPanels32Len(k, t int) int { return (t + 31) / 32 * 32 * k }

// NewRowPanels32 returns a k×t packed matrix on buf, which must hold
// RowPanels32Len(k, t) values (contents as they are; Pack fills them).
func NewRowPanels32(k, t int, buf []float32) RowPanels32 {
	n := RowPanels32Len(k, t)
	if len(buf) < n {
		panic(fmt.Sprintf("kernel: NewRowPanels32: buffer of %d for %d×%d", len(buf), k, t))
	}
	return RowPanels32{k: k, t: t, stride: 32 * k, data: buf[:n]}
}

// PackRowPanels32 packs b (k×t) into buf, which must hold
// RowPanels32Len(k, t) values, and returns the packed matrix (sharing buf).
func PackRowPanels32(b blas32.General, buf []float32) RowPanels32 {
	p := NewRowPanels32(b.Rows, b.Cols, buf)
	p.Pack(b)
	return p
}

// Pack overwrites p with b (p's size), zeros past its last column.
func (p RowPanels32) Pack(b blas32.General) {
	if b.Rows != p.k || b.Cols != p.t {
		panic(fmt.Sprintf("kernel: RowPanels32.Pack: %d×%d into %d×%d", b.Rows, b.Cols, p.k, p.t))
	}
	for i := range p.k {
		row := b.Data[i*b.Stride : i*b.Stride+p.t]
		for q := 0; 32*q < p.t; q++ {
			dst := p.data[q*p.stride+32*i : q*p.stride+32*i+32]
			clear(dst[copy(dst, row[32*q:]):])
		}
	}
}

// Rows returns rows [r0, r1) of p (no copy).
func (p RowPanels32) Rows(r0, r1 int) RowPanels32 {
	if r0 < 0 || r1 < r0 || r1 > p.k {
		panic(fmt.Sprintf("kernel: RowPanels32.Rows(%d, %d) of %d rows", r0, r1, p.k))
	}
	return RowPanels32{k: r1 - r0, t: p.t, stride: p.stride, data: p.data[32*r0:]}
}

// MulRows sets y = a·B, or y −= a·B when sub, for a m×k (read in place,
// row stride a.Stride) and y m×t, in float32.
func (p RowPanels32) MulRows(y, a blas32.General, sub bool) {
	m, k := a.Rows, p.k
	if a.Cols != k || y.Rows != m || y.Cols != p.t {
		panic(fmt.Sprintf("kernel: RowPanels32.MulRows: a %d×%d, B %d×%d, y %d×%d", a.Rows, a.Cols, k, p.t, y.Rows, y.Cols))
	}
	if m == 0 || p.t == 0 {
		return
	}
	if k == 0 || useAccel != accelAVX512 {
		mulRowsGo(k, p.t, p.stride, 32, p.data, a.Data, a.Stride, y.Data, y.Stride, m, sub)
		return
	}
	var tmp [8 * 32]float32
	var pad []float32
	for i0 := 0; i0 < m; i0 += 8 {
		rows := min(8, m-i0)
		ap, lda := &a.Data[i0*a.Stride], a.Stride
		if rows < 8 {
			pad = padRows(pad, a.Data[i0*a.Stride:], a.Stride, rows, k)
			ap, lda = &pad[0], k
		}
		for q := 0; 32*q < p.t; q++ {
			cols := min(32, p.t-32*q)
			b := &p.data[q*p.stride]
			if rows == 8 && cols == 32 {
				trsmRows8x32F32AVX512(k, ap, lda, b, &y.Data[i0*y.Stride+32*q], y.Stride, sub)
				continue
			}
			trsmRows8x32F32AVX512(k, ap, lda, b, &tmp[0], 32, false)
			edgeStore(tmp[:], 32, y.Data[i0*y.Stride+32*q:], y.Stride, rows, cols, sub)
		}
	}
}

// padRows copies the first k values of rows < 8 rows of a (stride lda)
// into an 8×k buffer (zeros below), so that the tile reads eight rows in
// bounds.
func padRows[T float32 | float64](pad, a []T, lda, rows, k int) []T {
	if cap(pad) < 8*k {
		pad = make([]T, 8*k)
	}
	pad = pad[:8*k]
	clear(pad)
	for r := range rows {
		copy(pad[r*k:(r+1)*k], a[r*lda:r*lda+k])
	}
	return pad
}

// edgeStore stores (or subtracts) the rows × cols corner of the tile tmp
// (row stride w) into y (row stride ldy).
func edgeStore[T float32 | float64](tmp []T, w int, y []T, ldy, rows, cols int, sub bool) {
	for r := range rows {
		yr := y[r*ldy : r*ldy+cols]
		tr := tmp[r*w : r*w+cols]
		if sub {
			for s, v := range tr {
				yr[s] -= v
			}
		} else {
			copy(yr, tr)
		}
	}
}

// mulRowsGo is MulRows without SIMD: each element summed over p
// ascending from zero, then stored or subtracted.
func mulRowsGo[T float32 | float64](k, t, stride, w int, b, a []T, lda int, y []T, ldy, m int, sub bool) {
	for i := range m {
		ai := a[i*lda : i*lda+k]
		yi := y[i*ldy : i*ldy+t]
		for c := range yi {
			q, s := c/w, c%w
			var sum T
			for p, v := range ai {
				sum += v * b[q*stride+p*w+s]
			}
			if sub {
				yi[c] -= sum
			} else {
				yi[c] = sum
			}
		}
	}
}
