package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"
)

// refGemm is alpha·op(a)·op(b) + beta·c by gonum's Dgemm.
func refGemm(tA, tB bool, alpha float64, a, b *mat.Dense, beta float64, c *mat.Dense) *mat.Dense {
	var oa, ob mat.Matrix = a, b
	if tA {
		oa = a.T()
	}
	if tB {
		ob = b.T()
	}
	var p mat.Dense
	p.Mul(oa, ob)
	p.Scale(alpha, &p)
	var cc mat.Dense
	cc.Scale(beta, c)
	p.Add(&p, &cc)
	return &p
}

// relErr is ‖got − want‖_F / ‖want‖_F over the elements where keep(i, j).
func relErr(got, want mat.Matrix, keep func(i, j int) bool) float64 {
	r, c := want.Dims()
	var num, den float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			if !keep(i, j) {
				continue
			}
			d := got.At(i, j) - want.At(i, j)
			num += d * d
			den += want.At(i, j) * want.At(i, j)
		}
	}
	if den == 0 {
		return math.Sqrt(num)
	}
	return math.Sqrt(num / den)
}

// TestDenseGemm compares Dense.Gemm with gonum on ragged shapes (not
// multiples of the 8×16 tile, of the 128×512 task block or of the 512
// k-block; k = 1100 is three k-blocks of 367 in two chunks), every transposition, beta 0 and 1, each set of inner kernels and
// 1 and 3 workers. 1e-12 relative: both sum ≤ 600 products of O(1) numbers
// in different orders, an error of order √k·1.1e-16 relative.
func TestDenseGemm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for _, sz := range [][3]int{{1, 1, 1}, {7, 9, 3}, {63, 65, 257}, {130, 530, 300}, {257, 17, 600}, {9, 40, 1100}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				a := randDense(r, m, k)
				if tA {
					a = randDense(r, k, m)
				}
				b := randDense(r, k, n)
				if tB {
					b = randDense(r, n, k)
				}
				c0 := randDense(r, m, n)
				for _, beta := range []float64{0, 1} {
					want := refGemm(tA, tB, -1.5, a, b, beta, c0)
					for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
						if acc > bestAccel {
							continue
						}
						for _, w := range []int{1, 3} {
							restore := setAccel(acc)
							got := mat.DenseCopyOf(c0)
							err := Dense{Workers: w}.Gemm(ctx, tA, tB, -1.5, a, b, beta, got)
							restore()
							if err != nil {
								t.Fatal(err)
							}
							if e := relErr(got, want, func(int, int) bool { return true }); e > 1e-12 {
								t.Errorf("%v %v tA=%v tB=%v beta=%g %v workers=%d: relative error %.3g", m, n, tA, tB, beta, acc, w, e)
							}
						}
					}
				}
			}
		}
	}
}

// TestDenseSyrkLower checks the lower triangle against gonum and that the
// strict upper triangle is untouched; results must be bit-identical for 1 and
// 3 workers (each element is summed by one worker in a fixed order).
func TestDenseSyrkLower(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	for _, sz := range [][2]int{{1, 1}, {7, 3}, {63, 65}, {257, 257}, {600, 300}} {
		m, k := sz[0], sz[1]
		for _, trans := range []bool{false, true} {
			a := randDense(r, m, k)
			if trans {
				a = randDense(r, k, m)
			}
			c0 := randDense(r, m, m)
			for _, beta := range []float64{0, 1} {
				want := refGemm(trans, !trans, 0.5, a, a, beta, c0)
				for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
					if acc > bestAccel {
						continue
					}
					var first *mat.Dense
					for _, w := range []int{1, 3} {
						restore := setAccel(acc)
						got := mat.DenseCopyOf(c0)
						err := Dense{Workers: w}.SyrkLower(ctx, trans, 0.5, a, beta, got)
						restore()
						if err != nil {
							t.Fatal(err)
						}
						name := fmt.Sprintf("%d×%d trans=%v beta=%g %v workers=%d", m, k, trans, beta, acc, w)
						if e := relErr(got, want, func(i, j int) bool { return j <= i }); e > 1e-12 {
							t.Errorf("%s: relative error %.3g", name, e)
						}
						if e := relErr(got, c0, func(i, j int) bool { return j > i }); e != 0 {
							t.Errorf("%s: upper triangle changed", name)
						}
						if first == nil {
							first = got
						} else if !mat.Equal(first, got) {
							t.Errorf("%s: differs from 1 worker", name)
						}
					}
				}
			}
		}
	}
}

