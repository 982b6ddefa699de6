package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
)

// rand32 is an r×c float32 matrix of uniform values in [−1, 1).
func rand32(r *rand.Rand, rows, cols int) blas32.General {
	g := blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: make([]float32, rows*cols)}
	for i := range g.Data {
		g.Data[i] = float32(2*r.Float64() - 1)
	}
	return g
}

func at32(g blas32.General, i, j int, trans bool) float64 {
	if trans {
		return float64(g.Data[j*g.Stride+i])
	}
	return float64(g.Data[i*g.Stride+j])
}

// ref32 is alpha·op(a)·op(b) + beta·c0 summed in float64 from the same
// float32 values, and the bound of a float32 computation of it, element by
// element: each of α·a (rounded when packed), the product, the k − 1
// additions and the final addition to c rounds once by at most u = 2⁻²⁴
// relative, so |ĉ − c| ≤ (k + 3)·u·(Σ_p |α a_ip b_pj| + |β c0_ij|) (Higham,
// Accuracy and Stability, §3.1, first order in u; k·u ≤ 7e-5 here). A
// missing or doubled term is off by about |a b| ≈ 0.3 on average, far
// outside the bound.
func ref32(tA, tB bool, alpha float64, a, b blas32.General, beta float64, c0 blas32.General) (want, bound []float64) {
	k := a.Cols
	if tA {
		k = a.Rows
	}
	const u = 0x1p-24
	want, bound = make([]float64, c0.Rows*c0.Cols), make([]float64, c0.Rows*c0.Cols)
	for i := 0; i < c0.Rows; i++ {
		for j := 0; j < c0.Cols; j++ {
			var s, abs float64
			for p := 0; p < k; p++ {
				v := alpha * at32(a, i, p, tA) * at32(b, p, j, tB)
				s += v
				abs += math.Abs(v)
			}
			cv := beta * float64(c0.Data[i*c0.Stride+j])
			want[i*c0.Cols+j], bound[i*c0.Cols+j] = s+cv, float64(k+3)*u*(abs+math.Abs(cv))
		}
	}
	return want, bound
}

// check32 compares c with ref32's want within its bound where keep(i, j),
// and checks that c equals c0 elsewhere.
func check32(t *testing.T, name string, want, bound []float64, c0, c blas32.General, keep func(i, j int) bool) {
	t.Helper()
	bad := 0
	for i := 0; i < c.Rows; i++ {
		for j := 0; j < c.Cols; j++ {
			got := float64(c.Data[i*c.Stride+j])
			if !keep(i, j) {
				if got != float64(c0.Data[i*c0.Stride+j]) {
					t.Fatalf("%s: c[%d][%d] = %g changed outside the triangle (was %g)", name, i, j, got, c0.Data[i*c0.Stride+j])
				}
				continue
			}
			w, bd := want[i*c.Cols+j], bound[i*c.Cols+j]
			if e := math.Abs(got - w); e > bd {
				if bad++; bad < 5 {
					t.Errorf("%s: c[%d][%d] = %g, want %g (error %.3g > bound %.3g)", name, i, j, got, w, e, bd)
				}
			}
		}
	}
}

