package approx

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// scoreEstimator computes the Lemma 6 / BLESS eq. 3 estimates
//
//	ℓ̃ᵢ = (k(xᵢ,xᵢ) − k_Jᵢᵀ (K_JJ + diag(r))⁻¹ k_Jᵢ) / μ
//
// for many points from one landmark set J with regularizers r > 0. Musco &
// Musco use r_j = λ·p_j, μ = λ (their S has columns e_j/√p_j); BLESS uses
// r_j = λn·A_jj, μ = λn. The s×s system is solved stably through the Cholesky
// factor L of R^{-1/2} K_JJ R^{-1/2} + I (eigenvalues ≥ 1), so that
// k_Jᵢᵀ(K_JJ + R)⁻¹k_Jᵢ = ‖L⁻¹R^{-1/2}k_Jᵢ‖².
//
// Cost. Scoring R points takes R·s kernel evaluations and R·s²/2
// multiply-adds, the paper's O(R·M²) (BLESS Section 2.2); nearly all of it is
// the forward substitution L⁻¹b for every point. That substitution runs in
// row chunks of estChunk points and column panels of estPanel landmarks, as
// matrix products on the kernel engine's micro-kernels (kernel.Dense): for panel
// p, Y_p = (B_p − Y_{<p} L_{p,<p}ᵀ) L_pp⁻ᵀ, solved with the inverses of its
// estSub-wide diagonal blocks, formed once (see forward). A point-by-point triangular solve (gonum's Dtrsm) ran 30×
// slower and was 94% of a BLESS run at m = 3,000 (40,000 × 8 covtype rows;
// docs/performance.md, "Leverage-score samplers"). K_JJ and its factor also use the engine (blocked
// Cholesky on kernel.Dense products). Memory: the factor (s² floats)
// plus one chunk's kernel block (estChunk·s floats); in single precision
// (see single) also their float32 copies, half as many bytes again.
type scoreEstimator struct {
	k       kernel.Kernel
	pts     mat.Matrix   // landmark points (s×d, dense or CSR); nil when s = 0
	invSqrt []float64    // r_j^{-1/2}
	l       *mat.Dense   // lower triangle: L
	dinv    []*mat.Dense // inverses of the estSub-wide diagonal blocks of L
	mu      float64
	opt     kernel.Options
	prod    kernel.Dense
	// single: the forward substitution in float32 (see useSingle); l32
	// and dinv32 are l and dinv rounded to float32; guard is G of the
	// guard, singleGuard (tests set 0 to see what it prevents).
	single bool
	guard  float64
	l32    blas32.General
	dinv32 []blas32.General
	prod32 kernel.DenseF32
	// rescored counts the points whose float32 score failed the guard and
	// were scored again in float64; doubleChunks the chunks scored in
	// float64 after a chunk had more than a quarter of its points rescored
	// (see estimate).
	rescored, doubleChunks int
}

// estChunk is the number of points scored per pass; estPanel the width of the
// landmark panels of the forward substitution, estSub the width of the
// sub-panels each panel is solved in (see forward).
const (
	estChunk = 2048
	estPanel = 256
	estSub   = 64
)

// newScoreEstimator factors the landmark system. pts may have zero rows.
func newScoreEstimator(k kernel.Kernel, pts mat.Matrix, r []float64, mu float64, workers int) (*scoreEstimator, error) {
	e := &scoreEstimator{k: k, mu: mu, opt: kernel.Options{Workers: workers}, prod: kernel.Dense{Workers: workers}, prod32: kernel.DenseF32{Workers: workers}}
	s := len(r)
	if s == 0 {
		return e, nil
	}
	ctx := context.Background()
	e.pts = pts
	e.invSqrt = make([]float64, s)
	for j, v := range r {
		e.invSqrt[j] = 1 / math.Sqrt(v)
	}
	a := mat.NewDense(s, s, nil)
	if err := kernel.NewOp(k, pts, pts, e.opt).Block(ctx, a); err != nil {
		return nil, err
	}
	raw := a.RawMatrix()
	for i := 0; i < s; i++ {
		for j := 0; j < s; j++ {
			raw.Data[i*raw.Stride+j] *= e.invSqrt[i] * e.invSqrt[j]
		}
		raw.Data[i*raw.Stride+i]++
	}
	levSymmetrize(a)
	ch, err := solver.CholeskyBlocked(ctx, a, solver.CholOptions{}, e.prod)
	if err != nil || ch.Jitter != 0 {
		// Cannot happen in exact arithmetic (the matrix is I plus a PSD
		// matrix); report rather than guess.
		return nil, fmt.Errorf("approx: leverage estimate: Cholesky of the %d×%d landmark system failed", s, s)
	}
	e.l = a
	for p0 := 0; p0 < s; p0 += estSub {
		p1 := min(p0+estSub, s)
		d := mat.NewDense(p1-p0, p1-p0, nil)
		for i := p0; i < p1; i++ {
			copy(d.RawRowView(i - p0)[:i-p0+1], raw.Data[i*raw.Stride+p0:i*raw.Stride+i+1])
		}
		dr := d.RawMatrix()
		if !lapack64.Trtri(blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: p1 - p0, Stride: dr.Stride, Data: dr.Data}) {
			return nil, fmt.Errorf("approx: leverage estimate: singular Cholesky factor")
		}
		e.dinv = append(e.dinv, d)
	}
	return e, nil
}

