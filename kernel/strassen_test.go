package kernel

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"gonum.org/v1/gonum/mat"
)

// intDense returns an n×d matrix of integers in [−4, 4]: every product and
// sum the Strassen and classical products form on it (|values| ≤ 4·4·4·d
// < 2^53) is exact in float64, so both must give the exact dot products.
func intDense(r *rand.Rand, n, d int) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := range n {
		for j := range d {
			m.Set(i, j, float64(r.IntN(9)-4))
		}
	}
	return m
}

// strassenBlock runs strassenDots for the block X[r0:r1] of op's plan with
// the Strassen operands s, on the inner kernels the worker uses.
func strassenBlock(op *Op, s *strassenPlan, r0, r1 int) []float64 {
	p := op.prepare()
	w := p.getWork(r1-r0, 1)
	defer putWorks([]*work{w})
	p.strassenDots(w, s, r0, r1)
	return append([]float64(nil), w.blk[:(r1-r0)*p.mp]...)
}

// TestWinogradIdentity checks the Winograd formulas and their indexing in
// exact arithmetic: on integer data strassenDots must give the exact dot
// products, for even and odd d (a zero feature padded), with and without
// leftover rows (rows not a multiple of 2·panelRows) and centers (mp not a
// multiple of 2·panelCols), on each SIMD path.
func TestWinogradIdentity(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 1))
	for _, a := range accels()[1:] {
		restore := setAccel(a)
		for _, d := range []int{40, 41, 600} {
			for _, m := range []int{32, 50, 70} {
				for _, rows := range []int{16, 37, 64} {
					x, c := intDense(r, rows+5, d), intDense(r, m, d)
					op := NewOp(Gaussian{Gamma: 1}, x, c, Options{Workers: 1})
					p := op.prepare()
					s := newStrassenPlan(p.c, p.m, p.d, p.mp, p.half, true, 1)
					got := strassenBlock(op, s, 5, 5+rows)
					for i := range rows {
						for j := range m {
							want := mat.Dot(x.RowView(5+i), c.RowView(j))
							if g := got[i*p.mp+j]; g != want {
								t.Fatalf("%v d=%d m=%d rows=%d: (%d,%d) = %v, want %v", a, d, m, rows, i, j, g, want)
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// BenchmarkStrassenDots compares one 256-row block of X·Cᵀ at d = 784,
// M = 2,000, classical (dots) and with one Winograd level (strassenDots),
// in thread CPU time, alternating.
func BenchmarkStrassenDots(b *testing.B) {
	const n, m, rows = 4096, 2000, 256
	for _, d := range []int{256, 384, 512, 784} {
		r := rand.New(rand.NewPCG(1, 2))
		x, c := randDense(r, n, d), randDense(r, m, d)
		for _, a := range accels()[1:] {
			b.Run(fmt.Sprintf("d=%d/%v", d, a), func(b *testing.B) {
				defer setAccel(a)()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, Options{Workers: 1})
				p := op.prepare()
				s := newStrassenPlan(p.c, p.m, p.d, p.mp, p.half, true, 1)
				w := p.getWork(rows, 1)
				defer putWorks([]*work{w})
				flops := 2 * float64(n) * m * float64(d)
				var tc, ts float64
				for b.Loop() {
					t0 := threadCPU()
					for r0 := 0; r0 < n; r0 += rows {
						p.dots(w, r0, r0+rows)
					}
					t1 := threadCPU()
					for r0 := 0; r0 < n; r0 += rows {
						p.strassenDots(w, s, r0, r0+rows)
					}
					t2 := threadCPU()
					tc += float64(t1 - t0)
					ts += float64(t2 - t1)
				}
				b.ReportMetric(flops*float64(b.N)/tc, "classic-GFLOP/s")
				b.ReportMetric(flops*float64(b.N)/ts, "strassen-GFLOP/s-equiv")
				b.ReportMetric(tc/ts, "speedup")
			})
		}
	}
}

// BenchmarkStrassenMulTMul is the A/B of the fused training pass
// (MulTMul, Gaussian, γ = 1/d, M = 2,000, d = 784) with the classical
// distance product and with one Winograd level, alternating within each
// iteration, in process CPU seconds per pass: at n = 20,000 on one Op (a CG
// solve's passes), and at n = 100,000 with a new Op each pass, as
// "landmark bench kernel" times it (packing C, and forming the Winograd
// operands, included).
func BenchmarkStrassenMulTMul(b *testing.B) {
	const m, d = 2_000, 784
	for _, n := range []int{20_000, 100_000} {
		r := rand.New(rand.NewPCG(1, 2))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		dst := mat.NewDense(m, 1, nil)
		fresh := n == 100_000
		for _, a := range accels()[1:] {
			b.Run(fmt.Sprintf("n=%d/%v", n, a), func(b *testing.B) {
				defer setAccel(a)()
				op := NewOp(Gaussian{Gamma: 1.0 / d}, x, c, Options{})
				var t [2]float64
				pass := func(on bool) float64 {
					defer setStrassen(on)()
					if fresh {
						op = NewOp(Gaussian{Gamma: 1.0 / d}, x, c, Options{})
					}
					c0 := processCPU()
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
					return float64(processCPU()-c0) / 1e9
				}
				pass(false) // packs C
				pass(true)  // forms the Strassen operands
				b.ResetTimer()
				for b.Loop() {
					t[0] += pass(false)
					t[1] += pass(true)
				}
				flops := float64(n) * m * (2*float64(d) + 4)
				b.ReportMetric(t[0]/float64(b.N), "classic-cpu-s")
				b.ReportMetric(t[1]/float64(b.N), "strassen-cpu-s")
				b.ReportMetric(flops*float64(b.N)/t[1]/1e9, "strassen-GFLOP/s-equiv-per-cpu-s")
				b.ReportMetric(t[0]/t[1], "speedup")
			})
		}
	}
}

// setStrassen sets strassenOn for a test and returns the function that
// restores it.
func setStrassen(on bool) (restore func()) {
	old := strassenOn
	strassenOn = on
	return func() { strassenOn = old }
}

// strassenBound is a first-order bound on |ĉ − c| for one element of the
// one-level Winograd product with k = dh features a half, inputs bounded
// by α (X) and β (C), u = 2^−53: the X-side sums are at most 4α in size
// (S4 = A11 + A12 − A21 − A22) with at most 3 roundings, error ≤ 12αu
// (loose), the C side likewise (4β, 12βu); a product of such operands over
// k features differs from the exact one by at most γ_k·k·16αβ ≈ 16k²αβu
// (the classical bound, any summation order) plus k·(12αu·4β + 4α·12βu) =
// 96kαβu from the operands' errors; an element is a sum of at most four
// products (|P| ≤ 16kαβ) with three roundings: ≤ 3u·4·16kαβ = 192kαβu.
// Total 4·(16k² + 96k)αβu + 192kαβu = (64k² + 576k)αβu. The classical
// elements (rows and centers outside the halves) are within d²αβu =
// 4k²αβu of theirs, below it. Higham, "Accuracy and Stability of
// Numerical Algorithms" (2002), Theorem 23.3, gives the same form (a
// normwise bound with a constant growing faster than the classical k).
func strassenBound(k int, alpha, beta float64) float64 {
	const u = 0x1p-53
	kf := float64(k)
	return (64*kf*kf + 576*kf) * alpha * beta * u * 1.01 // 1.01: the O(u²) terms
}

// TestStrassenError compares strassenDots on random normal data with the
// exact dot products (math/big at 2,000 bits: each product of two float64
// is exact in 106 bits and the sums of these are exact at that precision)
// and checks every element against strassenBound; the classical product's
// error is logged for comparison.
func TestStrassenError(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 2))
	for _, a := range accels()[1:] {
		restore := setAccel(a)
		for _, d := range []int{60, 61} {
			const rows, m = 40, 80
			x, c := randDense(r, rows, d), randDense(r, m, d)
			op := NewOp(Gaussian{Gamma: 1}, x, c, Options{Workers: 1})
			p := op.prepare()
			s := newStrassenPlan(p.c, p.m, p.d, p.mp, p.half, false, 1)
			got := strassenBlock(op, s, 0, rows)
			w := p.getWork(rows, 1)
			p.dots(w, 0, rows)
			alpha, beta := maxAbs(x), maxAbs(c)
			bound := strassenBound((d+1)/2, alpha, beta)
			var worst, worstClassic float64
			for i := range rows {
				for j := range m {
					e := exactDot(x.RawRowView(i), c.RawRowView(j))
					worst = math.Max(worst, math.Abs(got[i*p.mp+j]-e))
					worstClassic = math.Max(worstClassic, math.Abs(w.blk[i*p.mp+j]-e))
				}
			}
			putWorks([]*work{w})
			t.Logf("%v d=%d: max error %.3g (Strassen), %.3g (classical), bound %.3g", a, d, worst, worstClassic, bound)
			if worst > bound {
				t.Errorf("%v d=%d: max error %.3g > bound %.3g", a, d, worst, bound)
			}
		}
		restore()
	}
}

func maxAbs(a *mat.Dense) float64 {
	var m float64
	r, c := a.Dims()
	for i := range r {
		for j := range c {
			m = math.Max(m, math.Abs(a.At(i, j)))
		}
	}
	return m
}

// exactDot returns x·y rounded once from its exact value.
func exactDot(x, y []float64) float64 {
	s := new(big.Float).SetPrec(2000)
	for k := range x {
		p := new(big.Float).SetPrec(2000).SetFloat64(x[k])
		p.Mul(p, new(big.Float).SetPrec(2000).SetFloat64(y[k]))
		s.Add(s, p)
	}
	f, _ := s.Float64()
	return f
}

// strassenProblem is a fused-pass problem on which MulTMul takes the
// Strassen product: d = 520 ≥ strassenMinDim, 300 rows in 64-row blocks (a
// last block of 44, whose last 12 rows are outside the halves), M = 70
// (mp = 80: 16 centers outside the halves), v > 0.
func strassenProblem(r *rand.Rand) (x, c, v *mat.Dense, opt Options) {
	const n, m, d = 300, 70, 520
	x, c = randDense(r, n, d), randDense(r, m, d)
	v = mat.NewDense(m, 1, nil)
	for i := range m {
		v.Set(i, 0, 0.5+r.Float64())
	}
	return x, c, v, Options{BlockRows: 64}
}

// TestStrassenPathsAgree: the Strassen distance products give the same
// bits on the AVX-512 and AVX2 tiles (the same partition, feature blocks
// and order of additions; the fused passes' exp maps and sums differ
// between the paths, with or without Strassen, so the blocks are compared),
// for even and odd d and blocks with rows outside the halves; and MulTMul
// with the Strassen product gives the same bits whatever the worker count
// (blocks fixed by BlockRows).
func TestStrassenPathsAgree(t *testing.T) {
	as := accels()[1:]
	if len(as) < 2 {
		t.Skip("needs the AVX-512 and AVX2 tiles")
	}
	r := rand.New(rand.NewPCG(25, 3))
	for _, d := range []int{520, 521} {
		x, c := randDense(r, 100, d), randDense(r, 70, d)
		for _, rows := range []int{64, 44} {
			var ref []float64
			for _, a := range as {
				restore := setAccel(a)
				op := NewOp(Gaussian{Gamma: 1}, x, c, Options{Workers: 1})
				p := op.prepare()
				s := newStrassenPlan(p.c, p.m, p.d, p.mp, p.half, false, 1)
				got := strassenBlock(op, s, 7, 7+rows)
				restore()
				if ref == nil {
					ref = got
					continue
				}
				for i := range rows {
					for j := range 70 {
						if g, w := got[i*p.mp+j], ref[i*p.mp+j]; g != w {
							t.Fatalf("d=%d rows=%d: (%d,%d) = %v on %v, %v on %v", d, rows, i, j, g, a, w, as[0])
						}
					}
				}
			}
		}
	}
	x, c, v, opt := strassenProblem(r)
	_, d := x.Dims()
	for _, a := range as {
		var ref *mat.Dense
		for _, workers := range []int{1, 2, 3} {
			restore := setAccel(a)
			opt.Workers = workers
			op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, opt)
			if !trainsStrassen(op) {
				t.Fatalf("%v: the Strassen product does not apply", a)
			}
			dst := mat.NewDense(70, 1, nil)
			if err := op.MulTMul(context.Background(), dst, v); err != nil {
				t.Fatal(err)
			}
			restore()
			if ref == nil {
				ref = dst
				continue
			}
			if !mat.Equal(dst, ref) {
				t.Fatalf("%v workers=%d: MulTMul differs from workers=1", a, workers)
			}
		}
	}
}

// TestStrassenFused compares the fused pass with the Strassen product and
// with the classical one. Each dot product of the two differs by at most
// δ = strassenBound(d/2) + d²αβu (the classical error), so each kernel
// value by a relative η = 2γδ (K = exp(−γ(‖x‖² + ‖c‖² − 2x·c)), to first
// order); with v > 0 every sum is of positive terms, so K·v and then
// Kᵀ(K v) differ by a relative 2η, plus the two passes' own roundings of
// the sums (n + M terms: (n + M)u each) and of exp (3 ulps each, TestExpNeg).
func TestStrassenFused(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	x, c, v, opt := strassenProblem(r)
	n, d := x.Dims()
	m, _ := c.Dims()
	gamma := 1 / float64(d)
	const u = 0x1p-53
	alpha, beta := maxAbs(x), maxAbs(c)
	delta := strassenBound((d+1)/2, alpha, beta) + float64(d*d)*alpha*beta*u
	tol := 4*gamma*delta + 2*float64(n+m)*u + 12*u
	for _, a := range accels()[1:] {
		restore := setAccel(a)
		var out [2]*mat.Dense
		for i, on := range []bool{false, true} {
			restoreS := setStrassen(on)
			op := NewOp(Gaussian{Gamma: gamma}, x, c, opt)
			if got := trainsStrassen(op); got != on {
				t.Fatalf("%v: LANDMARK_STRASSEN on = %v, but the pass uses Strassen = %v", a, on, got)
			}
			out[i] = mat.NewDense(m, 1, nil)
			if err := op.MulTMul(context.Background(), out[i], v); err != nil {
				t.Fatal(err)
			}
			restoreS()
		}
		restore()
		var worst float64
		for j := range m {
			want := out[0].At(j, 0)
			worst = math.Max(worst, math.Abs(out[1].At(j, 0)-want)/math.Abs(want))
		}
		t.Logf("%v: max relative difference %.3g, bound %.3g", a, worst, tol)
		if worst > tol {
			t.Errorf("%v: Kᵀ(K v) with Strassen differs from the classical pass by %.3g relative, bound %.3g", a, worst, tol)
		}
	}
}

// TestStrassenScratchBytes: MulTMul with the Strassen product allocates
// (fresh works) at most ScratchBytes(1), which counts the C-side operands
// (strassenHeldBytes; HeldBytes does not: Block never forms them) and a worker's X-side operands and
// product (strassenWorkLen); and at least the plan less callBytes, the
// scratch of the workers that may take no block, the products' packing
// buffers (blockPackBytes: the fused pass packs nothing for gonum-style
// products, the plan counts them for every t ≥ 1 product) and the
// reduction's partial sums (their buffer is recycled between products,
// sumsSlot).
func TestStrassenScratchBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	x, c, v, opt := strassenProblem(r)
	_, d := x.Dims()
	for _, workers := range []int{1, 2} {
		opt.Workers = workers
		op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, opt)
		if !op.strassenApplies(useAccel) {
			t.Skip("no SIMD tiles: the Strassen product does not apply")
		}
		// Packed C, the norms of X and C, and lazyNorms' 4-byte state for
		// each of the ⌈300/64⌉ = 5 chunks of X's rows.
		if held, want := op.HeldBytes(), 8*int64(80*520+300+80)+4*5; held != want {
			t.Errorf("HeldBytes = %d, want %d (packed C and norms; the Strassen operands are in ScratchBytes(1))", held, want)
		}
		plan := op.ScratchBytes(1)
		strassenPacks.drain() // no recycled operands: the call allocates them
		dst := mat.NewDense(70, 1, nil)
		got := heap.AllocatedFresh(t, func() error { return op.MulTMul(context.Background(), dst, v) })
		work := op.workBytes(1) + blockPackBytes(64, 70, 1) + 8*int64(strassenWorkLen(64, 80, 520))
		low := plan - callBytes - int64(workers-1)*work - int64(workers)*blockPackBytes(64, 70, 1) - 8*int64(segments(5, 80))*80
		t.Logf("workers=%d: MulTMul allocated %d bytes, plan %d", workers, got, plan)
		if got > plan || got < low {
			t.Errorf("workers=%d: MulTMul allocated %d bytes, want within [%d, %d]", workers, got, low, plan)
		}
	}
}

// trainsStrassen reports whether MulTMul on op takes the Strassen product
// (trainStrassen gives a plan), handing the plan's buffer back.
func trainsStrassen(op *Op) bool {
	s, release := op.trainStrassen(op.prepare())
	release()
	return s != nil
}

// TestStrassenRecycled: MulTMul's C-side operands live in buffers that
// strassenPacks recycles between calls and Ops. Whatever buffer a call
// gets, its result has the bits of a call on a fresh Op with an empty
// cache: here Ops A and B (other centers, the same shape, so that B gets
// A's buffer) alternate A, A, B, A, B, each checked against its
// reference; a call that used the other Op's operands would differ. Each
// forming gives the buffer a new header (trainStrassen), so the headers
// tell what happened: A's second call takes its own operands back (the
// same header), and every later call forms its own in the one buffer
// there is (a new header, the same array). The test holds the buffers, so
// that no collection takes them between calls.
func TestStrassenRecycled(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 7))
	x, ca, v, opt := strassenProblem(r)
	cb := randDense(r, 70, 520)
	g := Gaussian{Gamma: 1.0 / 520}
	ctx := context.Background()
	ref := func(c *mat.Dense) *mat.Dense {
		strassenPacks.drain()
		op := NewOp(g, x, c, opt)
		if !trainsStrassen(op) {
			t.Skip("no SIMD tiles: the Strassen product does not apply")
		}
		strassenPacks.drain()
		out := mat.NewDense(70, 1, nil)
		if err := op.MulTMul(ctx, out, v); err != nil {
			t.Fatal(err)
		}
		return out
	}
	want := map[string]*mat.Dense{"A": ref(ca), "B": ref(cb)}
	strassenPacks.drain()
	ops := map[string]*Op{"A": NewOp(g, x, ca, opt), "B": NewOp(g, x, cb, opt)}
	var held []*[]float64
	var array *float64 // the one buffer's array
	for i, name := range []string{"A", "A", "B", "A", "B"} {
		before := ops[name].st.last.Value()
		out := mat.NewDense(70, 1, nil)
		if err := ops[name].MulTMul(ctx, out, v); err != nil {
			t.Fatal(err)
		}
		for j := range 70 {
			if a, b := out.At(j, 0), want[name].At(j, 0); math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("call %d (%s): row %d = %v, want %v (the Op's own operands on a fresh cache)", i, name, j, a, b)
			}
		}
		after := ops[name].st.last.Value()
		if after == nil {
			t.Fatalf("call %d (%s): the Op remembers no buffer", i, name)
		}
		held = append(held, after)
		if i == 0 {
			array = &(*after)[0]
		}
		if reused := after == before; reused != (i == 1) {
			t.Errorf("call %d (%s): took its last operands back = %v, want %v", i, name, reused, i == 1)
		}
		if &(*after)[0] != array {
			t.Errorf("call %d (%s): operands in a new buffer, though the first was recycled", i, name)
		}
	}
	runtime.KeepAlive(held)
}
