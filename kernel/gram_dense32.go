package kernel

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas32"
)

// DenseF32 is Dense for float32 matrices (BLAS's sgemm and ssyrk): the
// products of the float32 blocked factorizations of FALKON's
// preconditioner. The operands are packed into panels of 8 rows × k and 32
// columns × k (k-blocks of at most denseKBlock, as Dense's), each 8×32 tile of
// the result is one call of the AVX-512 float32 micro-kernel (16 zmm
// accumulators, twice the float64 tile's flops per instruction; on AVX2
// two 6×16 pieces and a 2×32 one, in portable Go the same sums without FMA), and tiles
// are spread over the workers in blocks of denseRows × denseCols. Each
// element of the result is the float32 sum of its terms in k order within
// a k-block, the k-blocks added in order, computed by one worker: results
// do not depend on Workers. Leading zero features of a transposed operand's
// panels are skipped, as Dense does. The zero value uses GOMAXPROCS workers.
type DenseF32 struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Portable forces the portable Go tiles, for comparisons and tests.
	Portable bool
}

// panel32Cols is the width of DenseF32's column panels and tiles.
const panel32Cols = 32

// Gemm sets c = alpha·op(a)·op(b) + beta·c, where op(x) is x or, when the
// trans flag is set, xᵀ; beta must be 0 or 1. c must not share memory with a
// or b, with one exception: c may be a itself (the same matrix, op(a) = a,
// a square op(b)) when k ≤ 1,024, since every row of op(a) is packed before
// that row of c is stored (the solve of a factorization's panel by the
// inverse of its diagonal block, in place).
func (d DenseF32) Gemm(ctx context.Context, transA, transB bool, alpha float32, a, b blas32.General, beta float32, c blas32.General) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Gemm32: %w", err)
	}
	m, k := dims32(a, transA)
	kb, n := dims32(b, transB)
	if c.Rows != m || c.Cols != n || kb != k {
		return fmt.Errorf("kernel: Gemm32: %w: op(a) %d×%d, op(b) %d×%d, c %d×%d", check.ErrInput, m, k, kb, n, c.Rows, c.Cols)
	}
	if beta != 0 && beta != 1 {
		return fmt.Errorf("kernel: Gemm32: %w: beta = %g, want 0 or 1", check.ErrInput, beta)
	}
	return d.run(ctx, m, n, k, operand32{a: a, trans: transA}, operand32{a: b, trans: !transB}, alpha, beta == 1, false, false, c, m)
}

// SyrkLower sets the lower triangle (j ≤ i) of the square c to
// alpha·op(a)·op(a)ᵀ + beta·c, op(a) = a or, with trans, aᵀ; beta must be 0
// or 1. The strict upper triangle of c is not touched. c must not share
// memory with a.
func (d DenseF32) SyrkLower(ctx context.Context, trans bool, alpha float32, a blas32.General, beta float32, c blas32.General) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: SyrkLower32: %w", err)
	}
	m, k := dims32(a, trans)
	if c.Rows != m || c.Cols != m {
		return fmt.Errorf("kernel: SyrkLower32: %w: op(a) is %d×%d, c is %d×%d", check.ErrInput, m, k, c.Rows, c.Cols)
	}
	if beta != 0 && beta != 1 {
		return fmt.Errorf("kernel: SyrkLower32: %w: beta = %g, want 0 or 1", check.ErrInput, beta)
	}
	return d.run(ctx, m, m, k, operand32{a: a, trans: trans}, operand32{a: a, trans: trans}, alpha, beta == 1, true, true, c, m)
}

