package precond

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// gaussKMM returns K_MM for m random points in 3-d with a Gaussian kernel.
func gaussKMM(seed uint64, m int, gamma float64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	c := mat.NewDense(m, 3, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < 3; j++ {
			c.Set(i, j, rng.NormFloat64())
		}
	}
	k := kernel.Gaussian{Gamma: gamma}
	out := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		for j := 0; j < m; j++ {
			out.Set(i, j, k.Eval(c.RawRowView(i), c.RawRowView(j)))
		}
	}
	return out
}

func maxAbs(a mat.Matrix) float64 {
	r, c := a.Dims()
	var m float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)))
		}
	}
	return m
}

// applyDense returns the M×M matrix of x ↦ f(x) by applying f to the identity.
func applyDense(m int, f func(x *mat.Dense) error) (*mat.Dense, error) {
	x := mat.NewDense(m, m, nil)
	for i := 0; i < m; i++ {
		x.Set(i, i, 1)
	}
	return x, f(x)
}

// The identities of eq. 14 and eq. 15, checked densely on a 25-center
// problem. ε = 1e-4 and λ = 1e-3 keep the matrices moderately conditioned
// (the smallest eigenvalue of K + εMI is at least εM = 2.5e-3), so BBᵀ·H − I
// is rounding-level: measured 6e-12 (eq. 14) and 8e-12 (eq. 15); the bound
// 1e-9 leaves two orders of magnitude.
func TestFalkonIdentities(t *testing.T) {
	const m, n, lambda, eps = 25, 400, 1e-3, 1e-4
	kmm := gaussKMM(1, m, 0.5)
	w := make([]float64, m)
	rng := rand.New(rand.NewPCG(2, 2))
	for j := range w {
		w[j] = 0.2 + 3*rng.Float64()
	}
	for _, weighted := range []bool{false, true} {
		work := mat.DenseCopyOf(kmm)
		var p *Falkon
		var err error
		if weighted {
			p, err = BuildWeighted(work, n, lambda, w, Options{Epsilon: eps})
		} else {
			p, err = BuildFalkon(work, n, lambda, Options{Epsilon: eps})
		}
		if err != nil {
			t.Fatal(err)
		}
		if p.JitterT != 0 || p.JitterA != 0 || p.Weighted != weighted || p.Epsilon != eps {
			t.Errorf("weighted=%v: %+v", weighted, p)
		}
		// Gaussian diagonal is 1, so the shift is exactly εM.
		if math.Abs(p.Shift-eps*m) > 1e-18 {
			t.Errorf("shift %g, want εM = %g", p.Shift, eps*m)
		}
		// TᵀT = K_MM + εMI.
		k := mat.DenseCopyOf(kmm)
		for i := 0; i < m; i++ {
			k.Set(i, i, k.At(i, i)+p.Shift)
		}
		tt := p.T()
		var ttt mat.Dense
		ttt.Mul(tt.T(), tt)
		ttt.Sub(&ttt, k)
		if d := maxAbs(&ttt); d > 1e-12 {
			t.Errorf("weighted=%v: TᵀT − (K_MM + εMI) = %g", weighted, d)
		}
		// (BBᵀ)·((n/M) K D⁻¹ K + λn K) = I with K = K_MM + εMI and D = diag(w)
		// (D = I for eq. 14).
		bbt, err := applyDense(m, func(x *mat.Dense) error { return p.Precondition(context.Background(), x, x) })
		if err != nil {
			t.Fatal(err)
		}
		kd := mat.DenseCopyOf(k)
		if weighted {
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					kd.Set(i, j, k.At(i, j)/w[j])
				}
			}
		}
		var h mat.Dense
		h.Mul(kd, k)
		h.Scale(float64(n)/m, &h)
		var lk mat.Dense
		lk.Scale(lambda*n, k)
		h.Add(&h, &lk)
		var prod mat.Dense
		prod.Mul(bbt, &h)
		for i := 0; i < m; i++ {
			prod.Set(i, i, prod.At(i, i)-1)
		}
		t.Logf("weighted=%v: max abs of BBᵀH − I = %.2g", weighted, maxAbs(&prod))
		if d := maxAbs(&prod); d > 1e-9 {
			t.Errorf("weighted=%v: BBᵀ·(eq. %d matrix) − I = %g", weighted, map[bool]int{false: 14, true: 15}[weighted], d)
		}
		// BBᵀ is symmetric, and MulB after MulBT is the same thing.
		var asym mat.Dense
		asym.Sub(bbt, bbt.T())
		if d := maxAbs(&asym) / maxAbs(bbt); d > 1e-12 {
			t.Errorf("weighted=%v: BBᵀ asymmetric by %g", weighted, d)
		}
		// MulKMM applies the K_MM given at build time (no shift).
		v := mat.NewDense(m, 2, nil)
		for i := 0; i < m; i++ {
			v.Set(i, 0, rng.NormFloat64())
			v.Set(i, 1, rng.NormFloat64())
		}
		got := mat.NewDense(m, 2, nil)
		if err := p.MulKMM(got, v); err != nil {
			t.Fatal(err)
		}
		var want mat.Dense
		want.Mul(kmm, v)
		want.Sub(&want, got)
		if d := maxAbs(&want); d > 1e-12 {
			t.Errorf("weighted=%v: MulKMM differs from K_MM·v by %g", weighted, d)
		}
	}
}

