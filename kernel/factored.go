package kernel

import (
	"context"
	"errors"
	"fmt"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// ErrNotFactorable is returned by NewFactored for a kernel that does not
// factor over columns (Separable), a split detected on another X, or
// centers of another dimension.
var ErrNotFactorable = errors.New("kernel: not factorable")

// Factored is K(X, C) for a separable kernel (Separable) and a dense X
// whose columns split into D (three or more values) and S (two-valued:
// one-hot indicators, binary flags), evaluated as
//
//	k(x, c) = k(x_D, c_D) · k(x_S, c_S).
//
// The rows of X are grouped by their pattern on S (DetectSplit): P patterns
// s_1 … s_P and the P×M table T[p][j] = k(s_p, c_{j,S}), computed directly
// (P·M·|S| work). For the rows X_p of group p, K(X_p, C) = K_D(X_p, C_D) ·
// diag(T[p]), so
//
//	K_nMᵀ(K_nM V) = Σ_p T[p] ∘ K_D(X_p, C_D)ᵀ(K_D(X_p, C_D)(T[p] ∘ V)),
//	K_nMᵀ U       = Σ_p T[p] ∘ K_D(X_p, C_D)ᵀ U_p,
//	(K_nM V)_p    = K_D(X_p, C_D)(T[p] ∘ V),
//
// with T[p] ∘ V scaling row j of V by T[p][j]. Each product over a group is
// the engine's (an Op on the group's rows of X_D and C_D, with its fused
// paths, SIMD tiles and Float32 option) at dimension |D| instead of d, which
// is where the time goes: on covtype (|D| = 10 of d = 54, 75 patterns) a pass
// takes about 2.2 times less (Split.Gain). The results are those of
// NewOp(k, X, C, opt) up to rounding (exp(a)·exp(b) against exp(a+b): a few
// ulps in float64).
//
// A Factored holds X_D with its rows permuted so that groups are contiguous
// (float32 when X is a *Dense32 and the kernel reads float32 X, float64
// otherwise), the permutation, T, C_D and one Op per group (the groups' Ops
// share the first one's packed C_D and its norms). Groups are processed one
// after the other in a fixed order, each on all workers, and their
// contributions added in that order, so results do not depend on the
// number of workers. Methods may be called from several goroutines at once.
type Factored struct {
	k     Kernel
	split *Split
	opt   Options
	n, m  int

	perm  []int32   // perm[r] is the row of X at row r of X_D
	start []int     // group p is rows start[p] … start[p+1]−1 of X_D
	t     []float64 // T, P×M
	cd    *mat.Dense
	xd    *mat.Dense // X_D in float64 (or nil)
	xd32  *Dense32   // X_D in float32 (or nil)
	ops   []*Op
}

// NewFactored returns K(X, C) factored over the split s of X (DetectSplit
// on this X; nil detects it here, with the default pattern cap). X must be
// the dense matrix (*mat.Dense or *Dense32) s was detected on and C dense
// or sparse with the same number of columns. It fails with
// ErrNotFactorable for a kernel that is not Separable, a split of another
// X, or an X that does not factor; with an error for a nil or invalid
// kernel or matrix. X and C are copied (X_D, C_D and C_S): they may change
// afterwards.
func NewFactored(k Kernel, x, c mat.Matrix, s *Split, opt Options) (*Factored, error) {
	switch {
	case k == nil:
		return nil, fmt.Errorf("kernel: nil kernel")
	case !Separable(k):
		return nil, fmt.Errorf("%w: kernel %v does not factor over columns", ErrNotFactorable, k)
	case x == nil || c == nil:
		return nil, fmt.Errorf("kernel: nil X or C")
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	if s == nil {
		var ok bool
		if s, ok = DetectSplit(x, 0); !ok {
			return nil, fmt.Errorf("%w: X has no split into dense and two-valued columns within %d patterns", ErrNotFactorable, DefaultMaxPatterns)
		}
	}
	n, d := x.Dims()
	m, dc := c.Dims()
	if dc != d {
		return nil, fmt.Errorf("%w: X has %d columns, C has %d", ErrNotFactorable, d, dc)
	}
	if n != s.n || len(s.Dense)+len(s.Discrete) != d {
		return nil, fmt.Errorf("%w: split of a %d-row, %d-column X for a %d×%d X", ErrNotFactorable, s.n, len(s.Dense)+len(s.Discrete), n, d)
	}
	if m == 0 {
		return nil, fmt.Errorf("kernel: no centers")
	}
	f := &Factored{k: k, split: s, opt: opt, n: n, m: m}
	f.permute()
	cf := DenseOf(c)
	f.cd = columns(cf, s.Dense)
	x32, is32 := x.(*Dense32)
	switch {
	case is32 && runs32(k, false):
		f.xd32 = gather32(x32, s.Dense, f.perm)
	case is32:
		f.xd = gather(x32.rows, len(s.Dense), f.perm, func(i, j int) float64 { return float64(x32.data[i*x32.cols+s.Dense[j]]) })
	default:
		xm, ok := x.(*mat.Dense)
		if !ok {
			return nil, fmt.Errorf("%w: X is %T, want *mat.Dense or *kernel.Dense32", ErrNotFactorable, x)
		}
		r := xm.RawMatrix()
		f.xd = gather(n, len(s.Dense), f.perm, func(i, j int) float64 { return r.Data[i*r.Stride+s.Dense[j]] })
	}
	f.table(columns(cf, s.Discrete))
	f.ops = make([]*Op, s.Patterns)
	for p := range f.ops {
		f.ops[p] = NewOp(k, f.rows(p), f.cd, opt)
		if p > 0 {
			f.ops[p].centers = f.ops[0] // one packed C_D for all groups
		}
	}
	return f, nil
}

// permute sorts the rows by group (stably): perm and start.
func (f *Factored) permute() {
	s := f.split
	f.start = make([]int, s.Patterns+1)
	for p, c := range s.sizes {
		f.start[p+1] = f.start[p] + c
	}
	next := append([]int(nil), f.start[:s.Patterns]...)
	f.perm = make([]int32, f.n)
	for i, g := range s.group {
		f.perm[next[g]] = int32(i)
		next[g]++
	}
}

// columns returns the given columns of a (a new matrix).
func columns(a *mat.Dense, cols []int) *mat.Dense {
	r := a.RawMatrix()
	out := mat.NewDense(r.Rows, len(cols), nil)
	for i := range r.Rows {
		row := out.RawRowView(i)
		for q, j := range cols {
			row[q] = r.Data[i*r.Stride+j]
		}
	}
	return out
}

// gather returns the n×d matrix whose row r is row perm[r] of at(i, j).
func gather(n, d int, perm []int32, at func(i, j int) float64) *mat.Dense {
	out := mat.NewDense(n, d, nil)
	for r, i := range perm {
		row := out.RawRowView(r)
		for j := range row {
			row[j] = at(int(i), j)
		}
	}
	return out
}

// gather32 is gather for the columns cols of a float32 X.
func gather32(x *Dense32, cols []int, perm []int32) *Dense32 {
	d := len(cols)
	out := &Dense32{rows: x.rows, cols: d, data: make([]float32, x.rows*d)}
	for r, i := range perm {
		src := x.data[int(i)*x.cols:]
		dst := out.data[r*d : (r+1)*d]
		for q, j := range cols {
			dst[q] = src[j]
		}
	}
	return out
}

// table computes T[p][j] = k(s_p, c_{j,S}) from C's S columns cs (M×|S|).
func (f *Factored) table(cs *mat.Dense) {
	s := f.split
	ns := len(s.Discrete)
	f.t = make([]float64, s.Patterns*f.m)
	// Independent entries: the workers' share does not change any value.
	_ = parallel.For(context.Background(), s.Patterns, f.opt.Workers, func(_, p int) {
		sp := make([]float64, ns)
		s.pattern(sp, p)
		row := f.t[p*f.m : (p+1)*f.m]
		for j := range row {
			row[j] = f.k.Eval(sp, cs.RawRowView(j))
		}
	})
}

// rows is X_D's rows of group p, as the engine takes them.
func (f *Factored) rows(p int) mat.Matrix {
	r0, r1 := f.start[p], f.start[p+1]
	if f.xd32 != nil {
		return f.xd32.Rows(r0, r1)
	}
	return f.xd.Slice(r0, r1, 0, len(f.split.Dense)).(*mat.Dense)
}

// Dims returns n and M.
func (f *Factored) Dims() (n, m int) { return f.n, f.m }

// Kernel returns the kernel.
func (f *Factored) Kernel() Kernel { return f.k }

// Split returns the split the operator factors over.
func (f *Factored) Split() *Split { return f.split }

// BlockRows returns the row-block size the groups' products use (that of
// the largest group; smaller groups may use fewer rows, never more).
func (f *Factored) BlockRows() int {
	b, big := 0, 0
	for p, op := range f.ops {
		if sz := f.start[p+1] - f.start[p]; sz > big {
			b, big = op.BlockRows(), sz
		}
	}
	return b
}

// scale sets dst = tp ∘ v (row j of v scaled by tp[j]), v and dst M×t.
func scaleRows(dst []float64, tp []float64, v blas64.General) {
	t := v.Cols
	for j, s := range tp {
		src := v.Data[j*v.Stride : j*v.Stride+t]
		out := dst[j*t : (j+1)*t]
		for c, x := range src {
			out[c] = s * x
		}
	}
}

// addScaled adds tp ∘ r to acc (both M×t, r contiguous).
func addScaled(acc, tp, r []float64, t int) {
	for j, s := range tp {
		a, b := acc[j*t:(j+1)*t], r[j*t:(j+1)*t]
		for c, x := range b {
			a[c] += s * x
		}
	}
}

// store copies the contiguous M×t acc into dst.
func store(dst *mat.Dense, acc []float64) {
	rd := dst.RawMatrix()
	for i := range rd.Rows {
		copy(rd.Data[i*rd.Stride:i*rd.Stride+rd.Cols], acc[i*rd.Cols:])
	}
}

// MulTMul sets dst = K(X, C)ᵀ·(K(X, C)·V), with V and dst M×t: one pass of
// the engine's fused product per group, at dimension |D|, on T[p] ∘ V.
func (f *Factored) MulTMul(ctx context.Context, dst, v *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Factored.MulTMul: %w", err)
	}
	return f.mulTMul(ctx, "MulTMul", dst, v, nil)
}

// MulTMulWeighted sets dst = K(X, C)ᵀ·diag(w)·(K(X, C)·V), w one finite
// weight per row of X (Op.MulTMulWeighted): each group's fused pass with
// its rows' weights.
func (f *Factored) MulTMulWeighted(ctx context.Context, dst, v *mat.Dense, w []float64) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Factored.MulTMulWeighted: %w", err)
	}
	if err := check.Vector("w", w, f.n); err != nil {
		return fmt.Errorf("kernel: Factored.MulTMulWeighted: %w", err)
	}
	return f.mulTMul(ctx, "MulTMulWeighted", dst, v, w)
}