// singleGuard is G of the float32 guard (see useSingle): a float32 score
// is kept when its numerator is at least G·u·‖yᵢ‖·‖bᵢ‖, u = 2⁻²⁴.
const singleGuard = 1024

// useSingle switches the forward substitution, nearly all of the
// estimator's arithmetic, to float32 on the engine's float32 products
// (kernel.DenseF32, twice the float64 rate), for samplers that need the
// scores only up to a constant factor (BLESS's Theorem 1: (1+t)⁻¹ℓ ≤ ℓ̃ ≤
// (1+min(t,1))ℓ). The kernel block, the factor and the inverses of its
// diagonal blocks are computed in float64 as before and rounded; the
// squared norms are summed in float64.
//
// Accuracy. Write bᵢ = R^{-1/2}k_Jᵢ and yᵢ = L⁻¹bᵢ, so ℓ̃ᵢ·μ = K_ii − ‖yᵢ‖².
// LLᵀ = R^{-1/2}K_JJR^{-1/2} + I ⪰ I gives ‖L⁻¹‖ ≤ 1, so rounding bᵢ to
// float32 (|δb| ≤ u|b|, u = 2⁻²⁴) moves ‖yᵢ‖² by at most 2u‖yᵢ‖‖bᵢ‖; the
// rounding of L and the float32 sums of the solve add errors of the same
// form. Measured on issue 25's ijcnn1 case (every candidate of every step,
// s up to 2,182, ‖bᵢ‖² up to 838): |δ‖yᵢ‖²| ≤ 3.1·u‖yᵢ‖‖bᵢ‖. The numerator
// K_ii − ‖yᵢ‖² is where float32 could lose digits to cancellation, so a
// point's float32 score is kept only when that numerator is at least
// singleGuard·u·‖yᵢ‖‖bᵢ‖, which bounds its relative error by 3.1/1024 <
// 0.31% at the measured constant (and by 10% were the constant 30× worse);
// the others are scored again in float64 from the same kernel row (and
// once a chunk of estChunk points has more than a quarter of them so, the
// rest of the points are scored in float64 directly: at very small λ most
// points can fail the guard, and float32 would only add work). A
// factor 1 ± 0.003 on ℓ̃ moves Theorem 1's band from [1/(1+t), 1+t] to
// [1/((1+t)(1.003)), 1.003(1+t)]: the same guarantee with t a third of a
// percent larger.
func (e *scoreEstimator) useSingle() {
	s := len(e.invSqrt)
	e.single, e.guard = true, singleGuard
	if s == 0 {
		return
	}
	raw := e.l.RawMatrix()
	e.l32 = blas32.General{Rows: s, Cols: s, Stride: s, Data: make([]float32, s*s)}
	for i := 0; i < s; i++ {
		row := e.l32.Data[i*s : i*s+i+1]
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+i+1] {
			row[j] = float32(v)
		}
	}
	e.dinv32 = e.dinv32[:0]
	for _, d := range e.dinv {
		r, c := d.Dims()
		g := blas32.General{Rows: r, Cols: c, Stride: c, Data: make([]float32, r*c)}
		for i := 0; i < r; i++ {
			for j, v := range d.RawRowView(i) {
				g.Data[i*c+j] = float32(v)
			}
		}
		e.dinv32 = append(e.dinv32, g)
	}
}

