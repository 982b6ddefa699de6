package precond

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"
)

// u32 is the unit roundoff of float32.
const u32 = 0x1p-24

// checkLLT checks, element by element on the lower triangle, that the
// float32 lower-triangular l (row stride s) satisfies |(LLᵀ)_ij − want_ij|
// ≤ 4(m+1)·u·(|L||Lᵀ|)_ij + extra_ij: the backward error of Cholesky
// (Higham, Accuracy and Stability, Thm 10.3: γ_{m+1}|L||Lᵀ|, times 4 for the
// blocked algorithm's products by inverted diagonal blocks, see solver's
// checkFactor32), plus extra for the rounding of the matrix that was
// factored. It returns the largest ratio of error to bound.
func checkLLT(t *testing.T, name string, l []float32, s, m int, want func(i, j int) float64, extra func(i, j int) float64) float64 {
	t.Helper()
	worst := 0.0
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			var sum, abs float64
			for p := 0; p <= j; p++ {
				v := float64(l[i*s+p]) * float64(l[j*s+p])
				sum += v
				abs += math.Abs(v)
			}
			bound := 4*float64(m+1)*u32*abs + extra(i, j)
			if r := math.Abs(sum-want(i, j)) / bound; r > worst {
				worst = r
			}
		}
	}
	if worst > 1 {
		t.Errorf("%s: |LLᵀ − want| reaches %.3g × its bound", name, worst)
	}
	return worst
}

