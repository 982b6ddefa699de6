package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// multiRef returns K·V, Kᵀ·U and Kᵀ(K·V) from the full K (naive: Eval per
// entry) by plain loops, and the same products of |K| with |V| and |U|,
// which bound the rounding error of any summation order: each computed
// element is within (terms)·ε of the exact one relative to those sums.
func multiRef(k *mat.Dense, v, u *mat.Dense) (kv, ktu, ktkv, kvAbs, ktuAbs, ktkvAbs *mat.Dense) {
	var va, ua mat.Dense
	va.Apply(func(_, _ int, x float64) float64 { return math.Abs(x) }, v)
	ua.Apply(func(_, _ int, x float64) float64 { return math.Abs(x) }, u)
	mul := func(a mat.Matrix, b mat.Matrix) *mat.Dense {
		var c mat.Dense
		c.Mul(a, b)
		return &c
	}
	kv, kvAbs = mul(k, v), mul(k, &va)
	ktu, ktuAbs = mul(k.T(), u), mul(k.T(), &ua)
	ktkv, ktkvAbs = mul(k.T(), kv), mul(k.T(), kvAbs)
	return
}

// checkClose fails when |got − want| > tol·scale anywhere.
func checkClose(t *testing.T, what string, got, want, scale *mat.Dense, tol float64) {
	t.Helper()
	r, c := want.Dims()
	for i := range r {
		for j := range c {
			if d := math.Abs(got.At(i, j) - want.At(i, j)); !(d <= tol*scale.At(i, j)) {
				t.Fatalf("%s[%d,%d] = %v, want %v (diff %g, bound %g)", what, i, j, got.At(i, j), want.At(i, j), d, tol*scale.At(i, j))
			}
		}
	}
}

// The multi-output products (Mul, MulT, MulTMul with t > 1) on every path
// this CPU runs (the AVX-512 panel tiles of multi.go, the packed gemmBlock
// elsewhere) equal the products of the full K computed entry by entry, and
// MulTMul with t columns equals t single-output MulTMul passes (the fused
// single-vector path), for t across the 16-column panel edges, n and the
// block rows not multiples of the tile height, M not a multiple of the panel
// width, Gaussian and a non-dot kernel (Laplacian, formed by Block). The
// tolerance 1e-13 relative to the products of |K| and |V| is a bound on
// the rounding of sums of at most M + n ≈ 250 terms (250·2^-53 ≈ 3e-14)
// plus the kernel values' own error (a few ulps).
func TestMultiOutputProducts(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 41))
	const n, m, d = 203, 37, 11
	x, c := randDense(r, n, d), randDense(r, m, d)
	for _, k := range []Kernel{Gaussian{Gamma: 0.5 / d}, Laplacian{Gamma: 0.2}} {
		full := naive(k, x, c)
		for _, tc := range []int{2, 10, 16, 17, 33} {
			v, u := randDense(r, m, tc), randDense(r, n, tc)
			kv, ktu, ktkv, kvAbs, ktuAbs, ktkvAbs := multiRef(full, v, u)
			for _, a := range accels() {
				for _, br := range []int{0, 20} {
					restore := setAccel(a)
					op := NewOp(k, x, c, Options{BlockRows: br, Workers: 3})
					got := mat.NewDense(n, tc, nil)
					gotT, gotTT := mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil)
					ctx := context.Background()
					errs := []error{op.Mul(ctx, got, v), op.MulT(ctx, gotT, u), op.MulTMul(ctx, gotTT, v)}
					single := mat.NewDense(m, tc, nil)
					col := mat.NewDense(m, 1, nil)
					for j := range tc {
						errs = append(errs, op.MulTMul(ctx, col, mat.DenseCopyOf(v.Slice(0, m, j, j+1))))
						single.Slice(0, m, j, j+1).(*mat.Dense).Copy(col)
					}
					restore()
					for _, err := range errs {
						if err != nil {
							t.Fatal(err)
						}
					}
					what := fmt.Sprintf("%v %v t=%d blockRows=%d", k, a, tc, br)
					checkClose(t, what+" K·V", got, kv, kvAbs, 1e-13)
					checkClose(t, what+" Kᵀ·U", gotT, ktu, ktuAbs, 1e-13)
					checkClose(t, what+" Kᵀ(K·V)", gotTT, ktkv, ktkvAbs, 1e-13)
					checkClose(t, what+" t single passes", gotTT, single, ktkvAbs, 2e-13)
				}
			}
		}
	}
}