// view32 is the block [i0, i1) × [j0, j1) of a.
func view32(a blas32.General, i0, i1, j0, j1 int) blas32.General {
	if i1 == i0 || j1 == j0 {
		return blas32.General{Rows: i1 - i0, Cols: j1 - j0, Stride: a.Stride}
	}
	return blas32.General{Rows: i1 - i0, Cols: j1 - j0, Stride: a.Stride, Data: a.Data[i0*a.Stride+j0 : (i1-1)*a.Stride+j1]}
}

// estimate writes ℓ̃ for the rows idx of x into dst (len(idx)), clamping the
// (round-off) negative numerators at zero. Chunks are processed in order and
// every product runs on the engine with its fixed summation order, so the
// result does not depend on the number of workers.
//
// Sparse x stays sparse: each chunk's rows are gathered as CSR, and the
// kernel block and diagonal come from the sparse paths (its values were
// checked when the sampler validated X).
func (e *scoreEstimator) estimate(ctx context.Context, dst []float64, xIn mat.Matrix, idx []int) error {
	n := len(idx)
	c := min(estChunk, n)
	if c == 0 {
		return nil
	}
	sc := e.newEstScratch(xIn, c)
	single := e.single
	for r0 := 0; r0 < n; r0 += c {
		if err := ctx.Err(); err != nil {
			return err
		}
		r1 := min(r0+c, n)
		xr, dg, err := e.chunkRows(sc, xIn, idx[r0:r1])
		if err != nil {
			return err
		}
		if len(e.invSqrt) == 0 {
			for i := range dg {
				dst[r0+i] = max(dg[i], 0) / e.mu
			}
			continue
		}
		if single, err = e.scoreChunk(ctx, sc, dst[r0:r1], xr, dg, single); err != nil {
			return err
		}
	}
	return nil
}

// estScratch is estimate's scratch for chunks of up to c points, allocated
// once (newEstScratch).
type estScratch struct {
	xb         *mat.Dense // the chunk's rows, c×d (dense x only)
	diag       []float64  // k(xᵢ, xᵢ)
	kb, tmp    *mat.Dense // the kernel block (row stride rounded up to 16) and forward's panel
	q, bb      []float64  // ‖yᵢ‖², and estimateSingle's scratch
	y32, tmp32 blas32.General
}

// newEstScratch allocates estimate's scratch for chunks of c rows of x, in
// float32 too when the estimator is single; with no landmarks only the
// rows and their diagonal.
func (e *scoreEstimator) newEstScratch(x mat.Matrix, c int) *estScratch {
	_, d := x.Dims()
	s := len(e.invSqrt)
	sc := &estScratch{}
	if _, sparse := x.(kernel.Sparse); !sparse {
		sc.xb = mat.NewDense(c, d, nil)
	}
	sc.diag = make([]float64, c)
	if s > 0 && e.single {
		st := (s + 15) &^ 15
		sc.y32 = blas32.General{Rows: c, Cols: s, Stride: st, Data: make([]float32, c*st)}
		tp := min(estPanel, s)
		sc.tmp32 = blas32.General{Rows: c, Cols: tp, Stride: tp, Data: make([]float32, c*tp)}
		sc.bb = make([]float64, c)
	}
	if s > 0 {
		// A row stride rounded up to 16 lets the engine form each kernel
		// block in place (kernel.Op.Block writes its 8×16 tiles straight
		// into dst when the strides agree), instead of forming it in its
		// own buffer and copying: 2% of a BLESS run at m = 3,000.
		sc.kb = mat.NewDense(c, (s+15)&^15, nil)
		sc.tmp = mat.NewDense(c, min(estPanel, s), nil)
		sc.q = make([]float64, c)
	}
	return sc
}

// chunkRows returns the rows idx of x, as CSR rows (sparse x) or gathered
// into sc.xb (dense x, checked finite), and their kernel diagonal
// k(xᵢ, xᵢ) in sc.diag.
func (e *scoreEstimator) chunkRows(sc *estScratch, xIn mat.Matrix, idx []int) (mat.Matrix, []float64, error) {
	dg := sc.diag[:len(idx)]
	if xs, sparse := xIn.(kernel.Sparse); sparse {
		sub := kernel.SubsetRows(xs, idx)
		kernel.SparseDiag(e.k, dg, sub)
		return sub, dg, nil
	}
	x, _ := xIn.(*mat.Dense)
	_, d := xIn.Dims()
	xd := sc.xb.Slice(0, len(idx), 0, d).(*mat.Dense)
	if err := gatherChecked(xd, x, idx); err != nil {
		return nil, nil, err
	}
	e.k.Diag(dg, xd)
	return xd, dg, nil
}

