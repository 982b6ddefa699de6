package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// randLower returns a well-conditioned n×n lower-triangular factor: entries
// uniform in [−1, 1]/√n off the diagonal, diagonal in [1, 2], so that
// solves lose at most a few digits and 1e-12 separates a correct solve
// from a wrong one by many orders of magnitude.
func randLower(rng *rand.Rand, n int) blas64.Triangular {
	l := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n + 3, Data: make([]float64, n*(n+3))}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			l.Data[i*l.Stride+j] = (2*rng.Float64() - 1) / math.Sqrt(float64(n))
		}
		l.Data[i*l.Stride+i] = 1 + rng.Float64()
		for j := i + 1; j < l.Stride; j++ {
			l.Data[i*l.Stride+j] = math.NaN() // the upper part must never be read
		}
	}
	return l
}

func randRHS(rng *rand.Rand, n, t int) blas64.General {
	x := blas64.General{Rows: n, Cols: t, Stride: t + 1, Data: make([]float64, n*(t+1))}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	return x
}

func cloneGeneral(g blas64.General) blas64.General {
	g.Data = append([]float64(nil), g.Data...)
	return g
}

// fewSolveL agrees with gonum's trsm to 1e-12 (relative, max norm) on ragged
// orders around the block size and with 1, 3 and 15 right-hand sides, never
// reads the strict upper triangle (NaN there would spread), and leaves the
// padding columns of x alone.
func TestFewSolveLMatchesTrsm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 17, fewBlock - 1, fewBlock, fewBlock + 1, 1300, 2053} {
		l := randLower(rng, n)
		for _, nrhs := range []int{1, 3, solveMinRHS - 1} {
			for _, trans := range []bool{false, true} {
				b := randRHS(rng, n, nrhs)
				want := cloneGeneral(b)
				blas64.Trsm(blas.Left, bt(trans), 1, l, want)
				got := cloneGeneral(b)
				if err := fewSolveL(context.Background(), l, got, trans); err != nil {
					t.Fatal(err)
				}
				var diff, scale float64
				for i := 0; i < n; i++ {
					for c := 0; c < got.Stride; c++ {
						g, w := got.Data[i*got.Stride+c], want.Data[i*want.Stride+c]
						if c >= nrhs {
							if g != b.Data[i*b.Stride+c] {
								t.Fatalf("n=%d t=%d trans=%v: padding (%d,%d) changed", n, nrhs, trans, i, c)
							}
							continue
						}
						diff = math.Max(diff, math.Abs(g-w))
						scale = math.Max(scale, math.Abs(w))
					}
				}
				if !(diff <= 1e-12*scale) {
					t.Errorf("n=%d t=%d trans=%v: max |few − trsm| = %.3g, scale %.3g", n, nrhs, trans, diff, scale)
				}
			}
		}
	}
}

// The solve's result does not depend on the number of workers (every entry
// is updated by one task in a fixed order): bit-identical at GOMAXPROCS 1
// and 4.
func TestFewSolveLWorkerIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := 3149
	l := randLower(rng, n)
	b := randRHS(rng, n, 2)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var res [2]blas64.General
	for k, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		res[k] = cloneGeneral(b)
		if err := fewSolveL(context.Background(), l, res[k], false); err != nil {
			t.Fatal(err)
		}
		if err := fewSolveL(context.Background(), l, res[k], true); err != nil {
			t.Fatal(err)
		}
	}
	for i := range res[0].Data {
		if math.Float64bits(res[0].Data[i]) != math.Float64bits(res[1].Data[i]) {
			t.Fatalf("entry %d: %v with 1 worker, %v with 4", i, res[0].Data[i], res[1].Data[i])
		}
	}
}

