package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// u32 is the unit roundoff of float32.
const u32 = 0x1p-24

// products32 are the Products32 the float32 algorithms are tested on.
var products32 = []struct {
	name string
	p    Products32
}{{"gonum", gonumProducts32{}}, {"simd", kernel.DenseF32{Workers: 2}}, {"portable", kernel.DenseF32{Workers: 3, Portable: true}}}

// to32 rounds the n×n a to a float32 matrix (both triangles).
func to32(a *mat.Dense) blas32.General {
	n, _ := a.Dims()
	g := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
	for i := range n {
		for j := range n {
			g.Data[i*n+j] = float32(a.At(i, j))
		}
	}
	return g
}

// checkFactor32 checks that the float32 lower-triangular L in g is a
// Cholesky factor of the float32 matrix a32 (plus jitter on the diagonal)
// to the backward error of Cholesky: L̂L̂ᵀ = A + ΔA with |ΔA_ij| ≤
// γ_{n+1}·(|L̂||L̂ᵀ|)_ij, γ_{n+1} ≈ (n+1)·u (Higham, Accuracy and Stability,
// Thm 10.3), u = 2⁻²⁴. The blocked algorithm multiplies panels by the
// inverses of the diagonal blocks instead of solving with them, which adds
// a factor of their condition number (≤ √5 for spdMatrix's eigenvalues in
// [1, 5]); the bound used is 4·(n+1)·u·(|L̂||L̂ᵀ|)_ij (measured: at most 0.055 of
// it over TestBlockedPotrf32's cases). The products are
// summed in float64, so the check's own error is negligible. It also checks
// that the strict upper triangle still holds a32's.
func checkFactor32(t *testing.T, name string, g, a32 blas32.General, jitter float64) {
	t.Helper()
	n := g.Rows
	worst := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var s, abs float64
			for p := 0; p <= j; p++ {
				v := float64(g.Data[i*g.Stride+p]) * float64(g.Data[j*g.Stride+p])
				s += v
				abs += math.Abs(v)
			}
			want := float64(a32.Data[i*a32.Stride+j])
			if i == j {
				want += jitter
			}
			bound := 4 * float64(n+1) * u32 * abs
			if r := math.Abs(s-want) / bound; r > worst {
				worst = r
			}
		}
		for j := i + 1; j < n; j++ {
			if g.Data[i*g.Stride+j] != a32.Data[i*a32.Stride+j] {
				t.Fatalf("%s: upper triangle changed at (%d,%d)", name, i, j)
			}
		}
	}
	if worst > 1 {
		t.Errorf("%s: |LLᵀ − A| reaches %.3g × the bound 4(n+1)u|L||Lᵀ|", name, worst)
	}
}

