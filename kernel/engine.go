package kernel

import (
	"context"
	"fmt"
	"sync"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Options tunes the block engine. The zero value means: all cores, block size
// chosen from the number of centers.
type Options struct {
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Workers int
	// BlockRows is the number of rows of X per block; 0 chooses it so that one
	// block of K (BlockRows × M) takes 1–4 MiB and one packed block of X
	// (BlockRows × d) at most 8 MiB, down to 8 rows (autoBlockRows). Either
	// way a block holds at most n rows (rounded up to 8). Results depend on it
	// only through floating-point summation order.
	BlockRows int
	// Float32 computes the dot products x·c of the Gaussian, polynomial and
	// linear kernels in single precision (inputs rounded to float32, products
	// summed in float32 over blocks of at most 256 features, the blocks summed
	// in float64); norms and every product with K stay in float64. With
	// AVX-512 or AVX2, the Gaussian kernel and d ≤ 256, the single-vector products
	// (MulTMul and Mul with one column, the CG passes and predictions) go
	// further: exp in float32 (16 or 8 lanes), and K·v and Kᵀ(K v) summed in
	// float32 over at most 32 terms, those partial sums added in float64
	// (1.35× less CPU than the float32 dot products alone at d = 54,
	// BenchmarkMulTMul; relative error of the fused product 6e-8 against
	// 2e-8, TestFloat32). It is about twice
	// as fast as float64 and adds an error to the kernel values that
	// docs/performance.md, "Kernel engine", measures (at most 2e-7 absolute for standard-normal data
	// with γ = 1/d, d = 8 … 784). Keep it off for anything whose accuracy
	// matters beyond that, such as the Cholesky factor of K_MM.
	Float32 bool
}

// segments is the number of partial sums a reduction over nb row blocks
// keeps, each of size values: the blocks are cut into that many contiguous
// segments, which the workers take one at a time. It depends on nb and size
// only, not on the worker count, so the summation order is fixed. Up to 128
// segments while their partials take at most segmentBytes (at least 32
// whatever their size, the count used before, when it was a constant):
// with 32 segments of 12 blocks (n = 100,000, d = 784, M = 2,000, 256-row
// blocks, ≈ 0.2 s a segment on a core of machine D) two workers ended on
// average half a segment apart, ≈ 3% of the fused pass's wall time; with
// 128 the last segment is a quarter as long. The partials then take
// 128 × 16 KB = 2 MB instead of 0.5 MB.
func segments(nb, size int) int {
	s := min(max(segmentBytes/(8*max(size, 1)), 32), 128)
	return max(min(s, nb), 1)
}

// segmentBytes bounds the partial sums of a reduction when there are more
// than 32 of them (segments).
const segmentBytes = 4 << 20

// Op is the kernel matrix K(X, C) between n data points and M centers, used as a
// linear operator without being stored. Each product walks X in row blocks,
// forms K(X_B, C) for the block in per-worker scratch space and uses it at once.
//
// The first product packs C into panels for the inner kernels and computes the
// squared norms of C; those of dense X are summed 64 rows at a time by the
// first product that reads the rows, just before it packs them. The Op keeps
// them (about 8·M·d + 8·n bytes) for later calls.
// Methods may be called from several goroutines at once, each call using its
// own scratch space. A nil context is refused with an error wrapping
// check.ErrInput (model.ErrInput).
type Op struct {
	k    Kernel
	x, c *mat.Dense
	sx   Sparse   // X when it is sparse (then x is nil); see sparse_engine.go
	x32  *Dense32 // X in float32 (then x is nil; Float32 mode); see dense32.go
	sc   Sparse   // C when it is sparse (then c is nil); see sparse_centers.go
	opt  Options
	// centers, when set, is an Op on the same dense C, kernel and Options
	// whose packed centers and norms this one reads instead of packing its
	// own (Factored's groups: one copy of C_D for all of them).
	centers *Op

	once sync.Once
	plan plan
	kept keptBlocks    // blocks of K kept (Keep32, Keep64; multi.go)
	st   strassenState // MulTMul's Strassen operands (strassen.go)
}

// NewOp returns the operator K(X, C). X and C must not be modified while the
// Op is in use. A nil kernel or matrix, or X and C with different numbers of
// columns, make every product return an error. X may be any mat.Matrix: a
// *mat.Dense is used as it is, a Sparse one is kept sparse (see
// sparse_engine.go), anything else goes through a dense copy (DenseOf).
// So may C: a Sparse C is kept sparse for the Gaussian, Laplacian,
// polynomial and linear kernels (see sparse_centers.go; any other kernel
// gets a dense copy of C), so the Op's memory follows C's non-zeros, not
// M·d. Whether sparse centers are the faster choice is the caller's to ask
// (PreferDenseCenters); the Op uses C in the form it is given.
func NewOp(k Kernel, x mat.Matrix, c mat.Matrix, opt Options) *Op {
	o := &Op{k: k, opt: opt}
	if s, ok := c.(Sparse); ok && SparseCenterForm(k) {
		o.sc = s
	} else {
		o.c = DenseOf(c)
	}
	x32, is32 := x.(*Dense32)
	switch s, ok := x.(Sparse); {
	case ok:
		o.sx = s
	case is32 && x32 != nil && runs32(k, o.sc != nil):
		o.x32 = x32
		o.opt.Float32 = true
	default:
		o.x = DenseOf(x)
	}
	return o
}

// dim is the number of columns of X (0 when X is nil).
func (o *Op) dim() int {
	if o.sx != nil {
		_, d := o.sx.Dims()
		return d
	}
	if o.x32 != nil {
		return o.x32.cols
	}
	if o.x == nil {
		return 0
	}
	return o.x.RawMatrix().Cols
}

// cdim is the number of columns of C (0 when C is nil).
func (o *Op) cdim() int {
	if o.sc != nil {
		_, d := o.sc.Dims()
		return d
	}
	if o.c == nil {
		return 0
	}
	return o.c.RawMatrix().Cols
}

// ready refuses a call of the product named op that cannot run: a nil
// context (an error wrapping check.ErrInput, which the products would
// otherwise panic on at their first cancellation check) or what valid
// reports.
func (o *Op) ready(ctx context.Context, op string) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: %s: %w", op, err)
	}
	return o.valid()
}