// TestDenseSIMDBits: the AVX2 tile (6×8, panels of 6 rows and 8 columns)
// and the AVX-512 one (8×16, panels of 8 rows and 16 columns) compute every element as the same FMA chain over
// each k-block, the blocks added in order, so Gemm and SyrkLower give the
// same bits on both paths, for 1 and 3 workers. The shapes are ragged
// against both tile heights, the 126- and 128-row task blocks and the
// k-blocks (k = 600: two blocks of 300), and include m = 16, where the
// last 6-row panel of SyrkLower's Â lies past B̂'s panels (rows 16–17).
func TestDenseSIMDBits(t *testing.T) {
	if bestAccel < accelAVX512 {
		t.Skip("needs AVX-512 and AVX2 on this CPU")
	}
	r := rand.New(rand.NewPCG(7, 8))
	ctx := context.Background()
	run := func(acc accel, w int, f func(Dense) error) {
		restore := setAccel(acc)
		defer restore()
		if err := f(Dense{Workers: w}); err != nil {
			t.Fatal(err)
		}
	}
	for _, sz := range [][3]int{{16, 16, 5}, {13, 40, 9}, {127, 131, 600}, {260, 70, 257}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tr := range []bool{false, true} {
			a, b := randDense(r, m, k), randDense(r, n, k)
			if tr {
				a, b = randDense(r, k, m), randDense(r, k, n)
			}
			c0, s0 := randDense(r, m, n), randDense(r, m, m)
			var ref [2]*mat.Dense
			for _, acc := range []accel{accelAVX512, accelAVX2} {
				for _, w := range []int{1, 3} {
					g, s := mat.DenseCopyOf(c0), mat.DenseCopyOf(s0)
					run(acc, w, func(d Dense) error { return d.Gemm(ctx, tr, !tr, -0.75, a, b, 1, g) })
					run(acc, w, func(d Dense) error { return d.SyrkLower(ctx, tr, 1.25, a, 1, s) })
					if ref[0] == nil {
						ref = [2]*mat.Dense{g, s}
						continue
					}
					if !mat.Equal(g, ref[0]) || !mat.Equal(s, ref[1]) {
						t.Errorf("%v trans=%v: %v with %d workers differs from avx512 with 1", sz, tr, acc, w)
					}
				}
			}
			if e := relErr(ref[0], refGemm(tr, !tr, -0.75, a, b, 1, c0), func(int, int) bool { return true }); e > 1e-12 {
				t.Errorf("%v trans=%v: Gemm relative error %.3g", sz, tr, e)
			}
		}
	}
}

// TestDenseErrors checks the shape and beta errors.
func TestDenseErrors(t *testing.T) {
	ctx := context.Background()
	a, b, c := mat.NewDense(3, 4, nil), mat.NewDense(5, 4, nil), mat.NewDense(3, 5, nil)
	if err := (Dense{}).Gemm(ctx, false, false, 1, a, b, 0, c); err == nil {
		t.Error("Gemm accepted 3×4 times 5×4")
	}
	if err := (Dense{}).Gemm(ctx, false, true, 1, a, b, 2, c); err == nil {
		t.Error("Gemm accepted beta = 2")
	}
	if err := (Dense{}).SyrkLower(ctx, false, 1, a, 1, c); err == nil {
		t.Error("SyrkLower accepted a 3×5 c")
	}
}

