package kernel

import "github.com/landmark-ml/landmark/internal/parallel"

// The memory plan of Op: what a product allocates (ScratchBytes) and what
// the Op keeps after its first one (HeldBytes), computed from the shapes
// alone before anything large is allocated.

// shape is a plan holding only what getWork sizes its scratch from (the
// dimensions and the flags prepare sets), without packing C or computing
// norms: ScratchBytes plans from it before anything large is allocated.
func (o *Op) shape() *plan {
	p := &plan{k: o.k}
	p.n, p.m = o.Dims()
	p.d = o.dim()
	p.mp = roundUp(p.m, panelCols)
	dk, ok := o.k.(dotForm)
	if ok {
		p.dk = dk
		_, p.gauss = o.k.(Gaussian)
	}
	switch {
	case o.sc != nil:
		p.sc = &centerPlan{}
		if o.sx != nil {
			p.sp = &sparsePlan{}
		}
	case o.sx != nil:
		p.initSparse(o.sx)
	case ok && o.opt.Float32:
		p.f32 = true
		p.mp = roundUp(p.m, panelCols32)
	}
	if o.sc == nil && (p.sp == nil || p.sp.dense) && l1Applies(o.k, p.mp) {
		p.l1 = &l1Plan{} // sized only: l1Block's packed rows
	}
	return p
}

// workBytes is what one worker's scratch (getWork) takes for t right-hand
// sides, exactly.
func (o *Op) workBytes(t int) int64 {
	return o.shape().workBytes(useAccel, o.BlockRows(), t)
}

// ScratchBytes returns the memory the engine allocates in a product with t
// right-hand sides (t = 0: Block), on the Op's first call, for dense X and
// C (sparse X or C: sparse_engine.go, sparse_centers.go):
//
//   - what the Op keeps after its first call (HeldBytes): C packed into
//     panels (8·mp·d bytes, 4·mp·d in Float32 mode, mp being M rounded up
//     to the panel width) and the squared norms of X and C (8·(n + mp),
//     with 4·mp more for the Gaussian's float32 norms in Float32 mode),
//     for the kernels that use them. An Op on (X, X) packs X itself as its
//     centers: the packed copy is as large as X, and counted here;
//   - per worker that takes a block (at most one per block of rows): one
//     block of K (b×mp, b the BlockRows rounded up to the panel height),
//     the packed block of X (b×d) on the SIMD paths, and for t ≥ 1 the
//     block products' K·V and packing buffers (workBytes, blockPackBytes);
//   - for t = 1 where MulTMul takes the Strassen product, the C-side
//     operands each call forms, or takes back, in a buffer recycled between
//     calls and Ops (strassenHeldBytes; new when no buffer is recycled),
//     and per worker the packed quadrants and sums of X's side and one
//     product (strassenWorkLen);
//   - for t ≥ 1: the padded right-hand side (8·mp, and 4·mp in float32)
//     and the partial sums of the reductions (segments·mp·t values);
//   - on the portable path with d > 16, gonum's Dgemm's goroutine state
//     (gonumGemmBytes);
//   - callBytes for the rest (worker tables, closures, headers).
//
// For Block (t = 0) nothing else is allocated: TestBlockBytesExact measures
// it. A C that is neither a *mat.Dense nor Sparse was copied to a
// *mat.Dense by NewOp (8·M·d bytes), before this plan: not counted.
func (o *Op) ScratchBytes(t int) int64 {
	if o.sc != nil {
		return o.centersScratchBytes(t)
	}
	if o.sx != nil {
		return o.sparseScratchBytes(t)
	}
	n, m := o.Dims()
	b := o.BlockRows()
	sh := o.shape()
	mp := int64(sh.mp)
	w := o.scratchWorkers()
	gemm := o.gonumGemmBytes()
	if t == 0 {
		return o.HeldBytes() + w*o.workBytes(0) + gemm + callBytes
	}
	if s, ok := o.panelScratchBytes(t); ok {
		return s
	}
	seg := int64(segments((n+b-1)/b, int(mp)*t)) // segmentSums's count
	vec := 8 * mp                                // padded (vp), or MulT's float32 zeros (4·mp)
	if sh.f32 {
		vec += 4 * mp // vp32
	}
	var st, stHeld int64 // MulTMul's Strassen scratch a worker, and its C-side operands (strassen.go)
	if t == 1 && o.strassenApplies(useAccel) {
		st = 8 * int64(strassenWorkLen(b, int(mp), sh.d))
		stHeld = o.strassenBytes()
	}
	return o.HeldBytes() + stHeld + 8*seg*mp*int64(t) + vec + w*(o.workBytes(t)+blockPackBytes(b, m, t)+st) + gemm + callBytes
}