// valid reports what NewOp was given that cannot make an operator.
func (o *Op) valid() error {
	switch {
	case o.k == nil:
		return fmt.Errorf("kernel: %w: nil kernel", check.ErrInput)
	case (o.x == nil && o.sx == nil && o.x32 == nil) || (o.c == nil && o.sc == nil):
		return fmt.Errorf("kernel: %w: nil X or C", check.ErrInput)
	case o.dim() != o.cdim():
		return fmt.Errorf("kernel: %w: X has %d columns, C has %d", check.ErrInput, o.dim(), o.cdim())
	}
	if o.sc != nil {
		if err := checkCSR("C", o.sc); err != nil {
			return err
		}
	}
	return nil
}

// Dims returns n and M.
func (o *Op) Dims() (n, m int) {
	if o.sx != nil {
		n, _ = o.sx.Dims()
	} else if o.x32 != nil {
		n = o.x32.rows
	} else if o.x != nil {
		n = o.x.RawMatrix().Rows
	}
	if o.sc != nil {
		m, _ = o.sc.Dims()
	} else if o.c != nil {
		m = o.c.RawMatrix().Rows
	}
	return n, m
}

// Kernel returns the kernel.
func (o *Op) Kernel() Kernel { return o.k }

// BlockRows returns the row-block size the engine uses: Options.BlockRows,
// or autoBlockRows's choice, in either case at most n rounded up to the
// panel height (a block never holds more rows than X has).
func (o *Op) BlockRows() int {
	n, m := o.Dims()
	b := o.opt.BlockRows
	switch {
	case b > 0:
	case o.wideGaussian():
		b = wideBlockRows(m, o.dim())
	default:
		b = autoBlockRows(m, o.dim())
	}
	return min(b, max(roundUp(n, panelRows), panelRows))
}

// wideGaussian reports whether o is the Gaussian kernel on dense float64 X
// and C with d ≥ strassenMinDim: the shape of MulTMul's Strassen product
// (whatever the inner kernels and LANDMARK_STRASSEN, so that its blocks,
// and the bits of its reductions, do not depend on them).
func (o *Op) wideGaussian() bool {
	if _, ok := o.k.(Gaussian); !ok || o.opt.Float32 || o.sx != nil || o.sc != nil || o.x32 != nil || o.x == nil || o.c == nil {
		return false
	}
	return o.dim() >= strassenMinDim
}

