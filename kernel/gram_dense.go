package kernel

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Dense runs the dense matrix products of blocked factorizations (BLAS's
// dgemm and dsyrk) on the engine's inner kernels: the operands are packed
// into panels as the kernel engine's (8 rows × k and 16 columns × k; with
// AVX2 6 rows and 8 columns; k-blocks of at most denseKBlock), each 8×16 tile
// (6×8 with AVX2) of the result is one call of the AVX-512 (or AVX2, or
// portable Go) micro-kernel, and tiles are spread over the workers in blocks
// of about denseRows × denseCols. Every element of the
// result is computed by one worker in a fixed order, so results do not
// depend on Workers. The zero value uses GOMAXPROCS workers.
//
// Leading zeros: for an operand read transposed (op(x) = xᵀ), the features
// at the start of a k-block that are zero over a whole panel (a triangular
// operand's zeros, as in Lauum's diagonal block) are counted while packing
// and the tiles skip them, whole k-blocks too. The products skipped are
// exact zeros, so the sums are those of the full loop (a tile's chain of
// fused multiply–adds stays +0 through them), unless the other operand
// holds an Inf or NaN at those features, which then does not propagate (as
// in reference BLAS, which skips zero elements too). The trailing zero
// features of op(b)'s panels (op(b) read transposed, i.e. b not
// transposed in Gemm: an upper-triangular b, as the transposed inverse
// the blocked Cholesky multiplies its panel by) are skipped the same way:
// a tile's sum starts at +0 and never becomes −0, so adding the exact
// zeros left out would not change it.
type Dense struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Portable forces the portable Go tiles (as LANDMARK_NOSIMD=1 does for
	// the whole engine), for comparisons and tests.
	Portable bool
}

// denseKBlock bounds the k-block of one call of Dense's (and DenseF32's)
// tiles: the k = 512 of the blocked factorizations' large products in one
// call, their sum into c stored once. Against 256 (the engine's kBlock),
// GFLOP per CPU-second on machine D (Zen 4, loaded, alternated in one
// process, best of 5): lauum M = 6,000 51.3 vs 49.1, potrf 46.9 vs 45.3,
// float32 lauum M = 8,000 102.8 vs 100.6; LANDMARK_SIMD=avx2 M = 4,000
// lauum 44.5 vs 42.3, potrf 42.1 vs 40.0 (docs/performance.md).
const denseKBlock = 512

// Blocking of Dense's products: a worker's task is a denseRows × denseCols
// block of the result, for which it packs denseRows rows of op(a) (512 KiB
// at a full k-block, kept in L2) and streams the shared packed op(b) one
// 16-column panel (64 KiB; 8 columns, 32 KiB, with AVX2) at a time; a
// chunk of denseKBlocks k-blocks is packed at once.
const (
	denseRows    = 128
	denseCols    = 512
	denseKBlocks = 2
)

// Gemm sets c = alpha·op(a)·op(b) + beta·c, where op(x) is x or, when the
// trans flag is set, xᵀ; beta must be 0 or 1. c must not share memory with a
// or b, with one exception: c may be a itself (the same matrix, op(a) = a,
// a square op(b)) when k ≤ 1,024, since every row of op(a) is packed before
// that row of c is stored (the solve of a factorization's panel by the
// inverse of its diagonal block, in place).
func (d Dense) Gemm(ctx context.Context, transA, transB bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Gemm: %w", err)
	}
	if a == nil || b == nil || c == nil {
		return fmt.Errorf("kernel: Gemm: %w: nil matrix", check.ErrInput)
	}
	m, k := dims(a, transA)
	kb, n := dims(b, transB)
	if r, cc := c.Dims(); r != m || cc != n || kb != k {
		return fmt.Errorf("kernel: Gemm: %w: op(a) %d×%d, op(b) %d×%d, c %d×%d", check.ErrInput, m, k, kb, n, r, cc)
	}
	if beta != 0 && beta != 1 {
		return fmt.Errorf("kernel: Gemm: %w: beta = %g, want 0 or 1", check.ErrInput, beta)
	}
	// The micro-kernel computes Â·B̂ᵀ with B̂ = op(b)ᵀ (n×k).
	return d.run(ctx, m, n, k, operand{a: a, trans: transA}, operand{a: b, trans: !transB}, alpha, beta == 1, false, false, c, m)
}

