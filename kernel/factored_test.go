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

// oneHotData returns n rows laid out as: three standard-normal columns
// (dense), a one-hot block of 4 columns scaled to {−0.5, 2.3}, a column
// with three values (dense), a one-hot block of 3 columns in {0, 1}, a
// binary flag {−1, 1}, and a constant column 0.7: d = 14, D = {0, 1, 2, 7},
// S = the other 10. The patterns are the 4·3·2 = 24 combinations (those the
// draw hits).
func oneHotData(r *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, 14, nil)
	for i := range n {
		row := x.RawRowView(i)
		row[0], row[1], row[2] = r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
		a := r.IntN(4)
		for q := range 4 {
			row[3+q] = -0.5
			if q == a {
				row[3+q] = 2.3
			}
		}
		row[7] = float64(r.IntN(3)) // three values: dense
		b := r.IntN(3)
		row[8+b] = 1
		row[11] = float64(2*r.IntN(2) - 1)
		row[12] = 0.7
		row[13] = 0.7
	}
	return x
}

// oneHotDiscrete is oneHotData's S.
var oneHotDiscrete = []int{3, 4, 5, 6, 8, 9, 10, 11, 12, 13}

// bruteSplit counts the distinct tuples of x's columns cols.
func bruteSplit(x *mat.Dense, cols []int) int {
	seen := map[string]bool{}
	n, _ := x.Dims()
	for i := range n {
		key := ""
		for _, j := range cols {
			key += fmt.Sprint(x.At(i, j), ",")
		}
		seen[key] = true
	}
	return len(seen)
}

// TestDetectSplit checks the split of constructed data: exact D and S (a
// three-valued column stays dense, a constant one is discrete), the pattern
// count against a brute-force count of distinct S-tuples, group sizes
// summing to n, the same split from a *Dense32, and the cases that do not
// factor (pattern cap, every column two-valued, no two-valued column).
func TestDetectSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	x := oneHotData(r, 500)
	s, ok := DetectSplit(x, 0)
	if !ok {
		t.Fatal("oneHotData does not split")
	}
	if !slices.Equal(s.Dense, []int{0, 1, 2, 7}) || !slices.Equal(s.Discrete, oneHotDiscrete) {
		t.Fatalf("split D = %v, S = %v", s.Dense, s.Discrete)
	}
	want := bruteSplit(x, oneHotDiscrete)
	if s.Patterns != want || want != 24 {
		t.Fatalf("%d patterns, brute force %d (want 24 = 4·3·2)", s.Patterns, want)
	}
	total := 0
	for _, c := range s.Sizes() {
		total += c
	}
	if total != 500 || s.Rows() != 500 {
		t.Fatalf("group sizes sum to %d, Rows %d, want 500", total, s.Rows())
	}
	if got := s.String(); got != "4 dense + 10 two-valued columns, 24 patterns" {
		t.Fatalf("String = %q", got)
	}
	x32, err := Dense32Of(x)
	if err != nil {
		t.Fatal(err)
	}
	s32, ok := DetectSplit(x32, 0)
	if !ok || !slices.Equal(s32.Dense, s.Dense) || s32.Patterns != s.Patterns || !slices.Equal(s32.Sizes(), s.Sizes()) {
		t.Fatalf("Dense32 split %v, want %v", s32, s)
	}
	if _, ok := DetectSplit(x, 23); ok {
		t.Fatal("24 patterns passed a cap of 23")
	}
	if s24, ok := DetectSplit(x, 24); !ok || s24.Patterns != 24 {
		t.Fatal("24 patterns refused under a cap of 24")
	}
	// Every column two-valued: |D| = 0.
	bin := mat.NewDense(4, 2, []float64{0, 1, 1, 0, 0, 0, 1, 1})
	if _, ok := DetectSplit(bin, 0); ok {
		t.Fatal("an all-binary X split")
	}
	if _, ok := DetectSplit(randDense(r, 20, 3), 0); ok {
		t.Fatal("an X without two-valued columns split")
	}
	// More than 64 discrete columns: patterns keyed beyond one word.
	wide := mat.NewDense(200, 71, nil)
	for i := range 200 {
		row := wide.RawRowView(i)
		row[0] = r.NormFloat64()
		row[1+r.IntN(70)] = 1
	}
	sw, ok := DetectSplit(wide, 0)
	if !ok || len(sw.Discrete) != 70 || sw.Patterns != bruteSplit(wide, sw.Discrete) {
		t.Fatalf("wide split %v, brute force %d patterns", sw, bruteSplit(wide, sw.Discrete))
	}
}