// wideBlockRows is autoBlockRows with blocks of K of about 8 MiB (512 rows
// at M = 2,000) for wideGaussian Ops: each panel of centers (and of the
// Strassen operands) is reused over twice the rows of a 4 MiB block. At n =
// 100,000, d = 784, M = 2,000, a new Op each pass, the two sizes alternated
// in one process (machine E, 2026-11-27, idle): with the Strassen product
// 512 rows took 3.6–5.2% less CPU than 256 (best / median of 8 and 6
// passes), 1,024 rows 2% more than 512; with the classical product
// (LANDMARK_STRASSEN=0) 512 rows 2.3–2.6% less. The packed block of X stays
// within xBlockBytes as before.
func wideBlockRows(m, d int) int {
	b := (8 << 20) / 8 / max(roundUp(m, panelCols), 1)
	b = min(b, xBlockBytes/8/max(d, 1))
	// A multiple of two panels (the Strassen product's halves of a block
	// are then whole panels, and no rows of a full block take the classical
	// tiles), or one panel where xBlockBytes leaves fewer rows (huge d).
	return min(max(b&^(2*panelRows-1), panelRows), 1024)
}

// xBlockBytes bounds the packed block of X one worker keeps (BlockRows × d
// values): rows are dropped, down to one panel of panelRows, until it fits.
// At 8 MiB it leaves the choice below unchanged for d ≤ 1,024 (1,024 rows);
// at d = 10⁷ a block is one panel (8 rows, 640 MB) instead of 1,024 rows
// (82 GB).
const xBlockBytes = 8 << 20

// autoBlockRows sizes a block of K (rows × M). For d < 256 the block takes
// about 1 MiB, so it stays in the per-core L2 cache between being formed and
// being mapped and used; for larger d the product X_B·Cᵀ dominates and each
// packed panel of C is better reused over more rows, so the block takes about
// 4 MiB (measured with 1 worker at d = 784, M = 2,000: 64 rows 25–28 GFLOP/s
// per CPU-second, 256 rows 35–37, on the loaded shared machine). The rows
// are also bounded by xBlockBytes/(8d), so that the packed block of X stays
// within xBlockBytes while d allows it.
func autoBlockRows(m, d int) int {
	blockBytes := 1 << 20
	if d >= 256 {
		blockBytes = 4 << 20
	}
	b := blockBytes / 8 / max(roundUp(m, panelCols), 1)
	b = min(b, xBlockBytes/8/max(d, 1))
	return min(max(b&^(panelRows-1), panelRows), 1024)
}

// Block writes K(X, C) into dst (n×M), block by block on all workers.
func (o *Op) Block(ctx context.Context, dst *mat.Dense) error {
	if err := o.ready(ctx, "Block"); err != nil {
		return err
	}
	n, m := o.Dims()
	if r, c := dst.Dims(); r != n || c != m {
		return fmt.Errorf("kernel: Block: %w: dst is %d×%d, want %d×%d", check.ErrInput, r, c, n, m)
	}
	p := o.prepare()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	w := parallel.Workers(o.opt.Workers)
	ws := make([]*work, w)
	defer putWorks(ws)
	rd := dst.RawMatrix()
	return parallel.For(ctx, nb, w, func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, 0)
		}
		if p.dk != nil && rd.Stride == p.mp && (r1-r0)%panelRows == 0 {
			// The block's tiles fit dst exactly: form K in place.
			w := *ws[worker]
			w.blk = rd.Data[r0*rd.Stride : r1*rd.Stride]
			p.kernelBlock(&w, r0, r1)
			return
		}
		kb := p.kernelBlock(ws[worker], r0, r1)
		for i := r0; i < r1; i++ {
			copy(rd.Data[i*rd.Stride:i*rd.Stride+m], kb.Data[(i-r0)*kb.Stride:])
		}
	})
}