// SyrkLower sets the lower triangle (j ≤ i) of the square c to
// alpha·op(a)·op(a)ᵀ + beta·c, op(a) = a or, with trans, aᵀ; beta must be 0
// or 1. Only the tiles that meet the lower triangle are computed and the
// strict upper triangle of c is not touched. c must not share memory with a.
func (d Dense) SyrkLower(ctx context.Context, trans bool, alpha float64, a *mat.Dense, beta float64, c *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: SyrkLower: %w", err)
	}
	if a == nil || c == nil {
		return fmt.Errorf("kernel: SyrkLower: %w: nil matrix", check.ErrInput)
	}
	m, k := dims(a, trans)
	if r, cc := c.Dims(); r != m || cc != m {
		return fmt.Errorf("kernel: SyrkLower: %w: op(a) is %d×%d, c is %d×%d", check.ErrInput, m, k, r, cc)
	}
	if beta != 0 && beta != 1 {
		return fmt.Errorf("kernel: SyrkLower: %w: beta = %g, want 0 or 1", check.ErrInput, beta)
	}
	return d.run(ctx, m, m, k, operand{a: a, trans: trans}, operand{a: a, trans: trans}, alpha, beta == 1, true, true, c, m)
}

// LauumRows is one block row of LAPACK's blocked dlauum (solver.Lauum) done
// in place: for the square w whose lower triangle up to row k1 holds a
// lower-triangular matrix L, and W = L[k0:k1, 0:k1] (the elements right of
// the diagonal, which are not read, taken as zeros), it adds WᵀW to the
// lower triangle of w's leading k1×k1 block, W's own rows being consumed:
// afterwards rows [k0, k1) of that triangle hold those of WᵀW and the rows
// above k0 their former values plus WᵀW's. It is SyrkLower(trans, 1, W', 1,
// w[:k1, :k1]) on a copy W' of W after clearing W's rows, with the same sums
// bit for bit, without the copy: W is packed straight from w before any of
// its elements is overwritten (for k1−k0 > 2·denseKBlock, one step per
// 2·denseKBlock rows: WᵀW = Σ W_sᵀW_s over its blocks of rows W_s). The
// strict upper triangle of w is not touched.
func (d Dense) LauumRows(ctx context.Context, w *mat.Dense, k0, k1 int) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: LauumRows: %w", err)
	}
	if w == nil {
		return fmt.Errorf("kernel: LauumRows: %w: nil matrix", check.ErrInput)
	}
	r, cc := w.Dims()
	if r != cc || k0 < 0 || k0 > k1 || k1 > r {
		return fmt.Errorf("kernel: LauumRows: %w: rows [%d, %d) of a %d×%d matrix", check.ErrInput, k0, k1, r, cc)
	}
	raw := w.RawMatrix()
	for s0 := k0; s0 < k1; s0 += lauumStep {
		s1 := min(s0+lauumStep, k1)
		a := operand{a: rawView(raw, s0, 0, s1-s0, s1), trans: true, tri: true, diag: s0}
		if err := d.run(ctx, s1, s1, s1-s0, a, a, 1, true, true, true, rawView(raw, 0, 0, s1, s1), s0); err != nil {
			return err
		}
	}
	return nil
}

// lauumStep is the most rows of one product of LauumRows: one chunk of
// k-blocks, all packed before the first tile overwrites them.
const lauumStep = denseKBlock * denseKBlocks

// rawView is the r×c block of raw at (i, j) as a *mat.Dense sharing its
// memory (r, c > 0).
func rawView(raw blas64.General, i, j, r, c int) *mat.Dense {
	var d mat.Dense
	d.SetRawMatrix(blas64.General{Rows: r, Cols: c, Stride: raw.Stride, Data: raw.Data[i*raw.Stride+j : (i+r-1)*raw.Stride+j+c]})
	return &d
}

func dims(a *mat.Dense, trans bool) (r, c int) {
	r, c = a.Dims()
	if trans {
		return c, r
	}
	return r, c
}