// relDiff is ‖a − b‖_F / ‖b‖_F.
func relDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / mat.Norm(b, 2)
}

// factoredCenters returns m centers: rows of x, and rows whose S-values are
// not among x's (normal draws in every column), so T is exercised off the
// data's values.
func factoredCenters(r *rand.Rand, x *mat.Dense, m int) *mat.Dense {
	n, d := x.Dims()
	c := mat.NewDense(m, d, nil)
	for j := range m {
		if j%3 == 2 {
			for q := range d {
				c.Set(j, q, r.NormFloat64())
			}
			continue
		}
		c.SetRow(j, x.RawRowView(r.IntN(n)))
	}
	return c
}

// factoredProducts runs every product of an operator on v1 (M×1), v3 (M×3),
// u1 (n×1), u2 (n×2).
type products interface {
	MulTMul(ctx context.Context, dst, v *mat.Dense) error
	MulT(ctx context.Context, dst, u *mat.Dense) error
	Mul(ctx context.Context, dst, v *mat.Dense) error
	Block(ctx context.Context, dst *mat.Dense) error
}

func runProducts(t *testing.T, op products, n, m int, v1, v3, u1, u2 *mat.Dense) []*mat.Dense {
	t.Helper()
	ctx := context.Background()
	out := []*mat.Dense{mat.NewDense(m, 1, nil), mat.NewDense(m, 3, nil), mat.NewDense(m, 1, nil),
		mat.NewDense(m, 2, nil), mat.NewDense(n, 1, nil), mat.NewDense(n, 3, nil), mat.NewDense(n, m, nil)}
	for i, err := range []error{op.MulTMul(ctx, out[0], v1), op.MulTMul(ctx, out[1], v3), op.MulT(ctx, out[2], u1),
		op.MulT(ctx, out[3], u2), op.Mul(ctx, out[4], v1), op.Mul(ctx, out[5], v3), op.Block(ctx, out[6])} {
		if err != nil {
			t.Fatalf("product %d: %v", i, err)
		}
	}
	return out
}

var factoredProductNames = []string{"MulTMul t=1", "MulTMul t=3", "MulT t=1", "MulT t=2", "Mul t=1", "Mul t=3", "Block"}