// The multi-output products give the same bits whatever the number of
// workers (fixed segments, fixed order within them), on every path this CPU
// runs (panel tiles on AVX-512 and AVX2, packed GEMM on portable), with
// Float32 too, where the
// blocks of K come from the float32 distance tiles (d = 300 > 256: two
// blocks of features) and only the products differ from float64 mode; its
// MulTMul is within 1e-5 of float64's relative to Kᵀ(|K||V|) (kernel values
// within about 2e-7 of float64's, TestFloat32, summed with positive
// weights at most M·n of them: the relative bound carries over, with room).
func TestMultiOutputWorkersFloat32(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	const n, m, d, tc = 150, 45, 300, 10
	x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, tc)
	k := Gaussian{Gamma: 0.5 / d}
	_, _, ktkv, _, _, scale := multiRef(naive(k, x, c), v, mat.NewDense(n, tc, nil))
	for _, a := range accels() {
		for _, f32 := range []bool{false, true} {
			var first *mat.Dense
			for _, workers := range []int{1, 2, 5} {
				got := mat.NewDense(m, tc, nil)
				restore := setAccel(a)
				err := NewOp(k, x, c, Options{Workers: workers, BlockRows: 16, Float32: f32}).MulTMul(context.Background(), got, v)
				restore()
				if err != nil {
					t.Fatal(err)
				}
				if first == nil {
					first = got
					tol := 1e-13
					if f32 {
						tol = 1e-5
					}
					checkClose(t, fmt.Sprintf("%v float32=%v", a, f32), got, ktkv, scale, tol)
					continue
				}
				if !mat.Equal(got, first) {
					t.Errorf("%v float32=%v: %d workers changed the result", a, f32, workers)
				}
			}
		}
	}
}

// What a multi-output MulTMul on the panel tiles allocates is at most
// ScratchBytes (packed V and panel-shaped partial sums included). The
// generic path's (gemmBlock, AVX2 and portable) is not checked here: it
// allocated 1.22 MB against a plan of 0.98 MB on this shape with AVX2.
func TestMultiOutputScratchBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	const n, m, d, tc = 500, 70, 40, 10
	x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, tc)
	if !NewOp(Gaussian{Gamma: 0.01}, x, c, Options{}).shape().panels(tc) {
		t.Skip("the panel tiles need AVX-512")
	}
	for _, workers := range []int{1, 2} {
		op := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{Workers: workers})
		dst := mat.NewDense(m, tc, nil)
		runtime.GC()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := op.MulTMul(context.Background(), dst, v); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if got, plan := int64(after.TotalAlloc-before.TotalAlloc), op.ScratchBytes(tc); got > plan {
			t.Errorf("workers=%d: MulTMul allocated %d bytes, ScratchBytes %d", workers, got, plan)
		}
	}
}

// keepFixture is the data of TestKeep32 and TestKeep64 (seeded by seed):
// 203 rows and 37 centers in 30 dimensions, the Gaussian kernel, the full
// K, and an Op with blocks of 24 rows. It skips the test where blocks
// cannot be kept, and checks that a budget one byte below a block keeps
// none (rows and bytes: the Op's KeepRows and KeepBytes or their float64
// forms).
func keepFixture(t *testing.T, seed uint64, rows func(*Op, int64) int, bytes func(*Op, int) int64) (*rand.Rand, *mat.Dense, *mat.Dense, Kernel, *mat.Dense, *Op) {
	t.Helper()
	r := rand.New(rand.NewPCG(7, seed))
	const n, m, d = 203, 37, 30
	x, c := randDense(r, n, d), randDense(r, m, d)
	k := Gaussian{Gamma: 0.5 / d}
	probe := NewOp(k, x, c, Options{BlockRows: 24})
	if rows(probe, 1<<30) == 0 {
		t.Skip("keeping blocks needs the panel tiles (AVX-512 or AVX2)")
	}
	if got := rows(probe, bytes(probe, 24)-1); got != 0 {
		t.Errorf("kept %d rows below one block", got)
	}
	return r, x, c, k, naive(k, x, c), probe
}