// LauumRows is Dense.LauumRows in float32: it adds WᵀW, W = L[k0:k1, 0:k1]
// the rows k0…k1−1 of the lower-triangular matrix in w's lower triangle
// (zeros right of the diagonal, not read), to the lower triangle of w's
// leading k1×k1 block, W's rows being consumed (set to WᵀW's), with the sums
// of SyrkLower on a copy of W after clearing its rows, bit for bit, W packed
// straight from w. The strict upper triangle of w is not touched.
func (d DenseF32) LauumRows(ctx context.Context, w blas32.General, k0, k1 int) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: LauumRows32: %w", err)
	}
	if w.Rows != w.Cols || k0 < 0 || k0 > k1 || k1 > w.Rows || (k1 > 0 && len(w.Data) < (k1-1)*w.Stride+k1) {
		return fmt.Errorf("kernel: LauumRows32: %w: rows [%d, %d) of a %d×%d matrix", check.ErrInput, k0, k1, w.Rows, w.Cols)
	}
	for s0 := k0; s0 < k1; s0 += lauumStep {
		s1 := min(s0+lauumStep, k1)
		a := operand32{a: view32(w, s0, 0, s1-s0, s1), trans: true, tri: true, diag: s0}
		if err := d.run(ctx, s1, s1, s1-s0, a, a, 1, true, true, true, view32(w, 0, 0, s1, s1), s0); err != nil {
			return err
		}
	}
	return nil
}

// view32 is the r×c block of w at (i, j), sharing its memory (r, c > 0).
func view32(w blas32.General, i, j, r, c int) blas32.General {
	return blas32.General{Rows: r, Cols: c, Stride: w.Stride, Data: w.Data[i*w.Stride+j : (i+r-1)*w.Stride+j+c]}
}

func dims32(a blas32.General, trans bool) (r, c int) {
	if trans {
		return a.Cols, a.Rows
	}
	return a.Rows, a.Cols
}

// operand32 is operand for float32: a matrix read as its rows or (trans)
// its columns, with tri (trans only) as the rows of a lower-triangular
// matrix, zeros right of column p+diag in row p.
type operand32 struct {
	a     blas32.General
	trans bool
	tri   bool
	diag  int
}

// packPanels packs panels [q0, q1) of width w (panel q: rows [q·w, q·w+w)
// of the operand, zero-filled at and beyond rows), features [p0, p0+kl),
// scaled by s, into dst as [kl][w] each, panel q at dst[(q−q0)·w·kl:], and
// sets lead[q−q0] to its leading zero features (0 for a row-major operand)
// and, when trail is not nil, trail[q−q0] to one past its last nonzero
// feature; as operand.packPanels does for float64.
func (o operand32) packPanels(dst []float32, lead, trail []int32, w, q0, q1, rows, p0, kl int, s float32) {
	raw := o.a
	lead = lead[:q1-q0]
	if trail != nil {
		trail = trail[:q1-q0]
	}
	if o.trans {
		packTrans(dst, lead, trail, raw.Data, raw.Stride, o.tri, o.diag, w, q0, q1, rows, p0, kl, s)
		return
	}
	clear(lead)
	for q := range trail {
		trail[q] = int32(kl)
	}
	for q := q0; q < q1; q++ {
		pd := dst[(q-q0)*w*kl : (q-q0+1)*w*kl]
		i0 := q * w
		n := max(0, min(w, rows-i0))
		// Eight rows at a time, read side by side (64 contiguous bytes of
		// the panel per step of p when w = 16, 32 when w = 8).
		packRows8(pd, raw.Data, raw.Stride, i0, 0, n, w, p0, kl, s, true)
	}
}

// gemm32Run is the state of one DenseF32.run (gemmRun for float32).
type gemm32Run struct {
	m, n, k     int
	a, b        operand32
	alpha       float32
	lower       bool
	rc          blas32.General
	acc         accel
	aInB        bool // Â is not packed: its 8-row panels are the quarters of B̂'s (SyrkLower, alpha = ±1, AVX-512)
	kc          int  // k-block of one micro-kernel call
	np, mp      int  // 32-column panels of B̂; rows of Â rounded up to 8
	bp, ap      []float32
	inTask      bool    // Â is packed by the tasks, worker w's rows at ap[w·apw:] (as gemmRun's)
	apw         int     // a worker's share of ap when inTask: denseRows·(features of a chunk)
	na          int     // 8-row panels of Â (mp/8)
	leadA       []int32 // leading zero features of Â's panels: [k-block of the chunk][panel]
	leadB       []int32 // leading zero features of B̂'s panels: [k-block of the chunk][panel]
	trailB      []int32 // one past the last nonzero feature of B̂'s panels, as leadB
	tasks       []denseTask
	workers     int
	tmps        [][panelRows * panel32Cols]float32
	c0, cl, nkb int // the chunk: first feature, features, k-blocks
	addTo       int // rows of c below addTo are added to, the others set
}