// TestFalkon32Factors builds the float32 preconditioner of eq. 14 and 15
// at M = 600 (past the factorizations' 512-column outer block), checks that
// T lives in K_MM's storage, and checks its factors to float32 rounding:
//   - T: L_T L_Tᵀ = K_MM + shift·I, within checkLLT's bound plus u·|K_ij +
//     shift·δ_ij| (K_MM + shift rounded once to float32);
//   - A: L_A L_Aᵀ = WᵀW + λI, W = (MD)^{-1/2} L_T formed in float32 (each
//     entry rounded once from the float64 product, as the build does), within
//     checkLLT's bound plus (m+2)·u·(|W|ᵀ|W|)_ij (Lauum32's float32 sums of ≤ m
//     products and the rounding of + λ; Higham §3.1);
//
// and that what stays float64 is float64's: MulKMM is K_MM·v to 1e-12, the
// shift is εMs, and BBᵀ is symmetric to 1e-12 relative (the float32 entries
// are applied in float64 arithmetic, the same matrix in both solves).
func TestFalkon32Factors(t *testing.T) {
	const m, n, lambda = 600, 5000, 1e-4
	kmm := gaussKMM(3, m, 0.5)
	rng := rand.New(rand.NewPCG(4, 4))
	wts := make([]float64, m)
	for j := range wts {
		wts[j] = 0.2 + 3*rng.Float64()
	}
	for _, weighted := range []bool{false, true} {
		work := mat.DenseCopyOf(kmm)
		opt := Options{Precision: PrecisionFloat32}
		var p *Falkon
		var err error
		var w []float64
		if weighted {
			w = wts
			p, err = BuildWeighted(work, n, lambda, w, opt)
		} else {
			p, err = BuildFalkon(work, n, lambda, opt)
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.Precision != PrecisionFloat32 || p.t32 == nil || p.a32 == nil || p.t != nil || p.JitterT != 0 || p.JitterA != 0 {
			t.Fatalf("weighted=%v: precision %q, jitters %g %g", weighted, p.Precision, p.JitterT, p.JitterA)
		}
		if math.Abs(p.Shift-DefaultEpsilon*m) > 1e-15 {
			t.Errorf("shift %g, want εM = %g", p.Shift, DefaultEpsilon*m)
		}
		lt := p.t32.L()
		// T is factored in the bytes of K_MM's lower triangle (no second
		// M×M matrix), stride two float64 rows.
		wr := work.RawMatrix()
		if unsafe.Pointer(&lt.Data[0]) != unsafe.Pointer(&wr.Data[0]) || lt.Stride != 2*wr.Stride {
			t.Errorf("weighted=%v: T is not stored in K_MM's storage", weighted)
		}
		// A too: one float32 further, stride one more (the second half of
		// each row's lower triangle).
		if la := p.a32.L(); unsafe.Pointer(&la.Data[0]) != unsafe.Add(unsafe.Pointer(&wr.Data[0]), 4) || la.Stride != 2*wr.Stride+1 {
			t.Errorf("weighted=%v: A is not stored in K_MM's storage", weighted)
		}
		k32 := func(i, j int) float64 {
			v := kmm.At(i, j)
			if i == j {
				v += p.Shift
			}
			return v
		}
		rt := checkLLT(t, "T", lt.Data, lt.Stride, m, k32, func(i, j int) float64 { return u32 * math.Abs(k32(i, j)) })
		// W as the build forms it, then WᵀW + λI in float64.
		wm := make([]float64, m*m)
		for i := 0; i < m; i++ {
			scale := 1 / math.Sqrt(float64(m))
			if weighted {
				scale = 1 / math.Sqrt(float64(m)*w[i])
			}
			for j := 0; j <= i; j++ {
				wm[i*m+j] = float64(float32(scale * float64(lt.Data[i*lt.Stride+j])))
			}
		}
		c := make([]float64, m*m)
		ca := make([]float64, m*m)
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				var s, a float64
				for q := i; q < m; q++ {
					s += wm[q*m+i] * wm[q*m+j]
					a += math.Abs(wm[q*m+i] * wm[q*m+j])
				}
				if i == j {
					s += lambda
					a += lambda
				}
				c[i*m+j], ca[i*m+j] = s, a
			}
		}
		la := p.a32.L()
		ra := checkLLT(t, "A", la.Data, la.Stride, m, func(i, j int) float64 { return c[i*m+j] },
			func(i, j int) float64 { return float64(m+2) * u32 * ca[i*m+j] })
		t.Logf("weighted=%v: worst error/bound T %.3g, A %.3g", weighted, rt, ra)

		v := mat.NewDense(m, 2, nil)
		for i := range v.RawMatrix().Data {
			v.RawMatrix().Data[i] = rng.NormFloat64()
		}
		got := mat.NewDense(m, 2, nil)
		if err := p.MulKMM(got, v); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(kmm, v)
		want.Sub(&want, got)
		if d := maxAbs(&want); d > 1e-12 {
			t.Errorf("weighted=%v: MulKMM differs from K_MM·v by %g", weighted, d)
		}
		bbt, err := applyDense(m, func(x *mat.Dense) error { return p.Precondition(context.Background(), x, x) })
		if err != nil {
			t.Fatal(err)
		}
		var asym mat.Dense
		asym.Sub(bbt, bbt.T())
		if d := maxAbs(&asym) / maxAbs(bbt); d > 1e-12 {
			t.Errorf("weighted=%v: BBᵀ asymmetric by %g", weighted, d)
		}
		// T() widens the float32 factor: TᵀT is L_T L_Tᵀ.
		tt := p.T()
		if got, want := tt.At(0, m-1), float64(lt.Data[(m-1)*lt.Stride]); got != want {
			t.Errorf("T()[0][%d] = %g, want L_T[%d][0] = %g", m-1, got, m-1, want)
		}
	}
	if _, err := BuildFalkon(mat.DenseCopyOf(kmm), n, lambda, Options{Precision: "float16"}); !errors.Is(err, ErrInput) {
		t.Errorf("precision float16: err = %v, want ErrInput", err)
	}
}

