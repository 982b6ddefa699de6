package kernel

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLazyNorms: the norms summed a chunk at a time on first use
// (plan.norms) are, bit for bit, the dot product of each row with itself in
// feature order (dot, the order rowNorms uses), whatever the blocks asked
// for and their order, for float64 X with a stride and float32 X; rows
// never asked for stay unsummed (zero), and each chunk is marked done.
func TestLazyNorms(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, d := range []int{1, 5, 54, 785} {
		for _, n := range []int{1, 63, 64, 65, 300} {
			stride := d + 3
			x, x32 := normRowsData(r, n, d, stride)
			for _, f32 := range []bool{false, true} {
				p := &plan{n: n, d: d, xn: make([]float64, n)}
				if f32 {
					p.xl.init(n, nil, x32, d, d)
				} else {
					p.xl.init(n, x, nil, stride, d)
				}
				// Rows [lo, n) first, in blocks of 40 from the end: the
				// chunks (64 rows) before lo, a chunk boundary, stay unsummed.
				lo := min(n, 128)
				for r1 := n; r1 > lo; r1 -= 40 {
					p.norms(max(r1-40, lo), r1)
				}
				for i := range lo {
					if p.xn[i] != 0 {
						t.Fatalf("d=%d n=%d f32=%v: row %d summed (%v) though no block asked for it", d, n, f32, i, p.xn[i])
					}
				}
				if n > lo {
					if left, want := p.xl.left.Load(), int64(lo/64); left != want {
						t.Fatalf("d=%d n=%d: %d chunks left, want %d", d, n, left, want)
					}
				}
				p.norms(0, n)
				for i := range n {
					row := x[i*stride : i*stride+d]
					if got, want := p.xn[i], dot(row, row); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("d=%d n=%d f32=%v row %d: %v, want %v", d, n, f32, i, got, want)
					}
				}
				if left := p.xl.left.Load(); left != 0 {
					t.Fatalf("d=%d n=%d: %d chunks left after all rows", d, n, left)
				}
				for c := range p.xl.state {
					if s := p.xl.state[c].Load(); s != normsDone {
						t.Fatalf("d=%d n=%d: chunk %d state %d, want done (%d)", d, n, c, s, normsDone)
					}
				}
			}
		}
	}
}

// TestLazyNormsConcurrent: eight goroutines asking for overlapping blocks of
// a fresh plan at once get the norms of a direct computation (run with
// -race: a chunk is summed by one of them and published by its state).
func TestLazyNormsConcurrent(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	const n, d = 5000, 37
	x := make([]float64, n*d)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	p := &plan{n: n, d: d, xn: make([]float64, n)}
	p.xl.init(n, x, nil, d, d)
	var wg sync.WaitGroup
	bad := make([]int, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := 24 + 16*g // blocks of 24 … 136 rows, not chunk-aligned
			for r0 := 0; r0 < n; r0 += b {
				r1 := min(r0+b, n)
				p.norms(r0, r1)
				for i := r0; i < r1; i++ {
					if p.xn[i] != dot(x[i*d:(i+1)*d], x[i*d:(i+1)*d]) {
						bad[g]++
					}
				}
			}
		}()
	}
	wg.Wait()
	for g, b := range bad {
		if b != 0 {
			t.Errorf("goroutine %d read %d wrong norms", g, b)
		}
	}
}

// TestLazyNormsProducts: every product on a fresh Op, whose norms of X are
// summed as its blocks ask for them, gives the bits of the same product on
// an Op whose norms were all summed first (rowNorms, as prepare did before
// lazyNorms), for the Gaussian (fused passes, float64 and Float32, the
// Strassen pass at d = 520) and the polynomial kernel (kernelBlock), with
// one and two workers and rows not a multiple of the chunk; and two
// MulTMul calls at once on a fresh Op give the bits of one alone.
func TestLazyNormsProducts(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, s := range []struct {
		n, d int
		k    Kernel
		f32  bool
	}{
		{301, 7, Gaussian{Gamma: 0.3}, false},
		{301, 54, Gaussian{Gamma: 0.02}, true},
		{300, 520, Gaussian{Gamma: 1.0 / 520}, false},
	} {
		x, c := randDense(r, s.n, s.d), randDense(r, 70, s.d)
		v, u := randDense(r, 70, 1), randDense(r, s.n, 1)
		for _, workers := range []int{1, 2} {
			opt := Options{Workers: workers, BlockRows: 40, Float32: s.f32}
			if s.d == 520 {
				opt.BlockRows = 64 // the Strassen pass needs 16 rows a block
			}
			run := func(eager bool) [4]*mat.Dense {
				op := NewOp(s.k, x, c, opt)
				if eager {
					p := op.prepare()
					rd := x.RawMatrix()
					rowNorms(p.xn, rd.Data, rd.Stride, s.d, 1)
					p.xl.left.Store(0) // as if summed: the products skip norms
				}
				out := [4]*mat.Dense{mat.NewDense(70, 1, nil), mat.NewDense(s.n, 1, nil), mat.NewDense(70, 1, nil), mat.NewDense(s.n, 70, nil)}
				ctx := context.Background()
				for i, err := range []error{op.MulTMul(ctx, out[0], v), op.Mul(ctx, out[1], v), op.MulT(ctx, out[2], u), op.Block(ctx, out[3])} {
					if err != nil {
						t.Fatalf("product %d: %v", i, err)
					}
				}
				return out
			}
			lazy, eager := run(false), run(true)
			for i := range lazy {
				a, b := lazy[i].RawMatrix().Data, eager[i].RawMatrix().Data
				for j := range a {
					if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
						t.Fatalf("n=%d d=%d %v f32=%v workers=%d product %d element %d: %v lazily, %v with the norms summed first", s.n, s.d, s.k, s.f32, workers, i, j, a[j], b[j])
					}
				}
			}
			op := NewOp(s.k, x, c, opt)
			var two [2]*mat.Dense
			var wg sync.WaitGroup
			for g := range two {
				two[g] = mat.NewDense(70, 1, nil)
				wg.Add(1)
				go func() { defer wg.Done(); op.MulTMul(context.Background(), two[g], v) }()
			}
			wg.Wait()
			for g := range two {
				for j, got := range two[g].RawMatrix().Data {
					if want := lazy[0].At(j, 0); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("n=%d d=%d %v workers=%d: concurrent MulTMul %d element %d: %v, want %v", s.n, s.d, s.k, workers, g, j, got, want)
					}
				}
			}
		}
	}
}

