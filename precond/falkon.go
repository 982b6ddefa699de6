package precond

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/internal/scratch"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// ErrInput is wrapped by errors about invalid arguments. It is
// check.ErrInput, the same error as model.ErrInput and approx.ErrInput, so
// errors.Is(err, model.ErrInput) holds for a preconditioner's refusal too.
var ErrInput = check.ErrInput

// DefaultEpsilon is the ε used when Options.Epsilon is 0: T = chol(K_MM + εM·s·I).
//
// Why 1e-5 (FALKON's float32 default). The shift εMs makes the preconditioner
// approximate K_MM + εMsI rather than K_MM: directions of K_MM with
// eigenvalues below εMs are left unpreconditioned, which slows the final
// convergence of the residual but acts like early stopping on exactly the
// directions that carry noise, so the test error after the 10–20 iterations
// FALKON is run for is better. Measured on this project (2-core machine,
// uniform centers, test error after 10 CG iterations): covtype.binary, M =
// 2,000, λ = 1e-8: ε = 1e-10: 18.51%, 1e-7: 17.30%, 1e-5: 16.33%; cadata,
// M = 2,000, λ = 1e-6: 1e-10: 56,525 $, 1e-7: 55,221 $, 1e-5: 55,411 $
// (after 20 iterations 54,575 / 54,661 / 55,208 $). For solving to a tight
// residual a small ε converges faster (cadata, 5,000 points, M = 1,000,
// λ = 1e-6, residual after 60 iterations: 1e-10: 1.2e-4, 1e-7: 3.2e-3), so
// callers that need the exact Nyström solution should pass ε ≈ 1e-10, which
// still dominates the rounding of K_MM (≈ M·1.1e-16·s) by a margin of 1e6.
// If K_MM + εMsI still fails to factor (duplicated centers), extra jitter is
// added adaptively and reported (Falkon.JitterT).
const DefaultEpsilon = 1e-5

// Options configures the FALKON preconditioners. The zero value means the defaults.
type Options struct {
	// Epsilon is ε in T = chol(K_MM + εM·s·I), s the mean diagonal of K_MM.
	// 0 means DefaultEpsilon.
	Epsilon float64 `yaml:"epsilon,omitempty" json:"epsilon,omitempty"`
	// Cholesky controls the extra jitter added when a factorization still fails.
	Cholesky solver.CholOptions `yaml:"cholesky,omitempty" json:"cholesky,omitempty"`
	// Precision is the type the two factorizations and the triangular
	// product are computed and held in: PrecisionFloat64 (the default, also
	// for PrecisionAuto) or PrecisionFloat32 (see Precision).
	Precision Precision `yaml:"precision,omitempty" json:"precision,omitempty"`
}

// Precision is the floating-point type of a FALKON preconditioner's
// factors.
//
// PrecisionFloat32 computes T, the triangular product and A in float32 on
// the kernel engine's float32 tiles (kernel.DenseF32; solver.CholeskyBlocked32
// and solver.Lauum32), as FALKON does for float32 data: about half the time
// of float64 (M³ flops at twice the rate) and half the bytes each CG
// iteration's four triangular solves stream. K_MM itself stays float64 (the
// operator H applies it; H must be the float64 one for the solution to be,
// MulKMM reads its upper triangle), and T, C and A are computed in the
// bytes of its lower triangle (two float32 triangles fit in one float64
// one): 8M² bytes in all, against 16M² for float64.
//
// Any fixed invertible B gives the same Nyström solution at convergence:
// with α = Bβ, CG solves BᵀHBβ = Bᵀz, whose solution maps back to H⁻¹z. A
// float32 B is such a B (applied in float64 arithmetic from its float32
// entries, exactly the same matrix every time), so it changes how fast CG
// converges, not what it converges to. The factorization in float32 fails
// more often (rounding of 6e-8 relative against the shift εMs): extra jitter
// is then added as for float64, starting at 2⁻²⁰ of the mean diagonal, and
// reported in Falkon.JitterT and JitterA.
type Precision string

// The precisions of Options.Precision.
const (
	// PrecisionAuto is the zero value: float64 here; model.Falkon resolves
	// it to float32 for fits whose passes or storage are float32.
	PrecisionAuto Precision = ""
	// PrecisionFloat64 computes and holds the factors in float64.
	PrecisionFloat64 Precision = "float64"
	// PrecisionFloat32 computes and holds the factors in float32.
	PrecisionFloat32 Precision = "float32"
)