// strassenBytes is the size of MulTMul's Strassen operands
// (strassenHeldBytes), 0 when it does not use them (strassenApplies).
func (o *Op) strassenBytes() int64 {
	if !o.strassenApplies(useAccel) {
		return 0
	}
	sh := o.shape()
	return strassenHeldBytes(sh.mp, sh.d)
}

// HeldBytes returns what the Op allocates on its first product and keeps
// for later ones, exactly, for dense X and C: C packed into panels (8·mp·d
// bytes; 4·mp·d in Float32 mode; for the Laplacian on the SIMD path its own
// panels, 8·mp·(d + 1)), and for the kernels that use squared norms those
// of X and C (8·(n + mp), plus 4·mp for the Gaussian's float32 norms in
// Float32 mode) with 4 bytes a chunk of 64 rows of X (lazyNorms, the
// state of X's norms, summed on first use); mp is M rounded up to the panel width (16, or 32 in
// Float32 mode). Where MulTMul's fused pass takes the Strassen product
// (strassen.go: float64 Gaussian, dense X and C, d ≥ 512, SIMD), each call
// also forms the C-side operands, about 7/4 of the packed centers, in a
// buffer recycled between calls and Ops and not kept by the Op:
// ScratchBytes(1) counts them, not HeldBytes (Block, Mul and MulT never
// form them). On (X, X) the packed C is a copy of X in the engine's
// layout: 8·n·d bytes beside the caller's X. It is 0 for sparse X or C
// (ScratchBytes counts their plans).
func (o *Op) HeldBytes() int64 {
	if o.sc != nil || o.sx != nil {
		return 0
	}
	sh := o.shape()
	n, mp, d := int64(sh.n), int64(sh.mp), int64(sh.d)
	if sh.dk == nil {
		if sh.l1 != nil {
			return 8 * mp * (d + 1) // newL1Plan: the panels and a row of zeros
		}
		return 0 // k.Block on X and C as they are
	}
	var held int64
	if sh.dk.needsNorms() {
		held = 8*(n+mp) + lazyNormsBytes(sh.n) // X's norms summed on first use (plan.norms)
	}
	if sh.f32 {
		if sh.gauss {
			held += 4 * mp
		}
		return held + 4*mp*d
	}
	return held + 8*mp*d
}

// gonumGemmBytes is what gonum's Dgemm allocates in the products of dense
// X over all row blocks when the engine calls it (the portable path with d
// > smallDim in float64; plan.dots): a product of b rows by M columns with
// at least minParBlock tiles of 64×64 runs one goroutine a tile, each
// taking a closure and its deferred call (2 allocations, 210–216 bytes a
// tile measured with gonum v0.17.0: 26,944 bytes for 256×2,000, 7,833 for
// 112×1,100), and a channel per call: gemmTileBytes a tile and a call.
// At n = M = 2,000 that is 0.2 MB, which the plans left out before.
func (o *Op) gonumGemmBytes() int64 {
	sh := o.shape()
	if useAccel != accelPortable || sh.dk == nil || sh.f32 || sh.d <= smallDim || sh.m == 0 || sh.sp != nil {
		return 0
	}
	n, b := sh.n, o.BlockRows()
	tiles := func(rows int) int64 {
		t := int64((rows+gemmTile-1)/gemmTile) * int64((sh.m+gemmTile-1)/gemmTile)
		if t < gemmMinTiles {
			return 0 // gonum runs it serially, without allocating
		}
		return t + 1
	}
	full := int64(n / b)
	total := full * tiles(b)
	if r := n % b; r > 0 {
		total += tiles(r)
	}
	return gemmTileBytes * total
}

// gonum's Dgemm's tile side and the fewest tiles it runs in parallel
// (blockSize and minParBlock in gonum/blas/gonum), and gonumGemmBytes's
// bound on what it allocates a tile (measured 210–216 bytes).
const (
	gemmTile      = 64
	gemmMinTiles  = 4
	gemmTileBytes = 256
)

// callBytes is what a product allocates besides its arrays: the worker
// table, closures, goroutines' bookkeeping and matrix headers (measured
// below 16 KiB in TestScratchBytesWide; counted as 64 KiB).
const callBytes = 64 << 10

// scratchWorkers is the number of workers that allocate scratch in a
// product: each takes its first block before allocating, so at most one per
// block of rows.
func (o *Op) scratchWorkers() int64 {
	n, _ := o.Dims()
	b := o.BlockRows()
	return int64(max(min(parallel.Workers(o.opt.Workers), (n+b-1)/b), 1))
}

// blockPackBytes is the larger packing buffer of a block's two products with
// t right-hand sides: K_B·V (b×t over M) and K_Bᵀ·U (M×t over b).
func blockPackBytes(b, m, t int) int64 {
	return max(packBytes(b, t, m), packBytes(m, t, b))
}