// TestFactoredMatchesOp checks every product of Factored against NewOp on
// the full X, for the Gaussian and the Laplacian, in float64 (relative
// error ≤ 1e-13: the factored kernel value exp(a)·exp(b) differs from
// exp(a+b) by a few ulps, 2⁻⁵² ≈ 2.2e-16 each, and the sums over n = 700
// rows and M = 45 centers add a few more; 1e-13 leaves a factor of ~50 over
// the measured maximum, which is logged) and with Float32 passes, on float64
// X and on a *Dense32 X, against the float64 products at float32KernelTol
// (the bound TestFloat32 applies to the unfactored float32 passes).
func TestFactoredMatchesOp(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, m = 700, 45
	x := oneHotData(r, n)
	c := factoredCenters(r, x, m)
	v1, v3, u1, u2 := randDense(r, m, 1), randDense(r, m, 3), randDense(r, n, 1), randDense(r, n, 2)
	x32, err := Dense32Of(x)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kernel{Gaussian{Gamma: 0.15}, Laplacian{Gamma: 0.1}} {
		ref := runProducts(t, NewOp(k, x, c, Options{BlockRows: 16}), n, m, v1, v3, u1, u2)
		f, err := NewFactored(k, x, c, nil, Options{BlockRows: 16})
		if err != nil {
			t.Fatal(err)
		}
		if f.Split().Patterns != 24 {
			t.Fatalf("%v: %d patterns", k, f.Split().Patterns)
		}
		got := runProducts(t, f, n, m, v1, v3, u1, u2)
		checkSharedCenters(t, f)
		worst := 0.0
		for i := range ref {
			e := relDiff(got[i], ref[i])
			worst = max(worst, e)
			if e > 1e-13 {
				t.Errorf("%v %s: relative error %.3g above 1e-13", k, factoredProductNames[i], e)
			}
		}
		t.Logf("%v float64: largest relative error %.2g", k, worst)
		for _, xin := range []mat.Matrix{x, x32} {
			if _, is32 := xin.(*Dense32); is32 && !runs32(k, false) {
				// The Laplacian reads a float32 X in float64: X_D is
				// gathered into float64, against the Op on the same values.
				ref32 := runProducts(t, NewOp(k, xin, c, Options{BlockRows: 16}), n, m, v1, v3, u1, u2)
				f, err := NewFactored(k, xin, c, nil, Options{BlockRows: 16})
				if err != nil {
					t.Fatal(err)
				}
				for i, g := range runProducts(t, f, n, m, v1, v3, u1, u2) {
					if e := relDiff(g, ref32[i]); e > 1e-13 {
						t.Errorf("%v *Dense32 %s: relative error %.3g above 1e-13", k, factoredProductNames[i], e)
					}
				}
				continue
			}
			opt := Options{BlockRows: 16, Float32: true}
			f32, err := NewFactored(k, xin, c, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			got := runProducts(t, f32, n, m, v1, v3, u1, u2)
			checkSharedCenters(t, f32)
			worst := 0.0
			for i := range ref {
				e := relDiff(got[i], ref[i])
				worst = max(worst, e)
				if e > float32KernelTol {
					t.Errorf("%v %T Float32 %s: relative error %.3g above %g", k, xin, factoredProductNames[i], e, float32KernelTol)
				}
			}
			t.Logf("%v %T Float32: largest relative error %.2g", k, xin, worst)
		}
	}
}

// checkSharedCenters checks that every group's Op of f reads the first
// group's packed C_D and norms (one copy, as Split.ScratchBytes plans)
// rather than a copy of its own.
func checkSharedCenters(t *testing.T, f *Factored) {
	t.Helper()
	same := func(a, b []float64) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }
	same32 := func(a, b []float32) bool { return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) }
	first := &f.ops[0].plan
	for g, op := range f.ops[1:] {
		q := &op.plan
		shared := same(q.cp, first.cp) && same(q.cn, first.cn) && same32(q.cp32, first.cp32) && same32(q.cn32, first.cn32) && q.l1 == first.l1
		if !shared {
			t.Fatalf("%v: group %d's Op packed its own centers", f.k, g+1)
		}
	}
	// Not vacuous: a dot-form kernel always packs C (the Laplacian only on
	// the SIMD paths, in l1).
	if _, dot := f.k.(dotForm); dot && len(first.cp)+len(first.cp32) == 0 {
		t.Fatalf("%v: the first group's Op holds no packed centers", f.k)
	}
}

// TestFactoredWorkers checks that 1 and 2 workers give the same bits, and
// a different block size the same values to rounding.
func TestFactoredWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const n, m = 600, 37
	x := oneHotData(r, n)
	c := factoredCenters(r, x, m)
	v1, v3, u1, u2 := randDense(r, m, 1), randDense(r, m, 3), randDense(r, n, 1), randDense(r, n, 2)
	for _, f32 := range []bool{false, true} {
		var outs [2][]*mat.Dense
		for i, w := range []int{1, 2} {
			f, err := NewFactored(Gaussian{Gamma: 0.2}, x, c, nil, Options{Workers: w, BlockRows: 8, Float32: f32})
			if err != nil {
				t.Fatal(err)
			}
			outs[i] = runProducts(t, f, n, m, v1, v3, u1, u2)
		}
		for i := range outs[0] {
			if !slices.Equal(outs[0][i].RawMatrix().Data, outs[1][i].RawMatrix().Data) {
				t.Errorf("Float32=%v %s: 1 and 2 workers differ", f32, factoredProductNames[i])
			}
		}
	}
}