// run computes c = alpha·Â·B̂ᵀ (+ c when add) for Â m×k (operand a) and
// B̂ n×k (operand b), only on and below the diagonal when lower; same says
// that a and b are the same operand (then m = n); rows at or past setFrom
// are set as when add is false. As Dense.run.
func (d DenseF32) run(ctx context.Context, m, n, k int, a, b operand32, alpha float32, add, lower, same bool, c blas32.General, setFrom int) error {
	if m == 0 || n == 0 {
		return nil
	}
	if k == 0 || alpha == 0 {
		if !add {
			setFrom = 0
		}
		for i := setFrom; i < m; i++ {
			j1 := n
			if lower {
				j1 = i + 1
			}
			clear(c.Data[i*c.Stride : i*c.Stride+j1])
		}
		return ctx.Err()
	}
	g := &gemm32Run{m: m, n: n, k: k, a: a, b: b, alpha: alpha, lower: lower, rc: c, acc: useAccel}
	if d.Portable {
		g.acc = accelPortable
	}
	// SyrkLower with alpha = ±1 on AVX-512 reads Â from B̂'s panels.
	g.aInB = same && g.acc == accelAVX512 && (alpha == 1 || alpha == -1)
	nk := (k + denseKBlock - 1) / denseKBlock
	g.kc = (k + nk - 1) / nk
	chunk := g.kc * denseKBlocks
	g.np = (n + panel32Cols - 1) / panel32Cols
	g.mp = roundUp(m, panelRows)
	kcap := min(chunk, k)
	need := pack32Len(m, n, k)
	if g.aInB {
		need = g.np * panel32Cols * kcap // Â is read from B̂: no panels of its own
	}
	bufs := dense32Packs.get(need)
	defer dense32Packs.put(bufs)
	g.bp = (*bufs)[:g.np*panel32Cols*kcap]
	if !g.aInB {
		g.ap = (*bufs)[g.np*panel32Cols*kcap : (g.np*panel32Cols+g.mp)*kcap]
	}
	g.na = g.mp / panelRows
	nkbMax := (kcap + g.kc - 1) / g.kc
	leads := make([]int32, nkbMax*(g.na+2*g.np))
	g.leadA, g.leadB, g.trailB = leads[:nkbMax*g.na], leads[nkbMax*g.na:nkbMax*(g.na+g.np)], leads[nkbMax*(g.na+g.np):]
	rowBlocks := (m + denseRows - 1) / denseRows
	colBlocks := (n + denseCols - 1) / denseCols
	g.tasks = make([]denseTask, 0, rowBlocks*colBlocks)
	for ib := 0; ib < rowBlocks; ib++ {
		for jb := 0; jb < colBlocks; jb++ {
			if lower && jb*denseCols > min((ib+1)*denseRows, m)-1 {
				break
			}
			g.tasks = append(g.tasks, denseTask{ib, jb})
		}
	}
	g.workers = parallel.Workers(d.Workers)
	g.inTask = !same && n <= denseCols && g.mp >= g.workers*denseRows // as Dense.run
	g.apw = denseRows * kcap
	g.tmps = make([][panelRows * panel32Cols]float32, g.workers)
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
		if err := g.pack(ctx, same); err != nil {
			return err
		}
		if err := parallel.For(ctx, len(g.tasks), g.workers, g.block); err != nil {
			return err
		}
	}
	return nil
}