// TestStrassenPlanOperands: newStrassenPlan's seven operands and the
// centers past 2·hc hold, bit for bit, their definitions (strassen.go: B11,
// B21, B22, T1 = B12 − B11, T2 = B22 − T1, T3 = B22 − B12, −T4 = −(T2 −
// B21)) at the panel positions the tiles read, with zeros for centers past
// m and the feature past an odd d, for d×16 and half panels, M with and
// without centers past 2·hc, and 1 or 3 workers.
func TestStrassenPlanOperands(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for _, d := range []int{6, 7, 61} {
		for _, m := range []int{32, 35, 64, 70, 95} {
			c := randDense(r, m, d).RawMatrix()
			mp := roundUp(m, panelCols)
			hc, dh := strassenDims(mp, d)
			at := func(j, k int) float64 {
				if j >= m || k >= d {
					return 0
				}
				return c.Data[j*c.Stride+k]
			}
			for _, half := range []bool{false, true} {
				hw := panelCols
				if half {
					hw = panelCols / 2
				}
				// pos is where center j's feature k sits in panels of dh features.
				pos := func(j, k int) int { return j/panelCols*panelCols*dh + (j%panelCols)/hw*hw*dh + k*hw + j%hw }
				for _, workers := range []int{1, 3} {
					s := newStrassenPlan(c, m, d, mp, half, false, workers)
					if s.hc != hc || s.dh != dh || len(s.rem[0]) != (mp-2*hc)*dh {
						t.Fatalf("d=%d m=%d: hc %d dh %d rem %d, want %d %d %d", d, m, s.hc, s.dh, len(s.rem[0]), hc, dh, (mp-2*hc)*dh)
					}
					for j := range hc {
						for k := range dh {
							b11, b12, b21, b22 := at(j, k), at(hc+j, k), at(j, dh+k), at(hc+j, dh+k)
							t1 := b12 - b11
							t2 := b22 - t1
							want := [7]float64{b11, b21, b22, t1, t2, b22 - b12, -(t2 - b21)}
							for op, w := range want {
								if got := s.b[op][pos(j, k)]; math.Float64bits(got) != math.Float64bits(w) {
									t.Fatalf("d=%d m=%d half=%v workers=%d: operand %d center %d feature %d: %v, want %v", d, m, half, workers, op, j, k, got, w)
								}
							}
						}
					}
					for j := range mp - 2*hc {
						for k := range dh {
							for h := range 2 {
								if got, w := s.rem[h][pos(j, k)], at(2*hc+j, h*dh+k); math.Float64bits(got) != math.Float64bits(w) {
									t.Fatalf("d=%d m=%d half=%v: center %d past 2·hc, half %d feature %d: %v, want %v", d, m, half, 2*hc+j, h, k, got, w)
								}
							}
						}
					}
				}
			}
		}
	}
}

// normRowsData returns n random rows of d values, float32-representable, as
// float64 rows of the given stride (the padding zero) and as packed float32
// rows: the inputs of the norms tests (TestLazyNorms, TestRowNorms).
func normRowsData(r *rand.Rand, n, d, stride int) ([]float64, []float32) {
	x := make([]float64, n*stride)
	x32 := make([]float32, n*d)
	for i := range n {
		for k := range d {
			v := float32(r.NormFloat64())
			x[i*stride+k], x32[i*d+k] = float64(v), v
		}
	}
	return x, x32
}

// TestSqNorms8 checks sumNorms on every path (sqNorms8's AVX-512 and AVX2
// kernels, then the scalar rows) against the scalar definition, bit for
// bit: each row summed in feature order, s = s + round(v·v). The values
// are full float64 normals, so their squares round, and a kernel that
// fused the multiply and add (or summed in another order) would differ:
// the test checks that the fused order does differ on these rows. The
// widths cover d under one vector (1–7), tails of every length after the
// kernels' multiples of 8 and 4, and the engine's 54 and 784; the row
// counts, groups of eight with 0–7 rows left for sqNorms4 and the loop.
func TestSqNorms8(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	fusedDiffers := false
	for _, d := range []int{1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 54, 63, 784, 785} {
		for _, n := range []int{1, 7, 8, 9, 17, 63} {
			stride := d + 3
			x := make([]float64, n*stride)
			for i := range x {
				x[i] = r.NormFloat64()
			}
			want := make([]float64, n)
			for i := range n {
				var s, f float64
				for _, v := range x[i*stride : i*stride+d] {
					s += float64(v * v)
					f = math.FMA(v, v, f)
				}
				want[i] = s
				fusedDiffers = fusedDiffers || f != s
			}
			for _, a := range accels() {
				got := make([]float64, n)
				restore := setAccel(a)
				sumNorms(got, x, stride, d)
				restore()
				for i := range n {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("%v d=%d n=%d row %d: %v, want %v", a, d, n, i, got[i], want[i])
					}
				}
			}
		}
	}
	if !fusedDiffers {
		t.Fatal("no row's fused-multiply-add sum differs from the rounded one: the data cannot tell them apart")
	}
}