// TestFactoredErrors checks what NewFactored refuses, and that a cancelled
// context stops every product with ctx.Err().
func TestFactoredErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	x := oneHotData(r, 300)
	c := factoredCenters(r, x, 20)
	if _, err := NewFactored(Polynomial{Gamma: 1, Coef0: 1, Degree: 2}, x, c, nil, Options{}); !errors.Is(err, ErrNotFactorable) {
		t.Fatalf("polynomial kernel: %v, want ErrNotFactorable", err)
	}
	if _, err := NewFactored(Linear{}, x, c, nil, Options{}); !errors.Is(err, ErrNotFactorable) {
		t.Fatalf("linear kernel: %v, want ErrNotFactorable", err)
	}
	if _, err := NewFactored(Gaussian{Gamma: 1}, x, randDense(r, 20, 13), nil, Options{}); !errors.Is(err, ErrNotFactorable) {
		t.Fatalf("13-column centers: %v, want ErrNotFactorable", err)
	}
	if _, err := NewFactored(Gaussian{Gamma: 1}, randDense(r, 30, 14), c, nil, Options{}); !errors.Is(err, ErrNotFactorable) {
		t.Fatalf("X without a split: %v, want ErrNotFactorable", err)
	}
	s, _ := DetectSplit(x, 0)
	if _, err := NewFactored(Gaussian{Gamma: 1}, oneHotData(r, 299), c, s, Options{}); !errors.Is(err, ErrNotFactorable) {
		t.Fatalf("split of another X: %v, want ErrNotFactorable", err)
	}
	if _, err := NewFactored(Gaussian{Gamma: -1}, x, c, s, Options{}); !errors.Is(err, ErrParam) {
		t.Fatalf("γ = −1: %v, want ErrParam", err)
	}
	f, err := NewFactored(Gaussian{Gamma: 1}, x, c, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, u := randDense(r, 20, 1), randDense(r, 300, 1)
	for i, err := range []error{f.MulTMul(ctx, mat.NewDense(20, 1, nil), v), f.MulT(ctx, mat.NewDense(20, 1, nil), u),
		f.Mul(ctx, mat.NewDense(300, 1, nil), v), f.Block(ctx, mat.NewDense(300, 20, nil))} {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("product %d on a cancelled context: %v", i, err)
		}
	}
	if err := f.MulTMul(context.Background(), mat.NewDense(21, 1, nil), v); err == nil {
		t.Error("MulTMul accepted a 21×1 dst for 20 centers")
	}
}

// TestSplitGain checks the cost model on covtype's shape (10 dense and 44
// two-valued columns, 75 patterns, 581,012 rows): the ratio is
// (a + 10b)/(a + 54b) plus the per-group term, 0.45 in float64 and 0.43 in
// float32 from the constants, so both pay; with a pattern per 31 rows the
// groups are too small.
func TestSplitGain(t *testing.T) {
	s := &Split{n: 581012, Dense: make([]int, 10), Discrete: make([]int, 44), Patterns: 75}
	for _, f32 := range []bool{false, true} {
		a, b := pairCost64, featureCost64
		if f32 {
			a, b = pairCost32, featureCost32
		}
		want := (a + 10*b + a*75/581012) / (a + 54*b)
		got, ok := s.Gain(f32)
		if !ok || math.Abs(got-want) > 1e-15 || got > 0.46 || !s.Pays(f32) {
			t.Fatalf("float32=%v: gain %v %v, want %v", f32, got, ok, want)
		}
	}
	s.Patterns = 581012/31 + 1
	if s.Pays(false) {
		t.Fatal("a pattern per 31 rows pays")
	}
	// Half the columns dense: (a + 27b)/(a + 54b) = 0.65 for float64 pays;
	// 50 of 54 dense does not.
	s = &Split{n: 1000, Dense: make([]int, 50), Discrete: make([]int, 4), Patterns: 3}
	if s.Pays(false) {
		t.Fatal("4 two-valued columns of 54 pay")
	}
}