// pack packs, for each k-block kb of the chunk, B̂ (panel jp as [kl][32])
// at bp[kb·kc·32·np + jp·32·kl] and αÂ (panel ip as [kl][8]) at
// ap[kb·kc·mp + ip·8·kl]; with same (SyrkLower), Â's panels are copied from
// the quarters of B̂'s, scaled.
func (g *gemm32Run) pack(ctx context.Context, same bool) error {
	nb, na := (g.np+packGroup-1)/packGroup, (g.mp/panelRows+packGroup-1)/packGroup
	packB := func(kb, q0 int) {
		p0, kl := g.c0+kb*g.kc, min(g.kc, g.cl-kb*g.kc)
		g.b.packPanels(g.bp[kb*g.kc*panel32Cols*g.np+q0*panel32Cols*kl:], g.leadB[kb*g.np+q0:], g.trailB[kb*g.np+q0:], panel32Cols, q0, min(q0+packGroup, g.np), g.n, p0, kl, 1)
	}
	if !same {
		return parallel.For(ctx, (nb+na)*g.nkb, g.workers, func(_, j int) {
			kb := j / (nb + na)
			j %= nb + na
			if j < nb {
				packB(kb, j*packGroup)
				return
			}
			if g.inTask {
				return // packed by the tasks (packRows)
			}
			q0 := (j - nb) * packGroup
			p0, kl := g.c0+kb*g.kc, min(g.kc, g.cl-kb*g.kc)
			g.a.packPanels(g.ap[kb*g.kc*g.mp+q0*panelRows*kl:], g.leadA[kb*g.na+q0:], nil, panelRows, q0, min(q0+packGroup, g.na), g.m, p0, kl, g.alpha)
		})
	}
	if err := parallel.For(ctx, nb*g.nkb, g.workers, func(_, j int) { packB(j/nb, (j%nb)*packGroup) }); err != nil {
		return err
	}
	if g.aInB {
		return nil
	}
	const quarters = panel32Cols / panelRows
	return parallel.For(ctx, na*g.nkb, g.workers, func(_, j int) {
		kb, q0 := j/na, (j%na)*packGroup
		kl := min(g.kc, g.cl-kb*g.kc)
		for ip := q0; ip < min(q0+packGroup, g.na); ip++ {
			src := g.bp[kb*g.kc*panel32Cols*g.np+(ip/quarters)*panel32Cols*kl+(ip%quarters)*panelRows:]
			dst := g.ap[kb*g.kc*g.mp+ip*panelRows*kl : kb*g.kc*g.mp+(ip+1)*panelRows*kl]
			// The quarter of B̂'s panel starts with at least its zeros.
			lead := int(g.leadB[kb*g.np+ip/quarters])
			g.leadA[kb*g.na+ip] = int32(lead)
			clear(dst[:lead*panelRows])
			for p := lead; p < kl; p++ {
				sr := src[p*panel32Cols : p*panel32Cols+panelRows]
				dr := dst[p*panelRows : p*panelRows+panelRows]
				for r, v := range sr {
					dr[r] = g.alpha * v
				}
			}
		}
	})
}

// packRows packs rows [i0, i1) of αÂ, all k-blocks of the chunk, into ap
// as pack does for the whole of Â, the rows counted from i0: k-block kb's
// panels at ap[kb·kc·denseRows:].
func (g *gemm32Run) packRows(ap []float32, i0, i1 int) {
	q0, q1 := i0/panelRows, (i1+panelRows-1)/panelRows
	for kb := 0; kb < g.nkb; kb++ {
		p0, kl := g.c0+kb*g.kc, min(g.kc, g.cl-kb*g.kc)
		g.a.packPanels(ap[kb*g.kc*denseRows:], g.leadA[kb*g.na+q0:], nil, panelRows, q0, q1, g.m, p0, kl, g.alpha)
	}
}