func benchDense(b *testing.B, acc accel, m, n, k int, lower bool) {
	restore := setAccel(acc)
	defer restore()
	r := rand.New(rand.NewPCG(1, 2))
	a, bb, c := randDense(r, m, k), randDense(r, n, k), mat.NewDense(m, n, nil)
	flops := 2 * float64(m) * float64(n) * float64(k)
	if lower {
		flops /= 2
	}
	b.ResetTimer()
	for range b.N {
		var err error
		if lower {
			err = Dense{}.SyrkLower(context.Background(), false, -1, a, 1, c)
		} else {
			err = Dense{}.Gemm(context.Background(), false, true, -1, a, bb, 1, c)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkDenseGemm: a 2,000×2,000×2,000 product; BenchmarkDenseSyrk: the
// trailing update of a 10,000² Cholesky's first panel (k = 256).
func BenchmarkDenseGemm(b *testing.B) {
	for _, acc := range []accel{bestAccel, accelPortable} {
		b.Run(acc.String(), func(b *testing.B) { benchDense(b, acc, 2000, 2000, 2000, false) })
	}
}

func BenchmarkDenseSyrk(b *testing.B) {
	b.Run(bestAccel.String(), func(b *testing.B) { benchDense(b, bestAccel, 10000, 10000, 256, true) })
}

// TestPackBytes: PackBytes is what a product takes from the heap for its
// packing panels. With densePacks drained, one Gemm of a 300×37 result over
// k = 1,500 on one worker allocates its panel buffer (PackBytes) plus a few
// hundred bytes of task lists and headers (allowed: 64 KiB), and no less.
func TestPackBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := randDense(rng, 1500, 300), randDense(rng, 1500, 37)
	c := mat.NewDense(300, 37, nil)
	// Two collections empty densePacks' pool on every P (sync.Pool keeps a victim
	// cache for one): earlier tests' products on several workers leave
	// buffers in other Ps' pools, which a drain from this one can miss.
	runtime.GC()
	runtime.GC()
	densePacks.drain()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := (Dense{Workers: 1}).Gemm(context.Background(), true, false, 1, a, b, 0, c); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// PackBytes is the buffer, 8·packLen = 8·(48 + 304)·1000 bytes (37
	// columns and 300 rows rounded up to the tiles, k = 1500 in k-blocks
	// of 500, two to a chunk), plus denseCallBytes' bound on the rest.
	got, plan, buf := int64(after.TotalAlloc-before.TotalAlloc), Dense{}.PackBytes(300, 37, 1500), int64(8*(48+304)*1000)
	if got > plan || got < buf || plan > buf+64<<10 {
		t.Errorf("Gemm allocated %d bytes, PackBytes plans %d, buffer %d", got, plan, buf)
	}
}

// oldAutoBlockRows is autoBlockRows before the rows were bounded by d (the
// block of K alone): the reference for the shapes the bound must not change.
func oldAutoBlockRows(m, d int) int {
	blockBytes := 1 << 20
	if d >= 256 {
		blockBytes = 4 << 20
	}
	b := blockBytes / 8 / max(roundUp(m, panelCols), 1)
	return min(max(b&^(panelRows-1), panelRows), 1024)
}

// TestAutoBlockRowsBounds: the block never holds more rows than X (rounded
// up to the panel), its packed X stays within xBlockBytes until one panel is
// left, and for d ≤ 1,024 the choice is the one made before the d bound.
func TestAutoBlockRowsBounds(t *testing.T) {
	for _, m := range []int{1, 6, 16, 100, 1000, 2000, 20000} {
		for _, d := range []int{1, 8, 54, 256, 784, 1024} {
			if got, want := autoBlockRows(m, d), oldAutoBlockRows(m, d); got != want {
				t.Errorf("m=%d d=%d: %d rows, want %d as before", m, d, got, want)
			}
		}
		for _, d := range []int{1025, 5000, 100_000, 1_000_000, 10_000_000, 100_000_000} {
			b := autoBlockRows(m, d)
			if b%panelRows != 0 || b < panelRows || (b > panelRows && 8*b*d > xBlockBytes) {
				t.Errorf("m=%d d=%d: %d rows, packed X %d bytes over %d", m, d, b, 8*b*d, xBlockBytes)
			}
		}
	}
	if b := autoBlockRows(6, 10_000_000); b != panelRows {
		t.Errorf("d = 10⁷: %d rows, want one panel (%d)", b, panelRows)
	}
	x, c := mat.NewDense(6, 3, nil), mat.NewDense(2, 3, nil)
	for _, opt := range []Options{{}, {BlockRows: 1024}} {
		if b := NewOp(Gaussian{Gamma: 1}, x, c, opt).BlockRows(); b != panelRows {
			t.Errorf("n = 6, %+v: block of %d rows, want %d", opt, b, panelRows)
		}
	}
}

// TestScratchBytesWide: a dense K(X, C)·V with n = 6 rows and M = 6
// centers at d = 10⁵ allocates about the packed C (16 panel columns, 8·16·d
// bytes) and one packed panel of X (8·8·d), not the 1,024-row block
// (8·1,024·d = 819 MB) autoBlockRows chose before; what it allocates is at
// most ScratchBytes, and ScratchBytes is at most the packed C, one packed
// panel of X per worker and 1 MiB (norms, blocks of K, packing buffers). The
// same bound at d = 10⁷ is 8·d·(16 + 8w) + 1 MiB, 2.6 GB on two workers,
// against 164 GB before (ScratchBytes is computed from shapes, so the check
// at d = 10⁷ uses X and C of one row each extended by BlockRows and
// autoBlockRows: see TestAutoBlockRowsBounds). The products are checked
// against Gaussian.Eval: the arguments are O(1) (γ = 1/(2d), standard
// normal data) and their error is a few ulps of 2d·γ, hence 1e-12.
func TestScratchBytesWide(t *testing.T) {
	const n, m, d = 6, 6, 100_000
	rng := rand.New(rand.NewPCG(5, 6))
	x, c := randDense(rng, n, d), randDense(rng, m, d)
	k := Gaussian{Gamma: 1 / (2.0 * d)}
	for _, tc := range []int{1, 3} {
		v := randDense(rng, m, tc)
		for _, workers := range []int{1, 2} {
			op := NewOp(k, x, c, Options{Workers: workers})
			dst := mat.NewDense(n, tc, nil)
			// Two collections empty workPool (sync.Pool keeps a victim cache
			// for one), so that the call allocates its works afresh.
			runtime.GC()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := op.Mul(context.Background(), dst, v); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			got, plan := int64(after.TotalAlloc-before.TotalAlloc), op.ScratchBytes(tc)
			bound := int64(8*d*(16+8*workers) + 1<<20)
			if got > plan || plan > bound {
				t.Errorf("t=%d workers=%d: Mul allocated %d bytes, ScratchBytes %d, bound %d", tc, workers, got, plan, bound)
			}
			if useAccel != accelPortable && got < int64(8*d*(16+8)) {
				t.Errorf("t=%d workers=%d: Mul allocated %d bytes, less than the packed C and one panel of X (%d): not measuring the engine", tc, workers, got, 8*d*(16+8))
			}
			for i := range n {
				for j := range tc {
					var want float64
					for l := range m {
						want += k.Eval(x.RawRowView(i), c.RawRowView(l)) * v.At(l, j)
					}
					if diff := math.Abs(dst.At(i, j) - want); diff > 1e-12 {
						t.Fatalf("t=%d: (K v)[%d,%d] = %g, want %g (diff %g)", tc, i, j, dst.At(i, j), want, diff)
					}
				}
			}
		}
	}
}

// TestBlockRowsWideDeterministic: at d = 5,000 the d bound makes the block
// 208 rows instead of 1,024, so n = 600 rows take three blocks; Kᵀ·U and
// Kᵀ(K v) are still the same to the last bit on 1, 2 and 3 workers, and
// match the full kernel matrix (relative 1e-12: sums of 600 terms of size
// O(1)).
func TestBlockRowsWideDeterministic(t *testing.T) {
	const n, m, d = 600, 20, 5000
	rng := rand.New(rand.NewPCG(7, 8))
	x, c, u, v := randDense(rng, n, d), randDense(rng, m, d), randDense(rng, n, 2), randDense(rng, m, 1)
	k := Gaussian{Gamma: 1 / (2.0 * d)}
	if b := NewOp(k, x, c, Options{}).BlockRows(); b != 208 {
		t.Fatalf("block of %d rows, want 208 (8 MiB / (8·5,000) rounded down to the panel)", b)
	}
	full := mat.NewDense(n, m, nil)
	k.Block(full, x, c)
	var wantT, kv, wantTT mat.Dense
	wantT.Mul(full.T(), u)
	kv.Mul(full, v)
	wantTT.Mul(full.T(), &kv)
	var first [2]*mat.Dense
	for _, workers := range []int{1, 2, 3} {
		op := NewOp(k, x, c, Options{Workers: workers})
		gotT, gotTT := mat.NewDense(m, 2, nil), mat.NewDense(m, 1, nil)
		if err := op.MulT(context.Background(), gotT, u); err != nil {
			t.Fatal(err)
		}
		if err := op.MulTMul(context.Background(), gotTT, v); err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(gotT, &wantT, 1e-12*n) || !mat.EqualApprox(gotTT, &wantTT, 1e-12*n*n) {
			t.Fatalf("workers=%d: products differ from the full kernel matrix", workers)
		}
		if first[0] == nil {
			first = [2]*mat.Dense{gotT, gotTT}
			continue
		}
		if !mat.Equal(gotT, first[0]) || !mat.Equal(gotTT, first[1]) {
			t.Fatalf("workers=%d: results differ from 1 worker", workers)
		}
	}
}

// leadZeros returns the k×m values of a transposed operand whose column i
// is zero at features t < z(i): a lauum-like trapezoid (z = 3i) on the
// first third of the columns, then random leads (past whole 256-feature
// k-blocks too), then all-zero columns, then full ones (z = 0), so that
// panels mix these and none of m, k is a multiple of a tile or k-block.
func leadZeros(r *rand.Rand, k, m int) []float64 {
	v := make([]float64, k*m)
	for i := 0; i < m; i++ {
		var z int
		switch {
		case i < m/3:
			z = min(k, 3*i)
		case i < 2*m/3:
			z = r.IntN(k + 1)
		case i < 5*m/6:
			z = k
		}
		for t := z; t < k; t++ {
			v[t*m+i] = r.NormFloat64()
		}
	}
	return v
}

// transposeDense is aᵀ as a new row-major matrix.
func transposeDense(a *mat.Dense) *mat.Dense {
	var t mat.Dense
	t.CloneFrom(a.T())
	return &t
}

// TestDenseLeadingZeros: Gemm and SyrkLower with transposed operands whose
// panels start with zero features (skipped, Dense's leading zeros) give the
// same bits as the same products on the materialized transposes (row-major
// operands, nothing skipped: the skipped terms are exact zeros), and agree
// with gonum to 1e-12 (as TestDenseGemm). With beta = 0, tiles whose terms
// are all skipped must still be set to zero over the random c. Every set
// of inner kernels, 1 and 3 workers; k = 1100 spans two chunks of k-blocks.
func TestDenseLeadingZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	ctx := context.Background()
	for _, sz := range [][3]int{{37, 21, 300}, {130, 45, 600}, {261, 530, 1100}} {
		m, n, k := sz[0], sz[1], sz[2]
		a := mat.NewDense(k, m, leadZeros(r, k, m)) // op(a) = aᵀ, m×k
		b := mat.NewDense(k, n, leadZeros(r, k, n)) // op(b) = b: B̂ = bᵀ
		at, bt := transposeDense(a), transposeDense(b)
		cg, cs := randDense(r, m, n), randDense(r, m, m)
		for _, beta := range []float64{0, 1} {
			wantG := refGemm(true, false, -0.75, a, b, beta, cg)
			wantS := refGemm(true, false, 1.5, a, a, beta, cs)
			for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
				if acc > bestAccel {
					continue
				}
				for _, w := range []int{1, 3} {
					name := fmt.Sprintf("%v beta=%g %v workers=%d", sz, beta, acc, w)
					restore := setAccel(acc)
					d := Dense{Workers: w}
					g, g0 := mat.DenseCopyOf(cg), mat.DenseCopyOf(cg)
					s, s0 := mat.DenseCopyOf(cs), mat.DenseCopyOf(cs)
					errs := []error{
						d.Gemm(ctx, true, false, -0.75, a, b, beta, g),
						d.Gemm(ctx, false, true, -0.75, at, bt, beta, g0),
						d.SyrkLower(ctx, true, 1.5, a, beta, s),
						d.SyrkLower(ctx, false, 1.5, at, beta, s0),
					}
					restore()
					for _, err := range errs {
						if err != nil {
							t.Fatal(err)
						}
					}
					if !mat.Equal(g, g0) {
						t.Errorf("%s: Gemm with skipped zeros differs from the row-major product", name)
					}
					if !mat.Equal(s, s0) {
						t.Errorf("%s: SyrkLower with skipped zeros differs from the row-major product", name)
					}
					if e := relErr(g, wantG, func(int, int) bool { return true }); e > 1e-12 {
						t.Errorf("%s: Gemm relative error %.3g", name, e)
					}
					if e := relErr(s, wantS, func(i, j int) bool { return j <= i }); e > 1e-12 {
						t.Errorf("%s: SyrkLower relative error %.3g", name, e)
					}
					if e := relErr(s, cs, func(i, j int) bool { return j > i }); e != 0 {
						t.Errorf("%s: upper triangle changed", name)
					}
				}
			}
		}
	}
}

