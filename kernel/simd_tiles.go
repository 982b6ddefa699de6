package kernel

import (
	"unsafe"

	"gonum.org/v1/gonum/blas/blas64"
)

// avx2TileRows is the height of the AVX2 tiles and of the panels of X they
// read: a 6×16 tile (6×32 in float32 mode) is two 6×8 pieces (6×16), each
// keeping 12 of the 16 ymm registers as accumulators, two for centers and
// two for broadcasts of x. Chosen by measurement against the 4×8 pieces
// with 8 accumulators used before, a 4×12 tile and an 8×16 one built from
// 6×8 and 2×16 pieces (docs/performance.md, "Inner kernels"; BenchmarkTiles
// keeps the comparison with the 4×8 pieces). The height must match the
// generator's (kernel/internal/asm, avx2TileRows).
const avx2TileRows = 6

// gemmAVX2 holds the float64 AVX2 tiles by height: gemmAVX2[h] computes an
// h×16 tile from an h-row panel of X (h = 6 but for the last panel of a block).
var gemmAVX2 = [avx2TileRows + 1]func(k int, a, b, c *float64, ldc int, add bool){
	nil, gemm1x16AVX2, gemm2x16AVX2, gemm3x16AVX2, gemm4x16AVX2, gemm5x16AVX2, gemm6x16AVX2,
}

// gemmHalvesAVX2 holds the same tiles on panels of centers packed as two
// halves of 8 (plan.half): b is the first half's [k][8], the second half
// boff values after it. Each element is the same FMA chain as gemmAVX2's:
// the same bits.
var gemmHalvesAVX2 = [avx2TileRows + 1]func(k int, a, b, c *float64, ldc int, add bool, boff int){
	nil, gemm1x16HAVX2, gemm2x16HAVX2, gemm3x16HAVX2, gemm4x16HAVX2, gemm5x16HAVX2, gemm6x16HAVX2,
}

// halfPanels reports whether plans prepared for the inner kernels acc pack
// their float64 centers as halves (plan.half): on AVX2, whose 6×16 tile is
// two 6×8 pieces, each a k loop of its own over one half. In d×16 panels
// each piece read every other 64-byte line, half of the L1 cache's sets,
// and evicted the panel of X the second piece reads again; with halves
// each piece reads 8·d contiguous values. Two threads, 256-row blocks of
// X·Cᵀ at d = 784, M = 2,000, interleaved (docs/performance.md, "The AVX2
// tile on halves of panels"): median +2.7–4.5%, best unchanged, same bits.
func halfPanels(acc accel) bool { return acc == accelAVX2 }

// gemmF32AVX2 holds the float32 AVX2 tiles by height, as gemmAVX2: float32
// sums within a k-block added to the float64 tile.
var gemmF32AVX2 = [avx2TileRows + 1]func(k int, a, b *float32, c *float64, ldc int, add bool){
	nil, gemm1x32F32AVX2, gemm2x32F32AVX2, gemm3x32F32AVX2, gemm4x32F32AVX2, gemm5x32F32AVX2, gemm6x32F32AVX2,
}

// packPanels packs rows [r0, r0+rows) of the row-major x (stride, d columns)
// into dst as panels of h rows, feature-major, the last panel holding the
// remaining rows (rows mod h, with that stride): rows·d values, no padding,
// so the panel starting at row i begins at dst[i·d].
func packPanels[T, S float32 | float64](dst []T, x []S, stride, r0, rows, d, h int) {
	for ip := 0; ip < rows; ip += h {
		ph := min(h, rows-ip)
		panel := dst[ip*d : (ip+ph)*d]
		if ph == 6 {
			pack6(panel, x, stride, r0+ip, d)
			continue
		}
		for i := 0; i < ph; i++ {
			row := x[(r0+ip+i)*stride : (r0+ip+i)*stride+d]
			for k, v := range row {
				panel[k*ph+i] = T(v)
			}
		}
	}
}

// pack6 is pack8 for the AVX2 tiles' panels of 6 rows.
func pack6[T, S float32 | float64](panel []T, x []S, stride, r, d int) {
	x0, x1 := x[r*stride:][:d], x[(r+1)*stride:][:d]
	x2, x3 := x[(r+2)*stride:][:d], x[(r+3)*stride:][:d]
	x4, x5 := x[(r+4)*stride:][:d], x[(r+5)*stride:][:d]
	panel = panel[:6*d]
	for k := range x0 {
		p := panel[6*k : 6*k+6 : 6*k+6]
		p[0], p[1], p[2] = T(x0[k]), T(x1[k]), T(x2[k])
		p[3], p[4], p[5] = T(x3[k]), T(x4[k]), T(x5[k])
	}
}

