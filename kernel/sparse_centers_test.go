package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// widen returns s with column j moved to column j·f in f·cols columns: the
// same rows in a space so wide that the engine maps feature ids through a
// hash map instead of a table (centerLookupDense).
func widen(s testCSR, f int) testCSR {
	w := testCSR{r: s.r, c: s.c * f, indptr: s.indptr, values: s.values}
	for _, j := range s.indices {
		w.indices = append(w.indices, j*int32(f))
	}
	return w
}

// TestSparseCentersMatchDense compares every product of an Op with CSR
// centers against the same Op with the dense copy of the centers, with X
// sparse (two densities) and X dense, for the four kernels, with the SIMD
// kernels and the portable code. Sizes are ragged (n = 203 with 16-row
// blocks, M = 37 centers, not a multiple of the 16-center panels), row 0 of
// X and of C is empty. 1e-12 relative is the tolerance: the two
// paths sum the same products in different orders (a few ulps apart).
func TestSparseCentersMatchDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	const n, d, m = 203, 300, 37
	v1, v3 := randDense(rng, m, 1), randDense(rng, m, 3)
	u1, u3 := randDense(rng, n, 1), randDense(rng, n, 3)
	for _, simd := range []bool{true, false} {
		restore := setSIMD(simd)
		for _, density := range []float64{0.03, 0.3} {
			x := randomCSR(rng, n, d, density)
			c := randomCSR(rng, m, d, density)
			xd, cd := DenseOf(x), DenseOf(c)
			for _, k := range sparseEngineKernels {
				opt := Options{BlockRows: 16}
				for _, xs := range []mat.Matrix{x, xd} {
					sop := NewOp(k, xs, c, opt)
					if sop.sc == nil {
						t.Fatalf("%v: sparse centers not kept sparse", k)
					}
					got := opProducts(t, sop, v1, v3, u1, u3)
					want := opProducts(t, NewOp(k, xd, cd, opt), v1, v3, u1, u3)
					_, sparseX := xs.(Sparse)
					for i := range got {
						closeTo(t, fmt.Sprintf("simd %v density %g %v sparse X %v %s", simd, density, k, sparseX, productNames[i]), got[i], want[i], 1e-12)
					}
				}
			}
		}
		restore()
	}
}

// TestSparseCentersWide checks the hash-map feature lookup (d = 3·10⁶,
// far above centerLookupDense's table bound for ~300 non-zeros) against
// the table lookup on the same rows in 300 columns: the dot products are
// summed over the same non-zeros in the same order, so the bits agree.
func TestSparseCentersWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	const n, d, m, f = 150, 300, 20, 10007
	x, c := randomCSR(rng, n, d, 0.05), randomCSR(rng, m, d, 0.05)
	xw, cw := widen(x, f), widen(c, f)
	if centerLookupDense(d*f, len(cw.values)) || !centerLookupDense(d, len(c.values)) {
		t.Fatal("the test no longer compares the map with the table")
	}
	v1, v3 := randDense(rng, m, 1), randDense(rng, m, 3)
	u1, u3 := randDense(rng, n, 1), randDense(rng, n, 3)
	for _, k := range sparseEngineKernels {
		narrow := NewOp(k, x, c, Options{BlockRows: 16})
		wide := NewOp(k, xw, cw, Options{BlockRows: 16})
		want, got := opProducts(t, narrow, v1, v3, u1, u3), opProducts(t, wide, v1, v3, u1, u3)
		if wide.plan.sc.smap == nil || narrow.plan.sc.slot == nil {
			t.Fatalf("%v: lookups not as intended", k)
		}
		for i := range got {
			if !mat.Equal(got[i], want[i]) {
				t.Fatalf("%v %s: wide (map) differs from narrow (table)", k, productNames[i])
			}
		}
	}
}

