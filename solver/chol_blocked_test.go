package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// spdMatrix returns BBᵀ/n + I for a random n×n B: eigenvalues in about
// [1, 5], so the factors of different algorithms agree to near machine
// precision (the forward error of Cholesky is of order cond·ε ≈ 1e-15).
func spdMatrix(r *rand.Rand, n int) *mat.Dense {
	b := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			b.Set(i, j, r.NormFloat64())
		}
	}
	var a mat.Dense
	a.Mul(b, b.T())
	a.Scale(1/float64(n), &a)
	for i := range n {
		a.Set(i, i, a.At(i, i)+1)
	}
	return &a
}

// lowerRelErr is ‖tril(got − want)‖_F / ‖tril(want)‖_F.
func lowerRelErr(got, want mat.Matrix) float64 {
	n, _ := want.Dims()
	var num, den float64
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			d := got.At(i, j) - want.At(i, j)
			num += d * d
			den += want.At(i, j) * want.At(i, j)
		}
	}
	return math.Sqrt(num / den)
}

// products are the Products the blocked algorithms are tested on: gonum's
// BLAS, the kernel engine's SIMD micro-kernels and its portable Go tiles.
var products = []struct {
	name string
	p    Products
}{{"gonum", nil}, {"simd", kernel.Dense{Workers: 2}}, {"portable", kernel.Dense{Workers: 3, Portable: true}}}

// raggedSizes are not multiples of the 8×16 tile, the 128×512 task block or
// the block widths tested (testWidths), and cross them.
var raggedSizes = []int{1, 7, 63, 65, 257, 1001}

// testWidths are the (outer, inner) block widths the blocked algorithms are
// tested with: small ones (many blocks of both levels even at small n), an
// outer width that is not a multiple of the inner one, and the defaults.
var testWidths = []widths{{16, 4}, {40, 16}, defaultWidths}

// TestBlockedPotrf compares the blocked factorization with gonum's Dpotrf to
// 1e-12 relative (Frobenius norm of the lower triangle), with block widths
// 16 (many blocks even at small n) and 256 (the default), and the SIMD
// factor with the portable one to the same tolerance; the strict upper
// triangle must be left alone.
func TestBlockedPotrf(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	for _, n := range raggedSizes {
		a := spdMatrix(r, n)
		want := mat.DenseCopyOf(a)
		wr := want.RawMatrix()
		if !(lapackgonum.Implementation{}).Dpotrf(blas.Lower, n, wr.Data, wr.Stride) {
			t.Fatalf("n=%d: gonum Dpotrf failed", n)
		}
		for _, nb := range testWidths {
			got := map[string]*mat.Dense{}
			for _, pr := range products {
				name := fmt.Sprintf("n=%d nb=%v %s", n, nb, pr.name)
				g := mat.DenseCopyOf(a)
				gr := g.RawMatrix()
				p := pr.p
				if p == nil {
					p = gonumProducts{}
				}
				ok, err := blockedPotrf(ctx, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: gr.Stride, Data: gr.Data}, p, nb)
				if err != nil || !ok {
					t.Fatalf("%s: ok=%v err=%v", name, ok, err)
				}
				if e := lowerRelErr(g, want); e > 1e-12 {
					t.Errorf("%s: relative error %.3g against Dpotrf", name, e)
				}
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						if g.At(i, j) != a.At(i, j) {
							t.Fatalf("%s: upper triangle changed at (%d,%d)", name, i, j)
						}
					}
				}
				got[pr.name] = g
			}
			if e := lowerRelErr(got["simd"], got["portable"]); e > 1e-12 {
				t.Errorf("n=%d nb=%v: SIMD and portable factors differ by %.3g", n, nb, e)
			}
		}
	}
}