// TestDenseF32Gemm compares DenseF32.Gemm with float64 sums of the same
// float32 values on ragged shapes (not multiples of the 8×32 tile, the
// 128×512 task block or the 512 k-block; k = 1100 is three k-blocks of 367
// in two chunks), every transposition, beta 0 and 1, each set of inner kernels;
// 1 and 3 workers must give the same bits.
func TestDenseF32Gemm(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	ctx := context.Background()
	for _, sz := range [][3]int{{1, 1, 1}, {7, 9, 3}, {63, 65, 257}, {130, 530, 300}, {9, 40, 1100}} {
		m, n, k := sz[0], sz[1], sz[2]
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				a := rand32(r, m, k)
				if tA {
					a = rand32(r, k, m)
				}
				b := rand32(r, k, n)
				if tB {
					b = rand32(r, n, k)
				}
				c0 := rand32(r, m, n)
				for _, beta := range []float32{0, 1} {
					want, bound := ref32(tA, tB, -1.5, a, b, float64(beta), c0)
					for _, acc := range accels() {
						var first []float32
						for _, w := range []int{1, 3} {
							restore := setAccel(acc)
							got := blas32.General{Rows: m, Cols: n, Stride: n, Data: append([]float32(nil), c0.Data...)}
							err := DenseF32{Workers: w}.Gemm(ctx, tA, tB, -1.5, a, b, beta, got)
							restore()
							if err != nil {
								t.Fatal(err)
							}
							name := "gemm " + acc.String()
							check32(t, name, want, bound, c0, got, func(int, int) bool { return true })
							if first == nil {
								first = got.Data
							} else {
								for i := range first {
									if math.Float32bits(first[i]) != math.Float32bits(got.Data[i]) {
										t.Fatalf("%s %v: element %d differs between 1 and 3 workers: %g vs %g", name, sz, i, first[i], got.Data[i])
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

// TestDenseF32SyrkLower checks SyrkLower's lower triangle against float64
// sums (bound as in check32), that the strict upper triangle is untouched,
// and bit-identical results for 1 and 3 workers.
func TestDenseF32SyrkLower(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	ctx := context.Background()
	for _, sz := range [][2]int{{1, 1}, {7, 3}, {63, 65}, {257, 257}, {600, 300}} {
		m, k := sz[0], sz[1]
		for _, trans := range []bool{false, true} {
			a := rand32(r, m, k)
			if trans {
				a = rand32(r, k, m)
			}
			c0 := rand32(r, m, m)
			for _, beta := range []float32{0, 1} {
				want, bound := ref32(trans, !trans, 0.5, a, a, float64(beta), c0)
				for _, acc := range accels() {
					var first []float32
					for _, w := range []int{1, 3} {
						restore := setAccel(acc)
						got := blas32.General{Rows: m, Cols: m, Stride: m, Data: append([]float32(nil), c0.Data...)}
						err := DenseF32{Workers: w}.SyrkLower(ctx, trans, 0.5, a, beta, got)
						restore()
						if err != nil {
							t.Fatal(err)
						}
						check32(t, "syrk "+acc.String(), want, bound, c0, got, func(i, j int) bool { return j <= i })
						if first == nil {
							first = got.Data
						} else {
							for i := range first {
								if math.Float32bits(first[i]) != math.Float32bits(got.Data[i]) {
									t.Fatalf("syrk %v %v: element %d differs between 1 and 3 workers", acc, sz, i)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestDenseF32Errors checks the refusals: shapes that do not match and a
// beta other than 0 or 1.
func TestDenseF32Errors(t *testing.T) {
	ctx := context.Background()
	a := blas32.General{Rows: 3, Cols: 4, Stride: 4, Data: make([]float32, 12)}
	c := blas32.General{Rows: 3, Cols: 3, Stride: 3, Data: make([]float32, 9)}
	if err := (DenseF32{}).Gemm(ctx, false, false, 1, a, a, 0, c); err == nil {
		t.Error("Gemm of 3×4 by 3×4: no error")
	}
	if err := (DenseF32{}).Gemm(ctx, false, true, 1, a, a, 0.5, c); err == nil {
		t.Error("Gemm with beta 0.5: no error")
	}
	if err := (DenseF32{}).SyrkLower(ctx, true, 1, a, 0, c); err == nil {
		t.Error("SyrkLower of aᵀ (4×4) into 3×3: no error")
	}
	if err := (DenseF32{}).Gemm(ctx, false, true, 1, a, a, 0, c); err != nil {
		t.Error(err)
	}
}

// BenchmarkDenseF32Gemm and BenchmarkDenseF32Syrk are BenchmarkDenseGemm
// and BenchmarkDenseSyrk in float32 (a 2,000³ product; the trailing update
// of a 10,000² Cholesky's first panel, k = 256).
func BenchmarkDenseF32Gemm(b *testing.B) {
	benchDenseF32(b, 2000, 2000, 2000, false)
}

func BenchmarkDenseF32Syrk(b *testing.B) {
	benchDenseF32(b, 10000, 10000, 256, true)
}

func benchDenseF32(b *testing.B, m, n, k int, syrk bool) {
	r := rand.New(rand.NewPCG(1, 2))
	a := rand32(r, m, k)
	bb := rand32(r, n, k)
	c := blas32.General{Rows: m, Cols: n, Stride: n, Data: make([]float32, m*n)}
	flops := 2 * float64(m) * float64(n) * float64(k)
	if syrk {
		flops /= 2
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		var err error
		if syrk {
			err = DenseF32{}.SyrkLower(ctx, false, -1, a, 1, c)
		} else {
			err = DenseF32{}.Gemm(ctx, false, true, 1, a, bb, 0, c)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// TestPackBytesF32: DenseF32.PackBytes is what a product takes from the heap
// for its packing panels (as TestPackBytes for Dense).
func TestPackBytesF32(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := rand32(rng, 1500, 300), rand32(rng, 1500, 37)
	c := blas32.General{Rows: 300, Cols: 37, Stride: 37, Data: make([]float32, 300*37)}
	runtime.GC()
	runtime.GC()
	dense32Packs.drain()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := (DenseF32{Workers: 1}).Gemm(context.Background(), true, false, 1, a, b, 0, c); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// The buffer is 4·(64 + 304)·1000 bytes (37 columns rounded up to the
	// 32-column panels, 300 rows to the 8-row ones, a chunk of 1000).
	got, plan, buf := int64(after.TotalAlloc-before.TotalAlloc), DenseF32{}.PackBytes(300, 37, 1500), int64(4*(64+304)*1000)
	if got > plan || got < buf || plan > buf+64<<10 {
		t.Errorf("Gemm allocated %d bytes, PackBytes plans %d, buffer %d", got, plan, buf)
	}
}

// TestDenseF32LeadingZeros is TestDenseLeadingZeros for DenseF32: products
// of transposed operands whose panels start with zero features give the
// bits of the same products on the materialized transposes, and agree with
// float64 sums of the same values within ref32's bound.
func TestDenseF32LeadingZeros(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	ctx := context.Background()
	to32 := func(rows, cols int, v []float64) blas32.General {
		g := blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: make([]float32, len(v))}
		for i, x := range v {
			g.Data[i] = float32(x)
		}
		return g
	}
	tr := func(g blas32.General) blas32.General {
		t := blas32.General{Rows: g.Cols, Cols: g.Rows, Stride: g.Rows, Data: make([]float32, len(g.Data))}
		for i := 0; i < g.Rows; i++ {
			for j := 0; j < g.Cols; j++ {
				t.Data[j*t.Stride+i] = g.Data[i*g.Stride+j]
			}
		}
		return t
	}
	same := func(x, y blas32.General) bool {
		for i := range x.Data {
			if math.Float32bits(x.Data[i]) != math.Float32bits(y.Data[i]) {
				return false
			}
		}
		return true
	}
	clone := func(g blas32.General) blas32.General {
		g.Data = append([]float32(nil), g.Data...)
		return g
	}
	for _, sz := range [][3]int{{37, 21, 300}, {130, 45, 600}, {261, 530, 1100}} {
		m, n, k := sz[0], sz[1], sz[2]
		a, b := to32(k, m, leadZeros(r, k, m)), to32(k, n, leadZeros(r, k, n))
		at, bt := tr(a), tr(b)
		cg, cs := rand32(r, m, n), rand32(r, m, m)
		for _, beta := range []float32{0, 1} {
			wantG, boundG := ref32(true, false, -0.75, a, b, float64(beta), cg)
			wantS, boundS := ref32(true, false, 1.5, a, a, float64(beta), cs)
			for _, acc := range accels() {
				for _, w := range []int{1, 3} {
					name := fmt.Sprintf("%v beta=%g %v workers=%d", sz, beta, acc, w)
					restore := setAccel(acc)
					d := DenseF32{Workers: w}
					g, g0, s, s0 := clone(cg), clone(cg), clone(cs), clone(cs)
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
					if !same(g, g0) {
						t.Errorf("%s: Gemm with skipped zeros differs from the row-major product", name)
					}
					if !same(s, s0) {
						t.Errorf("%s: SyrkLower with skipped zeros differs from the row-major product", name)
					}
					check32(t, "gemm "+name, wantG, boundG, cg, g, func(int, int) bool { return true })
					check32(t, "syrk "+name, wantS, boundS, cs, s, func(i, j int) bool { return j <= i })
				}
			}
		}
	}
}

// TestDenseF32SyrkUnitAlpha is TestDenseSyrkUnitAlpha for DenseF32 (its
// tiles read Â from the quarters of B̂'s 32-column panels): the bits of
// Gemm with the same alpha on and below the diagonal. k ≤ 512 (one
// k-block): DenseF32 sums an edge tile's k-blocks before adding them to c,
// so with several k-blocks the diagonal tiles of SyrkLower (edges) and of
// Gemm (full tiles) add in different orders.
func TestDenseF32SyrkUnitAlpha(t *testing.T) {
	r := rand.New(rand.NewPCG(67, 68))
	ctx := context.Background()
	for _, sz := range [][2]int{{7, 3}, {63, 65}, {261, 300}, {130, 512}} {
		m, k := sz[0], sz[1]
		for _, trans := range []bool{false, true} {
			a := rand32(r, m, k)
			if trans {
				a = rand32(r, k, m)
			}
			c0 := rand32(r, m, m)
			for _, alpha := range []float32{1, -1} {
				for _, beta := range []float32{0, 1} {
					for _, acc := range accels() {
						for _, w := range []int{1, 3} {
							name := fmt.Sprintf("%v trans=%v alpha=%g beta=%g %v workers=%d", sz, trans, alpha, beta, acc, w)
							restore := setAccel(acc)
							s := blas32.General{Rows: m, Cols: m, Stride: m, Data: append([]float32(nil), c0.Data...)}
							g := blas32.General{Rows: m, Cols: m, Stride: m, Data: append([]float32(nil), c0.Data...)}
							errS := DenseF32{Workers: w}.SyrkLower(ctx, trans, alpha, a, beta, s)
							errG := DenseF32{Workers: w}.Gemm(ctx, trans, !trans, alpha, a, a, beta, g)
							restore()
							if errS != nil || errG != nil {
								t.Fatal(errS, errG)
							}
							for i := 0; i < m; i++ {
								for j := 0; j < m; j++ {
									want := g.Data[i*m+j]
									if j > i {
										want = c0.Data[i*m+j]
									}
									if math.Float32bits(s.Data[i*m+j]) != math.Float32bits(want) {
										t.Fatalf("%s: c[%d][%d] = %v, want %v", name, i, j, s.Data[i*m+j], want)
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