// TestDenseSyrkUnitAlpha: SyrkLower with alpha = ±1 (on AVX-512 its tiles
// read Â from B̂'s panels, with VFNMADD for −1, instead of packing αÂ) gives
// on and below the diagonal the bits of Gemm(op(a), op(a)ᵀ) with the same
// alpha (which packs αÂ: the sums of (−a)·b are the negated sums of a·b,
// bit for bit), leaves the strict upper triangle alone, on every set of
// inner kernels with 1 and 3 workers; k = 1100 is three k-blocks in two
// chunks, the shapes are ragged against the tiles and task blocks.
func TestDenseSyrkUnitAlpha(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	ctx := context.Background()
	for _, sz := range [][2]int{{7, 3}, {63, 65}, {261, 300}, {130, 1100}} {
		m, k := sz[0], sz[1]
		for _, trans := range []bool{false, true} {
			a := randDense(r, m, k)
			if trans {
				a = randDense(r, k, m)
			}
			c0 := randDense(r, m, m)
			for _, alpha := range []float64{1, -1} {
				for _, beta := range []float64{0, 1} {
					for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
						if acc > bestAccel {
							continue
						}
						for _, w := range []int{1, 3} {
							name := fmt.Sprintf("%v trans=%v alpha=%g beta=%g %v workers=%d", sz, trans, alpha, beta, acc, w)
							restore := setAccel(acc)
							s, g := mat.DenseCopyOf(c0), mat.DenseCopyOf(c0)
							errS := Dense{Workers: w}.SyrkLower(ctx, trans, alpha, a, beta, s)
							errG := Dense{Workers: w}.Gemm(ctx, trans, !trans, alpha, a, a, beta, g)
							restore()
							if errS != nil || errG != nil {
								t.Fatal(errS, errG)
							}
							for i := 0; i < m; i++ {
								for j := 0; j < m; j++ {
									want := g.At(i, j)
									if j > i {
										want = c0.At(i, j)
									}
									if math.Float64bits(s.At(i, j)) != math.Float64bits(want) {
										t.Fatalf("%s: c[%d][%d] = %v, want %v", name, i, j, s.At(i, j), want)
									}
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestDenseGemmInPlace checks Gemm's one allowed aliasing, c = a (c ←
// a·op(b), op(b) square, k ≤ 1,024), on tall products (packed inside the
// tasks, 1–2 workers) and on products packed before the tasks (16
// workers): the same bits as into a separate c, in both precisions and on
// every set of inner kernels. k = 600 is two k-blocks of 300 in one chunk;
// m = 1,000 is eight row blocks, the last one ragged.
func TestDenseGemmInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	for _, sz := range [][2]int{{300, 128}, {1000, 97}, {1000, 600}} {
		m, k := sz[0], sz[1]
		a, b := randDense(r, m, k), randDense(r, k, k)
		a32, b32 := rand32(r, m, k), rand32(r, k, k)
		for _, acc := range accels() {
			restore := setAccel(acc)
			for _, w := range []int{1, 2, 16} {
				for _, tB := range []bool{false, true} {
					want := mat.NewDense(m, k, nil)
					got := mat.DenseCopyOf(a)
					d := Dense{Workers: w}
					if err := d.Gemm(ctx, false, tB, 0.5, a, b, 0, want); err != nil {
						t.Fatal(err)
					}
					if err := d.Gemm(ctx, false, tB, 0.5, got, b, 0, got); err != nil {
						t.Fatal(err)
					}
					if !mat.Equal(got, want) {
						t.Errorf("m=%d k=%d %v workers=%d tB=%v: in place differs", m, k, acc, w, tB)
					}
					want32 := blas32.General{Rows: m, Cols: k, Stride: k, Data: make([]float32, m*k)}
					got32 := blas32.General{Rows: m, Cols: k, Stride: k, Data: append([]float32(nil), a32.Data...)}
					d32 := DenseF32{Workers: w}
					if err := d32.Gemm(ctx, false, tB, 0.5, a32, b32, 0, want32); err != nil {
						t.Fatal(err)
					}
					if err := d32.Gemm(ctx, false, tB, 0.5, got32, b32, 0, got32); err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got32.Data, want32.Data) {
						t.Errorf("float32 m=%d k=%d %v workers=%d tB=%v: in place differs", m, k, acc, w, tB)
					}
				}
			}
			restore()
		}
	}
}

// TestDenseTrailingZeros checks that Gemm skips the trailing zero features
// of op(b)'s panels exactly: a·U for an upper-triangular U (op(b) = U read
// without a transpose, whose panels end in zeros) must give the bits of
// a·(Uᵀ)ᵀ with Uᵀ stored (op(b) = (Uᵀ)ᵀ: the same packed values, no zeros
// counted), in both precisions, on every set of inner kernels, and agree
// with gonum to 1e-12 (float64: sums of ≤ 300 products of O(1) numbers).
func TestDenseTrailingZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	ctx := context.Background()
	for _, sz := range [][2]int{{37, 40}, {300, 128}, {260, 300}} {
		m, k := sz[0], sz[1]
		a, u := randDense(r, m, k), randDense(r, k, k)
		a32, u32 := rand32(r, m, k), rand32(r, k, k)
		for i := 0; i < k; i++ {
			for j := 0; j < i; j++ {
				u.Set(i, j, 0)
				u32.Data[i*k+j] = 0
			}
		}
		ut := mat.DenseCopyOf(u.T())
		ut32 := blas32.General{Rows: k, Cols: k, Stride: k, Data: make([]float32, k*k)}
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				ut32.Data[j*k+i] = u32.Data[i*k+j]
			}
		}
		want := refGemm(false, false, 1, a, u, 0, mat.NewDense(m, k, nil))
		for _, acc := range accels() {
			restore := setAccel(acc)
			for _, w := range []int{1, 3} {
				got, ref := mat.NewDense(m, k, nil), mat.NewDense(m, k, nil)
				if err := (Dense{Workers: w}).Gemm(ctx, false, false, 1, a, u, 0, got); err != nil {
					t.Fatal(err)
				}
				if err := (Dense{Workers: w}).Gemm(ctx, false, true, 1, a, ut, 0, ref); err != nil {
					t.Fatal(err)
				}
				if !mat.Equal(got, ref) {
					t.Errorf("m=%d k=%d %v workers=%d: skipping trailing zeros changed bits", m, k, acc, w)
				}
				if e := relErr(got, want, func(int, int) bool { return true }); e > 1e-12 {
					t.Errorf("m=%d k=%d %v workers=%d: relative error %.3g", m, k, acc, w, e)
				}
				g32 := blas32.General{Rows: m, Cols: k, Stride: k, Data: make([]float32, m*k)}
				r32 := blas32.General{Rows: m, Cols: k, Stride: k, Data: make([]float32, m*k)}
				if err := (DenseF32{Workers: w}).Gemm(ctx, false, false, 1, a32, u32, 0, g32); err != nil {
					t.Fatal(err)
				}
				if err := (DenseF32{Workers: w}).Gemm(ctx, false, true, 1, a32, ut32, 0, r32); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(g32.Data, r32.Data) {
					t.Errorf("float32 m=%d k=%d %v workers=%d: skipping trailing zeros changed bits", m, k, acc, w)
				}
			}
			restore()
		}
	}
}

// TestWideBlockRows: a Gaussian Op on dense float64 X and C with d ≥
// strassenMinDim takes blocks of about 8 MiB of K, a multiple of 16 rows
// (512 at M = 2,000: 8 MiB/8/2,000 = 524 rounded down), whatever the inner
// kernels; other kernels, narrower X and Float32 keep autoBlockRows (256 at
// M = 2,000, d = 784; 64 at d = 54); an explicit BlockRows wins.
func TestWideBlockRows(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c784, c54 := randDense(r, 2000, 784), randDense(r, 2000, 54)
	x784, x54 := mat.NewDense(4000, 784, nil), mat.NewDense(4000, 54, nil)
	g := Gaussian{Gamma: 1}
	for _, tc := range []struct {
		name string
		op   *Op
		want int
	}{
		{"gaussian d=784", NewOp(g, x784, c784, Options{}), 512},
		{"gaussian d=784, float32", NewOp(g, x784, c784, Options{Float32: true}), 256},
		{"linear d=784", NewOp(Linear{}, x784, c784, Options{}), 256},
		{"gaussian d=54", NewOp(g, x54, c54, Options{}), 64},
		{"gaussian d=784, BlockRows 128", NewOp(g, x784, c784, Options{BlockRows: 128}), 128},
		// xBlockBytes leaves 8 MiB/8/10⁶ = 1 row: one panel (of the 24 rows).
		{"gaussian d=10⁶", NewOp(g, mat.NewDense(24, 1_000_000, nil), mat.NewDense(20, 1_000_000, nil), Options{}), panelRows},
	} {
		for _, a := range accels() {
			restore := setAccel(a)
			got := tc.op.BlockRows()
			restore()
			if got != tc.want {
				t.Errorf("%s, %v: BlockRows %d, want %d", tc.name, a, got, tc.want)
			}
		}
	}
}