// run computes c = alpha·Â·B̂ᵀ (+ c when add, in rows below setFrom) for Â
// m×k (operand a) and B̂ n×k (operand b), only on and below the diagonal
// when lower; same says that a and b are the same operand (then m = n).
// Rows at or past setFrom are set as when add is false (LauumRows: those
// rows of c are the operand, read before the first tile is stored).
func (d Dense) run(ctx context.Context, m, n, k int, a, b operand, alpha float64, add, lower, same bool, c *mat.Dense, setFrom int) error {
	if m == 0 || n == 0 {
		return nil
	}
	rc := c.RawMatrix()
	if k == 0 || alpha == 0 {
		if !add {
			setFrom = 0
		}
		for i := setFrom; i < m; i++ {
			j1 := n
			if lower {
				j1 = i + 1
			}
			clear(rc.Data[i*rc.Stride : i*rc.Stride+j1])
		}
		return ctx.Err()
	}
	g := &gemmRun{m: m, n: n, k: k, a: a, b: b, alpha: alpha, lower: lower, rc: rc, acc: useAccel}
	if d.Portable {
		g.acc = accelPortable
	}
	// SyrkLower with alpha = ±1 on AVX-512 reads Â from B̂'s panels (no
	// copy: GFLOP per CPU-second, machine D loaded, best of 5 alternated,
	// lauum M = 6,000 51.5 vs 49.6, potrf 47.6 vs 46.3, float32 lauum
	// M = 8,000 104.6 vs 102.2).
	g.aInB = same && g.acc == accelAVX512 && (alpha == 1 || alpha == -1)
	g.pr, g.pc, g.taskRows = denseTile(g.acc)
	nk := (k + denseKBlock - 1) / denseKBlock
	g.kc = (k + nk - 1) / nk // k-block of one micro-kernel call
	// A chunk of up to denseKBlocks k-blocks is packed at once, and each tile
	// of c sums over all of them before it is stored: c is read and written
	// once per chunk, not once per k-block.
	chunk := g.kc * denseKBlocks
	g.np = (n + g.pc - 1) / g.pc
	g.mp = roundUp(m, g.pr)
	kcap := min(chunk, k)
	need := packLen(m, n, k)
	if g.aInB {
		need = g.np * g.pc * kcap // Â is read from B̂: no panels of its own
	}
	bufs := densePacks.get(need)
	defer densePacks.put(bufs)
	g.bp = (*bufs)[:g.np*g.pc*kcap]
	if !g.aInB {
		g.ap = (*bufs)[g.np*g.pc*kcap : (g.np*g.pc+g.mp)*kcap]
	}
	g.na = g.mp / g.pr
	nkbMax := (kcap + g.kc - 1) / g.kc
	leads := make([]int32, nkbMax*(g.na+2*g.np))
	g.leadA, g.leadB, g.trailB = leads[:nkbMax*g.na], leads[nkbMax*g.na:nkbMax*(g.na+g.np)], leads[nkbMax*(g.na+g.np):]
	g.tiles()
	g.workers = parallel.Workers(d.Workers)
	// A tall product (one block of columns: each row block of Â is read by
	// one task) packs Â inside its tasks, each worker into its own part of
	// Â's buffer, where the tiles read it from cache (the potrf panel's
	// products: potrf M = 10,000 ≈ 2% less CPU, float64 and float32,
	// machine D loaded, docs/performance.md).
	g.inTask = !same && n <= denseCols && g.mp >= g.workers*g.taskRows
	g.apw = g.taskRows * kcap
	g.tmps = make([][panelRows * panelCols]float64, g.workers) // tiles of g.pr ≤ panelRows rows
	for c0 := 0; c0 < k; c0 += chunk {
		g.c0, g.cl = c0, min(chunk, k-c0)
		g.nkb = (g.cl + g.kc - 1) / g.kc
		g.addTo = 0 // rows of c added to in this chunk: none, those above setFrom, or all
		if add {
			g.addTo = setFrom
		}
		if c0 > 0 {
			g.addTo = m
		}
		var err error
		if same {
			err = g.packSame(ctx)
		} else {
			err = g.pack(ctx)
		}
		if err != nil {
			return err
		}
		if err := parallel.For(ctx, len(g.tasks), g.workers, g.block); err != nil {
			return err
		}
	}
	return nil
}