// TestLauum compares Lauum with gonum's Dlauum (LᵀL) to 1e-12 relative, for
// the block widths of testWidths, with the upper triangle left alone.
func TestLauum(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	for _, n := range raggedSizes {
		w := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				w.Set(i, j, r.NormFloat64())
			}
			w.Set(i, i, 1+math.Abs(w.At(i, i)))
		}
		want := mat.DenseCopyOf(w)
		wr := want.RawMatrix()
		lapackgonum.Implementation{}.Dlauum(blas.Lower, n, wr.Data, wr.Stride)
		for _, nb := range testWidths {
			got := map[string]*mat.Dense{}
			for _, pr := range products {
				name := fmt.Sprintf("n=%d nb=%v %s", n, nb, pr.name)
				g := mat.DenseCopyOf(w)
				if err := lauum(ctx, g, pr.p, nb); err != nil {
					t.Fatal(err)
				}
				if e := lowerRelErr(g, want); e > 1e-12 {
					t.Errorf("%s: relative error %.3g against Dlauum", name, e)
				}
				for i := 0; i < n; i++ {
					for j := i + 1; j < n; j++ {
						if g.At(i, j) != w.At(i, j) {
							t.Fatalf("%s: upper triangle changed at (%d,%d)", name, i, j)
						}
					}
				}
				got[pr.name] = g
			}
			if e := lowerRelErr(got["simd"], got["portable"]); e > 1e-12 {
				t.Errorf("n=%d nb=%v: SIMD and portable differ by %.3g", n, nb, e)
			}
		}
	}
	if err := Lauum(ctx, mat.NewDense(2, 3, nil), nil); !errors.Is(err, ErrShape) {
		t.Errorf("2×3: err = %v, want ErrShape", err)
	}
}

// TestBlockedSolveL compares the blocked triangular solves (L⁻¹X and L⁻ᵀX,
// t right-hand sides) with gonum's Dtrsm to 1e-12 relative, for block
// widths of testWidths; L is the Cholesky factor of a well-conditioned matrix
// (cond(L) ≤ √5), so both are accurate to ≈ 1e-15. t = 70 ≥ solveInvRHS
// takes the path that inverts the diagonal blocks.
func TestBlockedSolveL(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	ctx := context.Background()
	for _, n := range raggedSizes {
		a := spdMatrix(r, n)
		ar := a.RawMatrix()
		lapackgonum.Implementation{}.Dpotrf(blas.Lower, n, ar.Data, ar.Stride)
		l := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: ar.Stride, Data: ar.Data}
		for _, tcols := range []int{1, 17, 70} {
			x0 := mat.NewDense(n, tcols, nil)
			for i := range n {
				for j := range tcols {
					x0.Set(i, j, r.NormFloat64())
				}
			}
			for _, trans := range []bool{false, true} {
				want := mat.DenseCopyOf(x0)
				blas64.Trsm(blas.Left, bt(trans), 1, l, want.RawMatrix())
				for _, nb := range testWidths {
					for _, pr := range products {
						p := pr.p
						if p == nil {
							p = gonumProducts{}
						}
						g := mat.DenseCopyOf(x0)
						if err := blockedSolveL(ctx, l, g, trans, p, nb); err != nil {
							t.Fatal(err)
						}
						if e := relFrob(g, want); e > 1e-12 {
							t.Errorf("n=%d t=%d trans=%v nb=%v %s: relative error %.3g", n, tcols, trans, nb, pr.name, e)
						}
					}
				}
			}
		}
	}
}

func relFrob(got, want mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(got, want)
	return mat.Norm(&d, 2) / mat.Norm(want, 2)
}