// Validate returns an ErrInput error for a value other than the three
// constants.
func (p Precision) Validate() error {
	switch p {
	case PrecisionAuto, PrecisionFloat64, PrecisionFloat32:
		return nil
	}
	return fmt.Errorf("precond: %w: precision %q, want %q, %q or empty (automatic)", ErrInput, string(p), PrecisionFloat64, PrecisionFloat32)
}

// Falkon is a built FALKON preconditioner P = BBᵀ (see the package
// documentation). It also keeps K_MM itself (in the upper triangle of the
// matrix it was built from), so that the Nyström operator can apply λn·K_MM
// without a second M×M copy.
type Falkon struct {
	kmm      *mat.Dense // lower: L_T (T = L_Tᵀ) in float64, or the bytes of t32 and a32; strict upper: K_MM
	diag     []float64  // diagonal of K_MM
	t, a     *solver.Chol
	t32, a32 *solver.Chol32 // the factors in float32 (t and a nil)
	n        int

	// Epsilon is the relative ε used and Shift = εM·s the value added to the
	// diagonal of K_MM before factoring.
	Epsilon, Shift float64
	// JitterT and JitterA are the extra jitters the two Cholesky
	// factorizations needed (0 when none).
	JitterT, JitterA float64
	// Weighted says whether the BLESS weights of eq. 15 were used.
	Weighted bool
	// Precision is the type the factors were computed in (PrecisionFloat64
	// or PrecisionFloat32).
	Precision Precision

	// parts keeps MulKMM's partial sums and its copy of v (kmmScratchLen
	// values) between calls, one buffer for one column and one for panels
	// (see package internal/scratch): MulKMM runs once per CG iteration, and a
	// fresh buffer each time was garbage the Go heap grew by until its
	// next collection.
	parts [2]scratch.Slot[float64]
}

var _ solver.Preconditioner = (*Falkon)(nil)

// BuildFalkon builds the FALKON preconditioner of eq. 14 for n training
// points and regularization λ (the penalty is λn, see package model) from
// kmm = K_MM (M×M, both triangles set: the first factorization reads the
// lower one, MulKMM and the retries with jitter the upper one). kmm is
// taken over: it is overwritten by the factor T and must not be used by
// the caller afterwards. Cost: two
// M×M Cholesky factorizations and one triangular product, O(M³); memory: kmm
// plus one M×M matrix (PrecisionFloat32: kmm alone, both float32 factors
// in the bytes of its lower triangle).
func BuildFalkon(kmm *mat.Dense, n int, lambda float64, opt Options) (*Falkon, error) {
	return build(kmm, n, lambda, nil, opt)
}

// BuildWeighted builds the FALKON-BLESS preconditioner of eq. 15 with center
// weights a (A_J = diag(a), a_j = n·q_j for sampling probability q_j; all
// ones gives eq. 14). kmm is taken over as in BuildFalkon.
func BuildWeighted(kmm *mat.Dense, n int, lambda float64, a []float64, opt Options) (*Falkon, error) {
	if kmm == nil {
		return nil, fmt.Errorf("precond: %w: K_MM is nil", ErrInput)
	}
	m, _ := kmm.Dims()
	if len(a) != m {
		return nil, fmt.Errorf("precond: %w: %d weights for %d centers", ErrInput, len(a), m)
	}
	for j, v := range a {
		if !(v > 0) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("precond: %w: weight %d is %g, want finite and > 0", ErrInput, j, v)
		}
	}
	return build(kmm, n, lambda, a, opt)
}

func build(kmm *mat.Dense, n int, lambda float64, w []float64, opt Options) (*Falkon, error) {
	eps, err := checkBuild(kmm, n, lambda, opt)
	if err != nil {
		return nil, err
	}
	m, _ := kmm.Dims()
	diag, shift, err := shiftDiagonal(kmm, eps)
	if err != nil {
		return nil, err
	}
	if opt.Precision == PrecisionFloat32 {
		return build32(kmm, diag, shift, eps, n, lambda, w, opt)
	}
	// The largest product of the two factorizations and the lauum is
	// lauum's last (an M×M result over 256): ready its packing buffer now
	// and hold it until the preconditioner is built, so that the smaller
	// ones before it do not each leave a buffer behind.
	defer reserve(m)()
	t, err := cholesky(context.Background(), kmm, opt.Cholesky)
	if err != nil {
		return nil, fmt.Errorf("precond: T = chol(K_MM + εMsI): %w", err)
	}
	cm, err := innerMatrix(kmm, w, lambda)
	if err != nil {
		return nil, err
	}
	a, err := cholesky(context.Background(), cm, opt.Cholesky)
	if err != nil {
		return nil, fmt.Errorf("precond: A = chol(TTᵀ/M + λI): %w", err)
	}
	return &Falkon{
		kmm: kmm, diag: diag, t: t, a: a, n: n,
		Epsilon: eps, Shift: shift, JitterT: t.Jitter, JitterA: a.Jitter, Weighted: w != nil, Precision: PrecisionFloat64,
	}, nil
}

