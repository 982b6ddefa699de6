package kernel

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas"
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
	// block of K (BlockRows × M) takes about 512 KiB. Results depend on it only
	// through floating-point summation order.
	BlockRows int
}

// maxSegments bounds the number of partial sums kept by the reductions. It is a
// constant, not a function of the worker count, so the summation order is fixed.
const maxSegments = 32

// Op is the kernel matrix K(X, C) between n data points and M centers, used as a
// linear operator without being stored. Each product walks X in row blocks,
// forms K(X_B, C) for the block in per-worker scratch space and uses it at once.
//
// An Op is safe for concurrent use only if its methods are not called
// concurrently; it keeps no state between calls besides the squared norms.
type Op struct {
	k    Kernel
	x, c *mat.Dense
	opt  Options
	xn   []float64 // squared row norms of X (nil when the kernel does not need them)
	cn   []float64 // squared row norms of C
}

// NewOp returns the operator K(X, C). It panics if X and C have different
// numbers of columns. X and C must not be modified while the Op is in use.
func NewOp(k Kernel, x, c *mat.Dense, opt Options) *Op {
	if _, dx := x.Dims(); dx != c.RawMatrix().Cols {
		panic(fmt.Sprintf("kernel: X has %d columns, C has %d", dx, c.RawMatrix().Cols))
	}
	return &Op{k: k, x: x, c: c, opt: opt}
}

// Dims returns n and M.
func (o *Op) Dims() (n, m int) {
	n, _ = o.x.Dims()
	m, _ = o.c.Dims()
	return n, m
}

// Kernel returns the kernel.
func (o *Op) Kernel() Kernel { return o.k }

// BlockRows returns the row-block size the engine uses.
func (o *Op) BlockRows() int {
	if o.opt.BlockRows > 0 {
		return o.opt.BlockRows
	}
	_, m := o.Dims()
	return autoBlockRows(m)
}

func autoBlockRows(m int) int {
	const target = 512 << 10 / 8 // elements in 512 KiB
	b := target / max(m, 1)
	return min(max(b, 16), 1024)
}

// ScratchBytes returns the memory the engine allocates per call for t right-hand
// sides: one block per worker and the partial sums of the reductions.
func (o *Op) ScratchBytes(t int) int64 {
	n, m := o.Dims()
	b := o.BlockRows()
	w := int64(parallel.Workers(o.opt.Workers))
	seg := int64(min(maxSegments, (n+b-1)/b))
	return 8 * (w*int64(b)*int64(m+t) + seg*int64(m)*int64(t))
}

func (o *Op) prepareNorms() {
	d, ok := o.k.(dotForm)
	if !ok || !d.needsNorms() || o.xn != nil {
		return
	}
	n, m := o.Dims()
	o.xn = make([]float64, n)
	o.cn = make([]float64, m)
	norms(o.xn, o.x)
	norms(o.cn, o.c)
}

// block writes K(X[r0:r1], C) into dst (r1−r0 × M, contiguous).
func (o *Op) block(dst []float64, r0, r1 int) {
	_, m := o.Dims()
	rows := r1 - r0
	out := blas64.General{Rows: rows, Cols: m, Stride: m, Data: dst[:rows*m]}
	xs := o.x.Slice(r0, r1, 0, o.x.RawMatrix().Cols).(*mat.Dense)
	if dk, ok := o.k.(dotForm); ok {
		gemmABt(out, xs.RawMatrix(), o.c.RawMatrix())
		var xx float64
		for i := 0; i < rows; i++ {
			if o.xn != nil {
				xx = o.xn[r0+i]
			}
			dk.fromDots(dst[i*m:(i+1)*m], xx, o.cn)
		}
		return
	}
	o.k.Block(mat.NewDense(rows, m, dst[:rows*m]), xs, o.c)
}

// Block writes K(X, C) into dst (n×M), block by block on all workers.
func (o *Op) Block(ctx context.Context, dst *mat.Dense) error {
	n, m := o.Dims()
	if r, c := dst.Dims(); r != n || c != m {
		return fmt.Errorf("kernel: dst is %d×%d, want %d×%d", r, c, n, m)
	}
	o.prepareNorms()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	w := parallel.Workers(o.opt.Workers)
	scratch := make([][]float64, w)
	rd := dst.RawMatrix()
	return parallel.For(ctx, nb, w, func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if scratch[worker] == nil {
			scratch[worker] = make([]float64, b*m)
		}
		buf := scratch[worker]
		o.block(buf, r0, r1)
		for i := r0; i < r1; i++ {
			copy(rd.Data[i*rd.Stride:i*rd.Stride+m], buf[(i-r0)*m:(i-r0+1)*m])
		}
	})
}