// TestCholeskyBlockedSolve checks the public path end to end: factor with
// CholeskyBlocked on the engine, solve 20 right-hand sides (blocked path)
// and one (gonum path), and compare A·X with B.
func TestCholeskyBlockedSolve(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	n := 700
	a := spdMatrix(r, n)
	c, err := CholeskyBlocked(context.Background(), mat.DenseCopyOf(a), CholOptions{}, kernel.Dense{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tcols := range []int{1, 20} {
		b := mat.NewDense(n, tcols, nil)
		for i := range n {
			for j := range tcols {
				b.Set(i, j, r.NormFloat64())
			}
		}
		x := mat.DenseCopyOf(b)
		if err := c.Solve(x); err != nil {
			t.Fatal(err)
		}
		var ax mat.Dense
		ax.Mul(a, x)
		// Backward error of a Cholesky solve: ≈ n·ε·cond = 700·1.1e-16·5.
		if e := relFrob(&ax, b); e > 1e-12 {
			t.Errorf("t=%d: ‖AX − B‖/‖B‖ = %.3g", tcols, e)
		}
	}
}

// TestCholeskyBlockedJitter: a PSD matrix of rank 3 fails without jitter and
// succeeds with it, as CholeskyInPlace does, on every Products; cancellation
// is an error, not a pivot failure.
func TestCholeskyBlockedJitter(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	n := 600
	b := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			b.Set(i, j, r.NormFloat64())
		}
	}
	var a mat.Dense
	a.Mul(b, b.T())
	for _, pr := range products {
		c, err := CholeskyBlocked(context.Background(), mat.DenseCopyOf(&a), CholOptions{}, pr.p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Jitter <= 0 || c.Attempts < 2 {
			t.Fatalf("%s: rank-3 matrix: jitter %g after %d attempts, want > 0 after ≥ 2", pr.name, c.Jitter, c.Attempts)
		}
		// Not PD even with the largest jitter: a negative diagonal, in the
		// only outer block (300) or in the second one, past an inner block
		// boundary (cholBlock + 150).
		for _, nn := range []int{300, cholBlock + 151} {
			neg := spdMatrix(r, nn)
			neg.Set(nn-1, nn-1, -1)
			if _, err := CholeskyBlocked(context.Background(), neg, CholOptions{}, pr.p); !errors.Is(err, ErrNotPD) {
				t.Fatalf("%s: n=%d, negative pivot: err = %v, want ErrNotPD", pr.name, nn, err)
			}
		}
		// A block that needs jitter only in the second outer block: the
		// last row and column repeat the one before, with the diagonal
		// lowered by 1e-3, so the last pivot is −1e-3 (up to rounding)
		// until the jitter passes 1e-3 (≈ 5e-4 of the mean diagonal, below
		// the default maximum of 1e-2).
		nn := cholBlock + 100
		dup := spdMatrix(r, nn)
		for j := range nn {
			dup.Set(nn-1, j, dup.At(nn-2, j))
			dup.Set(j, nn-1, dup.At(j, nn-2))
		}
		dup.Set(nn-1, nn-1, dup.At(nn-2, nn-2)-1e-3)
		c2, err := CholeskyBlocked(context.Background(), mat.DenseCopyOf(dup), CholOptions{}, pr.p)
		if err != nil {
			t.Fatalf("%s: duplicated row: %v", pr.name, err)
		}
		if c2.Jitter <= 0 || c2.Attempts < 2 {
			t.Fatalf("%s: duplicated row: jitter %g after %d attempts, want > 0 after ≥ 2", pr.name, c2.Jitter, c2.Attempts)
		}
		// The factor is of A + jitter·I: L·Lᵀ matches it to the backward
		// error of Cholesky, ≈ n·ε·‖A‖.
		var llt mat.Dense
		llt.Mul(c2.L(), c2.L().T())
		for i := range nn {
			dup.Set(i, i, dup.At(i, i)+c2.Jitter)
		}
		if e := relFrob(&llt, dup); e > float64(nn)*1.2e-16 {
			t.Errorf("%s: duplicated row: ‖LLᵀ − (A + jitter·I)‖/‖A‖ = %.3g", pr.name, e)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CholeskyBlocked(ctx, spdMatrix(r, n), CholOptions{}, kernel.Dense{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
}

// TestBlockedPotrfDeterministic: the factor, lauum's LᵀL and the blocked
// solves are bit-identical for 1 and 2 workers and for GOMAXPROCS 1 and 2
// (each element is summed by one worker in a fixed order), at a size that
// crosses the outer block (cholBlock) and is not a multiple of either width.
func TestBlockedPotrfDeterministic(t *testing.T) {
	n := cholBlock + cholInner + 77
	a := spdMatrix(rand.New(rand.NewPCG(51, 52)), n)
	b := mat.NewDense(n, solveInvRHS+3, nil)
	for i := range b.RawMatrix().Data {
		b.RawMatrix().Data[i] = math.Sin(float64(i))
	}
	type result struct{ l, lauum, x, xt *mat.Dense }
	run := func(workers, procs int) result {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		p := kernel.Dense{Workers: workers}
		c, err := CholeskyBlocked(context.Background(), mat.DenseCopyOf(a), CholOptions{}, p)
		if err != nil {
			t.Fatal(err)
		}
		var res result
		res.l = mat.DenseCopyOf(c.L())
		x, xt := mat.DenseCopyOf(b), mat.DenseCopyOf(b)
		if err := c.SolveL(x, false); err != nil {
			t.Fatal(err)
		}
		if err := c.SolveL(xt, true); err != nil {
			t.Fatal(err)
		}
		res.x, res.xt = x, xt
		res.lauum = mat.DenseCopyOf(res.l)
		if err := Lauum(context.Background(), res.lauum, p); err != nil {
			t.Fatal(err)
		}
		return res
	}
	ref := run(1, 1)
	for _, wp := range [][2]int{{2, 2}, {2, 1}, {0, 2}, {3, 2}} {
		got := run(wp[0], wp[1])
		for _, c := range []struct {
			name      string
			got, want *mat.Dense
		}{{"factor", got.l, ref.l}, {"lauum", got.lauum, ref.lauum}, {"L⁻¹B", got.x, ref.x}, {"L⁻ᵀB", got.xt, ref.xt}} {
			if !mat.Equal(c.got, c.want) {
				t.Errorf("workers %d, GOMAXPROCS %d: %s differs from 1 worker, GOMAXPROCS 1", wp[0], wp[1], c.name)
			}
		}
	}
}

// TestBlockedPlannedBytes: on kernel.Dense, CholeskyBlocked and Lauum of an
// n×n matrix (n = 1,500: three outer blocks) allocate at most what their
// plan says, CholeskyScratchBytes(n) for their panels plus
// Dense.SyrkPackBytes(n, 512) for their products' buffer, measured as a
// runtime.MemStats heap delta after two collections (heap.AllocatedFresh; they empty the
// buffer pool). The delta adds up what each product allocates besides its
// buffer (SyrkPackBytes counts one product's, ≤ 16 KiB here), garbage by
// the next product: at most 14 products a block of 512 columns (potrf: 3
// Gemms and 3 SyrkLowers in the diagonal block, 7 Gemms for the panel, one
// trailing SyrkLower), 42 in all, are allowed 16 KiB each on top, with 8·n
// + 4 KiB for the Chol value and the diagonal kept for a jitter retry.
// With the products' buffer already reserved
// (Dense.ReserveSyrk), Lauum allocates under 64 KiB: not the 512-row panel
// it copied each block to before LauumRows (8·512·n bytes, 6.1 MB;
// BlockedScratchBytes(n) still plans it for other products), which the
// same measurement sees on products without LauumRows.
func TestBlockedPlannedBytes(t *testing.T) {
	const n = 1500
	r := rand.New(rand.NewPCG(91, 92))
	a := spdMatrix(r, n)
	f := mat.DenseCopyOf(a)
	d := kernel.Dense{Workers: 2}
	plan := CholeskyScratchBytes(n) + d.SyrkPackBytes(n, min(n, BlockedWidth))
	slack := int64(42*16<<10 + 8*n + 4<<10)
	got := heap.AllocatedFresh(t, func() error {
		_, err := CholeskyBlocked(context.Background(), f, CholOptions{}, d)
		return err
	})
	t.Logf("CholeskyBlocked: %d bytes, plan %d + %d", got, plan, slack)
	if got > plan+slack {
		t.Errorf("CholeskyBlocked allocated %d bytes, plan %d (+ %d)", got, plan, slack)
	}
	l := mat.DenseCopyOf(f)
	if got := heap.AllocatedFresh(t, func() error { return Lauum(context.Background(), f, d) }); got > plan+slack {
		t.Errorf("Lauum allocated %d bytes, plan %d (+ %d)", got, plan, slack)
	}
	release := d.ReserveSyrk(n, min(n, BlockedWidth))
	defer release()
	f.Copy(l)
	if got := heap.AllocatedFresh(t, func() error { return Lauum(context.Background(), f, d) }); got >= 64<<10 {
		t.Errorf("Lauum with its buffer reserved allocated %d bytes, want < 64 KiB", got)
	}
	f.Copy(l)
	if got := heap.AllocatedFresh(t, func() error { return Lauum(context.Background(), f, withoutLauumRows{d}) }); got < 8*512*n {
		t.Errorf("Lauum copying its blocks allocated %d bytes, less than its panel %d: not measuring", got, 8*512*n)
	}
}

// withoutLauumRows is kernel.Dense's Gemm and SyrkLower without its
// LauumRows and ReserveSyrk.
type withoutLauumRows struct{ d kernel.Dense }

func (p withoutLauumRows) Gemm(ctx context.Context, tA, tB bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense) error {
	return p.d.Gemm(ctx, tA, tB, alpha, a, b, beta, c)
}

func (p withoutLauumRows) SyrkLower(ctx context.Context, trans bool, alpha float64, a *mat.Dense, beta float64, c *mat.Dense) error {
	return p.d.SyrkLower(ctx, trans, alpha, a, beta, c)
}

// TestBlockedPotrfInPlaceBits checks that the panel's products by the
// inner inverses, done in place on kernel.Dense and DenseF32 (the inverse
// transposed, its trailing zeros skipped), give the factor bit for bit as
// through a scratch panel and a copy (the same products behind a wrapper
// type, which CholeskyBlocked does not multiply in place), in both
// precisions, on every set of inner kernels, for ragged sizes and each
// block width of testWidths.
func TestBlockedPotrfInPlaceBits(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	for _, n := range []int{65, 257, 1001} {
		a := spdMatrix(r, n)
		for _, nb := range testWidths {
			for _, portable := range []bool{false, true} {
				d := kernel.Dense{Workers: 2, Portable: portable}
				g, h := mat.DenseCopyOf(a), mat.DenseCopyOf(a)
				gr, hr := g.RawMatrix(), h.RawMatrix()
				for _, run := range []struct {
					p Products
					s blas64.Symmetric
				}{{d, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: gr.Stride, Data: gr.Data}}, {withoutLauumRows{d}, blas64.Symmetric{Uplo: blas.Lower, N: n, Stride: hr.Stride, Data: hr.Data}}} {
					if ok, err := blockedPotrf(ctx, run.s, run.p, nb); !ok || err != nil {
						t.Fatalf("n=%d nb=%v: ok=%v err=%v", n, nb, ok, err)
					}
				}
				if !mat.Equal(g, h) {
					t.Errorf("n=%d nb=%v portable=%v: float64 factor in place differs", n, nb, portable)
				}
				d32 := kernel.DenseF32{Workers: 2, Portable: portable}
				g32, h32 := to32(a), to32(a)
				if ok, err := blockedPotrf32(ctx, g32, d32, nb); !ok || err != nil {
					t.Fatalf("n=%d nb=%v float32: ok=%v err=%v", n, nb, ok, err)
				}
				if ok, err := blockedPotrf32(ctx, h32, wrapped32{d32}, nb); !ok || err != nil {
					t.Fatalf("n=%d nb=%v float32: ok=%v err=%v", n, nb, ok, err)
				}
				if !slices.Equal(g32.Data, h32.Data) {
					t.Errorf("n=%d nb=%v portable=%v: float32 factor in place differs", n, nb, portable)
				}
			}
		}
	}
}

// wrapped32 is kernel.DenseF32's Gemm and SyrkLower behind another type.
type wrapped32 struct{ d kernel.DenseF32 }

func (p wrapped32) Gemm(ctx context.Context, tA, tB bool, alpha float32, a, b blas32.General, beta float32, c blas32.General) error {
	return p.d.Gemm(ctx, tA, tB, alpha, a, b, beta, c)
}

func (p wrapped32) SyrkLower(ctx context.Context, trans bool, alpha float32, a blas32.General, beta float32, c blas32.General) error {
	return p.d.SyrkLower(ctx, trans, alpha, a, beta, c)
}