// Chol's Solve and SolveL take the streaming path for large factors and few
// columns and still solve A x = b (residual check on an SPD matrix).
func TestCholFewRHSSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	n := fewSolveMin + 300
	l := randLower(rng, n)
	// A = L Lᵀ, formed densely.
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for k := 0; k <= j; k++ {
				s += l.Data[i*l.Stride+k] * l.Data[j*l.Stride+k]
			}
			a[i*n+j], a[j*n+i] = s, s
		}
	}
	c, err := Cholesky(symDense(n, a), CholOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x := denseOf(randRHS(rng, n, 2))
	b := denseCopy(x)
	if !c.few(x) {
		t.Fatal("n ≥ fewSolveMin with 2 columns does not take the streaming path")
	}
	if err := c.Solve(x); err != nil {
		t.Fatal(err)
	}
	var res, scale float64
	for i := 0; i < n; i++ {
		for col := 0; col < 2; col++ {
			var s float64
			for k := 0; k < n; k++ {
				s += a[i*n+k] * x.At(k, col)
			}
			res = math.Max(res, math.Abs(s-b.At(i, col)))
			scale = math.Max(scale, math.Abs(b.At(i, col)))
		}
	}
	// κ(A) ≤ (max σ(L)/min σ(L))² is small here; 1e-10 leaves room for n·u·κ.
	if !(res <= 1e-10*scale) {
		t.Errorf("residual ‖Ax − b‖∞ = %.3g, ‖b‖∞ = %.3g", res, scale)
	}
}

func symDense(n int, a []float64) *mat.SymDense { return mat.NewSymDense(n, a) }

// denseOf copies the t columns of g (without its padding) into a Dense.
func denseOf(g blas64.General) *mat.Dense {
	d := mat.NewDense(g.Rows, g.Cols, nil)
	for i := 0; i < g.Rows; i++ {
		for c := 0; c < g.Cols; c++ {
			d.Set(i, c, g.Data[i*g.Stride+c])
		}
	}
	return d
}

func denseCopy(d *mat.Dense) *mat.Dense { return mat.DenseCopyOf(d) }

// substLower is a well-conditioned n×n lower-triangular factor for the
// substitution tests: L = D(I + F) with D diagonal in [1, 2] and F strictly
// lower with entries uniform in [−1/(2n), 1/(2n)], so ‖F‖∞ < 1/2,
// ‖L‖∞ < 2.5, ‖L⁻¹‖∞ ≤ ‖(I+F)⁻¹‖∞‖D⁻¹‖∞ < 2 and cond∞(L) < 5. It is
// given in float64 (row stride n + 5, NaN above the diagonal: never read)
// and rounded to float32 (stride n + 3); the float64 factor holds the
// rounded values, so both precisions solve the same system.
func substLower(rng *rand.Rand, n int) (blas64.Triangular, blas32.General) {
	l := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: n, Stride: n + 5, Data: make([]float64, n*(n+5))}
	l32 := blas32.General{Rows: n, Cols: n, Stride: n + 3, Data: make([]float32, n*(n+3))}
	for i := range n {
		d := 1 + rng.Float64()
		for j := range l.Stride {
			v := math.NaN()
			switch {
			case j < i:
				v = d * (rng.Float64() - 0.5) / float64(n)
			case j == i:
				v = d
			}
			if j < l32.Stride {
				l32.Data[i*l32.Stride+j] = float32(v)
			}
			l.Data[i*l.Stride+j] = float64(float32(v))
		}
	}
	return l, l32
}

// substituteFew solves L x = b (or Lᵀ x = b) column by column by plain
// substitution in float64, each sum from the left: the reference of
// TestFewSolveSubstitution, in an order different from fewSolveL's.
func substituteFew(l blas64.Triangular, b blas64.General, trans bool) blas64.General {
	x := cloneGeneral(b)
	n := l.N
	at := func(i, j int) float64 { return l.Data[i*l.Stride+j] }
	for c := range b.Cols {
		for q := range n {
			i := q
			if trans {
				i = n - 1 - q
			}
			s := x.Data[i*x.Stride+c]
			if !trans {
				for j := 0; j < i; j++ {
					s -= at(i, j) * x.Data[j*x.Stride+c]
				}
			} else {
				for j := i + 1; j < n; j++ {
					s -= at(j, i) * x.Data[j*x.Stride+c]
				}
			}
			x.Data[i*x.Stride+c] = s / at(i, i)
		}
	}
	return x
}