// kBlocks returns the length of the feature blocks d is cut into: at most
// kBlock, all but the last equal.
func kBlocks(d int) int {
	nk := (d + kBlock - 1) / kBlock
	return (d + nk - 1) / nk
}

// tileLoop calls tile(ip, jp, h, k0, kl) for the tiles of a rows×mp block of
// dot products over d features, cp holding the centers in panels of tw
// (d×tw values each): panels of centers (jp) outer, panels of th rows of X
// (ip, h rows: th but for a last shorter panel) inside, and for each tile
// its feature blocks [k0, k0+kl) of kBlocks(d) in order, the first setting
// the tile and the others adding to it.
//
// The feature blocks are innermost so that the tile of K stays in L1
// between them and is written to memory once. The order used before (the
// feature blocks outermost, each sweeping the whole block of K, 1–4 MiB,
// beyond L2) read and wrote every tile once per block.
//
// The packed panel of centers is read from L2 for every panel of rows but
// the first, which waits for it from L3 (the block of X streaming through
// L2 evicts it). With prefetch, a share of the next panel is prefetched
// into L2 before each feature block of each tile. Measured on machine D at
// d = 784, M = 2,000, 256 rows (docs/performance.md, "Distance product at
// d = 784"), the first tile of a panel took 2.3× (AVX-512) and 4.7× (AVX2)
// the time of the others; with the prefetch 1.1× and 1.2×, and a column of
// tiles 3% (AVX-512) and 13–15% (AVX2) less (medians). Whole blocks gained
// 1–4% with the AVX2 tiles and nothing measurable, or lost up to 2%, with
// the AVX-512 ones (whose tile reads more of L1 per step), so only the AVX2
// paths ask for it.
func tileLoop[T float32 | float64](rows, mp, d, th, tw int, cp []T, prefetch bool, tile func(ip, jp, h, k0, kl int)) {
	kc := kBlocks(d)
	nk := (d + kc - 1) / kc
	panel := d * tw
	es := int(unsafe.Sizeof(cp[0]))
	line := 64 / es
	// Each tile prefetches chunk values of the next panel (its ⌈rows/th⌉
	// tiles cover it), sub of them before each feature block.
	chunk := roundUp((panel*th+rows-1)/max(rows, 1), line)
	sub := roundUp((chunk+nk-1)/nk, line)
	for jp := 0; jp < mp; jp += tw {
		next := cp[(jp+tw)%mp*d:][:panel] // after the last panel, the first
		for ip := 0; ip < rows; ip += th {
			h := min(th, rows-ip)
			for k0, q := 0, 0; k0 < d; k0, q = k0+kc, q+1 {
				if off := ip/th*chunk + q*sub; prefetch && q*sub < chunk && off < panel {
					prefetchT1((*byte)(unsafe.Pointer(&next[off])), es*min(sub, chunk-q*sub, panel-off))
				}
				tile(ip, jp, h, k0, min(kc, d-k0))
			}
		}
	}
}

// dotsAVX2 is dots on the AVX2 tiles: x_i·c_j for the rows i of x[x0:x0+rows]
// into w.blk (stride mp) for j < mp, exactly rows rows written. The sums are
// those of the AVX-512 tile (per element an FMA chain over each feature
// block, the blocks added in order): the same bits.
func (p *plan) dotsAVX2(w *work, x blas64.General, x0, rows int) {
	d, mp := p.d, p.mp
	packPanels(w.a, x.Data, x.Stride, x0, rows, d, avx2TileRows)
	tiles(accelAVX2, p.half, w.a, p.cp, rows, mp, d, w.blk, mp, false, avx2TileRows)
}

