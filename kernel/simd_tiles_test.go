package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkTiles measures the tile kernels alone on one row block of the
// distance product (240 rows of X by 480 centers, in the loop order of
// dots: panels of C outer, panels of X inner) at k = 54 (d = 54) and
// k = 261 (d = 784: three feature blocks, adding into c): the AVX2 4×8
// quarters of an 8×16 tile (the engine's tile before the 6×16 one, still
// Dense's), the AVX2 6×16 float64 and 6×32 float32 tiles, and with
// AVX-512 the 8×16 and 8×32 float32 tiles; and the float32 tiles of
// DenseF32 (float32 c: AVX2 gemm8x32F32AVX2, AVX-512 gemm8x32F32PfAVX512).
// Two references for the AVX2 float64 tile: avx2-6x16-l1 runs it on the
// first panels and tile every call (all operands in L1), avx2-fma-peak is
// fmaPeakAVX2 for the same flops (12 independent FMA chains, no loads: the
// core's float64 FMA peak); avx512-fma-peak is fmaPeakAVX512, the same
// with 24 zmm chains, for the AVX-512 tiles, and avx512-8x16pf the
// engine's AVX-512 tile (gemm8x16PfAVX512, its tile of c prefetched first;
// dots runs it a panel of centers a call, gemm8x16PanelsPfAVX512, when d
// fits one feature block). Every b.N step runs each
// kernel once, interleaved, and the best rate in thread-CPU time of each is
// reported (GFLOP/s on one core: the machine is shared). Run with e.g.
// -benchtime=20x.
func BenchmarkTiles(b *testing.B) {
	type cand struct {
		name     string
		acc      accel
		lda, ldb int // panel height (rows of X) and width (centers)
		f64      func(k int, a, b, c []float64, ldc int, add bool)
		f32      func(k int, a, b []float32, c []float64, ldc int, add bool)
		f32c     func(k int, a, b, c []float32, ldc int, add bool)
		fixed    bool // every call on the first panels and tile (L1-resident)
		peak     bool // fmaPeakAVX2 for the same flops instead of a tile
	}
	cands := []cand{
		{name: "avx2-4x8quarters", acc: accelAVX2, lda: 8, ldb: 16, f64: func(k int, a, bb, c []float64, ldc int, add bool) {
			gemm4x8AVX2(k, &a[0], &bb[0], &c[0], ldc, add)
			gemm4x8AVX2(k, &a[0], &bb[8], &c[8], ldc, add)
			gemm4x8AVX2(k, &a[4], &bb[0], &c[4*ldc], ldc, add)
			gemm4x8AVX2(k, &a[4], &bb[8], &c[4*ldc+8], ldc, add)
		}},
		{name: "avx2-6x16", acc: accelAVX2, lda: 6, ldb: 16, f64: func(k int, a, bb, c []float64, ldc int, add bool) {
			gemm6x16AVX2(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx2-6x16-l1", acc: accelAVX2, lda: 6, ldb: 16, fixed: true, f64: func(k int, a, bb, c []float64, ldc int, add bool) {
			gemm6x16AVX2(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx2-fma-peak", acc: accelAVX2, lda: 6, ldb: 16, peak: true},
		{name: "avx512-fma-peak", acc: accelAVX512, lda: 8, ldb: 16, peak: true},
		{name: "avx2-6x32f32", acc: accelAVX2, lda: 6, ldb: 32, f32: func(k int, a, bb []float32, c []float64, ldc int, add bool) {
			gemm6x32F32AVX2(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx2-8x32f32dense", acc: accelAVX2, lda: 8, ldb: 32, f32c: func(k int, a, bb, c []float32, ldc int, add bool) {
			gemm8x32F32AVX2(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx512-8x32f32pf", acc: accelAVX512, lda: 8, ldb: 32, f32c: func(k int, a, bb, c []float32, ldc int, add bool) {
			gemm8x32F32PfAVX512(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx512-8x16", acc: accelAVX512, lda: 8, ldb: 16, f64: func(k int, a, bb, c []float64, ldc int, add bool) {
			gemm8x16AVX512(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx512-8x16pf", acc: accelAVX512, lda: 8, ldb: 16, f64: func(k int, a, bb, c []float64, ldc int, add bool) {
			gemm8x16PfAVX512(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
		{name: "avx512-8x32f32", acc: accelAVX512, lda: 8, ldb: 32, f32: func(k int, a, bb []float32, c []float64, ldc int, add bool) {
			gemm8x32F32AVX512(k, &a[0], &bb[0], &c[0], ldc, add)
		}},
	}
	run := cands[:0]
	for _, cd := range cands {
		if cd.acc <= bestAccel {
			run = append(run, cd)
		}
	}
	if len(run) == 0 {
		b.Skip("no AVX2 or AVX-512")
	}
	const rows, cols = 240, 480 // multiples of 6, 8, 16 and 32
	for _, k := range []int{54, 261} {
		r := rand.New(rand.NewPCG(1, uint64(k)))
		a, bp := make([]float64, rows*k), make([]float64, cols*k)
		a32, bp32 := make([]float32, rows*k), make([]float32, cols*k)
		for i := range a {
			a[i] = r.NormFloat64()
			a32[i] = float32(a[i])
		}
		for i := range bp {
			bp[i] = r.NormFloat64()
			bp32[i] = float32(bp[i])
		}
		c := make([]float64, rows*cols)
		c32 := make([]float32, rows*cols)
		add := k > kBlock/2
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			best := make([]float64, len(run))
			reps := 20000 / k
			for b.Loop() {
				for i, cd := range run {
					t0 := threadCPU()
					if cd.peak {
						if cd.acc == accelAVX512 {
							fmaPeakAVX512(reps * rows * cols * k * 2 / 384)
						} else {
							fmaPeakAVX2(reps * rows * cols * k * 2 / 96)
						}
					}
					for range reps {
						if cd.peak {
							break
						}
						for jp := 0; jp < cols; jp += cd.ldb {
							for ip := 0; ip < rows; ip += cd.lda {
								if cd.fixed {
									cd.f64(k, a, bp, c, cols, add)
								} else if cd.f64 != nil {
									cd.f64(k, a[ip*k:], bp[jp*k:], c[ip*cols+jp:], cols, add)
								} else if cd.f32c != nil {
									cd.f32c(k, a32[ip*k:], bp32[jp*k:], c32[ip*cols+jp:], cols, add)
								} else {
									cd.f32(k, a32[ip*k:], bp32[jp*k:], c[ip*cols+jp:], cols, add)
								}
							}
						}
					}
					if g := float64(reps) * 2 * rows * cols * float64(k) / float64(threadCPU()-t0); g > best[i] {
						best[i] = g
					}
				}
			}
			for i, cd := range run {
				b.ReportMetric(best[i], cd.name+"-GFLOP/s")
			}
		})
	}
}

// fmaDot is the sum the SIMD tiles compute for x·c: an FMA chain over p
// ascending from zero within each feature block of kBlocks(d) features,
// the blocks' chains added in order.
func fmaDot(x, c []float64) float64 {
	kc := kBlocks(len(x))
	var s float64
	for k0 := 0; k0 < len(x); k0 += kc {
		var t float64
		for p := k0; p < min(k0+kc, len(x)); p++ {
			t = math.FMA(x[p], c[p], t)
		}
		if k0 == 0 {
			s = t
		} else {
			s += t
		}
	}
	return s
}

// TestTilesExact checks every SIMD tile path's distance product (the
// linear kernel's Block) bit for bit against fmaDot on ragged shapes: n and
// the block rows not multiples of the tile heights (6 for AVX2, 8 for
// AVX-512: every AVX2 edge tile of 1 to 5 rows runs), M not a multiple of
// the panel widths, d = 1, within one feature block and over two and three.
// In float32 mode the AVX2 and AVX-512 tiles sum the same float32 FMA
// chains, so with both on the CPU their blocks must be equal too.
func TestTilesExact(t *testing.T) {
	if bestAccel == accelPortable {
		t.Skip("no AVX2 or AVX-512 on this CPU")
	}
	os.Getenv(simdEnv) // keys the test cache on the path (see TestDispatch)
	r := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	shapes := []struct{ n, m, d, b int }{
		{37, 19, 1, 0}, {53, 47, 54, 17}, {61, 33, 54, 16}, {29, 21, 300, 13}, {45, 50, 600, 0}, {5, 3, 7, 0},
	}
	for _, s := range shapes {
		x, c := randDense(r, s.n, s.d), randDense(r, s.m, s.d)
		var f32 []*mat.Dense
		for _, a := range accels()[1:] {
			restore := setAccel(a)
			got, got32 := mat.NewDense(s.n, s.m, nil), mat.NewDense(s.n, s.m, nil)
			err := NewOp(Linear{}, x, c, Options{BlockRows: s.b}).Block(ctx, got)
			if err == nil {
				err = NewOp(Linear{}, x, c, Options{BlockRows: s.b, Float32: true}).Block(ctx, got32)
			}
			restore()
			if err != nil {
				t.Fatal(err)
			}
			for i := range s.n {
				for j := range s.m {
					if g, w := got.At(i, j), fmaDot(x.RawRowView(i), c.RawRowView(j)); g != w {
						t.Fatalf("%v %+v: (%d,%d) = %v, want %v", a, s, i, j, g, w)
					}
				}
			}
			// Float32 rounds x and c (relative 2^−24 each, 2 in all for a
			// product) and sums each feature block of n ≤ kBlock products in
			// float32 (at most γ_n ≈ n·2^−24 relative to Σ|x_k c_k|), the
			// blocks in float64: |error| ≤ (n + 2)·2^−24·Σ|x_k c_k|, doubled
			// for the second-order terms.
			for i := range s.n {
				for j := range s.m {
					var abs float64
					for k := range s.d {
						abs += math.Abs(x.At(i, k) * c.At(j, k))
					}
					if g, w := got32.At(i, j), got.At(i, j); math.Abs(g-w) > 2*float64(min(s.d, kBlock)+2)*0x1p-24*abs {
						t.Fatalf("%v float32 %+v: (%d,%d) = %v, float64 %v", a, s, i, j, g, w)
					}
				}
			}
			f32 = append(f32, got32)
		}
		if len(f32) == 2 && !mat.Equal(f32[0], f32[1]) {
			t.Fatalf("%+v: float32 AVX2 and AVX-512 blocks differ", s)
		}
	}
}

// TestTilesName checks that Tiles names the tiles of the path in use.
func TestTilesName(t *testing.T) {
	want := map[accel]string{accelPortable: "Go loops (d ≤ 16) or gonum Dgemm", accelAVX2: "6×16 f64, 6×32 f32", accelAVX512: "8×16 f64, 8×32 f32"}
	for _, a := range accels() {
		restore := setAccel(a)
		got := Tiles()
		restore()
		if got != want[a] {
			t.Errorf("%v: Tiles() = %q, want %q", a, got, want[a])
		}
	}
}

// TestTilePanelsExact checks that the AVX-512 distance product with one
// feature block (d ≤ kBlock: one gemm8x16PanelsPfAVX512 call a panel of
// centers) gives the bits of the per-tile calls it replaced (tileLoop
// calling gemm8x16PfAVX512 once a tile, with add false), on rows not a
// multiple of 8 (the last panel padded with zero rows), M not a multiple
// of 16 and d = 1, 54, 55, 256 (kBlock, the largest one-block d).
func TestTilePanelsExact(t *testing.T) {
	if bestAccel < accelAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	defer setAccel(accelAVX512)()
	r := rand.New(rand.NewPCG(23, 24))
	for _, d := range []int{1, 54, 55, kBlock} {
		for _, s := range []struct{ n, m int }{{61, 1999}, {64, 2000}, {13, 17}, {7, 5}, {8, 16}} {
			x, c := randDense(r, s.n, d), randDense(r, s.m, d)
			p := NewOp(Linear{}, x, c, Options{BlockRows: 64}).prepare()
			w := p.getWork(64, 1)
			p.dots(w, 0, s.n)
			got := slices.Clone(w.blk[:s.n*p.mp])
			rp := roundUp(s.n, panelRows)
			tileLoop(rp, p.mp, d, panelRows, panelCols, p.cp, false, func(ip, jp, h, k0, kl int) {
				gemm8x16PfAVX512(kl, &w.a[ip*d+k0*panelRows], &p.cp[jp*d+k0*panelCols], &w.blk[ip*p.mp+jp], p.mp, k0 > 0)
			})
			putWorks([]*work{w})
			for i := range s.n {
				for j := range s.m {
					if g, want := got[i*p.mp+j], w.blk[i*p.mp+j]; g != want || g != fmaDot(x.RawRowView(i), c.RawRowView(j)) {
						t.Fatalf("d = %d, %d×%d: (%d,%d) = %v, per-tile calls %v", d, s.n, s.m, i, j, g, want)
					}
				}
			}
		}
	}
}

// tilesAVX512Seq is tiles on AVX-512 as it was made before
// gemm8x16PanelsKbPfAVX512: tileLoop calling gemm8x16PfAVX512 once per tile
// and feature block. TestTilesPanelsKb holds the panel kernel to its bits.
func tilesAVX512Seq(a, b []float64, h, cols, k int, c []float64, ldc int, add bool) {
	tileLoop(h, cols, k, panelRows, panelCols, b, false, func(ip, jp, _, k0, kl int) {
		gemm8x16PfAVX512(kl, &a[ip*k+k0*panelRows], &b[jp*k+k0*panelCols], &c[ip*ldc+jp], ldc, add || k0 > 0)
	})
}

// TestTilesPanelsKb: tiles on AVX-512 (one gemm8x16PanelsKbPfAVX512 call a
// panel of centers) gives the bits of the per-tile, per-feature-block calls
// it replaced, setting or adding to c, with one feature block (k ≤ 256),
// two (257, 392: the Strassen products at d = 784, 513) and four (784 whole),
// one and several panels of rows and of centers, c wider than the product
// (its other columns and rows untouched).
func TestTilesPanelsKb(t *testing.T) {
	if bestAccel < accelAVX512 {
		t.Skip("no AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(23, 25))
	fill := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		return s
	}
	for _, k := range []int{1, 7, 196, 256, 257, 392, 513, 784} {
		for _, h := range []int{8, 24, 128} {
			for _, cols := range []int{16, 48} {
				for _, add := range []bool{false, true} {
					a, b := fill(h*k), fill(cols*k)
					ldc := cols + 16
					c0 := fill((h + 8) * ldc)
					got, want := slices.Clone(c0), slices.Clone(c0)
					tiles(accelAVX512, false, a, b, h, cols, k, got, ldc, add, panelRows)
					tilesAVX512Seq(a, b, h, cols, k, want, ldc, add)
					for i, g := range got {
						if math.Float64bits(g) != math.Float64bits(want[i]) {
							t.Fatalf("k=%d h=%d cols=%d add=%v: c[%d] (row %d, column %d) = %v, per-tile calls %v", k, h, cols, add, i, i/ldc, i%ldc, g, want[i])
						}
					}
					if slices.Equal(got[:h*ldc], c0[:h*ldc]) {
						t.Fatalf("k=%d h=%d cols=%d add=%v: c unchanged", k, h, cols, add)
					}
				}
			}
		}
	}
}