// scoreChunk writes ℓ̃ᵢ = max(k(xᵢ,xᵢ) − ‖L⁻¹R^{-1/2}k_Jᵢ‖², 0)/μ (Lemma 6 /
// BLESS eq. 3) for the chunk's rows xr, with diagonal dg, into dst: in
// float32 with the guard when single (estimateSingle), else in float64
// (forward). It returns whether the next chunk runs in float32: no longer
// once the guard sent back more than a quarter of this chunk.
func (e *scoreEstimator) scoreChunk(ctx context.Context, sc *estScratch, dst []float64, xr mat.Matrix, dg []float64, single bool) (bool, error) {
	s := len(e.invSqrt)
	rows := len(dg)
	kr := sc.kb.Slice(0, rows, 0, s).(*mat.Dense)
	if err := kernel.NewOp(e.k, xr, e.pts, e.opt).Block(ctx, kr); err != nil {
		return single, err
	}
	qr := sc.q[:rows]
	if single {
		redone, err := e.estimateSingle(ctx, kr, sc.y32, sc.tmp32, dg, qr, sc.bb[:rows])
		if err != nil {
			return single, err
		}
		for i, v := range qr {
			dst[i] = max(dg[i]-v, 0) / e.mu
		}
		// When the guard sends back more than a quarter of a chunk,
		// float32 no longer pays (each such point costs its float32
		// and its float64 solve): the remaining chunks run in float64.
		return 4*redone <= rows, nil
	}
	if e.single {
		e.doubleChunks++
	}
	raw := kr.RawMatrix()
	for i := 0; i < rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+s]
		for j := range row {
			row[j] *= e.invSqrt[j]
		}
	}
	if err := e.forward(ctx, kr, sc.tmp, qr); err != nil {
		return single, err
	}
	for i, v := range qr {
		dst[i] = max(dg[i]-v, 0) / e.mu
	}
	return single, nil
}

// estimateSingle sets q[i] = ‖L⁻¹bᵢ‖² for the rows of the kernel block kr
// (bᵢ = R^{-1/2}·row i) by forward32, then scores again in float64 (forward)
// every row whose numerator dg[i] − q[i] fails useSingle's guard, and
// returns how many. kr is left as it was; y and tmp are float32 scratch of
// at least kr's shape and rows×estPanel, bb scratch of len rows.
func (e *scoreEstimator) estimateSingle(ctx context.Context, kr *mat.Dense, y, tmp blas32.General, dg, q, bb []float64) (redone int, err error) {
	rows, s := kr.Dims()
	raw := kr.RawMatrix()
	yr := view32(y, 0, rows, 0, s)
	for i := 0; i < rows; i++ {
		in := raw.Data[i*raw.Stride : i*raw.Stride+s]
		out := yr.Data[i*yr.Stride : i*yr.Stride+s]
		var sq float64
		for j, v := range in {
			b := v * e.invSqrt[j]
			out[j] = float32(b)
			sq += b * b
		}
		bb[i] = sq
	}
	if err := e.forward32(ctx, yr, tmp, q); err != nil {
		return 0, err
	}
	var redo []int
	for i, v := range q {
		if !(dg[i]-v >= e.guard*0x1p-24*math.Sqrt(max(v, 0)*bb[i])) {
			redo = append(redo, i)
		}
	}
	if len(redo) == 0 {
		return 0, nil
	}
	e.rescored += len(redo)
	z := mat.NewDense(len(redo), s, nil)
	for t, i := range redo {
		row := z.RawRowView(t)
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+s] {
			row[j] = v * e.invSqrt[j]
		}
	}
	zt := mat.NewDense(len(redo), min(estPanel, s), nil)
	zq := make([]float64, len(redo))
	if err := e.forward(ctx, z, zt, zq); err != nil {
		return 0, err
	}
	for t, i := range redo {
		q[i] = zq[t]
	}
	return len(redo), nil
}

// gatherChecked copies the rows idx of x into dst, checking that every
// value is finite.
func gatherChecked(dst, x *mat.Dense, idx []int) error {
	for i, r := range idx {
		row := x.RawRowView(r)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: X[%d,%d] is %v", check.ErrInput, r, j, v)
			}
		}
		dst.SetRow(i, row)
	}
	return nil
}