// Mul sets dst = K(X, C)·V, with V M×t and dst n×t.
func (o *Op) Mul(ctx context.Context, dst, v *mat.Dense) error {
	if err := o.ready(ctx, "Mul"); err != nil {
		return err
	}
	n, m := o.Dims()
	if err := checkRHS("Mul", dst, v, n, m); err != nil {
		return err
	}
	p := o.prepare()
	rv, rd := v.RawMatrix(), dst.RawMatrix()
	if o.panelsFor(p, rv.Cols) {
		return o.mulPanels(ctx, dst, rv)
	}
	b := o.BlockRows()
	nb := (n + b - 1) / b
	w := parallel.Workers(o.opt.Workers)
	ws := make([]*work, w)
	defer putWorks(ws)
	if p.gauss && rv.Cols == 1 {
		// One right-hand side: each row of the block is mapped through exp
		// and dotted with v in one pass (gonum's Dgemv-shaped Dgemm is slower).
		vp, vp32 := p.padded(rv)
		return parallel.For(ctx, nb, w, func(worker, blk int) {
			r0, r1 := blk*b, min((blk+1)*b, n)
			if ws[worker] == nil {
				ws[worker] = p.getWork(b, 0)
			}
			p.norms(r0, r1) // X's norms, on first use (lazyNorms)
			p.gaussianDots(ws[worker], r0, r1, vp, vp32, rd.Data[r0*rd.Stride:], rd.Stride)
		})
	}
	if p.l1 != nil && rv.Cols == 1 {
		// The Laplacian with one right-hand side: K·v from the row map's
		// fused dot product (l1.go).
		vp, _ := p.padded(rv)
		return parallel.For(ctx, nb, w, func(worker, blk int) {
			r0, r1 := blk*b, min((blk+1)*b, n)
			if ws[worker] == nil {
				ws[worker] = p.getWork(b, 1)
			}
			kv := ws[worker].kv
			p.l1Fused(ws[worker], r0, r1, vp, kv, nil, nil)
			for i := range r1 - r0 {
				rd.Data[(r0+i)*rd.Stride] = kv[i]
			}
		})
	}
	var fe firstErr
	err := parallel.For(ctx, nb, w, func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, 0)
		}
		kb := p.kernelBlock(ws[worker], r0, r1)
		out := blas64.General{Rows: r1 - r0, Cols: rd.Cols, Stride: rd.Stride, Data: rd.Data[r0*rd.Stride:]}
		fe.set(gemmBlock(ctx, false, kb, rv, false, out))
	})
	return fe.or(err)
}

// MulT sets dst = K(X, C)ᵀ·U, with U n×t and dst M×t.
func (o *Op) MulT(ctx context.Context, dst, u *mat.Dense) error {
	if err := o.ready(ctx, "MulT"); err != nil {
		return err
	}
	n, m := o.Dims()
	if err := checkRHS("MulT", dst, u, m, n); err != nil {
		return err
	}
	ru := u.RawMatrix()
	p := o.prepare()
	if o.panelsFor(p, ru.Cols) {
		return o.mulTPanels(ctx, dst, ru)
	}
	if ru.Cols == 1 && (p.dk != nil || p.l1 != nil) {
		// One right-hand side: acc += Σ_i u_i·K_i, four rows at a time
		// (gonum's Dgemm with a transposed block is several times slower here).
		_, gauss := o.k.(Gaussian)
		var zero32 []float32
		if gauss {
			zero32 = make([]float32, max(p.mp, 1))
		}
		return o.reduce(ctx, dst, 1, 1, func(w *work, r0, r1 int, acc blas64.General) {
			if gauss && p.blocks32(w) {
				p.norms(r0, r1) // X's norms, on first use (lazyNorms)
				p.gaussianMulT32(w, r0, r1, ru, zero32, acc.Data)
				return
			}
			kb := p.kernelBlock(w, r0, r1)
			kv := w.kv[:r1-r0]
			for i := range kv {
				kv[i] = ru.Data[(r0+i)*ru.Stride]
			}
			p.accumulateRows(w, kb.Data, kv, acc.Data)
		})
	}
	var fe firstErr
	err := o.reduce(ctx, dst, ru.Cols, 0, func(w *work, r0, r1 int, acc blas64.General) {
		kb := p.kernelBlock(w, r0, r1)
		us := blas64.General{Rows: r1 - r0, Cols: ru.Cols, Stride: ru.Stride, Data: ru.Data[r0*ru.Stride:]}
		fe.set(gemmBlock(ctx, true, kb, us, true, acc))
	})
	return fe.or(err)
}

// MulTMul sets dst = K(X, C)ᵀ·(K(X, C)·V), with V and dst M×t. Each block of K
// is formed once and used for both products; K(X, C)·V is never stored whole.
// With one right-hand side and the Gaussian kernel, each row of a block is
// mapped through exp and dotted with v in one pass while it is in cache, and
// the block's contribution Kᵀ(K v) is accumulated four rows at a time.
func (o *Op) MulTMul(ctx context.Context, dst, v *mat.Dense) error {
	if err := o.ready(ctx, "MulTMul"); err != nil {
		return err
	}
	return o.mulTMul(ctx, "MulTMul", dst, v, nil)
}

