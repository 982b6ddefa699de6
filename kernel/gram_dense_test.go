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
// multiples of the 8×16 tile, of the 128×512 task block or of the 256
// k-block), every transposition, beta 0 and 1, each set of inner kernels and
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
// packing panels. With densePool and packSlot drained, one Gemm of a 300×37 result over
// k = 1,500 on one worker allocates its panel buffer (PackBytes) plus a few
// hundred bytes of task lists and headers (allowed: 64 KiB), and no less.
func TestPackBytes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := randDense(rng, 1500, 300), randDense(rng, 1500, 37)
	c := mat.NewDense(300, 37, nil)
	for densePool.Get() != nil {
	}
	packSlot.buf = nil
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := (Dense{Workers: 1}).Gemm(context.Background(), true, false, 1, a, b, 0, c); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got, plan := int64(after.TotalAlloc-before.TotalAlloc), Dense{}.PackBytes(300, 37, 1500)
	if got < plan || got > plan+64<<10 {
		t.Errorf("Gemm allocated %d bytes, PackBytes plans %d", got, plan)
	}
}