// With all weights 1, eq. 15 is eq. 14.
func TestWeightedOnesIsFalkon(t *testing.T) {
	const m = 20
	kmm := gaussKMM(3, m, 1)
	ones := make([]float64, m)
	for i := range ones {
		ones[i] = 1
	}
	a, err := BuildFalkon(mat.DenseCopyOf(kmm), 100, 1e-4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildWeighted(mat.DenseCopyOf(kmm), 100, 1e-4, ones, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := applyDense(m, func(x *mat.Dense) error { return a.Precondition(context.Background(), x, x) })
	pb, _ := applyDense(m, func(x *mat.Dense) error { return b.Precondition(context.Background(), x, x) })
	// Same arithmetic except multiplications by 1/1: identical.
	if !mat.Equal(pa, pb) {
		t.Error("weighted preconditioner with unit weights differs from eq. 14")
	}
	if a.Epsilon != DefaultEpsilon {
		t.Errorf("default epsilon %g, want %g", a.Epsilon, DefaultEpsilon)
	}
}

// A rank-deficient K_MM (duplicated centers) with a tiny ε still factors:
// the extra jitter is added and reported.
func TestFalkonJitterReported(t *testing.T) {
	k := gaussKMM(4, 10, 1)
	dup := mat.NewDense(20, 20, nil)
	for i := 0; i < 20; i++ {
		for j := 0; j < 20; j++ {
			dup.Set(i, j, k.At(i%10, j%10))
		}
	}
	p, err := BuildFalkon(dup, 100, 1e-6, Options{Epsilon: 1e-300})
	if err != nil {
		t.Fatal(err)
	}
	if !(p.JitterT > 0) {
		t.Errorf("JitterT = %g, want > 0 for a singular K_MM with ε = 1e-300", p.JitterT)
	}
}

func TestFalkonBadInput(t *testing.T) {
	k := gaussKMM(5, 5, 1)
	cases := []struct {
		name string
		f    func() error
	}{
		{"non-square", func() error { _, err := BuildFalkon(mat.NewDense(3, 4, nil), 10, 1, Options{}); return err }},
		{"n = 0", func() error { _, err := BuildFalkon(mat.DenseCopyOf(k), 0, 1, Options{}); return err }},
		{"λ = 0", func() error { _, err := BuildFalkon(mat.DenseCopyOf(k), 10, 0, Options{}); return err }},
		{"λ NaN", func() error { _, err := BuildFalkon(mat.DenseCopyOf(k), 10, math.NaN(), Options{}); return err }},
		{"ε < 0", func() error { _, err := BuildFalkon(mat.DenseCopyOf(k), 10, 1, Options{Epsilon: -1}); return err }},
		{"4 weights", func() error {
			_, err := BuildWeighted(mat.DenseCopyOf(k), 10, 1, []float64{1, 1, 1, 1}, Options{})
			return err
		}},
		{"zero weight", func() error {
			_, err := BuildWeighted(mat.DenseCopyOf(k), 10, 1, []float64{1, 1, 0, 1, 1}, Options{})
			return err
		}},
	}
	for _, c := range cases {
		if err := c.f(); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", c.name, err)
		}
	}
}

func TestIdentityAndJacobi(t *testing.T) {
	r := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	dst := mat.NewDense(3, 2, nil)
	if err := (Identity{}).Precondition(context.Background(), dst, r); err != nil || !mat.Equal(dst, r) {
		t.Errorf("identity: %v, %v", mat.Formatted(dst), err)
	}
	j := Jacobi{Diag: []float64{1, 2, 4}}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := j.Precondition(context.Background(), dst, r); err != nil {
		t.Fatal(err)
	}
	want := mat.NewDense(3, 2, []float64{1, 2, 1.5, 2, 1.25, 1.5})
	if !mat.Equal(dst, want) {
		t.Errorf("jacobi: got %v", mat.Formatted(dst))
	}
	if err := (Jacobi{Diag: []float64{1, 0}}).Validate(); !errors.Is(err, ErrInput) {
		t.Errorf("zero diagonal: err = %v", err)
	}
	if err := j.Precondition(context.Background(), dst, mat.NewDense(2, 2, nil)); !errors.Is(err, ErrInput) {
		t.Errorf("wrong size: err = %v", err)
	}
}

// MulKMM equals the dense K_MM·v to 1e-12 for one column (the row
// kernels' path, v contiguous), one column viewed with a stride, three
// columns (one panel) and seventeen (two panels, the second of one column),
// at an M with all kmmSegments segments in use, segments not multiples of
// kmmGroup rows and rows longer than kmmChunk (pieces cut at it), and its
// result is bit-identical at GOMAXPROCS 1 and 4 (fixed segments, added in
// order). 1e-12: the sums of 1,100 terms of size ≤ 1 in float64 are exact
// to about 1,100·1.1e-16 ≈ 1e-13 relative to the largest entry.
func TestMulKMMPaths(t *testing.T) {
	const m = 1100
	kmm := gaussKMM(3, m, 0.05)
	p, err := BuildFalkon(mat.DenseCopyOf(kmm), 5000, 1e-4, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := kmmBounds(m)
	if len(b) != kmmSegments+1 || b[0] != 0 || b[len(b)-1] != m || m <= kmmChunk {
		t.Fatalf("bounds %v for M = %d (chunk %d)", b, m, kmmChunk)
	}
	if !slices.ContainsFunc(b, func(i int) bool { return i%kmmGroup != 0 }) {
		t.Fatalf("bounds %v all multiples of %d", b, kmmGroup)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	wide := mat.NewDense(m, 18, nil)
	for i := 0; i < m; i++ {
		for c := 0; c < 18; c++ {
			wide.Set(i, c, rng.NormFloat64())
		}
	}
	one := mat.DenseCopyOf(wide.Slice(0, m, 0, 1))
	cases := map[string]*mat.Dense{
		"t=1":         one,
		"t=1 strided": wide.Slice(0, m, 1, 2).(*mat.Dense),
		"t=3":         wide.Slice(0, m, 0, 3).(*mat.Dense),
		"t=17":        wide.Slice(0, m, 1, 18).(*mat.Dense),
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for name, v := range cases {
		_, tc := v.Dims()
		var want mat.Dense
		want.Mul(kmm, v)
		var got [2]*mat.Dense
		for k, procs := range []int{1, 4} {
			runtime.GOMAXPROCS(procs)
			got[k] = mat.NewDense(m, tc, nil)
			if err := p.MulKMM(got[k], v); err != nil {
				t.Fatal(err)
			}
		}
		var d mat.Dense
		d.Sub(&want, got[0])
		if e := maxAbs(&d) / maxAbs(&want); e > 1e-12 {
			t.Errorf("%s: MulKMM differs from K_MM·v by %.3g relative", name, e)
		}
		if !mat.Equal(got[0], got[1]) {
			t.Errorf("%s: result depends on the number of workers", name)
		}
	}
}

// TestApplyPlannedBytes: what a built preconditioner allocates while CG
// runs, one MulKMM and one Precondition (four triangular solves), measured
// as runtime.MemStats.TotalAlloc after two collections, is at most
// applyScratchBytes(M, t) for one, three, fifteen and twenty columns and
// both precisions, and seventeen (two slabs) in float32, and ScratchBytes
// (the plan's term for the preconditioner) bounds it. At twenty columns
// the float64 factor solves by the blocked algorithm, whose scratch grows
// with t: the first iteration must also allocate more than the plan at 16
// columns (+ the slack), so a plan that ignored t would fail here. Four
// iterations more, the garbage collector off so the kept buffers are not
// freed, allocate under 128 KiB in all: the buffers are reused (re-made,
// the smallest of them, one column's solve buffer of 11 KB, would add 176
// KB over four iterations; MulKMM's 146 KB for one column, the 174 KB
// panels, the 512 KB widened block more). What remains is the tasks'
// closures and goroutines, 5–21 KiB an iteration (measured; 84 KiB for
// four iterations at t = 17). The slack of the first iteration, 64 KiB, is
// the rounding of its four large buffers up to whole 8 KiB pages and those
// closures, not the scratch. M = 1,100 ≥ 1,024: the few-column solves run
// (smaller float64 factors go to gonum's trsm). Skipped under the race
// detector, whose sync.Pool (in gonum and the engine) drops buffers at
// random.
func TestApplyPlannedBytes(t *testing.T) {
	// reuse bounds four further iterations: 128 KiB (see above), and 512
	// KiB where the float64 factor solves by the blocked algorithm, whose
	// products each allocate their run's state (task lists, goroutines:
	// kernel's denseCallBytes, a few KiB a Gemm, several Gemms a solve, 16
	// solves): 244 KB measured at t = 20, M = 1,100 on AVX-512; package
	// solver's TestBlockedSolvePlannedBytes allows 512 KiB for four solves.
	reuse := func(prec Precision, tc int) int64 {
		if prec == PrecisionFloat64 && tc >= kernel.PanelWidth {
			return 512 << 10
		}
		return 128 << 10
	}
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops buffers at random")
	}
	const m = 1100
	kmm := gaussKMM(4, m, 0.05)
	rng := rand.New(rand.NewPCG(5, 6))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const slack = 64 << 10
	for _, prec := range []Precision{PrecisionFloat64, PrecisionFloat32} {
		p, err := BuildFalkon(mat.DenseCopyOf(kmm), 5000, 1e-4, Options{Precision: prec})
		if err != nil {
			t.Fatal(err)
		}
		cols := []int{1, 3, 15, 20}
		if prec == PrecisionFloat32 {
			cols = append(cols, 17) // two slabs; float64 takes the blocked solve from 16 columns
		}
		for _, tc := range cols {
			v, dst := mat.NewDense(m, tc, nil), mat.NewDense(m, tc, nil)
			for i := range v.RawMatrix().Data {
				v.RawMatrix().Data[i] = rng.NormFloat64()
			}
			iter := func() error {
				if err := p.MulKMM(dst, v); err != nil {
					return err
				}
				return p.Precondition(context.Background(), dst, dst)
			}
			plan := applyScratchBytes(m, tc)
			if ScratchBytes(m, tc) < plan {
				t.Fatalf("ScratchBytes(%d, %d) = %d < the application's %d", m, tc, ScratchBytes(m, tc), plan)
			}
			got := heap.AllocatedFresh(t, iter)
			t.Logf("%s t=%d: first iteration allocated %d bytes, plan %d (at 16 columns %d)", prec, tc, got, plan, applyScratchBytes(m, 16))
			if got > plan+slack {
				t.Errorf("%s t=%d: first iteration allocated %d bytes, plan %d (+ %d)", prec, tc, got, plan, slack)
			}
			// The plan before it took t: MulKMM's and the solves' scratch at a
			// panel's 16 columns, no products' buffer.
			old := 8*int64(kmmScratchLen(m, kernel.PanelWidth)) + max(solver.SolveScratchBytes(m, kernel.PanelWidth), solver.SolveScratchBytes32(m, kernel.PanelWidth))
			if prec == PrecisionFloat64 && tc == 20 && got <= old+slack {
				t.Errorf("%s t=%d: first iteration allocated %d bytes, within the plan that ignored t, %d (+ %d): the blocked solves are not measured", prec, tc, got, old, slack)
			}
			if got := heap.Allocated(t, func() error {
				for range 4 {
					if err := iter(); err != nil {
						return err
					}
				}
				return nil
			}); got >= reuse(prec, tc) {
				t.Errorf("%s t=%d: four more iterations allocated %d bytes, want < %d", prec, tc, got, reuse(prec, tc))
			}
		}
	}
}