// checkBuild checks build's arguments and returns the ε to use.
func checkBuild(kmm *mat.Dense, n int, lambda float64, opt Options) (float64, error) {
	if kmm == nil {
		return 0, fmt.Errorf("precond: %w: K_MM is nil", ErrInput)
	}
	m, c := kmm.Dims()
	if m != c || m == 0 {
		return 0, fmt.Errorf("precond: %w: K_MM is %d×%d", ErrInput, m, c)
	}
	if n < 1 {
		return 0, fmt.Errorf("precond: %w: n = %d", ErrInput, n)
	}
	if !(lambda > 0) || math.IsInf(lambda, 0) {
		return 0, fmt.Errorf("precond: %w: lambda = %g, want finite and > 0", ErrInput, lambda)
	}
	eps := opt.Epsilon
	if eps == 0 {
		eps = DefaultEpsilon
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return 0, fmt.Errorf("precond: %w: epsilon = %g, want finite and > 0", ErrInput, eps)
	}
	if err := opt.Precision.Validate(); err != nil {
		return 0, err
	}
	return eps, nil
}

// shiftDiagonal adds εM·s to K_MM's diagonal in place (s the mean of its
// absolute diagonal, 1 when that is 0) and returns the diagonal before the
// shift and the shift.
func shiftDiagonal(kmm *mat.Dense, eps float64) ([]float64, float64, error) {
	m, _ := kmm.Dims()
	raw := kmm.RawMatrix()
	diag := make([]float64, m)
	var s float64
	for j := range diag {
		diag[j] = raw.Data[j*raw.Stride+j]
		if math.IsNaN(diag[j]) || math.IsInf(diag[j], 0) {
			return nil, 0, fmt.Errorf("precond: %w: K_MM[%d,%d] = %g", ErrInput, j, j, diag[j])
		}
		s += math.Abs(diag[j])
	}
	s /= float64(m)
	if s == 0 {
		s = 1
	}
	shift := eps * float64(m) * s
	for j := range diag {
		raw.Data[j*raw.Stride+j] += shift
	}
	return diag, shift, nil
}