// TestSparseCentersPairBlock: K(C, C) from the engine with sparse X = C
// equals SparsePairBlock's merge to 1e-13 (both sum the dot products over
// common features in increasing order; the Gaussian differs in using norms
// instead of the direct distance sum, a few ulps on O(10) distances).
func TestSparseCentersPairBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(65, 66))
	c := randomCSR(rng, 40, 500, 0.04)
	for _, k := range sparseEngineKernels {
		got, want := mat.NewDense(40, 40, nil), mat.NewDense(40, 40, nil)
		if err := NewOp(k, c, c, Options{}).Block(context.Background(), got); err != nil {
			t.Fatal(err)
		}
		if err := SparsePairBlock(context.Background(), k, want, c, c, Options{}); err != nil {
			t.Fatal(err)
		}
		closeTo(t, fmt.Sprint(k), got, want, 1e-13)
	}
}

// TestSparseCentersDeterministic: the same bits whatever GOMAXPROCS and
// the worker count, for sparse and dense X against sparse centers.
func TestSparseCentersDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(67, 68))
	const n, d, m = 1000, 400, 50
	x := randomCSR(rng, n, d, 0.03)
	c := randomCSR(rng, m, d, 0.03)
	v1, v3 := randDense(rng, m, 1), randDense(rng, m, 3)
	u1, u3 := randDense(rng, n, 1), randDense(rng, n, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, xs := range []mat.Matrix{x, DenseOf(x)} {
		for _, k := range sparseEngineKernels {
			var ref []*mat.Dense
			for _, procs := range []int{1, 2, 3} {
				runtime.GOMAXPROCS(procs)
				for _, workers := range []int{0, 1, 5} {
					got := opProducts(t, NewOp(k, xs, c, Options{BlockRows: 24, Workers: workers}), v1, v3, u1, u3)
					if ref == nil {
						ref = got
						continue
					}
					for i := range got {
						if !mat.Equal(got[i], ref[i]) {
							t.Fatalf("%v %s: GOMAXPROCS %d workers %d differs", k, productNames[i], procs, workers)
						}
					}
				}
			}
		}
	}
}

// heavyCSR draws m rows over d columns in which the first all columns are
// in every row, the next half columns in about half the rows, and the rest
// at the given density: a C with heavy and light columns together.
func heavyCSR(rng *rand.Rand, m, d, all, half int, density float64) testCSR {
	s := testCSR{r: m, c: d, indptr: []int{0}}
	for i := 0; i < m; i++ {
		for j := 0; j < d; j++ {
			in := j < all || (j < all+half && rng.IntN(2) == 0) || (j >= all+half && rng.Float64() < density)
			if in {
				s.indices = append(s.indices, int32(j))
				s.values = append(s.values, rng.NormFloat64())
			}
		}
		s.indptr = append(s.indptr, len(s.values))
	}
	return s
}

// dropRow0 returns s with the entries of row 0 removed (an empty row 0).
func dropRow0(s testCSR) testCSR {
	e := s.indptr[1]
	out := testCSR{r: s.r, c: s.c, indices: s.indices[e:], values: s.values[e:]}
	for _, p := range s.indptr {
		out.indptr = append(out.indptr, max(p-e, 0))
	}
	return out
}