// gemmRun is the state of one Dense.run: the operands, the packing layout
// and the chunk of k-blocks being computed.
type gemmRun struct {
	m, n, k     int
	a, b        operand
	alpha       float64
	lower       bool
	rc          blas64.General
	acc         accel
	aInB        bool // Â is not packed: its 8-row panels are the halves of B̂'s (SyrkLower, alpha = ±1, AVX-512)
	pr          int  // rows of the tile and of the panels of Â (denseTile)
	pc          int  // columns of the tile and of the panels of B̂ (denseTile)
	taskRows    int  // rows of a task's block of c, a multiple of pr
	kc          int  // k-block of one micro-kernel call
	np, mp      int  // pc-column panels of B̂; rows of Â rounded up to pr
	bp, ap      []float64
	inTask      bool    // Â is packed by the tasks, worker w's rows at ap[w·apw:] (see run)
	apw         int     // a worker's share of ap when inTask: taskRows·(features of a chunk)
	na          int     // panels of Â (mp/pr)
	leadA       []int32 // leading zero features of Â's panels: [k-block of the chunk][panel]
	leadB       []int32 // leading zero features of B̂'s panels: [k-block of the chunk][panel]
	trailB      []int32 // one past the last nonzero feature of B̂'s panels, as leadB
	tasks       []denseTask
	workers     int
	tmps        [][panelRows * panelCols]float64
	c0, cl, nkb int // the chunk: first feature, features, k-blocks
	addTo       int // rows of c below addTo are added to, the others set
}

// denseTask is one taskRows × denseCols block of c.
type denseTask struct{ ib, jb int }

// denseTile returns the rows and columns of Dense's register tile on the
// inner kernels acc, which are also the height of the packed panels of Â and
// the width of those of B̂, and the rows of a task's block of c (denseRows
// rounded down to a multiple of the tile's). AVX-512 and the portable code
// run the 8×16 tile. AVX2 runs gemm6x8AVX2 (12 accumulators, its block of c
// prefetched first) on panels of 8 columns: one k-block's panel of B̂ (16
// KiB) and of Â (12 KiB) then stay in L1 together. Measured on one core of
// machine D against the engine's 6×16 tile (two 6×8 pieces reading
// 16-column panels) on the same 6-row panels of Â: potrf, lauum and trsm at
// M = 4,000 5–10% faster (docs/performance.md, "AVX2 tile of kernel.Dense").
func denseTile(acc accel) (rows, cols, taskRows int) {
	if acc == accelAVX2 {
		return avx2TileRows, 8, denseRows / avx2TileRows * avx2TileRows
	}
	return panelRows, panelCols, denseRows
}

// packGroup is the number of panels one packing job packs.
const packGroup = 16

// tiles lists the blocks of c to compute (on and below the diagonal when lower).
func (g *gemmRun) tiles() {
	rowBlocks := (g.m + g.taskRows - 1) / g.taskRows
	colBlocks := (g.n + denseCols - 1) / denseCols
	g.tasks = make([]denseTask, 0, rowBlocks*colBlocks)
	for ib := 0; ib < rowBlocks; ib++ {
		for jb := 0; jb < colBlocks; jb++ {
			if g.lower && jb*denseCols > min((ib+1)*g.taskRows, g.m)-1 {
				break
			}
			g.tasks = append(g.tasks, denseTask{ib, jb})
		}
	}
}

// pack packs, for each k-block kb of the chunk (features [c0+kb·kc, …+kl)),
// B̂ (panel jp: columns [pc·jp, pc·jp+pc) as [kl][pc]) at
// bp[kb·kc·pc·np + jp·pc·kl] and αÂ (panel ip: rows [pr·ip, pr·ip+pr) as
// [kl][pr]) at ap[kb·kc·mp + ip·pr·kl]; packGroup panels per job.
func (g *gemmRun) pack(ctx context.Context) error {
	nb, na := (g.np+packGroup-1)/packGroup, (g.mp/g.pr+packGroup-1)/packGroup
	return parallel.For(ctx, (nb+na)*g.nkb, g.workers, func(_, j int) {
		kb := j / (nb + na)
		j %= nb + na
		p0, kl := g.c0+kb*g.kc, min(g.kc, g.cl-kb*g.kc)
		if j < nb {
			q0 := j * packGroup
			g.b.packPanels(g.bp[kb*g.kc*g.pc*g.np+q0*g.pc*kl:], g.leadB[kb*g.np+q0:], g.trailB[kb*g.np+q0:], g.pc, q0, min(q0+packGroup, g.np), g.n, p0, kl, 1)
			return
		}
		if g.inTask {
			return // packed by the tasks (packRows)
		}
		j -= nb
		q0 := j * packGroup
		g.a.packPanels(g.ap[kb*g.kc*g.mp+q0*g.pr*kl:], g.leadA[kb*g.na+q0:], nil, g.pr, q0, min(q0+packGroup, g.na), g.m, p0, kl, g.alpha)
	})
}