// innerMatrix forms C = (1/M) L_Tᵀ D⁻¹ L_T + λI = (1/M) T A_J⁻¹ Tᵀ + λI
// (both triangles) from the factor L_T in kmm's lower triangle and the
// weights w (nil: all ones). With W = (MD)^{-1/2} L_T (still lower
// triangular; the 1/M folded into the copy, so no pass over C scales it),
// lowerGram forms WᵀW in place as LAPACK's lauum does, in M³/3 flops (a
// general triangular product would take M³), with the products on the
// kernel engine.
func innerMatrix(kmm *mat.Dense, w []float64, lambda float64) (*mat.Dense, error) {
	m, _ := kmm.Dims()
	raw := kmm.RawMatrix()
	cm := mat.NewDense(m, m, hugemem.FreshFloat64s(m*m))
	cr := cm.RawMatrix()
	// The copy is the first touch of cm's pages (800 MB at M = 10,000):
	// split over the workers, so are the page faults (elementwise, so the
	// values do not depend on the split). Their size is chosen for the host
	// as K_MM's are (model.FalkonBuilder.KMM says why).
	err := parallel.For(context.Background(), (m+copyRows-1)/copyRows, 0, func(_, task int) {
		for i := task * copyRows; i < min(m, (task+1)*copyRows); i++ {
			scale := 1 / math.Sqrt(float64(m))
			if w != nil {
				scale = 1 / math.Sqrt(float64(m)*w[i])
			}
			row := raw.Data[i*raw.Stride : i*raw.Stride+i+1]
			dst := cr.Data[i*cr.Stride : i*cr.Stride+i+1]
			for j, v := range row {
				dst[j] = scale * v
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if err := lowerGram(context.Background(), cm); err != nil {
		return nil, fmt.Errorf("precond: T A⁻¹ Tᵀ: %w", err)
	}
	for i := 0; i < m; i++ {
		cr.Data[i*cr.Stride+i] += lambda
	}
	// The upper triangle restores the matrix between jitter attempts.
	if err := mirrorLower(context.Background(), cr.Data, m, cr.Stride); err != nil {
		return nil, err
	}
	return cm, nil
}

// copyRows is the number of rows of one task of the builds' copies.
const copyRows = 64

// Size returns M.
func (f *Falkon) Size() int { return len(f.diag) }

// Precondition sets dst = BBᵀ·r through four triangular solves. A nil
// ctx, dst or r is an error wrapping ErrInput.
func (f *Falkon) Precondition(ctx context.Context, dst, r *mat.Dense) error {
	if err := preconditionArgs(ctx, "falkon", dst, r); err != nil {
		return err
	}
	if dst != r {
		dst.Copy(r)
	}
	if err := f.MulBT(dst); err != nil {
		return err
	}
	return f.MulB(dst)
}

// MulBT overwrites x (M×t) with Bᵀx = (1/√n) A⁻ᵀT⁻ᵀx.
func (f *Falkon) MulBT(x *mat.Dense) error {
	if err := f.solveT(x, false); err != nil { // T⁻ᵀ = L_T⁻¹
		return err
	}
	if err := f.solveA(x, false); err != nil {
		return err
	}
	f.scale(x)
	return nil
}

// MulB overwrites x (M×t) with Bx = (1/√n) T⁻¹A⁻¹x.
func (f *Falkon) MulB(x *mat.Dense) error {
	if err := f.solveA(x, true); err != nil {
		return err
	}
	if err := f.solveT(x, true); err != nil { // T⁻¹ = L_T⁻ᵀ
		return err
	}
	f.scale(x)
	return nil
}

// scale multiplies x by 1/√n in place (a loop over its rows: gonum's
// Dense.Scale of x into itself took a workspace from gonum's pools, which
// missed and allocated on most calls).
func (f *Falkon) scale(x *mat.Dense) {
	s := 1 / math.Sqrt(float64(f.n))
	r := x.RawMatrix()
	for i := range r.Rows {
		row := r.Data[i*r.Stride : i*r.Stride+r.Cols]
		for j := range row {
			row[j] *= s
		}
	}
}

// MulKMM sets dst = K_MM·v (v and dst M×t, not aliased), using the copy of
// K_MM kept in the upper triangle; K_MM is the matrix given at build time,
// without the shift.
//
// The product reads the M²/2 stored entries once, split over the workers
// (it runs once per CG iteration and is bound by memory, like the
// preconditioner's solves): the rows are cut into kmmSegments segments of
// about equal area, fixed whatever the worker count. A segment takes its
// rows kmmGroup at a time and the group's rectangle right of its diagonal
// block in pieces of columns (kmmChunk, cut at multiples of kmmChunk, so
// a piece stays in cache between its two uses): each piece adds the rows'
// dot products with v to the rows' sums and v's entries of the group times
// the rows to the segment's partial sums of the piece's columns (the lower
// triangle by symmetry), on the kernel's row kernels: kernel.RowDots and
// RowAxpys for one column, and kernel.PanelDots and PanelAxpys for several
// (v copied into rows of kernel.PanelWidth values, zero-padded, one pass
// per PanelWidth columns). The group's diagonal block (K_ii v_i and the
// entries between its rows) is added in plain Go first. The partial sums
// are then added in segment order, so the result does not depend on the
// number of workers (its bits changed when the row kernels replaced
// gonum's dot and axpy and the column loops: a different but fixed order
// of the same terms).
func (f *Falkon) MulKMM(dst, v *mat.Dense) error {
	m := len(f.diag)
	rv, rd := v.RawMatrix(), dst.RawMatrix()
	if rv.Rows != m || rd.Rows != m || rv.Cols != rd.Cols {
		return fmt.Errorf("precond: %w: MulKMM of %d×%d into %d×%d, M = %d", ErrInput, rv.Rows, rv.Cols, rd.Rows, rd.Cols, m)
	}
	bounds := kmmBounds(m)
	w := 1 // values per row of the partial sums and of v's copy
	if rv.Cols > 1 {
		w = kernel.PanelWidth
	}
	// Segment s holds partial sums for its rows and all after them: rows
	// [bounds[s], m) at off[s].
	off := make([]int, len(bounds))
	for s := 0; s+1 < len(bounds); s++ {
		off[s+1] = off[s] + (m-bounds[s])*w
	}
	slot := &f.parts[min(w-1, 1)]
	pb := slot.Get(kmmScratchLen(m, w))
	defer slot.Put(pb)
	end := off[len(off)-1]
	part, vp, sums := (*pb)[:end], (*pb)[end:end+m*w], (*pb)[end+m*w:]
	for c0 := 0; c0 < rv.Cols; c0 += w {
		t := min(w, rv.Cols-c0)
		for i := range m {
			copy(vp[i*w:i*w+t], rv.Data[i*rv.Stride+c0:i*rv.Stride+c0+t])
			clear(vp[i*w+t : i*w+w])
		}
		clear(part)
		err := parallel.For(context.Background(), len(bounds)-1, 0, func(_, s int) {
			f.kmmSegment(part[off[s]:off[s+1]], vp, sums[s*kmmSums:(s+1)*kmmSums], w, bounds[s], bounds[s+1])
		})
		if err != nil {
			return err
		}
		for i := range m {
			for c := range t {
				var y float64
				for s := 0; s+1 < len(bounds) && bounds[s] <= i; s++ {
					y += part[off[s]+(i-bounds[s])*w+c]
				}
				rd.Data[i*rd.Stride+c0+c] = y
			}
		}
	}
	return nil
}

// kmmSegment adds segment [i0, i1)'s terms of K_MM·v (v in vp, rows of w
// values, w = 1 or kernel.PanelWidth) to p, its partial sums of rows
// [i0, M) (rows of w values), as MulKMM describes; buf (kmmSums values)
// holds a group's sums and one piece's products.
func (f *Falkon) kmmSegment(p, vp, buf []float64, w, i0, i1 int) {
	m := len(f.diag)
	raw := f.kmm.RawMatrix()
	a, lda := raw.Data, raw.Stride
	acc, out := buf[:kmmSums/2], buf[kmmSums/2:]
	for g0 := i0; g0 < i1; g0 += kmmGroup {
		g1 := min(i1, g0+kmmGroup)
		rows := g1 - g0
		sums, o := acc[:rows*w], out[:rows*w]
		// The diagonal block: K_ii v_i, then entry (i, j), j in (i, g1),
		// to row i's sum and, times v_i, to row j's partial sum.
		for i := g0; i < g1; i++ {
			vi, si := vp[i*w:i*w+w], sums[(i-g0)*w:(i-g0)*w+w]
			for c, x := range vi {
				si[c] = f.diag[i] * x
			}
			for j := i + 1; j < g1; j++ {
				u, vj, pj := a[i*lda+j], vp[j*w:j*w+w], p[(j-i0)*w:(j-i0)*w+w]
				for c := range si {
					si[c] = math.FMA(u, vj[c], si[c])
					pj[c] = math.FMA(u, vi[c], pj[c])
				}
			}
		}
		// The rectangle right of the block, by pieces of columns.
		for j0 := g1; j0 < m; {
			j1 := min(m, (j0/kmmChunk+1)*kmmChunk)
			if w == 1 {
				kernel.RowDots(o, a[g0*lda+j0:], lda, vp[j0:j1])
				kernel.RowAxpys(p[j0-i0:j1-i0], vp[g0:g1], a[g0*lda+j0:], lda)
			} else {
				kernel.PanelDots(o, vp[j0*w:j1*w], a[g0*lda+j0:], lda)
				kernel.PanelAxpys(p[(j0-i0)*w:(j1-i0)*w], vp[g0*w:g1*w], a[g0*lda+j0:], lda)
			}
			for r, x := range o {
				sums[r] += x
			}
			j0 = j1
		}
		for r, x := range sums {
			p[(g0-i0)*w+r] += x
		}
	}
}

// kmmScratchLen is the float64 values MulKMM takes for M = m with rows
// of w values (1, or kernel.PanelWidth for several columns): each
// segment's partial sums of its rows and those after them, v's copy, and
// each segment's kmmSums values of a group's sums (kept out of the
// segments' stack frames: the kernels' arguments escape to the heap).
func kmmScratchLen(m, w int) int {
	b := kmmBounds(m)
	n := m*w + (len(b)-1)*kmmSums
	for _, i := range b[:len(b)-1] {
		n += (m - i) * w
	}
	return n
}

// kmmSums is the size of a segment's buffer of sums in MulKMM: a group's
// row sums and one piece's products, kmmGroup rows of up to
// kernel.PanelWidth values each.
const kmmSums = 2 * kmmGroup * kernel.PanelWidth

// applyScratchBytes is the most memory a FALKON preconditioner's use in CG
// takes for M = m beside its matrices, with t outputs: MulKMM's partial
// sums and copy of v (kmmScratchLen with panels, which bounds one column's
// and any number's: MulKMM takes the columns a panel at a time), the four
// triangular solves' buffers (the larger of solver.SolveScratchBytes and
// SolveScratchBytes32 at t, and at least at a panel's 16 columns: the
// float32 factor's slabs and the float64 one's few-column solves are
// counted there, whatever t), and, from 16
// outputs, the float64 factor's blocked solves' products' buffer
// (kernel.Dense.PackBytes(m, t, min(m, solver.BlockedWidth))): at M =
// 1,100 and t = 20, 7.1 MB planned, 4.6 MB of it that buffer, and 5.0 MB
// allocated by a first iteration (TestApplyPlannedBytes), against 2.4 MB
// planned before the plan took t. All are recycled between calls
// (MulKMM's in the Falkon, the solves' in package solver, the products'
// in package kernel), so a fit holds each once.
func applyScratchBytes(m, t int) int64 {
	tp := max(t, kernel.PanelWidth)
	s := 8*int64(kmmScratchLen(m, kernel.PanelWidth)) + max(solver.SolveScratchBytes(m, tp), solver.SolveScratchBytes32(m, tp))
	if t >= kernel.PanelWidth {
		s += kernel.Dense{}.PackBytes(m, t, min(m, solver.BlockedWidth))
	}
	return s
}

// kmmGroup is the number of rows MulKMM streams together (the row
// kernels' widest tiles: RowAxpys and PanelAxpys take eight rows at a time
// on AVX-512, PanelDots eight), and kmmChunk the columns of one piece of
// their rectangle: eight row pieces of 8 KB (one column) or 1 KB (a
// panel), which the two kernels read one after the other, and v's and the
// partial sums' rows of the piece stay in L1 or L2.
const (
	kmmGroup = 8
	kmmChunk = 1024
)

// kmmSegments is the number of row segments of MulKMM (a constant, so that
// its sums do not depend on the number of workers).
const kmmSegments = 16

// kmmBounds cuts rows [0, m) of an upper triangle into at most kmmSegments
// segments holding about equal numbers of entries: row i has m − i.
func kmmBounds(m int) []int {
	b := make([]int, 1, kmmSegments+1)
	total := float64(m) * float64(m+1) / 2
	var acc float64
	for i := 0; i < m; i++ {
		acc += float64(m - i)
		if len(b) < kmmSegments && acc >= total*float64(len(b))/kmmSegments {
			b = append(b, i+1)
		}
	}
	if b[len(b)-1] != m {
		b = append(b, m)
	}
	return b
}

// T returns the factor T = L_Tᵀ of K_MM + Shift·I as an upper-triangular
// copy (float32 factors widened to float64).
func (f *Falkon) T() *mat.TriDense {
	m := len(f.diag)
	t := mat.NewTriDense(m, mat.Upper, nil)
	if f.t32 != nil {
		l := f.t32.L()
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				t.SetTri(j, i, float64(l.Data[i*l.Stride+j]))
			}
		}
		return t
	}
	t.Copy(f.t.L().T())
	return t
}

// solveT and solveA overwrite x with L_T⁻¹x and L_A⁻¹x (or, with trans, the
// transposed solves), on whichever factors were built.
func (f *Falkon) solveT(x *mat.Dense, trans bool) error {
	if f.t32 != nil {
		return f.t32.SolveL(context.Background(), x.RawMatrix(), trans)
	}
	return f.t.SolveL(x, trans)
}

func (f *Falkon) solveA(x *mat.Dense, trans bool) error {
	if f.a32 != nil {
		return f.a32.SolveL(context.Background(), x.RawMatrix(), trans)
	}
	return f.a.SolveL(x, trans)
}