// Mul sets dst = K(X, C)·V, with V M×t and dst n×t.
func (o *Op) Mul(ctx context.Context, dst, v *mat.Dense) error {
	n, m := o.Dims()
	if err := checkRHS("Mul", dst, v, n, m); err != nil {
		return err
	}
	o.prepareNorms()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	w := parallel.Workers(o.opt.Workers)
	scratch := make([][]float64, w)
	rv, rd := v.RawMatrix(), dst.RawMatrix()
	return parallel.For(ctx, nb, w, func(worker, blk int) {
		r0, r1 := blk*b, min((blk+1)*b, n)
		if scratch[worker] == nil {
			scratch[worker] = make([]float64, b*m)
		}
		kb := blas64.General{Rows: r1 - r0, Cols: m, Stride: m, Data: scratch[worker]}
		o.block(kb.Data, r0, r1)
		out := blas64.General{Rows: r1 - r0, Cols: rd.Cols, Stride: rd.Stride, Data: rd.Data[r0*rd.Stride:]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rv, 0, out)
	})
}

// MulT sets dst = K(X, C)ᵀ·U, with U n×t and dst M×t.
func (o *Op) MulT(ctx context.Context, dst, u *mat.Dense) error {
	n, m := o.Dims()
	if err := checkRHS("MulT", dst, u, m, n); err != nil {
		return err
	}
	ru := u.RawMatrix()
	return o.reduce(ctx, dst, ru.Cols, func(kb blas64.General, r0, r1 int, acc blas64.General) {
		us := blas64.General{Rows: r1 - r0, Cols: ru.Cols, Stride: ru.Stride, Data: ru.Data[r0*ru.Stride:]}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, kb, us, 1, acc)
	})
}

// MulTMul sets dst = K(X, C)ᵀ·(K(X, C)·V), with V and dst M×t. Each block of K
// is formed once and used for both products; K(X, C)·V is never stored whole.
func (o *Op) MulTMul(ctx context.Context, dst, v *mat.Dense) error {
	_, m := o.Dims()
	if err := checkRHS("MulTMul", dst, v, m, m); err != nil {
		return err
	}
	rv := v.RawMatrix()
	t := rv.Cols
	b := o.BlockRows()
	w := parallel.Workers(o.opt.Workers)
	tmp := make([][]float64, w)
	return o.reduceW(ctx, dst, t, func(worker int, kb blas64.General, r0, r1 int, acc blas64.General) {
		if tmp[worker] == nil {
			tmp[worker] = make([]float64, b*t)
		}
		kv := blas64.General{Rows: r1 - r0, Cols: t, Stride: t, Data: tmp[worker]}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, kb, rv, 0, kv)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, kb, kv, 1, acc)
	})
}

func (o *Op) reduce(ctx context.Context, dst *mat.Dense, t int, f func(kb blas64.General, r0, r1 int, acc blas64.General)) error {
	return o.reduceW(ctx, dst, t, func(_ int, kb blas64.General, r0, r1 int, acc blas64.General) { f(kb, r0, r1, acc) })
}

// reduceW runs f on every row block and sums the M×t results into dst in a
// fixed order: the blocks are split into at most maxSegments contiguous
// segments, each segment is summed sequentially into its own partial, and the
// partials are added in segment order.
func (o *Op) reduceW(ctx context.Context, dst *mat.Dense, t int, f func(worker int, kb blas64.General, r0, r1 int, acc blas64.General)) error {
	n, m := o.Dims()
	o.prepareNorms()
	b := o.BlockRows()
	nb := (n + b - 1) / b
	nseg := min(maxSegments, nb)
	partial := make([][]float64, nseg)
	w := parallel.Workers(o.opt.Workers)
	scratch := make([][]float64, w)
	err := parallel.For(ctx, nseg, w, func(worker, s int) {
		if scratch[worker] == nil {
			scratch[worker] = make([]float64, b*m)
		}
		acc := blas64.General{Rows: m, Cols: t, Stride: t, Data: make([]float64, m*t)}
		partial[s] = acc.Data
		lo, hi := s*nb/nseg, (s+1)*nb/nseg
		for blk := lo; blk < hi; blk++ {
			if ctx.Err() != nil {
				return
			}
			r0, r1 := blk*b, min((blk+1)*b, n)
			kb := blas64.General{Rows: r1 - r0, Cols: m, Stride: m, Data: scratch[worker]}
			o.block(kb.Data, r0, r1)
			f(worker, kb, r0, r1, acc)
		}
	})
	if err != nil {
		return err
	}
	rd := dst.RawMatrix()
	for i := 0; i < m; i++ {
		row := rd.Data[i*rd.Stride : i*rd.Stride+t]
		clear(row)
		for _, p := range partial {
			for j := range row {
				row[j] += p[i*t+j]
			}
		}
	}
	return nil
}

func checkRHS(op string, dst, v *mat.Dense, wantDst, wantV int) error {
	rv, tv := v.Dims()
	rd, td := dst.Dims()
	if rv != wantV {
		return fmt.Errorf("kernel: %s: right-hand side has %d rows, want %d", op, rv, wantV)
	}
	if rd != wantDst || td != tv {
		return fmt.Errorf("kernel: %s: dst is %d×%d, want %d×%d", op, rd, td, wantDst, tv)
	}
	return nil
}