// TestSparseCentersHeavyColumns: centers whose first 6 features are in
// every center and next 12 in about half (heavy: at least M/heavyShare
// entries, held dense) beside light columns at density 0.03, against X of
// the same shape (row 0 empty), with the precomputed entry ranges forced
// on (rangesMin = 0). Every product matches the all-dense Op to 1e-12
// relative (the tolerance, different summation orders); has the
// bits of the plain scatter (heavyDiv = 0, no ranges) with each set of
// inner kernels (the dense columns add x_k·0 = ±0 and round each product
// as the scatter does; the ranges are the same entries); and the same bits
// for 1, 2 and 5 workers.
func TestSparseCentersHeavyColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(73, 74))
	const n, d, m = 211, 260, 45
	x := dropRow0(heavyCSR(rng, n, d, 6, 12, 0.03))
	c := heavyCSR(rng, m, d, 6, 12, 0.03)
	xd, cd := DenseOf(x), DenseOf(c)
	v1, v3 := randDense(rng, m, 1), randDense(rng, m, 3)
	u1, u3 := randDense(rng, n, 1), randDense(rng, n, 3)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(r int) { rangesMin = r }(rangesMin)
	rangesMin = 0
	for _, k := range sparseEngineKernels {
		opt := Options{BlockRows: 16}
		want := opProducts(t, NewOp(k, xd, cd, opt), v1, v3, u1, u3)
		restore := setSIMD(true)
		hop := NewOp(k, x, c, opt)
		hop.prepare()
		restore()
		defer func(h int) { heavyDiv = h }(heavyDiv)
		heavyDiv, rangesMin = 0, len(x.values)+1
		lop := NewOp(k, x, c, opt)
		lop.prepare()
		heavyDiv, rangesMin = heavyShare, 0
		if hop.plan.sc.xoff == nil || lop.plan.sc.xoff != nil {
			t.Fatalf("%v: entry ranges not as intended", k)
		}
		_, dot := k.(dotForm)
		if nh := len(hop.plan.sc.heavy) / hop.plan.mp; dot && bestAccel != accelPortable && nh < 6 {
			t.Fatalf("%v: %d heavy columns, want at least the 6 full ones", k, nh)
		}
		if lop.plan.sc.heavy != nil {
			t.Fatalf("%v: heavy columns with heavyDiv = 0", k)
		}
		for _, a := range []accel{accelAVX512, accelAVX2, accelPortable} {
			if a > bestAccel {
				continue
			}
			restore := setAccel(a)
			got := opProducts(t, hop, v1, v3, u1, u3)
			scatter := opProducts(t, lop, v1, v3, u1, u3)
			for i := range got {
				closeTo(t, fmt.Sprintf("%v %v %s", k, a, productNames[i]), got[i], want[i], 1e-12)
				if !mat.Equal(got[i], scatter[i]) {
					t.Errorf("%v %v %s: heavy columns change the bits of the scatter", k, a, productNames[i])
				}
			}
			for _, workers := range []int{1, 2, 5} {
				runtime.GOMAXPROCS(min(workers, 3))
				wop := NewOp(k, x, c, Options{BlockRows: 16, Workers: workers})
				again := opProducts(t, wop, v1, v3, u1, u3)
				for i := range got {
					if !mat.Equal(again[i], got[i]) {
						t.Errorf("%v %v %s: %d workers differ", k, a, productNames[i], workers)
					}
				}
			}
			restore()
		}
	}
	// A non-finite x_k in a heavy column takes the scatter (x_k·0 would
	// add NaN to the centers without feature k): the same bits as the
	// scatter alone, compared as bit patterns since they hold NaN and Inf.
	xi := dropRow0(heavyCSR(rng, n, d, 6, 12, 0.03))
	xi.values[xi.indptr[5]] = math.Inf(1) // row 5, feature 0 (in every row)
	xi.values[xi.indptr[9]] = math.NaN()
	got, want := mat.NewDense(n, m, nil), mat.NewDense(n, m, nil)
	if err := NewOp(Linear{}, xi, c, Options{}).Block(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	heavyDiv = 0
	if err := NewOp(Linear{}, xi, c, Options{}).Block(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	heavyDiv = heavyShare
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
				t.Fatalf("non-finite x: K[%d,%d] = %v with heavy columns, %v without", i, j, g, w)
			}
		}
	}
	if f := got.At(5, 0); !math.IsInf(f, 0) && !math.IsNaN(f) {
		t.Fatalf("K[5,0] = %v, want non-finite", f)
	}
}