// TestFactoredScratchBytes checks that the planned bytes, with what the
// plan leaves to the collector (every group's pooled partial sums and
// padded right-hand side, collectable), bound what a fresh Factored's
// first products allocate (packing every group's centers): the Go heap
// allocated during MulTMul and MulT (runtime.MemStats.TotalAlloc, after two
// collections empty the engine's pools), with 1 and 2 workers.
func TestFactoredScratchBytes(t *testing.T) {
	if raceBuild {
		t.Skip("-race: sync.Pool drops items at random, so the engine's pooled scratch is allocated again")
	}
	r := rand.New(rand.NewPCG(9, 10))
	const n, m = 2000, 300
	x := oneHotData(r, n)
	c := factoredCenters(r, x, m)
	s, _ := DetectSplit(x, 0)
	ctx := context.Background()
	for _, w := range []int{1, 2} {
		for _, tc := range []int{1, 3} {
			v, u := randDense(r, m, tc), randDense(r, n, tc)
			for name, call := range map[string]func(f *Factored) error{
				"MulTMul": func(f *Factored) error { return f.MulTMul(ctx, mat.NewDense(m, tc, nil), v) },
				"MulT":    func(f *Factored) error { return f.MulT(ctx, mat.NewDense(m, tc, nil), u) },
			} {
				f, err := NewFactored(Gaussian{Gamma: 0.1}, x, c, s, Options{Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				runtime.GC()
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				if err := call(f); err != nil {
					t.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				got, plan := int64(after.TotalAlloc-before.TotalAlloc), f.ScratchBytes(tc)
				garbage := s.collectable(f.k, false, m, tc, f.opt)
				t.Logf("workers=%d t=%d %s: allocated %d bytes, planned %d live + %d collectable (held %d)", w, tc, name, got, plan, garbage, f.HeldBytes())
				if got > plan+garbage {
					t.Errorf("workers=%d t=%d %s: allocated %d bytes, planned %d + %d", w, tc, name, got, plan, garbage)
				}
			}
		}
	}
}

// covtypeLike returns n rows shaped as covtype after standardization: 10
// standard-normal columns, then a one-hot block of 4 (wilderness) and one
// of 40 (soil), each indicator standardized to two values, with the pair
// drawn from 75 combinations.
func covtypeLike(r *rand.Rand, n int) *mat.Dense {
	x := mat.NewDense(n, 54, nil)
	pairs := make([][2]int, 75)
	for p := range pairs {
		pairs[p] = [2]int{r.IntN(4), r.IntN(40)}
	}
	for i := range n {
		row := x.RawRowView(i)
		for j := range 10 {
			row[j] = r.NormFloat64()
		}
		pr := pairs[r.IntN(75)]
		for j := 10; j < 54; j++ {
			row[j] = -0.3
		}
		row[10+pr[0]] = 2.1
		row[14+pr[1]] = 3.3
	}
	return x
}

// BenchmarkFactoredMulTMul times the fused pass K_nMᵀ(K_nM v) on
// covtype-shaped data (n = 100,000, d = 54 of which 44 two-valued, M =
// 2,000), unfactored and factored, float64 and Float32.
func BenchmarkFactoredMulTMul(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	const n, m = 100_000, 2000
	x := covtypeLike(r, n)
	c := factoredCenters(r, x, m)
	v := randDense(r, m, 1)
	k := Gaussian{Gamma: 1.0 / 54}
	s, ok := DetectSplit(x, 0)
	if !ok {
		b.Fatal("no split")
	}
	for _, f32 := range []bool{false, true} {
		opt := Options{Float32: f32}
		f, err := NewFactored(k, x, c, s, opt)
		if err != nil {
			b.Fatal(err)
		}
		for name, op := range map[string]interface {
			MulTMul(ctx context.Context, dst, v *mat.Dense) error
		}{"op": NewOp(k, x, c, opt), "factored": f} {
			b.Run(fmt.Sprintf("%s/float32=%v", name, f32), func(b *testing.B) {
				dst := mat.NewDense(m, 1, nil)
				for b.Loop() {
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestFactoredBlockChunks checks Block when a group is cut into chunks
// (chunkRows rows of K_D at a time, each on an Op of its own): M = 2,100
// centers make a chunk 499 rows, and two patterns over 1,200 rows make
// groups of about 600; the result is the unfactored Block's to 1e-13
// relative (as in TestFactoredMatchesOp).
func TestFactoredBlockChunks(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	const n, m = 1200, 2100
	x := mat.NewDense(n, 4, nil)
	for i := range n {
		row := x.RawRowView(i)
		row[0], row[1] = r.NormFloat64(), r.NormFloat64()
		b := r.IntN(2)
		row[2+b] = 1
	}
	c := factoredCenters(r, x, m)
	f, err := NewFactored(Gaussian{Gamma: 0.3}, x, c, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.chunkRows() >= maxSize(f.split.sizes) {
		t.Fatalf("chunks of %d rows do not cut groups of %v", f.chunkRows(), f.split.sizes)
	}
	got, want := mat.NewDense(n, m, nil), mat.NewDense(n, m, nil)
	if err := f.Block(context.Background(), got); err != nil {
		t.Fatal(err)
	}
	if err := NewOp(Gaussian{Gamma: 0.3}, x, c, Options{}).Block(context.Background(), want); err != nil {
		t.Fatal(err)
	}
	if e := relDiff(got, want); e > 1e-13 {
		t.Fatalf("chunked Block: relative error %.3g above 1e-13", e)
	}
}