// sum runs the k-blocks of the chunk on the 8×32 tile at (i, j) into c,
// skipping leading zero features as gemmRun.sum does; Â's panels are read
// from ap, mpa rows per k-block from row ia0 on (as gemmRun.sum).
func (g *gemm32Run) sum(i, j int, c []float32, ldc int, add bool, ap []float32, ia0, mpa int) {
	ia, jb := i/panelRows, j/panel32Cols
	const quarters = panel32Cols / panelRows
	for kb := 0; kb < g.nkb; kb++ {
		kl := min(g.kc, g.cl-kb*g.kc)
		bk := g.bp[kb*g.kc*panel32Cols*g.np:]
		if g.aInB {
			// Rows i…i+7 of Â are quarter ia%4 of B̂'s panel ia/4.
			s := int(max(g.leadB[kb*g.np+ia/quarters], g.leadB[kb*g.np+jb]))
			if s >= kl {
				continue
			}
			apan := bk[(ia/quarters)*panel32Cols*kl+(ia%quarters)*panelRows+s*panel32Cols:]
			bpan := bk[j*kl+s*panel32Cols:]
			if g.alpha < 0 {
				gemm8x32F32SyrkNegPfAVX512(kl-s, &apan[0], &bpan[0], &c[0], ldc, add)
			} else {
				gemm8x32F32SyrkPfAVX512(kl-s, &apan[0], &bpan[0], &c[0], ldc, add)
			}
			add = true
			continue
		}
		s := int(max(g.leadA[kb*g.na+ia], g.leadB[kb*g.np+jb]))
		e := int(g.trailB[kb*g.np+jb])
		if s >= e {
			continue
		}
		bpan := bk[j*kl+s*panel32Cols:]
		apan := ap[kb*g.kc*mpa+(i-ia0)*kl+s*panelRows:]
		tile32(g.acc, e-s, apan, bpan, c, ldc, add)
		add = true
	}
	if !add {
		for r := 0; r < panelRows; r++ {
			clear(c[r*ldc : r*ldc+panel32Cols])
		}
	}
}

// block computes block t of c with worker w's scratch tile: full tiles in
// place, edge and diagonal tiles through the scratch.
func (g *gemm32Run) block(w, t int) {
	m, n, rc := g.m, g.n, g.rc
	tmp := &g.tmps[w]
	i0 := g.tasks[t].ib * denseRows
	i1 := min(i0+denseRows, m)
	j0 := g.tasks[t].jb * denseCols
	j1 := min(j0+denseCols, n)
	if g.lower {
		j1 = min(j1, i1)
	}
	rp := roundUp(i1-i0, panelRows)
	ap, ia0, mpa := g.ap, 0, g.mp
	if g.inTask {
		ap, ia0, mpa = g.ap[w*g.apw:(w+1)*g.apw], i0, denseRows
		g.packRows(ap, i0, i1)
	}
	for j := j0; j < j1; j += panel32Cols {
		for ip := 0; ip < rp; ip += panelRows {
			i := i0 + ip
			if g.lower && j > i+panelRows-1 {
				continue // tile entirely above the diagonal
			}
			full := i+panelRows <= m && j+panel32Cols <= n && (!g.lower || j+panel32Cols-1 <= i) && (i+panelRows <= g.addTo || i >= g.addTo)
			if full {
				g.sum(i, j, rc.Data[i*rc.Stride+j:], rc.Stride, i < g.addTo, ap, ia0, mpa)
				continue
			}
			g.sum(i, j, tmp[:], panel32Cols, false, ap, ia0, mpa)
			g.storeEdge(tmp[:], i, j)
		}
	}
}

// storeEdge adds (in rows below addTo) or copies the part of the scratch
// tile tmp at (i, j) that lies inside c (and on or below the diagonal when
// lower).
func (g *gemm32Run) storeEdge(tmp []float32, i, j int) {
	rc := g.rc
	for r := 0; r < panelRows && i+r < g.m; r++ {
		cEnd := min(j+panel32Cols, g.n)
		if g.lower {
			cEnd = min(cEnd, i+r+1)
		}
		if cEnd <= j {
			continue
		}
		dst := rc.Data[(i+r)*rc.Stride+j : (i+r)*rc.Stride+cEnd]
		src := tmp[r*panel32Cols : r*panel32Cols+len(dst)]
		if i+r < g.addTo {
			for q, v := range src {
				dst[q] += v
			}
		} else {
			copy(dst, src)
		}
	}
}