// fewSolveL and fewSolveL32 against plain substitution on orders that are
// not multiples of the block (256), the task widths or the kernels' 16
// columns, with 1, 2, 3 and 10 right-hand sides, both directions. Any
// order of evaluating the substitution's sums is backward stable with
// |ΔL| ≤ γ_n|L| (Higham, Accuracy and Stability, Thm 8.5, γ_n = nu/(1−nu),
// u = 2⁻⁵³), so each solution is within cond∞(L)·γ_n/(1 − cond∞(L)·γ_n)
// of the exact one relative to ‖x‖∞, and two solutions within twice that:
// with cond∞(L) < 5 (substLower) a tolerance of 2·5·γ_n/(1 − 5γ_n)
// (4.6e-12 at n = 2049) relative to ‖x‖∞, where a wrong block or term
// would be off by O(1). The float32 factor's solve is, bit for bit, the
// float64 solve on the widened factor (exact widening, the same sums);
// both leave x's padding column alone.
func TestFewSolveSubstitution(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, n := range []int{1025, 1300, 2049} {
		l, l32 := substLower(rng, n)
		g := float64(n) * 0x1p-53 / (1 - float64(n)*0x1p-53)
		tol := 2 * 5 * g / (1 - 5*g)
		for _, nrhs := range []int{1, 2, 3, 10} {
			for _, trans := range []bool{false, true} {
				b := randRHS(rng, n, nrhs)
				want := substituteFew(l, b, trans)
				got := cloneGeneral(b)
				if err := fewSolveL(context.Background(), l, got, trans); err != nil {
					t.Fatal(err)
				}
				got32 := cloneGeneral(b)
				if err := fewSolveL32(context.Background(), l32, got32, trans); err != nil {
					t.Fatal(err)
				}
				var diff, scale float64
				for i := range n {
					for c := range got.Stride {
						g, w, g32 := got.Data[i*got.Stride+c], want.Data[i*want.Stride+c], got32.Data[i*got.Stride+c]
						if math.Float64bits(g) != math.Float64bits(g32) {
							t.Fatalf("n=%d t=%d trans=%v: (%d,%d) = %v with the float32 factor, %v with it widened", n, nrhs, trans, i, c, g32, g)
						}
						if c >= nrhs {
							if g != b.Data[i*b.Stride+c] {
								t.Fatalf("n=%d t=%d trans=%v: padding (%d,%d) changed", n, nrhs, trans, i, c)
							}
							continue
						}
						diff = math.Max(diff, math.Abs(g-w))
						scale = math.Max(scale, math.Abs(w))
					}
				}
				if !(diff <= tol*scale) {
					t.Errorf("n=%d t=%d trans=%v: max |few − substitution| = %.3g, ‖x‖∞ %.3g, tolerance %.3g", n, nrhs, trans, diff, scale, tol*scale)
				}
			}
		}
	}
}

// fewSolveL and fewSolveL32 give the same bits with 1, 2 and 3 workers
// (GOMAXPROCS), for 1, 2, 3 and 10 right-hand sides, both directions, on an
// order that leaves ragged blocks and tasks.
func TestFewSolveWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	n := 2049
	l, l32 := substLower(rng, n)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, nrhs := range []int{1, 2, 3, 10} {
		b := randRHS(rng, n, nrhs)
		for _, trans := range []bool{false, true} {
			var first [2]blas64.General
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				res := [2]blas64.General{cloneGeneral(b), cloneGeneral(b)}
				if err := fewSolveL(context.Background(), l, res[0], trans); err != nil {
					t.Fatal(err)
				}
				if err := fewSolveL32(context.Background(), l32, res[1], trans); err != nil {
					t.Fatal(err)
				}
				if procs == 1 {
					first = res
					continue
				}
				for p := range res {
					for i, v := range res[p].Data {
						if math.Float64bits(v) != math.Float64bits(first[p].Data[i]) {
							t.Fatalf("t=%d trans=%v factor %d: entry %d = %v with %d workers, %v with 1", nrhs, trans, p, i, v, procs, first[p].Data[i])
						}
					}
				}
			}
		}
	}
}