// MulTMulWeighted sets dst = K(X, C)ᵀ·diag(w)·(K(X, C)·V), with V and dst
// M×t and w one finite weight per row of X: MulTMul with each row of
// K(X, C)·V multiplied by its weight between the two products, in the same
// single pass over the blocks — the normal equations of weighted least
// squares (FALKON with sample weights). w = all ones gives MulTMul's
// result to the bit.
func (o *Op) MulTMulWeighted(ctx context.Context, dst, v *mat.Dense, w []float64) error {
	if err := o.ready(ctx, "MulTMulWeighted"); err != nil {
		return err
	}
	n, _ := o.Dims()
	if err := check.Vector("w", w, n); err != nil {
		return fmt.Errorf("kernel: MulTMulWeighted: %w", err)
	}
	return o.mulTMul(ctx, "MulTMulWeighted", dst, v, w)
}

// mulTMul is MulTMul, or MulTMulWeighted with the row weights wt (nil:
// none), named op in errors.
func (o *Op) mulTMul(ctx context.Context, op string, dst, v *mat.Dense, wt []float64) error {
	_, m := o.Dims()
	if err := checkRHS(op, dst, v, m, m); err != nil {
		return err
	}
	rv := v.RawMatrix()
	t := rv.Cols
	p := o.prepare()
	if o.panelsFor(p, t) {
		return o.mulTMulPanels(ctx, dst, rv, wt)
	}
	if g, ok := o.k.(Gaussian); ok && t == 1 {
		vp, vp32 := p.padded(rv)
		st, release := o.trainStrassen(p)
		defer release()
		return o.reduce(ctx, dst, 1, 1, func(w *work, r0, r1 int, acc blas64.General) {
			p.norms(r0, r1) // X's norms, on first use (lazyNorms)
			if p.blocks32(w) {
				p.fusedGaussian32(w, r0, r1, vp32, acc.Data, wt)
				return
			}
			p.fusedGaussian(w, r0, r1, -g.Gamma, vp, acc.Data, st, wt)
		})
	}
	if p.l1 != nil && t == 1 {
		// The Laplacian: the same fused pass, K_B·v from the row map (l1.go).
		vp, _ := p.padded(rv)
		return o.reduce(ctx, dst, 1, 1, func(w *work, r0, r1 int, acc blas64.General) {
			p.l1Fused(w, r0, r1, vp, w.kv, acc.Data, wt)
		})
	}
	var fe firstErr
	err := o.reduce(ctx, dst, t, t, func(w *work, r0, r1 int, acc blas64.General) {
		kb := p.kernelBlock(w, r0, r1)
		kv := blas64.General{Rows: r1 - r0, Cols: t, Stride: t, Data: w.kv}
		fe.set(gemmBlock(ctx, false, kb, rv, false, kv))
		if wt != nil {
			for i := range r1 - r0 {
				scaleBy(kv.Data[i*t:(i+1)*t], wt[r0+i])
			}
		}
		fe.set(gemmBlock(ctx, true, kb, kv, true, acc))
	})
	return fe.or(err)
}

// scaleBy multiplies x by a.
func scaleBy(x []float64, a float64) {
	for i := range x {
		x[i] *= a
	}
}

// gemmBlock sets c = op(a)·b, or adds it to c when add, for one block of K
// on the calling worker, with the packed micro-kernels of Dense (op(a) = a
// or aᵀ). These are the products with several right-hand sides (Nyström
// feature maps, multi-output fits): gonum's pure-Go Dgemm ran them at 7.6
// GFLOP/s (t = 10) and 20 GFLOP/s (t = 1,000) on 2 cores
// (BenchmarkMulManyRHS). Every element of c is summed in a fixed order, so
// results do not depend on the worker count.
func gemmBlock(ctx context.Context, transA bool, a, b blas64.General, add bool, c blas64.General) error {
	if c.Rows == 0 || c.Cols == 0 {
		return nil
	}
	var am, bm, cm mat.Dense
	am.SetRawMatrix(a)
	bm.SetRawMatrix(b)
	cm.SetRawMatrix(c)
	beta := 0.0
	if add {
		beta = 1
	}
	return Dense{Workers: 1}.Gemm(ctx, transA, false, 1, &am, &bm, beta, &cm)
}

// firstErr keeps the first error reported by parallel workers.
type firstErr struct {
	mu  sync.Mutex
	err error
}