// mulTMul is MulTMul, or MulTMulWeighted with the row weights w (nil:
// none), named name in errors.
func (f *Factored) mulTMul(ctx context.Context, name string, dst, v *mat.Dense, w []float64) error {
	if err := checkRHS(name, dst, v, f.m, f.m); err != nil {
		return err
	}
	var wg []float64 // a group's weights, in its rows' order
	if w != nil {
		wg = make([]float64, f.maxGroup())
	}
	rv := v.RawMatrix()
	t := rv.Cols
	acc := make([]float64, f.m*t)
	vs := mat.NewDense(f.m, t, nil)
	r := mat.NewDense(f.m, t, nil)
	for p, op := range f.ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		tp := f.t[p*f.m : (p+1)*f.m]
		scaleRows(vs.RawMatrix().Data, tp, rv)
		var err error
		if w == nil {
			err = op.MulTMul(ctx, r, vs)
		} else {
			r0, r1 := f.start[p], f.start[p+1]
			for q := r0; q < r1; q++ {
				wg[q-r0] = w[f.perm[q]]
			}
			err = op.MulTMulWeighted(ctx, r, vs, wg[:r1-r0])
		}
		if err != nil {
			return err
		}
		addScaled(acc, tp, r.RawMatrix().Data, t)
	}
	store(dst, acc)
	return nil
}

