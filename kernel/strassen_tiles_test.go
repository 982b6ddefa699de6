package kernel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// copyRows copies rows×cols values from src to dst, both of row stride ld
// (strassenDots' copy of P1 before the summing tiles).
func copyRows(dst, src []float64, rows, cols, ld int) {
	for i := 0; i < rows; i++ {
		copy(dst[i*ld:i*ld+cols], src[i*ld:i*ld+cols])
	}
}

// addRows sets dst = src + t for rows×cols values, dst and src of row
// stride ld, t of stride cols (strassenDots' sums with P5 before the
// summing tiles).
func addRows(dst, src, t []float64, rows, cols, ld int) {
	for i := 0; i < rows; i++ {
		d, a, b := dst[i*ld:i*ld+cols], src[i*ld:i*ld+cols], t[i*cols:(i+1)*cols]
		for j := range d {
			d[j] = a[j] + b[j]
		}
	}
}

// randSlice returns n standard-normal values: sums of them round, so the
// order of additions shows in the bits.
func randSlice(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// TestTilesSum: tilesSum gives the bits of the sequence it replaces in
// strassenDots, a copy of src into c, tiles with add, then u = c + t by a
// pass over the rows: with src another block (P6's U2 = P1 + P6) and src
// = c (P7's U3 = U2 + P7), with and without the second store, on each SIMD
// path (AVX2 on centers in d×16 panels and as halves), for k of one, two
// and three feature blocks (kBlocks: 7 and 256 one, 257 two of 129 and
// 128, 600 three of 200), rows h that leave a shorter last panel of the
// AVX2 tiles (h mod 6 = 2, 4) and a row stride ldc past the columns.
func TestTilesSum(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 6))
	as := accels()[1:]
	if len(as) == 0 {
		t.Skip("no SIMD tiles")
	}
	for _, a := range as {
		th, halves := panelRows, []bool{false}
		if a == accelAVX2 {
			th, halves = avx2TileRows, []bool{false, true}
		}
		for _, half := range halves {
			for _, k := range []int{7, 256, 257, 600} {
				for _, h := range []int{8, 16, 40} {
					for _, cols := range []int{16, 48} {
						ldc, ldt := cols+21, cols+5
						ap, bp := randSlice(r, h*k), randSlice(r, cols*k)
						c0, src0 := randSlice(r, h*ldc), randSlice(r, h*ldc)
						tm, u0 := randSlice(r, h*ldt), randSlice(r, h*ldc)
						for _, mode := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
							same, second := mode[0], mode[1]
							name := fmt.Sprintf("%v half=%v k=%d h=%d cols=%d src=c %v u %v", a, half, k, h, cols, same, second)
							// The reference: the sequence strassenDots ran before.
							wc, wu := slices.Clone(c0), slices.Clone(u0)
							wsrc := src0
							if same {
								wsrc = wc
							}
							copyRows(wc, wsrc, h, cols, ldc)
							tiles(a, half, ap, bp, h, cols, k, wc, ldc, true, th)
							// addRows reads t with stride cols: pass a compacted copy.
							tc := make([]float64, h*cols)
							for i := range h {
								copy(tc[i*cols:(i+1)*cols], tm[i*ldt:])
							}
							if second {
								addRows(wu, wc, tc, h, cols, ldc)
							}
							gc, gu := slices.Clone(c0), slices.Clone(u0)
							gsrc := src0
							if same {
								gsrc = gc
							}
							var gt []float64
							if second {
								gt = tm
							}
							tilesSum(a, half, ap, bp, h, cols, k, gc, gsrc, ldc, gt, ldt, gu, th)
							for i := range h * ldc {
								if gc[i] != wc[i] {
									t.Fatalf("%s: c[%d,%d] = %v, want %v", name, i/ldc, i%ldc, gc[i], wc[i])
								}
								if gu[i] != wu[i] {
									t.Fatalf("%s: u[%d,%d] = %v, want %v", name, i/ldc, i%ldc, gu[i], wu[i])
								}
							}
						}
					}
				}
			}
		}
	}
}