// tiles sets (or, when add, increments) the h×cols product of the
// packed a (h rows × k features, panels of th rows) and the packed centers
// b (cols of them, panels of panelCols, as two halves when half) into c
// (row stride ldc), on the tiles of acc over the feature blocks kBlocks(k),
// as dots does for a whole block (and strassenDots for each product).
func tiles(acc accel, half bool, a, b []float64, h, cols, k int, c []float64, ldc int, add bool, th int) {
	switch {
	case acc == accelAVX512:
		// One call a panel of centers: its tiles with every panel of rows,
		// each over the feature blocks, in tileLoop's order with its sums
		// (tilesAVX512Seq, TestTilesPanelsKb), prefetching the next panel
		// of centers into L2 a share before each tile.
		if k == 0 || h <= 0 {
			return
		}
		np := (h + panelRows - 1) / panelRows
		panel := k * panelCols
		chunk := roundUp((8*panel+np-1)/np, 64)
		for jp := 0; jp < cols; jp += panelCols {
			next := &b[(jp+panelCols)%cols*k] // after the last panel, the first
			gemm8x16PanelsKbPfAVX512(k, kBlocks(k), np, &a[0], &b[jp*k], &c[jp], ldc, add, next, chunk)
		}
	case half:
		const hw = panelCols / 2
		tileLoop(h, cols, k, th, panelCols, b, true, func(ip, jp, ph, k0, kl int) {
			gemmHalvesAVX2[ph](kl, &a[ip*k+k0*ph], &b[jp*k+k0*hw], &c[ip*ldc+jp], ldc, add || k0 > 0, hw*k)
		})
	default:
		tileLoop(h, cols, k, th, panelCols, b, true, func(ip, jp, ph, k0, kl int) {
			gemmAVX2[ph](kl, &a[ip*k+k0*ph], &b[jp*k+k0*panelCols], &c[ip*ldc+jp], ldc, add || k0 > 0)
		})
	}
}

// dots32AVX2 is dots32 on the float32 AVX2 tiles (X rows from p.x).
func (p *plan) dots32AVX2(w *work, r0, r1 int) {
	rows, d, mp := r1-r0, p.d, p.mp
	p.packX32Panels(w.a32, r0, rows, avx2TileRows)
	tileLoop(rows, mp, d, avx2TileRows, panelCols32, p.cp32, true, func(ip, jp, h, k0, kl int) {
		gemmF32AVX2[h](kl, &w.a32[ip*d+k0*h], &p.cp32[jp*d+k0*panelCols32], &w.blk[ip*mp+jp], mp, k0 > 0)
	})
}

// gemmF32to32AVX2 holds the float32 AVX2 tiles with a float32 result by
// height, as gemmAVX2 (the blocks32 path: one feature block, no add).
var gemmF32to32AVX2 = [avx2TileRows + 1]func(k int, a, b, c *float32, ldc int){
	nil, gemm1x32F32to32AVX2, gemm2x32F32to32AVX2, gemm3x32F32to32AVX2, gemm4x32F32to32AVX2, gemm5x32F32to32AVX2, gemm6x32F32to32AVX2,
}

// dots32to32AVX2 is dots32to32 on the AVX2 tiles. The rows of w.blk32 from
// rows up to the next multiple of 4 are set to zero: fusedGaussian32 reads
// them (with zero coefficients) in its last group of four rows.
func (p *plan) dots32to32AVX2(w *work, r0, r1 int) {
	rows, d, mp := r1-r0, p.d, p.mp
	p.packX32Panels(w.a32, r0, rows, avx2TileRows)
	for jp := 0; jp < mp; jp += panelCols32 {
		b := &p.cp32[jp*d]
		for ip := 0; ip < rows; ip += avx2TileRows {
			h := min(avx2TileRows, rows-ip)
			gemmF32to32AVX2[h](d, &w.a32[ip*d], b, &w.blk32[ip*mp+jp], mp)
		}
	}
	clear(w.blk32[rows*mp : roundUp(rows, 4)*mp])
}

// pass32 holds the kernels of the float32 passes (the blocks32 path) for
// one set of inner kernels.
type pass32 struct {
	expRowDot func(row, cc, v *float32, n int, xx, ng float32) float32
	axpy4     func(n int, a *[4]float32, x *float32, stride int, y *float32)
	flush     func(n int, src *float32, dst *float64)
}

// passKernels32 returns the float32 pass kernels of acc (AVX2 or AVX-512).
func passKernels32(acc accel) pass32 {
	if acc == accelAVX2 {
		return pass32{expRowDotF32AVX2, axpy4F32AVX2, flush32AVX2}
	}
	return pass32{expRowDotF32AVX512, axpy4F32AVX512, flush32AVX512}
}