// forward sets q[i] = ‖L⁻¹bᵢ‖² for the rows bᵢ of y (rows×s), which it
// overwrites. It solves panel by panel, right-looking: once panel p (estPanel
// columns) has received every update, it is solved and the solution Y_p is
// written to tmp (rows×estPanel scratch), q gains its rows' squared norms,
// and Y_{>p} −= Y_p L_{>p,p}ᵀ, a rank-estPanel update with Y_p packed once.
// Only the norms are wanted, so the solved panel never goes back to y.
//
// Within a panel, each estSub-wide sub-panel a is solved with the explicit
// inverse of its diagonal block, Y_a = Z_a·L_aa⁻ᵀ, and then updates the rest
// of the panel, Z_{>a} −= Y_a·L_{>a,a}ᵀ. Per point that is s²/2 + s·estSub/2
// multiply-adds (the triangular solve's s²/2, plus the zeros of the
// estSub-wide inverses), where one product with the inverse of the whole
// estPanel-wide block per panel took s²/2 + s·estPanel/2: at s = 1,503 and
// 2,182 landmarks, the last two steps of BLESS on ijcnn1 at m = 3,000,
// 11% and 8% fewer. The left-looking order (Y_p −= Y_{<p}L_{p,<p}ᵀ)
// packed the solved prefix again for every panel, s/(2·estPanel) times each
// value, and spent 18% of that run packing (docs/performance.md, "BLESS
// beside the uniform fit"). All orders compute the same L⁻¹b up to the order
// of the floating-point sums; each sum has one fixed order, whatever the
// number of workers.
func (e *scoreEstimator) forward(ctx context.Context, y, tmp *mat.Dense, q []float64) error {
	rows, s := y.Dims()
	clear(q)
	for p0 := 0; p0 < s; p0 += estPanel {
		p1 := min(p0+estPanel, s)
		for a0 := p0; a0 < p1; a0 += estSub {
			a1 := min(a0+estSub, p1)
			ya := tmp.Slice(0, rows, a0-p0, a1-p0).(*mat.Dense)
			if err := e.prod.Gemm(ctx, false, true, 1, y.Slice(0, rows, a0, a1).(*mat.Dense), e.dinv[a0/estSub], 0, ya); err != nil {
				return err
			}
			if a1 < p1 {
				la := e.l.Slice(a1, p1, a0, a1).(*mat.Dense)
				if err := e.prod.Gemm(ctx, false, true, -1, ya, la, 1, y.Slice(0, rows, a1, p1).(*mat.Dense)); err != nil {
					return err
				}
			}
		}
		yp := tmp.Slice(0, rows, 0, p1-p0).(*mat.Dense)
		for i := range rows {
			row := yp.RawRowView(i)
			q[i] += floats.Dot(row, row)
		}
		if p1 < s {
			lp := e.l.Slice(p1, s, p0, p1).(*mat.Dense)
			if err := e.prod.Gemm(ctx, false, true, -1, yp, lp, 1, y.Slice(0, rows, p1, s).(*mat.Dense)); err != nil {
				return err
			}
		}
	}
	return nil
}

// forward32 is forward in float32 on kernel.DenseF32 (y and tmp float32,
// the factor's entries l32 and dinv32); the squared norms are summed in
// float64. Same panels, same order.
func (e *scoreEstimator) forward32(ctx context.Context, y, tmp blas32.General, q []float64) error {
	rows, s := y.Rows, y.Cols
	clear(q)
	for p0 := 0; p0 < s; p0 += estPanel {
		p1 := min(p0+estPanel, s)
		for a0 := p0; a0 < p1; a0 += estSub {
			a1 := min(a0+estSub, p1)
			ya := view32(tmp, 0, rows, a0-p0, a1-p0)
			if err := e.prod32.Gemm(ctx, false, true, 1, view32(y, 0, rows, a0, a1), e.dinv32[a0/estSub], 0, ya); err != nil {
				return err
			}
			if a1 < p1 {
				if err := e.prod32.Gemm(ctx, false, true, -1, ya, view32(e.l32, a1, p1, a0, a1), 1, view32(y, 0, rows, a1, p1)); err != nil {
					return err
				}
			}
		}
		for i := range rows {
			var acc float64
			for _, v := range tmp.Data[i*tmp.Stride : i*tmp.Stride+p1-p0] {
				acc += float64(v) * float64(v)
			}
			q[i] += acc
		}
		if p1 < s {
			if err := e.prod32.Gemm(ctx, false, true, -1, view32(tmp, 0, rows, 0, p1-p0), view32(e.l32, p1, s, p0, p1), 1, view32(y, 0, rows, p1, s)); err != nil {
				return err
			}
		}
	}
	return nil
}