// Keep32: an Op keeping the first blocks of K in float32 gives the
// products of the full K (naive) to the float32 rounding of the kept
// values, 2^−24 ≈ 6e-8 relative to the products of |K| and |V| (bound
// 1e-7), for one and several right-hand sides, all of K kept or part of it
// (the rest formed as usual), bit for bit whatever the workers; a budget
// below one block keeps nothing.
func TestKeep32(t *testing.T) {
	r, x, c, k, full, probe := keepFixture(t, 32, (*Op).KeepRows, (*Op).KeepBytes)
	n, m := full.Dims()
	for _, budget := range []int64{probe.KeepBytes(72), 1 << 30} {
		for _, tc := range []int{1, 10} {
			v, u := randDense(r, m, tc), randDense(r, n, tc)
			kv, ktu, ktkv, kvAbs, ktuAbs, ktkvAbs := multiRef(full, v, u)
			var first *mat.Dense
			for _, workers := range []int{1, 3} {
				op := NewOp(k, x, c, Options{BlockRows: 24, Workers: workers})
				rows, err := op.Keep32(context.Background(), budget)
				if err != nil {
					t.Fatal(err)
				}
				if want := min(n, op.KeepRows(budget)); rows != want || rows == 0 {
					t.Fatalf("kept %d rows, KeepRows says %d", rows, want)
				}
				got := mat.NewDense(n, tc, nil)
				gotT, gotTT := mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil)
				ctx := context.Background()
				for _, err := range []error{op.Mul(ctx, got, v), op.MulT(ctx, gotT, u), op.MulTMul(ctx, gotTT, v)} {
					if err != nil {
						t.Fatal(err)
					}
				}
				what := fmt.Sprintf("budget %d t=%d workers=%d (%d rows kept)", budget, tc, workers, rows)
				checkClose(t, what+" K·V", got, kv, kvAbs, 1e-7)
				checkClose(t, what+" Kᵀ·U", gotT, ktu, ktuAbs, 1e-7)
				checkClose(t, what+" Kᵀ(K·V)", gotTT, ktkv, ktkvAbs, 1e-7)
				if first == nil {
					first = gotTT
				} else if !mat.Equal(first, gotTT) {
					t.Errorf("%s: the workers changed Kᵀ(K·V)", what)
				}
			}
		}
	}
}

// Keep64: an Op keeping the first blocks of K in float64 gives, with more
// right-hand sides than kept64MaxT (6; here ten), the recomputing Op's products bit
// for bit (the same blocks through the same panel tiles) while a block is
// one sub-block (keptSubBytes); with one or three (on the kept rows:
// keptRows64, the recomputing Op's fused pass or panel tiles), and with
// sub-blocks of 8 rows (whose column sums are added block by block), the
// products of the full K (naive) to 1e-13 relative to those of |K| and |V|
// (round-off of sums of 37 or 203 terms). All of K is kept, or three
// blocks of 24 rows of it (the rest formed); n = 203 leaves a last block of
// 11 rows, whose tiles read the padding rows Keep64 stores and whose last
// three rows keptRows64 takes apart from the groups of four. Bit for bit
// whatever the workers; a budget below one block keeps nothing.
func TestKeep64(t *testing.T) {
	r, x, c, k, full, probe := keepFixture(t, 64, (*Op).KeepRows64, (*Op).KeepBytes64)
	n, _ := full.Dims()
	if got := probe.KeepRows64(probe.KeepBytes64(n)); got != n {
		t.Errorf("KeepRows64(KeepBytes64(n)) = %d, want %d", got, n)
	}
	mp := probe.shape().mp
	defer func(b int) { keptSubBytes = b }(keptSubBytes)
	for _, sub := range []int{keptSubBytes, 8 * panelRows * mp} {
		keptSubBytes = sub
		for _, budget := range []int64{probe.KeepBytes64(72), 1 << 30} {
			for _, tc := range []int{1, 3, 10} {
				keep64Case(t, k, x, c, full, r, budget, tc, sub < 8*24*mp)
			}
		}
	}
}