// TestFalkon32SameSolution: any fixed invertible B gives the same Nyström
// solution (α = Bβ, CG solves BᵀHBβ = Bᵀz), so the fit preconditioned in
// float32 must reach the float64-preconditioned fit's α. A Nyström system
// (n = 1,500 points in 5-d, M = 300 uniform centers, Gaussian γ = 0.2,
// λ = 1e-3) with H formed densely in float64 is solved by PCG to a relative
// residual of 1e-13 with each preconditioner. Both true residuals ‖z − Hα‖
// must be below 2e-13·‖z‖, and the two α then differ by at most
// ‖H⁻¹‖·(‖r32‖ + ‖r64‖), λ_min(H) computed here (the bound is asserted to be
// tight enough to mean something: below 1e-6 relative). The float32 run
// may take more iterations (BᵀHB is perturbed by ≈ κ(K_MM + εMsI)·u), but
// not more than twice as many.
func TestFalkon32SameSolution(t *testing.T) {
	const n, m, d, lambda = 1500, 300, 5, 1e-3
	rng := rand.New(rand.NewPCG(7, 8))
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	y := mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		y.Set(i, 0, math.Sin(x.At(i, 0))+0.1*rng.NormFloat64())
	}
	k := kernel.Gaussian{Gamma: 0.2}
	c := x.Slice(0, m, 0, d).(*mat.Dense)
	knm := mat.NewDense(n, m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			knm.Set(i, j, k.Eval(x.RawRowView(i), c.RawRowView(j)))
		}
	}
	kmm := mat.DenseCopyOf(knm.Slice(0, m, 0, m))
	var h mat.Dense
	h.Mul(knm.T(), knm)
	var lk mat.Dense
	lk.Scale(lambda*n, kmm)
	h.Add(&h, &lk)
	var z mat.Dense
	z.Mul(knm.T(), y)
	op := solver.OperatorFunc{N: m, F: func(_ context.Context, dst, v *mat.Dense) error {
		dst.Mul(&h, v)
		return nil
	}}
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(m, h.RawMatrix().Data), false) {
		t.Fatal("eigenvalues of H")
	}
	lmin := es.Values(nil)[0]
	zn := mat.Norm(&z, 2)
	alphas := map[Precision]*mat.Dense{}
	iters := map[Precision]int{}
	var rsum float64
	for _, prec := range []Precision{PrecisionFloat64, PrecisionFloat32} {
		p, err := BuildFalkon(mat.DenseCopyOf(kmm), n, lambda, Options{Precision: prec})
		if err != nil {
			t.Fatal(err)
		}
		alpha := mat.NewDense(m, 1, nil)
		res, err := solver.PCG(context.Background(), op, p, &z, alpha, solver.Options{Tol: 1e-13, MaxIter: 500})
		if err != nil {
			t.Fatal(err)
		}
		var r mat.Dense
		r.Mul(&h, alpha)
		r.Sub(&z, &r)
		rn := mat.Norm(&r, 2)
		t.Logf("%s: %s after %d iterations, true relative residual %.3g", prec, res.Status, res.Iterations, rn/zn)
		if res.Status != solver.Converged || rn > 2e-13*zn {
			t.Fatalf("%s: %s after %d iterations, true relative residual %.3g, want ≤ 2e-13", prec, res.Status, res.Iterations, rn/zn)
		}
		alphas[prec], iters[prec] = alpha, res.Iterations
		rsum += rn
	}
	if iters[PrecisionFloat32] > 2*iters[PrecisionFloat64] {
		t.Errorf("float32 preconditioner: %d iterations, float64: %d", iters[PrecisionFloat32], iters[PrecisionFloat64])
	}
	var diff mat.Dense
	diff.Sub(alphas[PrecisionFloat32], alphas[PrecisionFloat64])
	an := mat.Norm(alphas[PrecisionFloat64], 2)
	bound := rsum / lmin / an
	t.Logf("‖α32 − α64‖/‖α64‖ = %.3g, bound %.3g (λ_min(H) = %.3g)", mat.Norm(&diff, 2)/an, bound, lmin)
	if bound > 1e-6 {
		t.Fatalf("bound %.3g: the problem is too ill-conditioned for the test to mean anything", bound)
	}
	if e := mat.Norm(&diff, 2) / an; e > bound {
		t.Errorf("‖α32 − α64‖/‖α64‖ = %.3g > %.3g", e, bound)
	}
}