// packSame packs for SyrkLower: Â is B̂ (rows = columns), so B̂ is packed
// from a, then each 8-row panel of Â from one half of a 16-column panel of
// B̂ (with AVX2, each 6-row panel from the one or two 8-column panels of B̂
// holding its rows, and zeros for rows past the last panel of B̂).
func (g *gemmRun) packSame(ctx context.Context) error {
	nb, na := (g.np+packGroup-1)/packGroup, (g.mp/g.pr+packGroup-1)/packGroup
	if err := parallel.For(ctx, nb*g.nkb, g.workers, func(_, j int) {
		kb, q0 := j/nb, (j%nb)*packGroup
		p0, kl := g.c0+kb*g.kc, min(g.kc, g.cl-kb*g.kc)
		g.b.packPanels(g.bp[kb*g.kc*g.pc*g.np+q0*g.pc*kl:], g.leadB[kb*g.np+q0:], g.trailB[kb*g.np+q0:], g.pc, q0, min(q0+packGroup, g.np), g.n, p0, kl, 1)
	}); err != nil {
		return err
	}
	if g.aInB {
		return nil
	}
	return parallel.For(ctx, na*g.nkb, g.workers, func(_, j int) {
		kb, q0 := j/na, (j%na)*packGroup
		kl := min(g.kc, g.cl-kb*g.kc)
		if g.pr != panelRows || g.pc != panelCols {
			g.packSameRows(kb, q0, kl)
			return
		}
		for ip := q0; ip < min(q0+packGroup, g.na); ip++ {
			src := g.bp[kb*g.kc*panelCols*g.np+(ip/2)*panelCols*kl+(ip%2)*panelRows:]
			dst := g.ap[kb*g.kc*g.mp+ip*panelRows*kl : kb*g.kc*g.mp+(ip+1)*panelRows*kl]
			// The half of B̂'s panel starts with at least its zeros.
			lead := int(g.leadB[kb*g.np+ip/2])
			g.leadA[kb*g.na+ip] = int32(lead)
			clear(dst[:lead*panelRows])
			for p := lead; p < kl; p++ {
				sr := src[p*panelCols : p*panelCols+panelRows]
				dr := dst[p*panelRows : p*panelRows+panelRows]
				for r, v := range sr {
					dr[r] = g.alpha * v
				}
			}
		}
	})
}

// packSameRows is packSame's copy of the panels [q0, q0+packGroup) of αÂ
// from B̂ for k-block kb (kl features) when the panels are not 8 rows high.
func (g *gemmRun) packSameRows(kb, q0, kl int) {
	pr, pc, bp := g.pr, g.pc, g.bp[kb*g.kc*g.pc*g.np:]
	for ip := q0; ip < min(q0+packGroup, g.na); ip++ {
		dst := g.ap[kb*g.kc*g.mp+ip*pr*kl : kb*g.kc*g.mp+(ip+1)*pr*kl]
		lead := int32(kl) // the fewest leading zeros of the panels of B̂ holding its rows
		for r := 0; r < pr; r++ {
			row := ip*pr + r // of Â: column row%pc of B̂'s panel row/pc
			if row >= g.np*pc {
				for p := 0; p < kl; p++ {
					dst[p*pr+r] = 0
				}
				continue
			}
			lead = min(lead, g.leadB[kb*g.np+row/pc])
			src := bp[(row/pc)*pc*kl+row%pc:]
			for p := 0; p < kl; p++ {
				dst[p*pr+r] = g.alpha * src[p*pc]
			}
		}
		g.leadA[kb*g.na+ip] = lead
	}
}