// TestSparseCentersBadInput: malformed CSR centers and mismatched
// dimensions are errors (ErrParam for the arrays) from every product.
func TestSparseCentersBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(69, 70))
	x := randomCSR(rng, 10, 20, 0.2)
	good := randomCSR(rng, 4, 20, 0.3)
	unsorted := testCSR{r: 1, c: 20, indptr: []int{0, 2}, indices: []int32{5, 3}, values: []float64{1, 2}}
	outside := testCSR{r: 1, c: 20, indptr: []int{0, 1}, indices: []int32{20}, values: []float64{1}}
	short := testCSR{r: 2, c: 20, indptr: []int{0, 1}, indices: []int32{2}, values: []float64{1}}
	ctx := context.Background()
	for name, c := range map[string]testCSR{"unsorted": unsorted, "outside": outside, "short indptr": short} {
		r, _ := c.Dims()
		op := NewOp(Gaussian{Gamma: 1}, x, c, Options{})
		if err := op.Block(ctx, mat.NewDense(10, r, nil)); !errors.Is(err, ErrParam) {
			t.Errorf("%s: Block error %v, want ErrParam", name, err)
		}
		if err := op.MulTMul(ctx, mat.NewDense(r, 1, nil), mat.NewDense(r, 1, nil)); !errors.Is(err, ErrParam) {
			t.Errorf("%s: MulTMul error %v, want ErrParam", name, err)
		}
	}
	wide := widen(good, 2)
	if err := NewOp(Linear{}, x, wide, Options{}).Block(ctx, mat.NewDense(10, 4, nil)); err == nil {
		t.Error("20-column X with 40-column C: no error")
	}
	if err := NewOp(Linear{}, DenseOf(x), wide, Options{}).Mul(ctx, mat.NewDense(10, 1, nil), mat.NewDense(4, 1, nil)); err == nil {
		t.Error("dense 20-column X with 40-column C: no error")
	}
}

// fastCSR draws n rows of about density·d non-zeros each at uniformly
// random columns (repeats merged), standard-normal values: randomCSR
// without the n·d loop, for the benchmarks' wide shapes.
func fastCSR(rng *rand.Rand, n, d int, density float64) testCSR {
	s := testCSR{r: n, c: d, indptr: []int{0}}
	k := max(1, int(density*float64(d)))
	cols := make([]int32, k)
	for i := 0; i < n; i++ {
		for q := range cols {
			cols[q] = int32(rng.IntN(d))
		}
		slices.Sort(cols)
		for q, j := range cols {
			if q > 0 && j == cols[q-1] {
				continue
			}
			s.indices = append(s.indices, j)
			s.values = append(s.values, rng.NormFloat64())
		}
		s.indptr = append(s.indptr, len(s.values))
	}
	return s
}

