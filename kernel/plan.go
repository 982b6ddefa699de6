package kernel

import (
	"context"
	"sync"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/internal/scratch"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Register-block shape of the inner kernel: a tile of K is panelRows rows of X
// by panelCols centers (8×16 doubles: 16 AVX-512 accumulators).
const (
	panelRows = 8
	panelCols = 16
)

// smallDim is the largest d for which the portable code computes the dot
// products with its own loops over packed centers instead of gonum's Dgemm.
const smallDim = 16

// kBlock bounds the number of features one call of the inner kernel covers
// (kBlocks cuts d into equal blocks of at most kBlock). In float32 mode it
// bounds the float32 sums (Options.Float32); in float64 it fixes the
// summation order (the blocks' sums added in order), which every SIMD path
// shares. The engine calls the tile for the feature blocks of one tile of K
// in a row (tileLoop), so the tile stays in L1 between them.
const kBlock = 256

// plan is what an Op computes once: squared norms and C packed into panels.
type plan struct {
	k     Kernel
	dk    dotForm // nil for kernels that are not functions of dot products
	gauss bool
	ng    float64 // −γ for the Gaussian

	x, c    blas64.General
	x32     *Dense32 // X in float32 (then x is empty and f32 is set)
	n, m, d int
	mp      int       // M rounded up to the panel width (panelCols, or panelCols32 with f32)
	cp      []float64 // C packed: mp/16 panels, each d×16 (feature-major), or as two d×8 halves (half)
	// half is set when each panel of cp holds its 16 centers as two
	// feature-major halves of 8 (centers 0–7 then 8–15, d×8 values each)
	// instead of d×16: the AVX2 tiles' layout, chosen when the plan is
	// prepared on the AVX2 path (halfPanels).
	half   bool
	xn, cn []float64 // squared norms (cn padded with zeros to mp); xn filled as xl says
	// xl, for dense X (float64 or float32), has X's squared norms summed a
	// chunk of rows at a time on first use (norms); its state is nil when
	// xn was filled whole by prepare (sparse X) or is not used.
	xl lazyNorms

	f32  bool      // Options.Float32
	cp32 []float32 // with f32: C rounded and packed in mp/32 panels, each d×32
	cn32 []float32 // with f32 and the Gaussian: cn rounded to float32

	l1 *l1Plan     // the Laplacian on dense X and C with SIMD; see l1.go
	sp *sparsePlan // X is sparse (then x is empty); see sparse_engine.go
	sc *centerPlan // C is sparse (then c and cp are empty); see sparse_centers.go
}

// sumsSlot recycles the partial sums of reduce between calls, of this Op
// or any other: one buffer for the whole package (package scratch says why
// not a sync.Pool, whose per-P slots missed and reallocated). kernel.Factored
// runs one Op per group of rows one after the other, which took 18 MB of
// new partial sums per pass with a pool per Op (M = 2,000, 75 groups) and
// takes none now.
var sumsSlot scratch.Slot[float64]

// blocks32 reports whether w forms the Gaussian's blocks of K wholly in
// float32 (the float32 mode's fast path: AVX-512 or AVX2, one k-block of features):
// float32 tiles, the float32 exp and float32 sums within a block.
func (p *plan) blocks32(w *work) bool { return p.blocks32With(w.acc) }

// blocks32With is blocks32 for a worker using the inner kernels acc.
func (p *plan) blocks32With(acc accel) bool {
	return p.f32 && p.gauss && acc != accelPortable && p.d >= 1 && p.d <= kBlock && p.m > 0
}

// panelCols32 is the tile width of the float32 inner kernel (8×32 floats).
const panelCols32 = 32

func (o *Op) prepare() *plan {
	o.once.Do(func() {
		p := &o.plan
		p.k = o.k
		if o.sc != nil {
			p.initCenters(o)
			return
		}
		p.c = o.c.RawMatrix()
		switch {
		case o.sx != nil:
			p.initSparse(o.sx)
		case o.x32 != nil:
			p.x32 = o.x32
		default:
			p.x = o.x.RawMatrix()
		}
		p.n, p.m = o.Dims()
		p.d = o.dim()
		p.mp = roundUp(p.m, panelCols)
		var src *plan // the plan whose packed centers this one shares
		if o.centers != nil && o.sx == nil {
			src = o.centers.prepare()
		}
		dk, ok := o.k.(dotForm)
		if !ok {
			if p.sp != nil {
				p.packSparse()
			}
			switch {
			case src != nil:
				p.l1 = src.l1
			case p.sp == nil || p.sp.dense:
				p.l1 = newL1Plan(o.k, p.c, p.mp)
			}
			return
		}
		if o.opt.Float32 && p.sp == nil {
			p.f32 = true
			p.mp = roundUp(p.m, panelCols32)
		}
		if p.setDotForm(o, dk, src) && src == nil {
			rowNorms(p.cn[:p.m], p.c.Data, p.c.Stride, p.d, o.opt.Workers)
		}
		if p.sp != nil && !p.sp.dense {
			p.packSparse()
			return
		}
		if src != nil {
			p.cp, p.cp32, p.cn32, p.half = src.cp, src.cp32, src.cn32, src.half
			return
		}
		if p.f32 {
			if p.gauss {
				p.cn32 = make([]float32, p.mp)
				for j, v := range p.cn {
					p.cn32[j] = float32(v)
				}
			}
			p.cp32 = make([]float32, p.mp*p.d)
			adviseHuge(p.cp32, p.collapseWork())
			packCenters(p.cp32, p.c, p.m, p.d, panelCols32, panelCols32, o.opt.Workers)
			return
		}
		p.cp = make([]float64, p.mp*p.d)
		adviseHuge(p.cp, p.collapseWork())
		hw := panelCols
		if halfPanels(useAccel) {
			p.half, hw = true, panelCols/2
		}
		packCenters(p.cp, p.c, p.m, p.d, panelCols, hw, o.opt.Workers)
	})
	return &o.plan
}

// packCenters writes the m rows of c (d columns) into dst as panels of tw
// centers, each d×tw values, made of tw/hw parts of hw centers, each d×hw
// values feature-major (hw = tw: one part, center j at
// dst[(j/tw)·tw·d + k·tw + j mod tw]; in general at
// dst[(j/tw)·tw·d + ((j mod tw)/hw)·hw·d + k·hw + j mod hw]), one panel a
// task on up to workers goroutines (0: GOMAXPROCS). dst must hold zeros
// where no center goes (the padding of the last panel). prepare packed the
// centers on one core: part of every new Op's first product, which
// "landmark bench kernel" times (12.5 MB at M = 2,000, d = 784).
func packCenters[T float32 | float64](dst []T, c blas64.General, m, d, tw, hw, workers int) {
	parallel.For(context.Background(), (m+tw-1)/tw, workers, func(_, jp int) {
		panel := dst[jp*tw*d : (jp+1)*tw*d]
		for j := jp * tw; j < min((jp+1)*tw, m); j++ {
			row := c.Data[j*c.Stride : j*c.Stride+d]
			part := panel[(j%tw)/hw*hw*d:]
			for k, v := range row {
				part[k*hw+j%hw] = T(v)
			}
		}
	})
}

// collapseWork reports whether the plan's passes are long enough for the
// packed centers' huge pages to be merged at once when their memory is
// already present (adviseHuge's MADV_COLLAPSE): n ≥ collapseRows. The merge
// costs up to about 4 ms per MB of centers (51 ms for 12.5 MB, once, on
// machine D; usually far less) and the huge pages save 2–3% of every pass, a
// pass taking ≈ 2n·M·d/55e9 s per core: one pass repays the worst case from
// about 35,000 rows, a typical one from about 9,000, and iterative solvers
// make dozens. Below it the pages are only advised, which costs
// microseconds and serves memory Go takes fresh from the system.
func (p *plan) collapseWork() bool { return p.n >= collapseRows }

// collapseRows is collapseWork's threshold.
const collapseRows = 16_384

// work is one worker's scratch space.
type work struct {
	acc accel
	blk []float64 // K block, bp×mp
	a   []float64 // X block packed in panels of panelRows rows, feature-major
	a32 []float32 // the same in float32 mode
	kv  []float64 // K block · V

	blk32, acc32, kv32 []float32 // with blocks32: K block, the block's Kᵀ(K v), K v
	xd                 []float64 // sparse X: a block of rows expanded to dense (allocated on first use)
	st                 []float64 // MulTMul's Strassen operands and product (strassen.go; allocated on first use)
}

// workPool recycles the per-worker scratch (work) between calls of any Op.
// An iterative solver calls its Op once an iteration; a fresh work per
// worker and call (a bp×mp block of K, ≈ 1 MB at M = 1,000) made every call
// garbage, and the garbage let the Go heap run up to its GC goal: Falkon at
// M = 1,000 on 3,000 points allocated 43.5 MB of works over a fit, and its
// heap peaked at 45 MB where 21 MB were live (GOGC=100). The pool is shared
// by all Ops so that the K_MM call's works serve the K_nM passes after it.
var workPool sync.Pool

// getWork returns scratch for row blocks of b rows and t right-hand sides:
// a recycled work resized and cleared (so that it reads as a fresh one),
// or a new one. putWorks hands the works of a call back.
func (p *plan) getWork(b, t int) *work {
	w, ok := workPool.Get().(*work)
	if !ok || w.acc != useAccel {
		w = &work{acc: useAccel}
	}
	p.size(w, b, t)
	return w
}

// putWorks returns the non-nil works of ws to the pool.
func putWorks(ws []*work) {
	for _, w := range ws {
		if w != nil {
			workPool.Put(w)
		}
	}
}

// getSums returns n values for the partial sums of reduce, in the recycled
// buffer when sumsSlot holds one large enough; the caller puts it back. They
// are not cleared: segmentSums clears each segment's partial in the worker
// that sums it (clearing all 2 MB here, at M = 2,000 and 128 segments, took
// 0.1–0.26 ms of serial time before every pass).
func (p *plan) getSums(n int) *[]float64 {
	return sumsSlot.Get(n)
}

// zeros returns n zeros in s's storage when it is large enough, else new.
func zeros[T float32 | float64](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// size sizes w's buffers for blocks of b rows and t right-hand sides on p,
// as a new work has them (length 0 for those p does not use, keeping their
// storage), all zero: workBytes is what a new one takes.
func (p *plan) size(w *work, b, t int) {
	bp := roundUp(b, panelRows)
	w.kv = zeros(w.kv, b*t)
	n32 := 0
	if p.blocks32(w) {
		n32 = 1
	}
	w.blk32, w.acc32, w.kv32 = zeros(w.blk32, n32*bp*p.mp), zeros(w.acc32, n32*p.mp), zeros(w.kv32, n32*b)
	w.blk = zeros(w.blk, bp*p.mp)
	na, na32 := 0, 0
	switch p.packsX(w.acc) {
	case 4:
		na32 = bp * p.d
	case 8:
		na = bp * p.d
	}
	w.a, w.a32 = zeros(w.a, na), zeros(w.a32, na32)
	nxd := 0
	if p.sp != nil && p.sp.dense {
		nxd = b * p.d
	}
	w.xd = zeros(w.xd, nxd)
}

// packsX is the element size (8 or 4 bytes) of the packed block of X a
// worker using the inner kernels acc keeps, or 0 when it packs none.
func (p *plan) packsX(acc accel) int64 {
	switch {
	case p.dk != nil && p.f32:
		return 4
	case p.dk != nil && acc != accelPortable && p.sc == nil && (p.sp == nil || p.sp.dense):
		return 8
	case p.l1 != nil && acc != accelPortable:
		return 8 // the Laplacian's packed rows (l1Block)
	}
	return 0
}

// workBytes is exactly what getWork(b, t) allocates for a new work on a plan with p's
// shape and flags for a worker using the inner kernels acc (ScratchBytes
// counts it once per worker).
func (p *plan) workBytes(acc accel, b, t int) int64 {
	bp, mp, d := int64(roundUp(b, panelRows)), int64(p.mp), int64(p.d)
	total := 8 * (int64(b)*int64(t) + bp*mp)
	if p.blocks32With(acc) {
		total += 4 * (bp*mp + mp + int64(b))
	}
	total += p.packsX(acc) * bp * d
	if p.sp != nil && p.sp.dense {
		total += 8 * int64(b) * d
	}
	return total
}

// dots writes x_i·c_j into w.blk (stride mp) for the rows i of X[r0:r1] and
// j < M (with AVX-512: j < mp, the padding getting zeros).
func (p *plan) dots(w *work, r0, r1 int) {
	rows, d, mp := r1-r0, p.d, p.mp
	if d == 0 || p.m == 0 {
		clear(w.blk[:rows*mp])
		return
	}
	if p.sc != nil {
		p.centerDots(w, r0, r1)
		return
	}
	x, x0 := p.x, r0
	if p.sp != nil {
		if !p.sp.dense {
			p.sparseDots(w, r0, r1)
			return
		}
		x, x0 = p.sp.denseRows(w, r0, r1, d), 0
	}
	switch {
	case p.f32:
		p.dots32(w, r0, r1)
	case w.acc == accelAVX2:
		p.dotsAVX2(w, x, x0, rows)
	case w.acc != accelPortable && !p.half:
		rp := roundUp(rows, panelRows)
		packRows(w.a, x.Data, x.Stride, x0, rows, d)
		if d <= kBlock {
			// One feature block: one call a panel of centers computes its
			// tiles with every panel of rows, in tileLoop's order and with
			// its sums (the same bits), and prefetches the next panel of
			// centers into L2, a share (chunk bytes) before each tile. At
			// d = 54 a tile is ≈ 150 ns: the two together took 3–5% off
			// the median CPU time of a fused pass at d = 54 against a Go
			// closure and an assembly call a tile, on machine E under
			// load (docs/performance.md, "One assembly call a panel of
			// centers").
			np := rp / panelRows
			chunk := roundUp((d*panelCols*8+np-1)/np, 64)
			for jp := 0; jp < mp; jp += panelCols {
				next := &p.cp[(jp+panelCols)%mp*d] // after the last panel, the first
				gemm8x16PanelsPfAVX512(d, np, &w.a[0], &p.cp[jp*d], &w.blk[jp], mp, next, chunk)
			}
			return
		}
		tiles(accelAVX512, false, w.a, p.cp, rp, mp, d, w.blk, mp, false, panelRows)
	case d <= smallDim && !p.half:
		for i := 0; i < rows; i++ {
			xi := x.Data[(x0+i)*x.Stride : (x0+i)*x.Stride+d]
			smallDots(w.blk[i*mp:(i+1)*mp], xi, p.cp)
		}
	default:
		xs := blas64.General{Rows: rows, Cols: d, Stride: x.Stride, Data: x.Data[x0*x.Stride:]}
		out := blas64.General{Rows: rows, Cols: p.m, Stride: mp, Data: w.blk}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, xs, p.c, 0, out)
	}
}

// dots32 is dots in float32 mode.
func (p *plan) dots32(w *work, r0, r1 int) {
	if w.acc == accelAVX2 {
		p.dots32AVX2(w, r0, r1)
		return
	}
	rows, d, mp := r1-r0, p.d, p.mp
	rp := roundUp(rows, panelRows)
	p.packX32(w.a32, r0, rows)
	tileLoop(rp, mp, d, panelRows, panelCols32, p.cp32, false, func(ip, jp, h, k0, kl int) {
		a, b, c := w.a32[ip*d+k0*panelRows:], p.cp32[jp*d+k0*panelCols32:], w.blk[ip*mp+jp:]
		if w.acc == accelAVX512 {
			gemm8x32F32AVX512(kl, &a[0], &b[0], &c[0], mp, k0 > 0)
		} else {
			gemm8x32F32(kl, a, b, c, mp, k0 > 0)
		}
	})
}

// gemm8x32F32 is the portable gemm8x32F32AVX512: float32 sums over the k
// features of one block, added to (or stored in) the float64 tile.
func gemm8x32F32(k int, a, b []float32, c []float64, ldc int, add bool) {
	for i := 0; i < panelRows; i++ {
		out := c[i*ldc : i*ldc+panelCols32]
		for h := 0; h < panelCols32; h += 8 {
			var s0, s1, s2, s3, s4, s5, s6, s7 float32
			for p := 0; p < k; p++ {
				x := a[p*panelRows+i]
				bb := b[p*panelCols32+h : p*panelCols32+h+8 : p*panelCols32+h+8]
				s0 += x * bb[0]
				s1 += x * bb[1]
				s2 += x * bb[2]
				s3 += x * bb[3]
				s4 += x * bb[4]
				s5 += x * bb[5]
				s6 += x * bb[6]
				s7 += x * bb[7]
			}
			o := out[h : h+8 : h+8]
			if !add {
				clear(o)
			}
			o[0] += float64(s0)
			o[1] += float64(s1)
			o[2] += float64(s2)
			o[3] += float64(s3)
			o[4] += float64(s4)
			o[5] += float64(s5)
			o[6] += float64(s6)
			o[7] += float64(s7)
		}
	}
}

// smallDots writes x·c_j into out[j] for every packed center, eight at a time
// with the whole feature loop inside (the portable kernel for small d).
func smallDots(out, x, cp []float64) {
	d := len(x)
	for jp := 0; jp < len(out); jp += panelCols {
		panel := cp[jp*d : (jp+panelCols)*d]
		for h := 0; h < panelCols; h += 8 {
			var s0, s1, s2, s3, s4, s5, s6, s7 float64
			for k, xk := range x {
				c := panel[k*panelCols+h : k*panelCols+h+8 : k*panelCols+h+8]
				s0 += xk * c[0]
				s1 += xk * c[1]
				s2 += xk * c[2]
				s3 += xk * c[3]
				s4 += xk * c[4]
				s5 += xk * c[5]
				s6 += xk * c[6]
				s7 += xk * c[7]
			}
			o := out[jp+h : jp+h+8 : jp+h+8]
			o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
	}
}

// kernelBlock forms K(X[r0:r1], C) in w.blk and returns it as a rows×M matrix
// with stride mp.
func (p *plan) kernelBlock(w *work, r0, r1 int) blas64.General {
	rows, m, mp := r1-r0, p.m, p.mp
	kb := blas64.General{Rows: rows, Cols: m, Stride: max(mp, 1), Data: w.blk}
	if p.dk == nil && p.sc != nil {
		p.centersLaplacian(w, r0, r1)
		return kb
	}
	if p.l1 != nil && w.acc != accelPortable {
		if rows > 0 && m > 0 {
			p.l1Block(w, r0, r1, nil, nil)
		}
		return kb
	}
	if p.dk == nil && p.sp != nil {
		p.sparseKernelBlock(w, r0, r1, kb)
		return kb
	}
	if p.dk == nil {
		var dst, xs mat.Dense
		dst.SetRawMatrix(kb)
		xs.SetRawMatrix(blas64.General{Rows: rows, Cols: p.d, Stride: p.x.Stride, Data: p.x.Data[r0*p.x.Stride:]})
		var cs mat.Dense
		cs.SetRawMatrix(p.c)
		if rows > 0 && m > 0 {
			p.k.Block(&dst, &xs, &cs)
		}
		return kb
	}
	p.norms(r0, r1)
	p.dots(w, r0, r1)
	if m == 0 {
		return kb
	}
	for i := 0; i < rows; i++ {
		row := w.blk[i*mp : (i+1)*mp]
		var xx float64
		if p.xn != nil {
			xx = p.xn[r0+i]
		}
		switch {
		case p.gauss && w.acc == accelAVX512:
			expRowAVX512(&row[0], &p.cn[0], mp, xx, p.ng)
		case p.gauss && w.acc == accelAVX2:
			expRowAVX2(&row[0], &p.cn[0], mp, xx, p.ng)
		case p.gauss:
			gaussRow(row[:m], p.cn[:m], xx, p.ng)
		default:
			p.dk.fromDots(row[:m], xx, p.cn)
		}
	}
	return kb
}

func roundUp(a, b int) int { return (a + b - 1) / b * b }

// packX32 packs rows [r0, r0+rows) of dense X into dst as float32 panels
// (packRows), from X's float32 storage when it has one: the same values as
// rounding its float64 rows.
func (p *plan) packX32(dst []float32, r0, rows int) {
	if p.x32 != nil {
		packRows(dst, p.x32.data, p.d, r0, rows, p.d)
		return
	}
	packRows(dst, p.x.Data, p.x.Stride, r0, rows, p.d)
}

// packX32Panels is packX32 for the AVX2 tiles' panels of height h
// (packPanels).
func (p *plan) packX32Panels(dst []float32, r0, rows, h int) {
	if p.x32 != nil {
		packPanels(dst, p.x32.data, p.d, r0, rows, p.d, h)
		return
	}
	packPanels(dst, p.x.Data, p.x.Stride, r0, rows, p.d, h)
}

// packRows packs rows [r0, r0+rows) of the row-major x (stride, d columns)
// into dst as panels of panelRows rows, feature-major, with the rows past the
// end of the last panel set to zero.
func packRows[T, S float32 | float64](dst []T, x []S, stride, r0, rows, d int) {
	rp := roundUp(rows, panelRows)
	for ip := 0; ip < rp; ip += panelRows {
		panel := dst[ip*d : (ip+panelRows)*d]
		if ip+panelRows <= rows {
			pack8(panel, x, stride, r0+ip, d)
			continue
		}
		for i := 0; i < panelRows; i++ {
			if ip+i >= rows {
				for k := 0; k < d; k++ {
					panel[k*panelRows+i] = 0
				}
				continue
			}
			row := x[(r0+ip+i)*stride : (r0+ip+i)*stride+d]
			for k, v := range row {
				panel[k*panelRows+i] = T(v)
			}
		}
	}
}

// pack8 writes rows r … r+7 of x (stride, d columns) into panel as [d][8],
// feature by feature: the panel is written in order (one 64-byte line per
// feature in float64) while the eight rows are read in order. Writing it a
// row at a time, with stride 8, took 1–2% of the distance product at
// d = 784 (CPU profile).
func pack8[T, S float32 | float64](panel []T, x []S, stride, r, d int) {
	x0, x1 := x[r*stride:][:d], x[(r+1)*stride:][:d]
	x2, x3 := x[(r+2)*stride:][:d], x[(r+3)*stride:][:d]
	x4, x5 := x[(r+4)*stride:][:d], x[(r+5)*stride:][:d]
	x6, x7 := x[(r+6)*stride:][:d], x[(r+7)*stride:][:d]
	panel = panel[:8*d]
	for k := range x0 {
		p := panel[8*k : 8*k+8 : 8*k+8]
		p[0], p[1], p[2], p[3] = T(x0[k]), T(x1[k]), T(x2[k]), T(x3[k])
		p[4], p[5], p[6], p[7] = T(x4[k]), T(x5[k]), T(x6[k]), T(x7[k])
	}
}

// setDotForm records a dot-form kernel (and the Gaussian's −γ) in the plan
// and, when the kernel needs squared norms, allocates p.xn and p.cn (or
// takes src's p.cn, src being the plan whose packed centers p shares) and
// fills p.xn with the rows of X. It reports whether the caller must fill
// p.cn[:m] with the centers' squared norms (dense and sparse centers store
// them differently; not when src is set).
func (p *plan) setDotForm(o *Op, dk dotForm, src *plan) bool {
	p.dk = dk
	if g, ok := o.k.(Gaussian); ok {
		p.gauss, p.ng = true, -g.Gamma
	}
	if !dk.needsNorms() {
		return false
	}
	p.xn = make([]float64, p.n)
	if src != nil {
		p.cn = src.cn
	} else {
		p.cn = make([]float64, p.mp)
	}
	switch {
	case p.sp != nil:
		p.sp.rowNorms(p.xn)
	case o.x32 != nil:
		// Widened to float64 before the products, as sumNorms does for
		// float64 X: a float64 X holding the same values gets the same norms.
		p.xl.init(p.n, nil, o.x32.data, p.d, p.d)
	default:
		x := o.x.RawMatrix()
		p.xl.init(p.n, x.Data, nil, x.Stride, x.Cols)
	}
	return true
}
