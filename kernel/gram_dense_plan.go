package kernel

import (
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/internal/parallel"
)

// The memory Dense's products hold, for callers that plan memory before
// allocating (the blocked factorizations, FALKON's preconditioner, exact
// KRR), and the reservations that keep its packing buffers between calls.

// PackBytes returns the memory one Gemm or SyrkLower call holds for an m×n
// result summed over k, for callers that plan memory before allocating: its
// packing buffer (both operands' panels for one chunk of k-blocks) and its
// other allocations (the task list, leading-zero counts and scratch tiles,
// bounded by denseCallBytes). SyrkPackBytes is less for the products of
// the blocked factorizations.
func (d Dense) PackBytes(m, n, k int) int64 {
	if m == 0 || n == 0 || k == 0 {
		return 0
	}
	return packBytes(m, n, k) + denseCallBytes(m, n, k, parallel.Workers(d.Workers))
}

// SyrkPackBytes is PackBytes for the products of the blocked
// factorizations on an n×n matrix with k-blocks of k (solver's
// CholeskyBlocked and Lauum): SyrkLower with alpha = ±1 on an n×n result
// over k, LauumRows of k rows, and the Gemms of CholeskyBlocked's panel
// (their packed operands are smaller). On AVX-512 the SyrkLower tiles read
// Â from B̂'s panels, so only B̂ is packed: the buffer is half of
// PackBytes(n, n, k)'s. ReserveSyrk holds that buffer.
func (d Dense) SyrkPackBytes(n, k int) int64 {
	if n == 0 || k == 0 {
		return 0
	}
	return 8*int64(d.syrkLen(n, k)) + denseCallBytes(n, n, k, parallel.Workers(d.Workers))
}

// ReserveSyrk is Reserve for the products SyrkPackBytes(n, k) plans: it
// holds their packing buffer until release is called.
func (d Dense) ReserveSyrk(n, k int) (release func()) {
	if n > 0 && k > 0 {
		return densePacks.reserve(d.syrkLen(n, k))
	}
	return densePacks.reserve(0)
}

// readsInPlace reports whether d's SyrkLower with alpha = ±1 reads Â from
// B̂'s panels (the AVX-512 tiles) rather than packing it.
func (d Dense) readsInPlace() bool { return !d.Portable && useAccel == accelAVX512 }

// syrkLen is the length of the packing buffer of SyrkLower with alpha = ±1
// on an n×n result over k: B̂'s panels when d reads Â in place, both
// operands' otherwise. The Gemms of CholeskyBlocked's panel (at its default
// widths 512 and 128, op(a) at most (n − 512)×384 and op(b) 384×128) pack
// at most (128 + n − 512 + 7)·384 < n·512 values: they fit.
func (d Dense) syrkLen(n, k int) int {
	if d.readsInPlace() {
		nk := (k + denseKBlock - 1) / denseKBlock
		kc := (k + nk - 1) / nk
		return roundUp(n, panelCols) * min(kc*denseKBlocks, k)
	}
	return packLen(n, n, k)
}

// denseCallBytes bounds what one Dense.run allocates besides its packing
// buffer for an m×n result over k on w workers: the leading-zero counts (4
// bytes for each panel of Â and 8 for each of B̂, whose trailing zeros are
// counted too, in each k-block of a chunk, panels
// of at least 6 rows and 8 columns), the task list (16 bytes for each
// block of at least 126 rows by denseCols columns), for each worker one scratch
// tile of 8×16 doubles and 1.5 KiB for its goroutines (up to three worker
// loops a chunk: two packing passes and the tiles; a goroutine's closure
// and descriptor take about 500 bytes when the runtime has none free, the
// closures alone, 384 bytes, in each further chunk), and 8 KiB for the
// run's state and closures (TestDenseSyrkPlannedBytes saw up to 4.2 KiB
// of it, varying from call to call with the runtime's own allocations).
func denseCallBytes(m, n, k, w int) int64 {
	nk := (k + denseKBlock - 1) / denseKBlock
	kc := (k + nk - 1) / nk
	nkb := (min(kc*denseKBlocks, k) + kc - 1) / kc
	panels := (m+avx2TileRows-1)/avx2TileRows + 2*((n+7)/8)
	rowBlocks := (m + avx2TileRows*(denseRows/avx2TileRows) - 1) / (avx2TileRows * (denseRows / avx2TileRows))
	tasks := rowBlocks * ((n + denseCols - 1) / denseCols)
	chunks := (k + kc*denseKBlocks - 1) / (kc * denseKBlocks)
	return int64(4*nkb*panels+16*tasks+w*(8*panelRows*panelCols+1536)+(chunks-1)*w*384) + 8<<10
}

// packBytes returns the bytes of the packing buffer Dense.run takes for an
// m×n result over k (both operands' panels for one chunk of k-blocks).
func packBytes(m, n, k int) int64 {
	if m == 0 || n == 0 || k == 0 {
		return 0
	}
	return 8 * int64(packLen(m, n, k))
}

// packLen is the length of the packing buffer of Dense's product of an m×k
// by a k×n matrix (see run): a chunk of k-blocks of both operands, packed,
// with the rows of Â rounded up for either tile height (denseTile), so that
// a buffer reserved before a change of inner kernels still fits.
func packLen(m, n, k int) int {
	nk := (k + denseKBlock - 1) / denseKBlock
	kc := (k + nk - 1) / nk
	rows := max(roundUp(m, panelRows), roundUp(m, avx2TileRows))
	return (roundUp(n, panelCols) + rows) * min(kc*denseKBlocks, k)
}

// Reserve readies the packing buffer of products of an m×k by a k×n matrix
// (Gemm, or SyrkLower with n = m) and holds it until the returned release
// is called, so that a sequence of products no larger than that — a blocked
// factorization's, whose sizes grow or shrink call by call — reuses one
// buffer from whichever goroutine or P they run. Without it, each product
// that found the kept buffer too small (or, before it was one weakly held
// buffer, did not see it: sync.Pool caches per P) allocated another: 8.8 MB
// of extra buffers, garbage beside a 3.9 MB one, in one FALKON
// preconditioner at M = 1,000, which the Go heap grew by until its next
// collection. Reserves may nest and overlap; the buffer becomes the weakly
// held spare (see packCache) when the last is released.
func (d Dense) Reserve(m, n, k int) (release func()) {
	if m > 0 && n > 0 && k > 0 {
		return densePacks.reserve(packLen(m, n, k))
	}
	return densePacks.reserve(0)
}

// densePacks recycles Dense's packing buffers (see packCache).
var densePacks = packCache[float64]{alloc: hugemem.Float64s}