// PackBytes returns the memory one Gemm or SyrkLower call holds for an m×n
// result summed over k, for callers that plan memory: its packing buffer
// and its other allocations (as Dense.PackBytes).
func (d DenseF32) PackBytes(m, n, k int) int64 {
	if m == 0 || n == 0 || k == 0 {
		return 0
	}
	return 4*int64(pack32Len(m, n, k)) + denseCallBytes(m, n, k, parallel.Workers(d.Workers))
}

// SyrkPackBytes is Dense.SyrkPackBytes for DenseF32: the memory of the
// float32 blocked factorizations' products on an n×n matrix with k-blocks
// of k; on AVX-512 only B̂'s panels are packed. ReserveSyrk holds that
// buffer.
func (d DenseF32) SyrkPackBytes(n, k int) int64 {
	if n == 0 || k == 0 {
		return 0
	}
	return 4*int64(d.syrkLen(n, k)) + denseCallBytes(n, n, k, parallel.Workers(d.Workers))
}

// ReserveSyrk is Reserve for the products SyrkPackBytes(n, k) plans.
func (d DenseF32) ReserveSyrk(n, k int) (release func()) {
	if n > 0 && k > 0 {
		return dense32Packs.reserve(d.syrkLen(n, k))
	}
	return dense32Packs.reserve(0)
}

// syrkLen is Dense.syrkLen for DenseF32 (32-column panels of B̂; the
// Gemms of CholeskyBlocked32's panel fit as in float64).
func (d DenseF32) syrkLen(n, k int) int {
	if !d.Portable && useAccel == accelAVX512 {
		nk := (k + denseKBlock - 1) / denseKBlock
		kc := (k + nk - 1) / nk
		return roundUp(n, panel32Cols) * min(kc*denseKBlocks, k)
	}
	return pack32Len(n, n, k)
}

// pack32Len is the length of DenseF32's packing buffer for an m×k by k×n
// product: a chunk of k-blocks of both operands, packed.
func pack32Len(m, n, k int) int {
	nk := (k + denseKBlock - 1) / denseKBlock
	kc := (k + nk - 1) / nk
	return (roundUp(n, panel32Cols) + roundUp(m, panelRows)) * min(kc*denseKBlocks, k)
}

// Reserve readies DenseF32's packing buffer for products up to an m×k by a
// k×n matrix and holds it until release is called, as Dense.Reserve does
// for float64 (a separate cache: float32 and float64 products do
// not share buffers).
func (DenseF32) Reserve(m, n, k int) (release func()) {
	if m > 0 && n > 0 && k > 0 {
		return dense32Packs.reserve(pack32Len(m, n, k))
	}
	return dense32Packs.reserve(0)
}

// dense32Packs recycles DenseF32's packing buffers (a separate cache:
// float32 and float64 products do not share buffers).
var dense32Packs = packCache[float32]{alloc: hugemem.Float32s}

// tile32 sets (or, with add, increments) the 8×32 float32 tile at c (row
// stride ldc) to Σ_p a[p][0:8] ⊗ b[p][0:32] over p < kl, on the inner
// kernels acc.
func tile32(acc accel, kl int, a, b, c []float32, ldc int, add bool) {
	switch acc {
	case accelAVX512:
		gemm8x32F32PfAVX512(kl, &a[0], &b[0], &c[0], ldc, add)
	case accelAVX2:
		gemm8x32F32AVX2(kl, &a[0], &b[0], &c[0], ldc, add)
	default:
		tileGo(kl, a, b, c, ldc, panel32Cols, add)
	}
}
