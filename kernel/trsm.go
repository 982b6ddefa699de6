package kernel

//go:generate go run ./internal/asmtrsm -out trsm_amd64.s -stubs trsm_stub_amd64.go -pkg kernel

import (
	"fmt"
	"unsafe"

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
type RowPanels struct{ rowPanels[float64] }

// RowPanels32 is RowPanels in float32, in panels of 32 columns ([k][32]).
type RowPanels32 struct{ rowPanels[float32] }

// RowPanelsLen is the length of the buffer PackRowPanels needs for a k×t
// matrix: k·16 values per 16 columns (rounded up).
func RowPanelsLen(k, t int) int { return panelsLen(k, t, 16) }

// RowPanels32Len is the length of the buffer PackRowPanels32 needs for a
// k×t matrix: k·32 values per 32 columns (rounded up).
func RowPanels32Len(k, t int) int { return panelsLen(k, t, 32) }

// NewRowPanels returns a k×t packed matrix on buf, which must hold
// RowPanelsLen(k, t) values (contents as they are; Pack fills them).
func NewRowPanels(k, t int, buf []float64) RowPanels {
	return RowPanels{newRowPanels(k, t, 16, buf, "NewRowPanels")}
}

// NewRowPanels32 returns a k×t packed matrix on buf, which must hold
// RowPanels32Len(k, t) values (contents as they are; Pack fills them).
func NewRowPanels32(k, t int, buf []float32) RowPanels32 {
	return RowPanels32{newRowPanels(k, t, 32, buf, "NewRowPanels32")}
}

// PackRowPanels packs b (k×t) into buf, which must hold
// RowPanelsLen(k, t) values, and returns the packed matrix (sharing buf).
func PackRowPanels(b blas64.General, buf []float64) RowPanels {
	p := NewRowPanels(b.Rows, b.Cols, buf)
	p.Pack(b)
	return p
}

// PackRowPanels32 packs b (k×t) into buf, which must hold
// RowPanels32Len(k, t) values, and returns the packed matrix (sharing buf).
func PackRowPanels32(b blas32.General, buf []float32) RowPanels32 {
	p := NewRowPanels32(b.Rows, b.Cols, buf)
	p.Pack(b)
	return p
}

// Pack overwrites p with b (p's size), zeros past its last column.
func (p RowPanels) Pack(b blas64.General) {
	p.pack(b.Rows, b.Cols, b.Stride, b.Data, "RowPanels")
}

// Pack overwrites p with b (p's size), zeros past its last column.
func (p RowPanels32) Pack(b blas32.General) {
	p.pack(b.Rows, b.Cols, b.Stride, b.Data, "RowPanels32")
}

// PackTrans overwrites p with bᵀ for b t×k (p's size transposed), zeros
// past its last column.
func (p RowPanels) PackTrans(b blas64.General) {
	p.packTrans(b.Rows, b.Cols, b.Stride, b.Data, "RowPanels")
}

// PackTrans overwrites p with bᵀ for b t×k (p's size transposed), zeros
// past its last column.
func (p RowPanels32) PackTrans(b blas32.General) {
	p.packTrans(b.Rows, b.Cols, b.Stride, b.Data, "RowPanels32")
}

// Cols returns columns [c0, c1) of p (no copy); c0 must be a multiple of
// 16, the panel width.
func (p RowPanels) Cols(c0, c1 int) RowPanels { return RowPanels{p.cols(c0, c1, "RowPanels")} }

// Cols returns columns [c0, c1) of p (no copy); c0 must be a multiple of
// 32, the panel width.
func (p RowPanels32) Cols(c0, c1 int) RowPanels32 {
	return RowPanels32{p.cols(c0, c1, "RowPanels32")}
}

// Rows returns rows [r0, r1) of p (no copy).
func (p RowPanels) Rows(r0, r1 int) RowPanels { return RowPanels{p.rows(r0, r1, "RowPanels")} }

// Rows returns rows [r0, r1) of p (no copy).
func (p RowPanels32) Rows(r0, r1 int) RowPanels32 {
	return RowPanels32{p.rows(r0, r1, "RowPanels32")}
}

// MulRows sets y = a·B, or y −= a·B when sub, for a m×k (read in place,
// row stride a.Stride) and y m×t.
func (p RowPanels) MulRows(y, a blas64.General, sub bool) {
	p.mulRows(mat64{y.Rows, y.Cols, y.Stride, y.Data}, mat64{a.Rows, a.Cols, a.Stride, a.Data}, sub, "RowPanels")
}

// MulRows sets y = a·B, or y −= a·B when sub, for a m×k (read in place,
// row stride a.Stride) and y m×t, in float32.
func (p RowPanels32) MulRows(y, a blas32.General, sub bool) {
	p.mulRows(mat32{y.Rows, y.Cols, y.Stride, y.Data}, mat32{a.Rows, a.Cols, a.Stride, a.Data}, sub, "RowPanels32")
}

// rowPanels is RowPanels and RowPanels32 in either precision: w columns a
// panel (16 float64, 32 float32, one AVX-512 register row of the tile).
type rowPanels[T float32 | float64] struct {
	k, t, stride, w int
	data            []T
}

// rowMatrix is a row-major matrix in either precision (blas64.General's
// and blas32.General's fields).
type rowMatrix[T float32 | float64] struct {
	rows, cols, stride int
	data               []T
}

type (
	mat64 = rowMatrix[float64]
	mat32 = rowMatrix[float32]
)

// panelsLen is k·w values per w columns of t (rounded up).
func panelsLen(k, t, w int) int { return (t + w - 1) / w * w * k }

func newRowPanels[T float32 | float64](k, t, w int, buf []T, name string) rowPanels[T] {
	n := panelsLen(k, t, w)
	if len(buf) < n {
		panic(fmt.Sprintf("kernel: %s: buffer of %d for %d×%d", name, len(buf), k, t))
	}
	return rowPanels[T]{k: k, t: t, stride: w * k, w: w, data: buf[:n]}
}

func (p rowPanels[T]) pack(rows, cols, stride int, data []T, name string) {
	if rows != p.k || cols != p.t {
		panic(fmt.Sprintf("kernel: %s.Pack: %d×%d into %d×%d", name, rows, cols, p.k, p.t))
	}
	w := p.w
	for i := range p.k {
		row := data[i*stride : i*stride+p.t]
		for q := 0; w*q < p.t; q++ {
			dst := p.data[q*p.stride+w*i : q*p.stride+w*i+w]
			clear(dst[copy(dst, row[w*q:]):])
		}
	}
}

// packTrans is pack of the transpose of the t×k matrix in data.
func (p rowPanels[T]) packTrans(rows, cols, stride int, data []T, name string) {
	if rows != p.t || cols != p.k {
		panic(fmt.Sprintf("kernel: %s.PackTrans: %d×%d transposed into %d×%d", name, rows, cols, p.k, p.t))
	}
	w := p.w
	for q := 0; w*q < p.t; q++ {
		pd := p.data[q*p.stride : q*p.stride+w*p.k]
		n := min(w, p.t-w*q)
		if n < w {
			clear(pd)
		}
		for s := range n {
			row := data[(w*q+s)*stride : (w*q+s)*stride+p.k]
			for i, v := range row {
				pd[i*w+s] = v
			}
		}
	}
}

func (p rowPanels[T]) cols(c0, c1 int, name string) rowPanels[T] {
	if c0 < 0 || c1 < c0 || c1 > p.t || c0%p.w != 0 {
		panic(fmt.Sprintf("kernel: %s.Cols(%d, %d) of %d columns", name, c0, c1, p.t))
	}
	q := p
	q.t, q.data = c1-c0, p.data[c0/p.w*p.stride:]
	return q
}

func (p rowPanels[T]) rows(r0, r1 int, name string) rowPanels[T] {
	if r0 < 0 || r1 < r0 || r1 > p.k {
		panic(fmt.Sprintf("kernel: %s.Rows(%d, %d) of %d rows", name, r0, r1, p.k))
	}
	q := p
	q.k, q.data = r1-r0, p.data[p.w*r0:]
	return q
}

func (p rowPanels[T]) mulRows(y, a rowMatrix[T], sub bool, name string) {
	m, k, w := a.rows, p.k, p.w
	if a.cols != k || y.rows != m || y.cols != p.t {
		panic(fmt.Sprintf("kernel: %s.MulRows: a %d×%d, B %d×%d, y %d×%d", name, a.rows, a.cols, k, p.t, y.rows, y.cols))
	}
	if m == 0 || p.t == 0 {
		return
	}
	if k == 0 || useAccel != accelAVX512 {
		mulRowsGo(k, p.t, p.stride, w, p.data, a.data, a.stride, y.data, y.stride, m, sub)
		return
	}
	var tmp [8 * 32]T // one tile: 8×16 float64 or 8×32 float32
	for i0 := 0; i0 < m; i0 += 8 {
		rows := min(8, m-i0)
		switch {
		case rows == 8:
			p.tileRows(y, &a.data[i0*a.stride], a.stride, i0, 0, 8, &tmp, sub)
		case m >= 8: // the last eight rows, those before i0 again, stored from i0 only
			p.tileRows(y, &a.data[(m-8)*a.stride], a.stride, i0, 8-rows, rows, &tmp, sub)
		default: // fewer than eight rows in all: each alone, the tile reading it eight times
			for r := range rows {
				p.tileRows(y, &a.data[(i0+r)*a.stride], 0, i0+r, 0, 1, &tmp, sub)
			}
		}
	}
}

// tileRows runs the tile on the eight rows of a at ap (row stride lda)
// for every panel and stores (or subtracts, when sub) rows skip …
// skip+rows−1 of its result into y's rows i0 …: straight into y when all
// eight rows and the panel's columns are y's, through tmp otherwise. The
// rows of a are read in place, however few of them y takes (before, a
// last group of fewer than eight rows was copied to a buffer padded with
// zeros, allocated on every call); each row's sums are the same whichever
// rows share its tile.
func (p rowPanels[T]) tileRows(y rowMatrix[T], ap *T, lda, i0, skip, rows int, tmp *[8 * 32]T, sub bool) {
	w := p.w
	for q := 0; w*q < p.t; q++ {
		cols := min(w, p.t-w*q)
		b := &p.data[q*p.stride]
		if rows == 8 && cols == w {
			trsmTile(p.k, ap, lda, b, &y.data[i0*y.stride+w*q], y.stride, sub)
			continue
		}
		trsmTile(p.k, ap, lda, b, &tmp[0], w, false)
		edgeStore(tmp[skip*w:], w, y.data[i0*y.stride+w*q:], y.stride, rows, cols, sub)
	}
}

// trsmTile is the AVX-512 row tile of T's precision: 8×16 float64
// (trsmRows8x16AVX512) or 8×32 float32 (trsmRows8x32F32AVX512), called
// directly (not through a function value, so its pointers stay on the
// stack).
func trsmTile[T float32 | float64](k int, a *T, lda int, b, c *T, ldc int, sub bool) {
	if unsafe.Sizeof(*a) == 8 {
		trsmRows8x16AVX512(k, (*float64)(unsafe.Pointer(a)), lda, (*float64)(unsafe.Pointer(b)), (*float64)(unsafe.Pointer(c)), ldc, sub)
		return
	}
	trsmRows8x32F32AVX512(k, (*float32)(unsafe.Pointer(a)), lda, (*float32)(unsafe.Pointer(b)), (*float32)(unsafe.Pointer(c)), ldc, sub)
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