// BenchmarkSparseCenters times the fused Gaussian product Kᵀ(K v) of CSR
// X (n = 4,000) against M = 500 centers drawn from X's distribution, held
// sparse or dense, at several (d, density) points; PreferDenseCenters is
// set from it (docs/performance.md, "Kernel engine").
func BenchmarkSparseCenters(b *testing.B) {
	rng := rand.New(rand.NewPCG(71, 72))
	const n, m = 4000, 500
	v := randDense(rng, m, 1)
	dst := mat.NewDense(m, 1, nil)
	for _, pt := range []struct {
		d       int
		density float64
	}{{784, 0.01}, {784, 0.05}, {784, 0.1}, {784, 0.2}, {784, 0.3}, {784, 0.4}, {5000, 0.01}, {5000, 0.05}, {5000, 0.1}, {50000, 0.001}, {50000, 0.01}} {
		x := fastCSR(rng, n, pt.d, pt.density)
		c := fastCSR(rng, m, pt.d, pt.density)
		for _, mode := range []string{"sparse", "dense"} {
			b.Run(fmt.Sprintf("d=%d/density=%g/%s", pt.d, pt.density, mode), func(b *testing.B) {
				var cm mat.Matrix = c
				if mode == "dense" {
					cm = DenseOf(c)
				}
				op := NewOp(Gaussian{Gamma: 0.1}, x, cm, Options{})
				op.prepare()
				for b.Loop() {
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestPreferDenseCenters pins the measured threshold: a quarter of the
// entries non-zero (denseCentersFrom) is where centers turn dense.
func TestPreferDenseCenters(t *testing.T) {
	mk := func(m, d, perRow int) testCSR {
		s := testCSR{r: m, c: d, indptr: []int{0}}
		for i := 0; i < m; i++ {
			for j := 0; j < perRow; j++ {
				s.indices = append(s.indices, int32(j))
				s.values = append(s.values, 1)
			}
			s.indptr = append(s.indptr, len(s.values))
		}
		return s
	}
	for _, tc := range []struct {
		perRow int
		want   bool
	}{{0, false}, {24, false}, {25, true}, {100, true}} {
		if got := PreferDenseCenters(mk(10, 100, tc.perRow)); got != tc.want {
			t.Errorf("%d non-zeros of 100 a row: dense %v, want %v", tc.perRow, got, tc.want)
		}
	}
	if !PreferDenseCenters(mk(0, 100, 0)) {
		t.Error("no centers: want dense")
	}
}

// zipfCSR draws n rows of text-like sparse data: per row, draws column ids
// from a Zipf law (exponent s over d columns, so that a few columns are in
// most rows and most columns in few), repeats merged, standard-normal values.
func zipfCSR(rng *rand.Rand, n, d, draws int, s float64) testCSR {
	z := rand.NewZipf(rng, s, 1, uint64(d-1))
	out := testCSR{r: n, c: d, indptr: []int{0}}
	cols := make([]int32, draws)
	for i := 0; i < n; i++ {
		for q := range cols {
			cols[q] = int32(z.Uint64())
		}
		slices.Sort(cols)
		for q, j := range cols {
			if q > 0 && j == cols[q-1] {
				continue
			}
			out.indices = append(out.indices, j)
			out.values = append(out.values, rng.NormFloat64())
		}
		out.indptr = append(out.indptr, len(out.values))
	}
	return out
}

// BenchmarkSparseCentersHeavy times the fused Gaussian product Kᵀ(K v) of
// manpages-shaped CSR X (n = 2,500, d = 2²⁰, Zipf columns, about 250
// non-zeros a row) against M = 2,000 of its rows held CSR, with the heavy
// columns (at least M/div entries) dense for div = 0 (none: the scatter
// alone), 4, 8, 16 and 32. heavyShare is set from it (docs/performance.md, "Kernel engine").
func BenchmarkSparseCentersHeavy(b *testing.B) {
	rng := rand.New(rand.NewPCG(75, 76))
	const n, m, d = 2500, 2000, 1 << 20
	x := zipfCSR(rng, n, d, 400, 1.1)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	c := SubsetRows(x, idx)
	v := randDense(rng, m, 1)
	dst := mat.NewDense(m, 1, nil)
	cols := map[int32]int{}
	for _, j := range c.indices {
		cols[j]++
	}
	heavy, work := 0, [2]float64{}
	for _, e := range cols {
		work[1] += float64(e) * float64(e)
		if e*heavyShare >= m {
			heavy++
			work[0] += float64(e) * float64(e)
		}
	}
	b.Logf("X: %.0f non-zeros a row; C: %d non-zeros over %d features, %d with ≥ M/%d entries (%.0f%% of the scatter's multiply-adds)",
		float64(x.indptr[n])/n, len(c.indices), len(cols), heavy, heavyShare, 100*work[0]/work[1])
	defer func(h int) { heavyDiv = h }(heavyDiv)
	for _, div := range []int{0, 4, 8, 16, 32} {
		b.Run(fmt.Sprintf("div=%d", div), func(b *testing.B) {
			heavyDiv = div
			op := NewOp(Gaussian{Gamma: 1}, x, c, Options{})
			op.prepare()
			c0 := processCPU()
			for b.Loop() {
				if err := op.MulTMul(context.Background(), dst, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-c0)/1e9/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(len(op.plan.sc.heavy)/op.plan.mp), "heavy-cols")
		})
	}
}