// packRows packs rows [i0, i1) of αÂ, all k-blocks of the chunk, into ap
// as pack does for the whole of Â, the rows counted from i0: k-block kb's
// panels at ap[kb·kc·taskRows:].
func (g *gemmRun) packRows(ap []float64, i0, i1 int) {
	q0, q1 := i0/g.pr, (i1+g.pr-1)/g.pr
	for kb := 0; kb < g.nkb; kb++ {
		p0, kl := g.c0+kb*g.kc, min(g.kc, g.cl-kb*g.kc)
		g.a.packPanels(ap[kb*g.kc*g.taskRows:], g.leadA[kb*g.na+q0:], nil, g.pr, q0, q1, g.m, p0, kl, g.alpha)
	}
}

// sum runs the k-blocks of the chunk on the tile at (i, j) into c. The
// leading features of a k-block that are zero in the panel of Â or of B̂
// (Dense's leading zeros) are skipped, and a k-block that is zero in either is skipped
// whole; when no k-block is left and add is false the tile is set to zero.
// Â's panels are read from ap, which holds mpa rows per k-block from row
// ia0 on (g.ap, 0, g.mp; a worker's rows when inTask).
func (g *gemmRun) sum(i, j int, c []float64, ldc int, add bool, ap []float64, ia0, mpa int) {
	ia, jb := i/g.pr, j/g.pc
	for kb := 0; kb < g.nkb; kb++ {
		kl := min(g.kc, g.cl-kb*g.kc)
		bk := g.bp[kb*g.kc*g.pc*g.np:]
		if g.aInB {
			// Rows i…i+7 of Â are half ia%2 of B̂'s panel ia/2.
			s := int(max(g.leadB[kb*g.np+ia/2], g.leadB[kb*g.np+jb]))
			if s >= kl {
				continue
			}
			apan := bk[(ia/2)*panelCols*kl+(ia%2)*panelRows+s*panelCols:]
			bpan := bk[j*kl+s*panelCols:]
			if g.alpha < 0 {
				gemm8x16SyrkNegPfAVX512(kl-s, &apan[0], &bpan[0], &c[0], ldc, add)
			} else {
				gemm8x16SyrkPfAVX512(kl-s, &apan[0], &bpan[0], &c[0], ldc, add)
			}
			add = true
			continue
		}
		s := int(max(g.leadA[kb*g.na+ia], g.leadB[kb*g.np+jb]))
		e := int(g.trailB[kb*g.np+jb])
		if s >= e {
			continue
		}
		bpan := bk[j*kl+s*g.pc:]
		apan := ap[kb*g.kc*mpa+(i-ia0)*kl+s*g.pr:]
		tile(g.acc, e-s, apan, bpan, c, ldc, add)
		add = true
	}
	if !add {
		for r := 0; r < g.pr; r++ {
			clear(c[r*ldc : r*ldc+g.pc])
		}
	}
}

// block computes block t of c with worker w's scratch tile: full tiles in
// place, edge and diagonal tiles through the scratch.
func (g *gemmRun) block(w, t int) {
	m, n, rc, pr := g.m, g.n, g.rc, g.pr
	tmp := &g.tmps[w]
	i0 := g.tasks[t].ib * g.taskRows
	i1 := min(i0+g.taskRows, m)
	j0 := g.tasks[t].jb * denseCols
	j1 := min(j0+denseCols, n)
	if g.lower {
		j1 = min(j1, i1)
	}
	rp := roundUp(i1-i0, pr)
	ap, ia0, mpa := g.ap, 0, g.mp
	if g.inTask {
		ap, ia0, mpa = g.ap[w*g.apw:(w+1)*g.apw], i0, g.taskRows
		g.packRows(ap, i0, i1)
	}
	for j := j0; j < j1; j += g.pc {
		for ip := 0; ip < rp; ip += pr {
			i := i0 + ip
			if g.lower && j > i+pr-1 {
				continue // tile entirely above the diagonal
			}
			// A tile with rows on both sides of addTo goes through the
			// scratch as an edge tile, its rows at or past addTo loaded as
			// zeros.
			full := i+pr <= m && j+g.pc <= n && (!g.lower || j+g.pc-1 <= i) && (i+pr <= g.addTo || i >= g.addTo)
			if full {
				g.sum(i, j, rc.Data[i*rc.Stride+j:], rc.Stride, i < g.addTo, ap, ia0, mpa)
				continue
			}
			add := i < g.addTo
			if add {
				g.loadEdge(tmp[:], i, j)
			}
			g.sum(i, j, tmp[:], panelCols, add, ap, ia0, mpa)
			g.storeEdge(tmp[:], i, j)
		}
	}
}