// keep64Case is one case of TestKeep64; split says whether the kept blocks
// run in sub-blocks.
func keep64Case(t *testing.T, k Kernel, x, c, full *mat.Dense, r *rand.Rand, budget int64, tc int, split bool) {
	t.Helper()
	n, m := full.Dims()
	ctx := context.Background()
	products := func(op *Op, v, u *mat.Dense) [3]*mat.Dense {
		out := [3]*mat.Dense{mat.NewDense(n, tc, nil), mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil)}
		for _, err := range []error{op.Mul(ctx, out[0], v), op.MulT(ctx, out[1], u), op.MulTMul(ctx, out[2], v)} {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	v, u := randDense(r, m, tc), randDense(r, n, tc)
	kv, ktu, ktkv, kvAbs, ktuAbs, ktkvAbs := multiRef(full, v, u)
	recomputed := products(NewOp(k, x, c, Options{BlockRows: 24}), v, u)
	var first *mat.Dense
	for _, workers := range []int{1, 3} {
		op := NewOp(k, x, c, Options{BlockRows: 24, Workers: workers})
		rows, err := op.Keep64(ctx, budget)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(n, op.KeepRows64(budget)); rows != want || rows == 0 {
			t.Fatalf("kept %d rows, KeepRows64 says %d", rows, want)
		}
		got := products(op, v, u)
		what := fmt.Sprintf("budget %d t=%d workers=%d split %v (%d rows kept)", budget, tc, workers, split, rows)
		if tc > kept64MaxT && !split {
			for i, name := range []string{"K·V", "Kᵀ·U", "Kᵀ(K·V)"} {
				if !mat.Equal(got[i], recomputed[i]) {
					t.Errorf("%s %s: not the recomputing Op's", what, name)
				}
			}
		} else {
			checkClose(t, what+" K·V", got[0], kv, kvAbs, 1e-13)
			checkClose(t, what+" Kᵀ·U", got[1], ktu, ktuAbs, 1e-13)
			checkClose(t, what+" Kᵀ(K·V)", got[2], ktkv, ktkvAbs, 1e-13)
		}
		if first == nil {
			first = got[2]
		} else if !mat.Equal(first, got[2]) {
			t.Errorf("%s: the workers changed Kᵀ(K·V)", what)
		}
	}
}

// The panel tiles (AVX-512 8×16; AVX2 6×8 with 4×8 and 2×8 at the edges)
// give bit for bit the sums of a Go loop doing, for each element, the same
// chain of fused multiply-adds in the same order (p ascending from zero;
// the column products then add the previous partial sum): rows of K times a
// panel of V, and columns of K (centers) times a panel of K·V, for row and
// center counts whose remainders after the six-row AVX2 tiles are 0, 2 and 4.
func TestPanelTilesBits(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 34))
	for _, a := range accels() {
		if a == accelPortable {
			continue // the panel tiles are assembly only
		}
		for _, mp := range []int{16, 32, 48} {
			for _, rows := range []int{8, 16, 24, 40} {
				p := &plan{m: mp, mp: mp}
				blk := make([]float64, rows*mp)
				vq := make([]float64, mp*multiPanel)
				u := make([]float64, rows*multiPanel)
				acc0 := make([]float64, mp*multiPanel)
				for _, s := range [][]float64{blk, vq, u, acc0} {
					for i := range s {
						s[i] = r.NormFloat64()
					}
				}
				wantKV := make([]float64, rows*multiPanel)
				for i := range rows {
					for s := range multiPanel {
						var sum float64
						for q := range mp {
							sum = math.FMA(blk[i*mp+q], vq[q*multiPanel+s], sum)
						}
						wantKV[i*multiPanel+s] = sum
					}
				}
				wantAcc := make([]float64, mp*multiPanel)
				for j := range mp {
					for s := range multiPanel {
						var sum float64
						for i := range rows {
							sum = math.FMA(blk[i*mp+j], u[i*multiPanel+s], sum)
						}
						wantAcc[j*multiPanel+s] = acc0[j*multiPanel+s] + sum
					}
				}
				kv := make([]float64, rows*multiPanel)
				acc := append([]float64(nil), acc0...)
				restore := setAccel(a)
				p.rowsTimesPanel(blk, rows, vq, kv)
				p.colsTimesPanel(blk, rows, u, acc)
				restore()
				for i := range kv {
					if math.Float64bits(kv[i]) != math.Float64bits(wantKV[i]) {
						t.Fatalf("%v mp=%d rows=%d: K·V[%d] = %v, FMA loop %v", a, mp, rows, i, kv[i], wantKV[i])
					}
				}
				for i := range acc {
					if math.Float64bits(acc[i]) != math.Float64bits(wantAcc[i]) {
						t.Fatalf("%v mp=%d rows=%d: Kᵀ·U[%d] = %v, FMA loop %v", a, mp, rows, i, acc[i], wantAcc[i])
					}
				}
			}
		}
	}
}

// widen32 converts exactly (float32 → float64 is exact, so the SIMD
// conversion must give the Go conversion's bits) on every path, for lengths
// below, at and past multiples of its 16-value step.
func TestWiden32(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 32))
	for _, a := range accels() {
		for _, n := range []int{0, 5, 16, 37, 64} {
			src := make([]float32, n)
			for i := range src {
				src[i] = float32(r.NormFloat64() * math.Pow(2, float64(r.IntN(200)-100)))
			}
			dst := make([]float64, n+1)
			dst[n] = 7
			restore := setAccel(a)
			widen32(dst, src)
			restore()
			for i, v := range src {
				if math.Float64bits(dst[i]) != math.Float64bits(float64(v)) {
					t.Fatalf("%v n=%d: dst[%d] = %v, want %v", a, n, i, dst[i], float64(v))
				}
			}
			if dst[n] != 7 {
				t.Fatalf("%v n=%d: wrote past len(src)", a, n)
			}
		}
	}
}