// strassenDotsSeq is strassenDots as it was before the summing tiles: P1
// copied into C21's quadrant by copyRows, U2 + P5 and U3 + P5 formed by
// addRows after the products, every product on tiles (a reference for
// TestStrassenDotsSeq).
func (p *plan) strassenDotsSeq(w *work, s *strassenPlan, r0, r1 int) {
	rows, mp := r1-r0, p.mp
	hc, dh := s.hc, s.dh
	rs := rows &^ (2*panelRows - 1)
	h := rs / 2
	th := panelRows
	if w.acc == accelAVX2 {
		th = avx2TileRows
	}
	if cap(w.st) < 8*h*dh+h*hc {
		w.st = make([]float64, strassenWorkLen(len(w.blk)/mp, mp, p.d))
	}
	if h > 0 {
		sz := h * dh
		var q [8][]float64
		for i := range q {
			q[i] = w.st[i*sz : (i+1)*sz : (i+1)*sz]
		}
		a11, a12, a21, a22, s1, s2, s3, s4 := q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]
		tm := w.st[8*sz : 8*sz+h*hc]
		if p.d == 2*dh {
			packQuads(&q, p.x, r0, h, dh, th, w.acc)
		} else {
			packSums(&q, p.x, r0, h, dh, p.d, th, 0)
		}
		blk := w.blk
		q11, q12 := blk, blk[hc:]
		q21, q22 := blk[h*mp:], blk[h*mp+hc:]
		mul := func(a, b []float64, cols int, c []float64, ldc int, add bool) {
			tiles(w.acc, s.half, a, b, h, cols, dh, c, ldc, add, th)
		}
		if nr := mp - 2*hc; nr > 0 {
			mul(a11, s.rem[0], nr, blk[2*hc:], mp, false)
			mul(a12, s.rem[1], nr, blk[2*hc:], mp, true)
			mul(a21, s.rem[0], nr, blk[h*mp+2*hc:], mp, false)
			mul(a22, s.rem[1], nr, blk[h*mp+2*hc:], mp, true)
		}
		b := &s.b
		mul(s1, b[opT1], hc, tm, hc, false)
		mul(a11, b[opB11], hc, q11, mp, false)
		copyRows(q21, q11, h, hc, mp)
		mul(a12, b[opB21], hc, q11, mp, true)
		mul(s2, b[opT2], hc, q21, mp, true)
		addRows(q12, q21, tm, h, hc, mp)
		mul(s3, b[opT3], hc, q21, mp, true)
		addRows(q22, q21, tm, h, hc, mp)
		mul(s4, b[opB22], hc, q12, mp, true)
		mul(a22, b[opT4n], hc, q21, mp, true)
	}
	if rs < rows {
		rest := *w
		rest.blk = w.blk[rs*mp:]
		p.dots(&rest, r0+rs, r1)
	}
}

// TestStrassenDotsSeq: strassenDots gives the bits of the sequence it ran
// before the summing tiles (strassenDotsSeq), on standard-normal data
// (sums round), on each SIMD path, for d = 41 (odd: packSums; one feature
// block of 21), 520 (two of 130; dh = 260, packSumsSIMD on AVX2, packQuads
// on AVX-512), 528 (two of 132; dh = 264, packSumsSIMD on both), 1041
// (odd, three of 174, 174 and 173), M = 50 and 70 (mp = 64 and 80, hc = 32: no center and 16
// centers past the halves) and blocks of 16, 37 and 64 rows (37: 5 rows
// past the halves).
func TestStrassenDotsSeq(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 7))
	for _, a := range accels()[1:] {
		restore := setAccel(a)
		for _, d := range []int{41, 520, 528, 1041} {
			for _, m := range []int{50, 70} {
				x, c := randDense(r, 80, d), randDense(r, m, d)
				op := NewOp(Gaussian{Gamma: 1}, x, c, Options{Workers: 1})
				p := op.prepare()
				s := newStrassenPlan(p.c, p.m, p.d, p.mp, p.half, false, 1)
				for _, rows := range []int{16, 37, 64} {
					got := strassenBlock(op, s, 3, 3+rows)
					w := p.getWork(rows, 1)
					p.strassenDotsSeq(w, s, 3, 3+rows)
					want := w.blk[:rows*p.mp]
					for i := range rows {
						for j := range m {
							if g, w := got[i*p.mp+j], want[i*p.mp+j]; g != w {
								t.Fatalf("%v d=%d m=%d rows=%d: (%d,%d) = %v, want %v", a, d, m, rows, i, j, g, w)
							}
						}
					}
					putWorks([]*work{w})
				}
			}
		}
		restore()
	}
}