// loadEdge copies the part of c at (i, j) that the scratch tile tmp stands
// for into tmp (zeros where the tile passes the edge of c), so that an edge
// tile sums c + (k-block 1) + (k-block 2) + … in the order a full tile does
// in place: each element's bits do not depend on whether its tile is an
// edge tile, hence not on the tile's height (TestDenseSIMDBits). Rows at or
// past addTo are loaded as zeros (they are set: 0 + sum is the sum).
func (g *gemmRun) loadEdge(tmp []float64, i, j int) {
	rc := g.rc
	clear(tmp[:g.pr*panelCols])
	for r := 0; r < g.pr && i+r < min(g.m, g.addTo); r++ {
		cEnd := min(j+g.pc, g.n)
		copy(tmp[r*panelCols:], rc.Data[(i+r)*rc.Stride+j:(i+r)*rc.Stride+cEnd])
	}
}

// storeEdge copies the part of the scratch tile tmp at (i, j) that lies
// inside c (and on or below the diagonal when lower) into c.
func (g *gemmRun) storeEdge(tmp []float64, i, j int) {
	rc := g.rc
	for r := 0; r < g.pr && i+r < g.m; r++ {
		cEnd := min(j+g.pc, g.n)
		if g.lower {
			cEnd = min(cEnd, i+r+1)
		}
		if cEnd <= j {
			continue
		}
		dst := rc.Data[(i+r)*rc.Stride+j : (i+r)*rc.Stride+cEnd]
		copy(dst, tmp[r*panelCols:r*panelCols+len(dst)])
	}
}

// tile sets (or, with add, increments) the 8×16 tile (6×8 with AVX2, from
// panels of 6 rows and 8 columns) at c (row stride ldc) to
// Σ_p a[p][0:8] ⊗ b[p][0:16] over p < kl, on the inner kernels acc. Every element is the FMA chain
// over p ascending from zero (plus c when add) on both SIMD paths: the same
// bits (TestDenseSIMDBits).
func tile(acc accel, kl int, a, b, c []float64, ldc int, add bool) {
	switch acc {
	case accelAVX512:
		// The engine's 8×16 tile with its block of c prefetched first: c
		// is a factorization's M×M matrix, not in cache (same sums, same
		// bits as gemm8x16AVX512).
		gemm8x16PfAVX512(kl, &a[0], &b[0], &c[0], ldc, add)
	case accelAVX2:
		gemm6x8AVX2(kl, &a[0], &b[0], &c[0], ldc, add)
	default:
		tileGo(kl, a, b, c, ldc, panelCols, add)
	}
}

// tileGo is the portable tile of Dense (cols = panelCols) and DenseF32
// (cols = panel32Cols): the 8×cols tile at c (row stride ldc) set, or with
// add incremented, to Σ_p a[p][0:8] ⊗ b[p][0:cols] over p < kl; the same
// sums in the same order as the SIMD tiles (per element, from 0 over p
// ascending, then added to c), without fused multiply–adds.
func tileGo[T float32 | float64](kl int, a, b, c []T, ldc, cols int, add bool) {
	for r := 0; r < panelRows; r++ {
		out := c[r*ldc : r*ldc+cols : r*ldc+cols]
		for h := 0; h < cols; h += 8 {
			var s0, s1, s2, s3, s4, s5, s6, s7 T
			for p := 0; p < kl; p++ {
				x := a[p*panelRows+r]
				bb := b[p*cols+h : p*cols+h+8 : p*cols+h+8]
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
			o[0] += s0
			o[1] += s1
			o[2] += s2
			o[3] += s3
			o[4] += s4
			o[5] += s5
			o[6] += s6
			o[7] += s7
		}
	}
}