// TestFalkon32BuildBytes: the float32 build computes T, C and A in the
// bytes of K_MM's lower triangle and allocates no M×M matrix (float64
// allocates one of 8M² bytes), at most ScratchBytes(M) of
// packing buffers and panels, and a few M-vectors (the diagonal, the
// jitter loop's copies); 64 KiB covers headers and task lists (total
// allocations, garbage included: the potrf and lauum panels are two
// buffers). That T shares K_MM's storage is checked by TestFalkon32Factors.
// At M = 700 (two outer blocks).
func TestFalkon32BuildBytes(t *testing.T) {
	const m = 700
	kmm := gaussKMM(5, m, 0.5)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if _, err := BuildFalkon(kmm, 10*m, 1e-4, Options{Precision: PrecisionFloat32}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := int64(after.TotalAlloc - before.TotalAlloc)
	plan := ScratchBytes(m, 1) + 8*8*m + 64<<10
	t.Logf("allocated %d bytes, plan %d", got, plan)
	if got > plan {
		t.Errorf("float32 build allocated %d bytes, plan %d", got, plan)
	}
}

// TestFalkon32Jitter: a K_MM with duplicated centers and a tiny ε needs
// jitter in float32 for T and, with weights spread over 1e8, for A too;
// each retry refills its matrix in place (T's from K_MM's upper triangle,
// C by recomputing it from T). Reference: the same matrices formed in
// separate full float32 matrices (K_MM + shift rounded; C from the same
// W by the same Lauum32) and factored by solver.CholeskyBlocked32, which
// restores from the upper triangle: its factors, jitters and attempts must
// be the build's bit for bit (the same operations on the same values). K_MM
// survives the retries (MulKMM).
func TestFalkon32Jitter(t *testing.T) {
	const m, n, lambda = 300, 3000, 1e-9
	base := gaussKMM(9, m/2, 0.5)
	kmm := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			kmm.Set(i, j, base.At(i%(m/2), j%(m/2))) // every center twice
		}
	}
	// Weights spread over 1e8 make C = L_Tᵀ D⁻¹ L_T / M + λI far worse
	// conditioned than T (eq. 15 with extreme leverage scores).
	w := make([]float64, m)
	for i := range w {
		w[i] = 1e-4
		if i%3 == 0 {
			w[i] = 1e4
		}
	}
	work := mat.DenseCopyOf(kmm)
	p, err := BuildWeighted(work, n, lambda, w, Options{Precision: PrecisionFloat32, Epsilon: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jitter T %.3g (%d attempts), A %.3g (%d attempts)", p.JitterT, p.t32.Attempts, p.JitterA, p.a32.Attempts)
	if p.t32.Attempts < 2 || p.a32.Attempts < 2 {
		t.Fatalf("jitter T %g after %d attempts, A %g after %d: want retries for both", p.JitterT, p.t32.Attempts, p.JitterA, p.a32.Attempts)
	}
	ctx := context.Background()
	full := func() blas32.General { return blas32.General{Rows: m, Cols: m, Stride: m, Data: make([]float32, m*m)} }
	same := func(name string, got, want *solver.Chol32) {
		if got.Jitter != want.Jitter || got.Attempts != want.Attempts {
			t.Errorf("%s: jitter %g after %d attempts, reference %g after %d", name, got.Jitter, got.Attempts, want.Jitter, want.Attempts)
		}
		g, r := got.L(), want.L()
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				if math.Float32bits(g.Data[i*g.Stride+j]) != math.Float32bits(r.Data[i*r.Stride+j]) {
					t.Fatalf("%s: L[%d][%d] = %g, reference %g", name, i, j, g.Data[i*g.Stride+j], r.Data[i*r.Stride+j])
				}
			}
		}
	}
	tr := full()
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			v := kmm.At(i, j)
			if i == j {
				v += p.Shift
			}
			tr.Data[i*m+j] = float32(v)
		}
	}
	refT, err := solver.CholeskyBlocked32(ctx, tr, solver.CholOptions{}, kernel.DenseF32{})
	if err != nil {
		t.Fatal(err)
	}
	same("T", p.t32, refT)
	cr := full()
	for i := 0; i < m; i++ {
		for j := 0; j <= i; j++ {
			cr.Data[i*m+j] = float32(1 / math.Sqrt(m*w[i]) * float64(tr.Data[i*m+j]))
		}
	}
	if err := solver.Lauum32(ctx, cr, kernel.DenseF32{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < m; i++ {
		cr.Data[i*m+i] = float32(float64(cr.Data[i*m+i]) + lambda)
		for j := 0; j < i; j++ {
			cr.Data[j*m+i] = cr.Data[i*m+j]
		}
	}
	refA, err := solver.CholeskyBlocked32(ctx, cr, solver.CholOptions{}, kernel.DenseF32{})
	if err != nil {
		t.Fatal(err)
	}
	same("A", p.a32, refA)
	v := mat.NewDense(m, 1, nil)
	for i := 0; i < m; i++ {
		v.Set(i, 0, math.Sin(float64(i)))
	}
	got := mat.NewDense(m, 1, nil)
	if err := p.MulKMM(got, v); err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	want.Mul(kmm, v)
	want.Sub(&want, got)
	if d := maxAbs(&want); d > 1e-12 {
		t.Errorf("MulKMM differs from K_MM·v by %g after the jitter retries", d)
	}
}

// TestFalkon32FirstFill: without jitter, T's matrix is K_MM's lower
// triangle narrowed in place (narrowRows), so the build's L_T must be, bit
// for bit, solver.CholeskyBlocked32's factor of a separate float32 matrix
// holding float32(K_MM + shift·I) (M = 600, past the 512-column outer
// block: the same operations on the same values). With the strict lower
// triangle scaled by 1 + 2⁻¹⁰ (not symmetric any more), the reference
// built from the lower triangle must still match — the first attempt reads
// the lower triangle, as the float64 build does — and MulKMM must still be
// the upper triangle's product (to 1e-12), untouched by the narrowing.
func TestFalkon32FirstFill(t *testing.T) {
	const m, n, lambda = 600, 5000, 1e-4
	kmm := gaussKMM(11, m, 0.5)
	for _, skew := range []bool{false, true} {
		work := mat.DenseCopyOf(kmm)
		if skew {
			for i := 0; i < m; i++ {
				for j := 0; j < i; j++ {
					work.Set(i, j, work.At(i, j)*(1+0x1p-10))
				}
			}
		}
		given := mat.DenseCopyOf(work)
		p, err := BuildFalkon(work, n, lambda, Options{Precision: PrecisionFloat32})
		if err != nil {
			t.Fatal(err)
		}
		if p.t32.Attempts != 1 {
			t.Fatalf("skew=%v: %d attempts, want 1", skew, p.t32.Attempts)
		}
		ref := blas32.General{Rows: m, Cols: m, Stride: m, Data: make([]float32, m*m)}
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				v := given.At(i, j)
				if i == j {
					v += p.Shift
				}
				ref.Data[i*m+j], ref.Data[j*m+i] = float32(v), float32(v)
			}
		}
		want, err := solver.CholeskyBlocked32(context.Background(), ref, solver.CholOptions{}, kernel.DenseF32{})
		if err != nil {
			t.Fatal(err)
		}
		g, r := p.t32.L(), want.L()
		for i := 0; i < m; i++ {
			for j := 0; j <= i; j++ {
				if math.Float32bits(g.Data[i*g.Stride+j]) != math.Float32bits(r.Data[i*r.Stride+j]) {
					t.Fatalf("skew=%v: L_T[%d][%d] = %g, reference %g", skew, i, j, g.Data[i*g.Stride+j], r.Data[i*r.Stride+j])
				}
			}
		}
		v := mat.NewDense(m, 1, nil)
		for i := 0; i < m; i++ {
			v.Set(i, 0, math.Cos(float64(i)))
		}
		got := mat.NewDense(m, 1, nil)
		if err := p.MulKMM(got, v); err != nil {
			t.Fatal(err)
		}
		var kv mat.Dense
		kv.Mul(kmm, v)
		kv.Sub(&kv, got)
		if d := maxAbs(&kv); d > 1e-12 {
			t.Errorf("skew=%v: MulKMM differs from K_MM·v by %g", skew, d)
		}
	}
}