// BenchmarkStrassenEpilogue compares strassenDots with the sequence it
// replaced (strassenDotsSeq: copyRows and two addRows passes over the
// quadrants) on 256-row blocks at d = 784, M = 2,000, on one thread, in
// thread CPU time, the two run on each block in turn (each first on every
// other block): seq-ms and sum-ms a block, and their ratio (> 1: the
// summing tiles are faster). strassenDots packs X's operands by
// packQuads (as strassenDotsSeq) or by packSumsSIMD.
func BenchmarkStrassenEpilogue(b *testing.B) {
	const n, m, d, rows = 4096, 2000, 784, 256
	r := rand.New(rand.NewPCG(1, 2))
	x, c := randDense(r, n, d), randDense(r, m, d)
	for _, a := range accels()[1:] {
		for _, pack := range []string{"packQuads", "packSumsSIMD"} {
			b.Run(a.String()+"/"+pack, func(b *testing.B) {
				defer setAccel(a)()
				defer func(on bool) { packSumsOn = on }(packSumsOn)
				packSumsOn = pack == "packSumsSIMD"
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				op := NewOp(Gaussian{Gamma: 1.0 / d}, x, c, Options{Workers: 1})
				p := op.prepare()
				s := newStrassenPlan(p.c, p.m, p.d, p.mp, p.half, true, 1)
				w := p.getWork(rows, 1)
				defer putWorks([]*work{w})
				var tq, ts float64
				seq := func(r0 int) float64 {
					t0 := threadCPU()
					p.strassenDotsSeq(w, s, r0, r0+rows)
					return float64(threadCPU() - t0)
				}
				sum := func(r0 int) float64 {
					t0 := threadCPU()
					p.strassenDots(w, s, r0, r0+rows)
					return float64(threadCPU() - t0)
				}
				first := 0
				for b.Loop() {
					for r0 := 0; r0 < n; r0 += rows {
						// Block by block, each order in turn.
						if first ^= 1; first == 1 {
							tq += seq(r0)
							ts += sum(r0)
						} else {
							ts += sum(r0)
							tq += seq(r0)
						}
					}
				}
				blocks := float64(b.N * n / rows)
				b.ReportMetric(tq/blocks/1e6, "seq-ms")
				b.ReportMetric(ts/blocks/1e6, "sum-ms")
				b.ReportMetric(tq/ts, "speedup")
			})
		}
	}
}

// TestPackSumsSIMD: packSumsSIMD packs the eight operands with
// packQuads' bits (standard-normal X: the sums round), for halves of h =
// 8, 16 and 40 rows (on AVX2 a last panel of 2, 4 and 4 rows by packSums)
// and dh = 8, 264 (multiples of 8) and, on AVX2 only, 260 (of 4), on a
// row stride past d.
func TestPackSumsSIMD(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 8))
	for _, a := range accels()[1:] {
		th := panelRows
		if a == accelAVX2 {
			th = avx2TileRows
		}
		for _, dh := range []int{8, 260, 264} {
			if dh%packSumsStep(a) != 0 {
				continue
			}
			for _, h := range []int{8, 16, 40} {
				x := randDense(r, 2*h+9, 2*dh+3).Slice(0, 2*h+9, 0, 2*dh).(*mat.Dense).RawMatrix()
				sz := h * dh
				var q [8][]float64
				want := make([]float64, 8*sz)
				for i := range q {
					q[i] = want[i*sz : (i+1)*sz : (i+1)*sz]
				}
				packQuads(&q, x, 5, h, dh, th, a)
				got := make([]float64, 8*sz)
				packSumsSIMD(got, sz, x, 5, h, dh, th, a)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%v dh=%d h=%d: operand %d value %d = %v, want %v", a, dh, h, i/sz, i%sz, got[i], want[i])
					}
				}
			}
		}
	}
}

// BenchmarkPackSums compares packQuads and packSumsSIMD alone on the
// 256-row blocks of a 32,768 × 784 X (205 MB: read from memory, as in a
// pass over n = 100,000 rows), one thread, thread CPU time, each on every
// other block (their order alternating): quads-ms and sums-ms a block and
// their ratio.
func BenchmarkPackSums(b *testing.B) {
	const n, d, rows = 32768, 784, 256
	r := rand.New(rand.NewPCG(1, 3))
	x := randDense(r, n, d).RawMatrix()
	h, dh := rows/2, d/2
	sz := h * dh
	st := make([]float64, 8*sz)
	var q [8][]float64
	for i := range q {
		q[i] = st[i*sz : (i+1)*sz : (i+1)*sz]
	}
	for _, a := range accels()[1:] {
		b.Run(a.String(), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			th := panelRows
			if a == accelAVX2 {
				th = avx2TileRows
			}
			var tq, ts float64
			i := 0
			for b.Loop() {
				for r0 := 0; r0 < n; r0 += rows {
					t0 := threadCPU()
					if i++; i%4 < 2 == (i%2 == 0) {
						packQuads(&q, x, r0, h, dh, th, a)
						tq += float64(threadCPU() - t0)
					} else {
						packSumsSIMD(st, sz, x, r0, h, dh, th, a)
						ts += float64(threadCPU() - t0)
					}
				}
			}
			blocks := float64(b.N*n/rows) / 2
			b.ReportMetric(tq/blocks/1e6, "quads-ms")
			b.ReportMetric(ts/blocks/1e6, "sums-ms")
			b.ReportMetric(tq/ts, "speedup")
		})
	}
}