func (f *firstErr) set(err error) {
	if err == nil {
		return
	}
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

// or returns err (the loop's own, such as a cancellation) or else the first
// worker error.
func (f *firstErr) or(err error) error {
	if err != nil {
		return err
	}
	return f.err
}

// padded returns the first column of v padded with zeros to mp, and with
// Float32 the same rounded to float32 (nil otherwise).
func (p *plan) padded(v blas64.General) ([]float64, []float32) {
	vp := make([]float64, p.mp)
	for j := range p.m {
		vp[j] = v.Data[j*v.Stride]
	}
	if !p.f32 {
		return vp, nil
	}
	vp32 := make([]float32, p.mp)
	for j, x := range vp {
		vp32[j] = float32(x)
	}
	return vp, vp32
}

// reduce runs f on every row block and sums the M×t results into dst in a
// fixed order: the blocks are split into contiguous segments (segments: a
// count that depends on the number of blocks and M·t only), each segment is
// summed sequentially into its own partial (M×t, with rows padded to the
// panel width), and the partials are added in segment order. kvCols is the width of the per-worker K·V scratch f needs.
func (o *Op) reduce(ctx context.Context, dst *mat.Dense, t, kvCols int, f func(w *work, r0, r1 int, acc blas64.General)) error {
	_, m := o.Dims()
	p := o.prepare()
	partial, sums, err := o.segmentSums(ctx, p.mp*t, kvCols, func(w *work, r0, r1 int, acc []float64) {
		f(w, r0, r1, blas64.General{Rows: m, Cols: t, Stride: t, Data: acc})
	})
	defer sumsSlot.Put(sums)
	if err != nil {
		return err
	}
	addPartials(dst.RawMatrix(), m, t, partial)
	return nil
}

// addPartials sets the m×t dst to the sum of the partials (each m×t with
// stride t, or longer) in their order: every element is 0 + p₀ + p₁ + …,
// the order reduce has always used, added partial by partial over
// contiguous memory. It took 0.75–0.8 ms at M = 2,000 and 128 partials
// with the partials inner (a chain of 128 dependent additions an element,
// one element after the other), serial time at the end of each fused pass
// (≈ 0.5% of one at d = 54, n = 100,000 on two cores).
func addPartials(dst blas64.General, m, t int, partial [][]float64) {
	if dst.Stride == t {
		d := dst.Data[:m*t]
		clear(d)
		for _, p := range partial {
			p = p[:len(d)]
			for k, v := range p {
				d[k] += v
			}
		}
		return
	}
	for i := 0; i < m; i++ {
		clear(dst.Data[i*dst.Stride : i*dst.Stride+t])
	}
	for _, p := range partial {
		for i := 0; i < m; i++ {
			row := dst.Data[i*dst.Stride : i*dst.Stride+t]
			for j, v := range p[i*t : i*t+t] {
				row[j] += v
			}
		}
	}
}

// segmentSums runs f on every row block, the blocks split into
// segments(nb, size) contiguous segments, each summed in block order into its own
// partial of size values (zero at the start, cleared by the worker that sums
// it), and returns the partials in
// segment order, held in sums, which the caller hands back with
// sumsSlot.Put (also on error). kvCols is the width of the per-worker K·V
// scratch f needs.
func (o *Op) segmentSums(ctx context.Context, size, kvCols int, f func(w *work, r0, r1 int, acc []float64)) ([][]float64, *[]float64, error) {
	n, _ := o.Dims()
	p := o.prepare()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	nseg := segments(nb, size)
	partial := make([][]float64, nseg)
	sums := p.getSums(nseg * size)
	w := parallel.Workers(o.opt.Workers)
	ws := make([]*work, w)
	defer putWorks(ws)
	err := parallel.For(ctx, nseg, w, func(worker, s int) {
		if ws[worker] == nil {
			ws[worker] = p.getWork(b, kvCols)
		}
		acc := (*sums)[s*size : (s+1)*size]
		clear(acc) // here rather than all at once before the loop: in parallel, and warm for f
		partial[s] = acc
		lo, hi := s*nb/nseg, (s+1)*nb/nseg
		for blk := lo; blk < hi; blk++ {
			if ctx.Err() != nil {
				return
			}
			r0, r1 := blk*b, min((blk+1)*b, n)
			f(ws[worker], r0, r1, acc)
		}
	})
	return partial, sums, err
}

func checkRHS(op string, dst, v *mat.Dense, wantDst, wantV int) error {
	rv, tv := v.Dims()
	rd, td := dst.Dims()
	if rv != wantV {
		return fmt.Errorf("kernel: %s: %w: right-hand side has %d rows, want %d", op, check.ErrInput, rv, wantV)
	}
	if rd != wantDst || td != tv {
		return fmt.Errorf("kernel: %s: %w: dst is %d×%d, want %d×%d", op, check.ErrInput, rd, td, wantDst, tv)
	}
	return nil
}