// MulT sets dst = K(X, C)ᵀ·U, with U n×t and dst M×t.
func (f *Factored) MulT(ctx context.Context, dst, u *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Factored.MulT: %w", err)
	}
	if err := checkRHS("MulT", dst, u, f.m, f.n); err != nil {
		return err
	}
	ru := u.RawMatrix()
	t := ru.Cols
	acc := make([]float64, f.m*t)
	ug := make([]float64, f.maxGroup()*t)
	r := mat.NewDense(f.m, t, nil)
	for p, op := range f.ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		r0, r1 := f.start[p], f.start[p+1]
		for q := r0; q < r1; q++ {
			i := int(f.perm[q])
			copy(ug[(q-r0)*t:(q-r0+1)*t], ru.Data[i*ru.Stride:i*ru.Stride+t])
		}
		if err := op.MulT(ctx, r, mat.NewDense(r1-r0, t, ug[:(r1-r0)*t])); err != nil {
			return err
		}
		addScaled(acc, f.t[p*f.m:(p+1)*f.m], r.RawMatrix().Data, t)
	}
	store(dst, acc)
	return nil
}

// Mul sets dst = K(X, C)·V, with V M×t and dst n×t.
func (f *Factored) Mul(ctx context.Context, dst, v *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Factored.Mul: %w", err)
	}
	if err := checkRHS("Mul", dst, v, f.n, f.m); err != nil {
		return err
	}
	rv, rd := v.RawMatrix(), dst.RawMatrix()
	t := rv.Cols
	vs := mat.NewDense(f.m, t, nil)
	out := make([]float64, f.maxGroup()*t)
	for p, op := range f.ops {
		if err := ctx.Err(); err != nil {
			return err
		}
		r0, r1 := f.start[p], f.start[p+1]
		scaleRows(vs.RawMatrix().Data, f.t[p*f.m:(p+1)*f.m], rv)
		if err := op.Mul(ctx, mat.NewDense(r1-r0, t, out[:(r1-r0)*t]), vs); err != nil {
			return err
		}
		for q := r0; q < r1; q++ {
			i := int(f.perm[q])
			copy(rd.Data[i*rd.Stride:i*rd.Stride+t], out[(q-r0)*t:])
		}
	}
	return nil
}