// TestBlockedPotrf32 factors spdMatrix (rounded to float32) with the block
// widths of testWidths on each Products32 and checks the factor identity
// (checkFactor32); the factor must also agree with float64's Dpotrf of the
// same float32 matrix to 1e-4 relative (Frobenius, lower triangle): the
// first-order forward error of Cholesky is of order κ(A)·n·u (κ ≤ 5,
// n ≤ 1001: 3e-4 at worst, √n·u·κ ≈ 1e-5 typically), while a wrong block
// is off by O(1).
func TestBlockedPotrf32(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	ctx := context.Background()
	for _, n := range raggedSizes {
		a32 := to32(spdMatrix(r, n))
		a64 := mat.NewDense(n, n, nil)
		for i := range n {
			for j := range n {
				a64.Set(i, j, float64(a32.Data[i*n+j]))
			}
		}
		want, err := CholeskyInPlace(mat.DenseCopyOf(a64), CholOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, nb := range testWidths {
			for _, pr := range products32 {
				name := fmt.Sprintf("n=%d nb=%v %s", n, nb, pr.name)
				g := blas32.General{Rows: n, Cols: n, Stride: n, Data: append([]float32(nil), a32.Data...)}
				ok, err := blockedPotrf32(ctx, g, pr.p, nb)
				if err != nil || !ok {
					t.Fatalf("%s: ok=%v err=%v", name, ok, err)
				}
				checkFactor32(t, name, g, a32, 0)
				got := mat.NewDense(n, n, nil)
				for i := range n {
					for j := 0; j <= i; j++ {
						got.Set(i, j, float64(g.Data[i*n+j]))
					}
				}
				if e := lowerRelErr(got, want.L()); e > 1e-4 {
					t.Errorf("%s: relative error %.3g against the float64 factor", name, e)
				}
			}
		}
	}
}

// TestLauum32 compares Lauum32's lower triangle of WᵀW with float64 sums
// of the same float32 values, element by element within (n+1)·u·(|W|ᵀ|W|)_ij
// (a float32 sum of at most n products: Higham §3.1; the copies are exact),
// for the block widths of testWidths; the strict upper triangle must be
// left alone.
func TestLauum32(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	ctx := context.Background()
	for _, n := range raggedSizes {
		w := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
		for i := range w.Data {
			w.Data[i] = float32(r.NormFloat64())
		}
		for _, nb := range testWidths {
			for _, pr := range products32 {
				name := fmt.Sprintf("n=%d nb=%v %s", n, nb, pr.name)
				g := blas32.General{Rows: n, Cols: n, Stride: n, Data: append([]float32(nil), w.Data...)}
				if err := lauum32(ctx, g, pr.p, nb); err != nil {
					t.Fatal(err)
				}
				bad := 0
				for i := 0; i < n; i++ {
					for j := 0; j <= i; j++ {
						var s, abs float64
						for p := i; p < n; p++ { // W lower: W[p][i] ≠ 0 for p ≥ i
							v := float64(w.Data[p*n+i]) * float64(w.Data[p*n+j])
							s += v
							abs += math.Abs(v)
						}
						if e := math.Abs(float64(g.Data[i*n+j]) - s); e > float64(n+1)*u32*abs && bad < 3 {
							bad++
							t.Errorf("%s: (WᵀW)[%d][%d] = %g, want %g", name, i, j, g.Data[i*n+j], s)
						}
					}
					for j := i + 1; j < n; j++ {
						if g.Data[i*n+j] != w.Data[i*n+j] {
							t.Fatalf("%s: upper triangle changed at (%d,%d)", name, i, j)
						}
					}
				}
			}
		}
	}
}

// TestFewSolveL32 checks that the float32 factor's solves are bit for bit
// fewSolveL's on the factor widened to float64 (the widening is exact and
// the sums are the same), for one and three right-hand sides, both
// directions, and for GOMAXPROCS 1 and 2.
func TestFewSolveL32(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	n := 2*fewCols + 300
	l64 := randLower(rng, n)
	l32 := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
	for i := range n {
		for j := 0; j <= i; j++ {
			v := float32(l64.Data[i*l64.Stride+j])
			l32.Data[i*n+j] = v
			l64.Data[i*l64.Stride+j] = float64(v)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, cols := range []int{1, 3} {
		b := randRHS(rng, n, cols)
		for _, trans := range []bool{false, true} {
			want := cloneGeneral(b)
			if err := fewSolveL(context.Background(), l64, want, trans); err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				got := cloneGeneral(b)
				if err := fewSolveL32(context.Background(), l32, got, trans); err != nil {
					t.Fatal(err)
				}
				for i := range got.Data {
					if math.Float64bits(got.Data[i]) != math.Float64bits(want.Data[i]) {
						t.Fatalf("t=%d trans=%v GOMAXPROCS %d: entry %d = %v, fewSolveL on the widened factor %v", cols, trans, procs, i, got.Data[i], want.Data[i])
					}
				}
			}
		}
	}
}

// TestCholeskyBlocked32 runs the exported path: factor, jitter and
// errors. The factor is deterministic (1 and 2 workers, GOMAXPROCS 1 and 2
// give the same bits); a rank-3 matrix needs jitter, reported with at least
// jitter32Floor·mean and ≥ 2 attempts, and its factor satisfies
// checkFactor32 with the jitter; a negative pivot is ErrNotPD; a cancelled
// context is its error.
func TestCholeskyBlocked32(t *testing.T) {
	r := rand.New(rand.NewPCG(67, 68))
	n := cholBlock + cholInner + 77
	a32 := to32(spdMatrix(r, n))
	var ref []float32
	for _, wp := range [][2]int{{1, 1}, {2, 2}, {2, 1}, {0, 2}} {
		func() {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(wp[1]))
			g := blas32.General{Rows: n, Cols: n, Stride: n, Data: append([]float32(nil), a32.Data...)}
			c, err := CholeskyBlocked32(context.Background(), g, CholOptions{}, kernel.DenseF32{Workers: wp[0]})
			if err != nil {
				t.Fatal(err)
			}
			if c.Jitter != 0 || c.Attempts != 1 || c.Size() != n {
				t.Fatalf("SPD matrix: jitter %g, %d attempts, size %d", c.Jitter, c.Attempts, c.Size())
			}
			if ref == nil {
				ref = c.L().Data
				checkFactor32(t, "exported", c.L(), a32, 0)
				return
			}
			for i := range ref {
				if math.Float32bits(ref[i]) != math.Float32bits(c.L().Data[i]) {
					t.Fatalf("workers %d, GOMAXPROCS %d: factor differs at %d", wp[0], wp[1], i)
				}
			}
		}()
	}

	m := 600
	b := mat.NewDense(m, 3, nil)
	for i := range m {
		for j := range 3 {
			b.Set(i, j, r.NormFloat64())
		}
	}
	var low mat.Dense
	low.Mul(b, b.T())
	l32 := to32(&low)
	var mean float64
	for i := range m {
		mean += math.Abs(float64(l32.Data[i*m+i]))
	}
	mean /= float64(m)
	for _, pr := range products32 {
		g := blas32.General{Rows: m, Cols: m, Stride: m, Data: append([]float32(nil), l32.Data...)}
		c, err := CholeskyBlocked32(context.Background(), g, CholOptions{}, pr.p)
		if err != nil {
			t.Fatalf("%s: rank 3: %v", pr.name, err)
		}
		if c.Jitter < jitter32Floor*mean*(1-1e-12) || c.Attempts < 2 {
			t.Fatalf("%s: rank 3: jitter %g (%g × mean) after %d attempts, want ≥ %g × mean after ≥ 2", pr.name, c.Jitter, c.Jitter/mean, c.Attempts, jitter32Floor)
		}
		// The jitter is added in float64 and rounded once into the diagonal.
		withJ := blas32.General{Rows: m, Cols: m, Stride: m, Data: append([]float32(nil), l32.Data...)}
		for i := range m {
			withJ.Data[i*m+i] = float32(float64(l32.Data[i*m+i]) + c.Jitter)
		}
		checkFactor32(t, pr.name+" rank 3", c.L(), withJ, 0)

		neg := to32(spdMatrix(r, 300))
		neg.Data[299*300+299] = -1
		if _, err := CholeskyBlocked32(context.Background(), neg, CholOptions{}, pr.p); !errors.Is(err, ErrNotPD) {
			t.Fatalf("%s: negative pivot: err = %v, want ErrNotPD", pr.name, err)
		}
	}
	if _, err := CholeskyBlocked32(context.Background(), blas32.General{Rows: 2, Cols: 3, Stride: 3, Data: make([]float32, 6)}, CholOptions{}, nil); !errors.Is(err, ErrShape) {
		t.Fatalf("2×3: err = %v, want ErrShape", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CholeskyBlocked32(ctx, to32(spdMatrix(r, n)), CholOptions{}, kernel.DenseF32{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: err = %v", err)
	}
	// SolveL refuses a right-hand side of the wrong height.
	c, err := CholeskyBlocked32(context.Background(), to32(spdMatrix(r, 10)), CholOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SolveL(context.Background(), blas64.General{Rows: 9, Cols: 1, Stride: 1, Data: make([]float64, 9)}, false); !errors.Is(err, ErrShape) {
		t.Fatalf("9 rows for a 10×10 factor: err = %v", err)
	}
}

// TestSolveL32 compares Chol32.SolveL32 (float32 throughout) with the
// float64 solve of the same float32 factor and right-hand sides, for both
// directions, the block widths of testWidths and each Products32, at a size
// crossing both widths. Bound: a triangular solve's forward error is at
// most about n·u·κ(L) relative (Higham, Thm 8.5 and §8.2); the explicit
// inverses of the diagonal blocks add a factor of their condition, and
// κ(L) ≤ √5 for spdMatrix: 2·n·u·√5 relative in the Frobenius norm. The
// workers must not change a bit (1 and 3 workers of kernel.DenseF32).
func TestSolveL32(t *testing.T) {
	r := rand.New(rand.NewPCG(69, 70))
	n, k := cholBlock+cholInner+77, 70
	g := to32(spdMatrix(r, n))
	c, err := CholeskyBlocked32(context.Background(), g, CholOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	l64 := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n, Data: make([]float64, n*n)}
	for i := range n {
		for j := 0; j <= i; j++ {
			l64.Data[i*n+j] = float64(g.Data[i*n+j])
		}
	}
	b32 := blas32.General{Rows: n, Cols: k, Stride: k, Data: make([]float32, n*k)}
	for i := range b32.Data {
		b32.Data[i] = float32(r.NormFloat64())
	}
	bound := 2 * float64(n) * u32 * math.Sqrt(5)
	for _, trans := range []bool{false, true} {
		want := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
		for i, v := range b32.Data {
			want.Data[i] = float64(v)
		}
		blas64.Trsm(blas.Left, bt(trans), 1, l64, want)
		for _, nb := range testWidths {
			for _, pr := range products32 {
				got := blas32.General{Rows: n, Cols: k, Stride: k, Data: append([]float32(nil), b32.Data...)}
				if err := blockedSolveL32(context.Background(), g, got, trans, pr.p, nb); err != nil {
					t.Fatal(err)
				}
				var num, den float64
				for i, v := range got.Data {
					d := float64(v) - want.Data[i]
					num += d * d
					den += want.Data[i] * want.Data[i]
				}
				if e := math.Sqrt(num / den); e > bound {
					t.Errorf("trans=%v nb=%v %s: relative error %.3g > %.3g", trans, nb, pr.name, e, bound)
				}
			}
		}
		var first []float32
		for _, w := range []int{1, 3} {
			c.p = kernel.DenseF32{Workers: w}
			got := blas32.General{Rows: n, Cols: k, Stride: k, Data: append([]float32(nil), b32.Data...)}
			if err := c.SolveL32(context.Background(), got, trans); err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = got.Data
				continue
			}
			for i := range first {
				if math.Float32bits(first[i]) != math.Float32bits(got.Data[i]) {
					t.Fatalf("trans=%v: 1 and 3 workers differ at %d", trans, i)
				}
			}
		}
	}
	if err := c.SolveL32(context.Background(), blas32.General{Rows: n - 1, Cols: 1, Stride: 1, Data: make([]float32, n-1)}, false); !errors.Is(err, ErrShape) {
		t.Errorf("%d rows for an %d×%d factor: err = %v", n-1, n, n, err)
	}
}

// TestCholeskyBlocked32Rows: factoring a matrix held in the lower triangle
// (refilled before each retry) gives
// CholeskyBlocked32's factor bit for bit (same algorithm on the same
// values), with the same jitter and attempts on a rank-3 matrix, and
// never reads or writes a's strict upper triangle (filled with a pattern
// that must survive).
func TestCholeskyBlocked32Rows(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	n := cholBlock + 100
	spd := to32(spdMatrix(r, n))
	b := mat.NewDense(n, 3, nil)
	for i := range n {
		for j := range 3 {
			b.Set(i, j, r.NormFloat64())
		}
	}
	var low mat.Dense
	low.Mul(b, b.T())
	for _, src := range []blas32.General{spd, to32(&low)} {
		want, err := CholeskyBlocked32(context.Background(), blas32.General{Rows: n, Cols: n, Stride: n, Data: append([]float32(nil), src.Data...)}, CholOptions{}, kernel.DenseF32{})
		if err != nil {
			t.Fatal(err)
		}
		const pattern = float32(-12345.5)
		a := blas32.General{Rows: n, Cols: n, Stride: n + 3, Data: make([]float32, (n-1)*(n+3)+n)}
		for i := range a.Data {
			a.Data[i] = pattern
		}
		fill := func() error {
			for i := range n {
				copy(a.Data[i*a.Stride:i*a.Stride+i+1], src.Data[i*n:i*n+i+1])
			}
			return nil
		}
		fill()
		got, err := CholeskyBlocked32Rows(context.Background(), a, fill, CholOptions{}, kernel.DenseF32{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Jitter != want.Jitter || got.Attempts != want.Attempts {
			t.Errorf("jitter %g after %d attempts, CholeskyBlocked32: %g after %d", got.Jitter, got.Attempts, want.Jitter, want.Attempts)
		}
		for i := range n {
			for j := range n {
				g := a.Data[i*a.Stride+j]
				if j > i {
					if g != pattern {
						t.Fatalf("upper triangle touched at (%d,%d)", i, j)
					}
					continue
				}
				if math.Float32bits(g) != math.Float32bits(want.L().Data[i*n+j]) {
					t.Fatalf("(%d,%d) = %g, CholeskyBlocked32 %g", i, j, g, want.L().Data[i*n+j])
				}
			}
		}
	}
}

// TestBlockedPlannedBytes32 holds the float32 factorizations to their plan
// as TestBlockedPlannedBytes does the float64 ones: with nothing kept
// between calls (heap.AllocatedFresh: two collections empty the scratch
// slot and the products' packing cache), CholeskyBlocked32 and Lauum32 on
// kernel.DenseF32 allocate at most CholeskyScratchBytes32(n) plus
// SyrkPackBytes(n, min(n, BlockedWidth)), plus the slack of the float64
// test (16 KiB for each of at most 42 products' small allocations, 8·n + 4
// KiB for the Chol32 value and the diagonal kept for a retry). n = 600 is
// below the size (≈ 1,400) from which the panels of the row-tile path
// (panelRowsT: the transposed blocks of the diagonal block) fit in the
// plan's n·cholInner term, so there the plan counts them instead (measured
// 2.39 MB against a plan of 2.77 MB; the slack alone would have hidden
// the 0.4 MB the plan lacked before); n = 1,500 above it. On AVX-512 the fresh call
// must allocate at least that path's buffer (else the measure misses the
// scratch); a second call without a collection in between must allocate
// less than that buffer (the slot gives it back: one buffer, which a plan
// counts once, not one per P as the sync.Pool before could hold).
func TestBlockedPlannedBytes32(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	r := rand.New(rand.NewPCG(93, 94))
	ctx := context.Background()
	d := kernel.DenseF32{Workers: 2}
	_, rows := rowsPath32(d)
	for _, n := range []int{600, 1500} {
		a32 := to32(spdMatrix(r, n))
		f := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
		plan := CholeskyScratchBytes32(n) + d.SyrkPackBytes(n, min(n, BlockedWidth))
		slack := int64(42*16<<10 + 8*n + 4<<10)
		potrf := func() error {
			copy(f.Data, a32.Data)
			_, err := CholeskyBlocked32(ctx, f, CholOptions{}, d)
			return err
		}
		got := heap.AllocatedFresh(t, potrf)
		t.Logf("n=%d: CholeskyBlocked32 %d bytes, plan %d + %d", n, got, plan, slack)
		if got > plan+slack {
			t.Errorf("n=%d: CholeskyBlocked32 allocated %d bytes, plan %d (+ %d)", n, got, plan, slack)
		}
		buf := 4 * int64(panelRowsLen(min(n, cholBlock), cholInner, 32))
		if rows && got < buf {
			t.Errorf("n=%d: CholeskyBlocked32 allocated %d bytes, less than its row-tile panels' %d: not measuring", n, got, buf)
		}
		if again := heap.Allocated(t, potrf); rows && again >= buf {
			t.Errorf("n=%d: a second CholeskyBlocked32 allocated %d bytes, its scratch (%d) again", n, again, buf)
		}
		if got := heap.AllocatedFresh(t, func() error { return Lauum32(ctx, f, d) }); got > plan+slack {
			t.Errorf("n=%d: Lauum32 allocated %d bytes, plan %d (+ %d)", n, got, plan, slack)
		}
	}
}