// TestFewSolvePlannedBytes: the few-column solves (fewSolveL through
// Chol.SolveL's path, fewSolveL32 through Chol32.SolveL's) allocate at most
// SolveScratchBytes(n, t) (float64 factor) or SolveScratchBytes32(n, t)
// (float32), and below 16 columns at least that less the slack, measured
// as runtime.MemStats.TotalAlloc across
// the solve after two collections (which empty the pools), for one column
// (contiguous and strided), three, and seventeen (two slabs); and four
// solves more, the garbage collector off so the pool keeps its buffers,
// allocate under 32 KiB in all: the buffers are reused, not allocated per
// solve (before, each solve allocated its 16n-double panel, 174 KB here).
// The slack of the first solve, 16 KiB, is the rounding of its two large
// buffers up to whole 8 KiB pages (the heap's size classes) and the tasks'
// closures (≈ 2 KiB, measured; t = 17 f32 repeated: 17.5 KiB for four
// solves of two slabs), not the scratch. Skipped under the race detector,
// whose sync.Pool drops buffers at random (a second slab then allocates
// its own).
func TestFewSolvePlannedBytes(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	const n = 1100 // ≥ fewSolveMin, five blocks
	rng := rand.New(rand.NewPCG(21, 22))
	l := randLower(rng, n)
	l32 := blas32.General{Rows: n, Cols: n, Stride: l.Stride, Data: make([]float32, len(l.Data))}
	for i, v := range l.Data {
		l32.Data[i] = float32(v)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const slack = 16 << 10
	for _, tc := range []struct {
		name string
		x    blas64.General
	}{
		{"t=1", randRHS(rng, n, 1)},
		{"t=1 strided", func() blas64.General { x := randRHS(rng, n, 2); x.Cols = 1; return x }()},
		{"t=3", randRHS(rng, n, 3)},
		{"t=17", randRHS(rng, n, 17)},
	} {
		for _, f32 := range []bool{false, true} {
			plan := SolveScratchBytes(n, tc.x.Cols)
			if f32 {
				plan = SolveScratchBytes32(n, tc.x.Cols)
			}
			for _, trans := range []bool{false, true} {
				solve := func() error {
					if f32 {
						return fewSolveL32(context.Background(), l32, tc.x, trans)
					}
					return fewSolveL(context.Background(), l, tc.x, trans)
				}
				got := heap.AllocatedFresh(t, solve)
				if got > plan+slack {
					t.Errorf("%s f32=%v trans=%v: first solve allocated %d bytes, plan %d (+ %d)", tc.name, f32, trans, got, plan, slack)
				}
				// Below 16 columns (the few-column solves' own plan; from
				// 16 the blocked solves' larger scratch is planned) the
				// plan is what the first solve allocates, within the
				// slack: SolveScratchBytes counted the float32 factor's
				// widened 256×256 block for float64 factors too, 512 KiB
				// (524,288 bytes) more than they allocate.
				if tc.x.Cols < solveMinRHS && got < plan-slack {
					t.Errorf("%s f32=%v trans=%v: first solve allocated %d bytes, plan %d (− %d): the plan over-counts", tc.name, f32, trans, got, plan, slack)
				}
				if got := heap.Allocated(t, func() error {
					for range 4 {
						if err := solve(); err != nil {
							return err
						}
					}
					return nil
				}); got >= 32<<10 {
					t.Errorf("%s f32=%v trans=%v: four more solves allocated %d bytes, want < 32 KiB", tc.name, f32, trans, got)
				}
			}
		}
	}
	if SolveScratchBytes(0, 3) != 0 || SolveScratchBytes(n, 0) != 0 {
		t.Errorf("SolveScratchBytes of an empty solve is not 0")
	}
	// The few-column solves' panel does not grow past one slab of 16
	// columns (one slab's buffer is reused for the next); from 16 columns
	// the blocked solves' scratch, which grows with t, is counted too
	// (TestBlockedSolvePlannedBytes), never less than the panel (Chol32's
	// solves take slabs of 16 for any t).
	if SolveScratchBytes(n, 15) != SolveScratchBytes(n, 2) {
		t.Errorf("SolveScratchBytes grows with the columns of one slab")
	}
	if a, b, c := SolveScratchBytes(n, 15), SolveScratchBytes(n, 16), SolveScratchBytes(n, 40); a > b || b >= c {
		t.Errorf("SolveScratchBytes(n, 15 / 16 / 40) = %d / %d / %d, want non-decreasing and growing with the blocked solves' columns", a, b, c)
	}
}