// blockChunkBytes bounds the block of K_D Block forms at a time.
const blockChunkBytes = 8 << 20

// Block writes K(X, C) into dst (n×M): each group's K_D in chunks of rows
// (at most blockChunkBytes of them, each on an Op of its own), multiplied
// out by T[p] into the rows of dst.
func (f *Factored) Block(ctx context.Context, dst *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("kernel: Factored.Block: %w", err)
	}
	if r, c := dst.Dims(); r != f.n || c != f.m {
		return fmt.Errorf("kernel: Factored.Block: %w: dst is %d×%d, want %d×%d", check.ErrInput, r, c, f.n, f.m)
	}
	chunk := f.chunkRows()
	buf := make([]float64, min(chunk, f.maxGroup())*f.m)
	rd := dst.RawMatrix()
	for p := range f.ops {
		tp := f.t[p*f.m : (p+1)*f.m]
		for c0 := f.start[p]; c0 < f.start[p+1]; c0 += chunk {
			if err := ctx.Err(); err != nil {
				return err
			}
			c1 := min(c0+chunk, f.start[p+1])
			var xs mat.Matrix
			if f.xd32 != nil {
				xs = f.xd32.Rows(c0, c1)
			} else {
				xs = f.xd.Slice(c0, c1, 0, len(f.split.Dense))
			}
			kb := mat.NewDense(c1-c0, f.m, buf[:(c1-c0)*f.m])
			op := NewOp(f.k, xs, f.cd, f.opt)
			op.centers = f.ops[0]
			if err := op.Block(ctx, kb); err != nil {
				return err
			}
			for q := c0; q < c1; q++ {
				i := int(f.perm[q])
				out, src := rd.Data[i*rd.Stride:i*rd.Stride+f.m], kb.RawRowView(q-c0)
				for j, s := range tp {
					out[j] = s * src[j]
				}
			}
		}
	}
	return nil
}

// chunkRows is the rows of one chunk of Block.
func (f *Factored) chunkRows() int {
	return max(blockChunkBytes/(8*f.m), panelRows)
}

// maxGroup is the number of rows of the largest group.
func (f *Factored) maxGroup() int {
	return maxSize(f.split.sizes)
}

func maxSize(sizes []int) int {
	b := 0
	for _, s := range sizes {
		b = max(b, s)
	}
	return b
}

// ScratchBytes is what the operator's products take for t right-hand sides
// (0: Block) beyond what it holds (HeldBytes): the groups' Ops' packed
// centers, norms and kept partial sums, one group's per-call scratch, and
// the products' buffers (Split.ScratchBytes).
func (f *Factored) ScratchBytes(t int) int64 {
	return f.split.ScratchBytes(f.k, f.xd32 != nil, f.m, t, f.opt)
}

// HeldBytes is what the operator holds from its construction: X_D, the
// permutation, T, C_D and C_S (Split.Bytes).
func (f *Factored) HeldBytes() int64 {
	return f.split.Bytes(f.k, f.xd32 != nil, f.m)
}
