package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// BenchmarkMulManyRHS times K(X, C)·V with many right-hand sides, the shape
// of a Nyström feature transform (V = T, M×r) and of multi-output fits:
// n = 20,000, d = 54, M = 1,000, t = 10 and 1,000, reported as GFLOP/s of
// the product alone (2·n·M·t); and the multi-output pass K(X, C)ᵀ(K(X, C)·V)
// of a ten-class fit (t = 10, 4·n·M·t). Run with LANDMARK_SIMD=avx2 for the
// AVX2 tiles on an AVX-512 CPU.
func BenchmarkMulManyRHS(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, d, m = 20000, 54, 1000
	x, c := mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	for _, a := range []*mat.Dense{x, c} {
		for i := range a.RawMatrix().Data {
			a.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	for _, t := range []int{10, 1000} {
		v := mat.NewDense(m, t, nil)
		for i := range v.RawMatrix().Data {
			v.RawMatrix().Data[i] = rng.NormFloat64()
		}
		dst := mat.NewDense(n, t, nil)
		op := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{})
		b.Run(fmt.Sprintf("t=%d", t), func(b *testing.B) {
			for range b.N {
				if err := op.Mul(context.Background(), dst, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(2*float64(n)*m*float64(t)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		if t > 16 {
			continue
		}
		out := mat.NewDense(m, t, nil)
		b.Run(fmt.Sprintf("MulTMul/t=%d", t), func(b *testing.B) {
			for range b.N {
				if err := op.MulTMul(context.Background(), out, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(4*float64(n)*m*float64(t)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMultiTiles times the multi-output tiles alone on one thread, on
// a block of K of the engine's size for d < 256 (128 rows × 1,008 centers,
// 1 MiB, in L2) and one 16-column panel: the AVX-512 8×16 tiles, and the
// AVX2 candidates 6×8 (12 accumulators, the one dispatched), 4×8 (8) and
// 2×8 (4), each on both halves of the panel. GFLOP per CPU-second of the
// thread (2·rows·M·16 per pass; the 6×8 pass covers 126 of the 128 rows,
// so it reads 1.6% low).
// Run: go test -run '^$' -bench MultiTiles -cpu 1 -benchtime 300x ./kernel
func BenchmarkMultiTiles(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const rows, mp = 128, 1008
	blk := make([]float64, rows*mp)
	vq := make([]float64, mp*multiPanel)
	kv := make([]float64, rows*multiPanel)
	acc := make([]float64, mp*multiPanel)
	for _, s := range [][]float64{blk, vq, kv} {
		for i := range s {
			s[i] = r.Float64()
		}
	}
	type tile func(int, *float64, int, *float64, *float64)
	type variant struct {
		name string
		acc  accel
		run  func()
	}
	vs := []variant{
		{"rows/avx512-8x16", accelAVX512, func() {
			for i := 0; i < rows; i += 8 {
				rowsPanel8x16AVX512(mp, &blk[i*mp], mp, &vq[0], &kv[i*multiPanel])
			}
		}},
		{"cols/avx512-8x16", accelAVX512, func() {
			for j := 0; j < mp; j += 8 {
				colsPanel8x16AVX512(rows, &blk[j], mp, &kv[0], &acc[j*multiPanel])
			}
		}},
	}
	for _, c := range []struct {
		n          int
		rows, cols tile
	}{{6, rowsPanel6x8AVX2, colsPanel6x8AVX2}, {4, rowsPanel4x8AVX2, colsPanel4x8AVX2}, {2, rowsPanel2x8AVX2, colsPanel2x8AVX2}} {
		vs = append(vs, variant{fmt.Sprintf("rows/avx2-%dx8", c.n), accelAVX2, func() {
			for i := 0; i+c.n <= rows; i += c.n {
				for h := 0; h < multiPanel; h += 8 {
					c.rows(mp, &blk[i*mp], mp, &vq[h], &kv[i*multiPanel+h])
				}
			}
		}}, variant{fmt.Sprintf("cols/avx2-%dx8", c.n), accelAVX2, func() {
			for j := 0; j+c.n <= mp; j += c.n {
				for h := 0; h < multiPanel; h += 8 {
					c.cols(rows, &blk[j], mp, &kv[h], &acc[j*multiPanel+h])
				}
			}
		}})
	}
	for _, v := range vs {
		if v.acc > bestAccel {
			continue
		}
		b.Run(v.name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			c0 := threadCPU()
			for b.Loop() {
				v.run()
			}
			b.ReportMetric(2*float64(rows)*mp*multiPanel*float64(b.N)/float64(threadCPU()-c0), "GFLOP/cpu-s")
		})
	}
}

// BenchmarkMulTMulKept times K(X, C)ᵀ(K(X, C)·V) with t = 1 to 16 over
// blocks of K kept in float32 (Keep32: FALKON's float32 K_nM cache):
// n = 10,000, d = 54, M = 2,000, all blocks kept (80 MB). With many
// right-hand sides each product widens the kept blocks to float64 and runs
// the panel tiles; with t ≤ 8 (AVX-512) or 10 (AVX2) it reads the float32 blocks four rows at a
// time (multi_kept.go); formed/t=1 is the same product on an Op that keeps
// nothing (the fused Gaussian pass). CPU ms per product.
// Run: go test -run '^$' -bench MulTMulKept -benchtime 10x ./kernel
func BenchmarkMulTMulKept(b *testing.B) {
	const n, m = 10000, 2000
	rng, x, c := keptBenchData(4, n, m)
	op := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{})
	if rows, err := op.Keep32(context.Background(), 1<<30); err != nil || rows < n {
		b.Skipf("kept %d of %d rows (%v): Keep32 needs the panel tiles", rows, n, err)
	}
	fresh := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{}) // forms every block
	for _, t := range []int{1, 2, 3, 4, 6, 8, 10, 12, 16} {
		v := mat.NewDense(m, t, nil)
		for i := range v.RawMatrix().Data {
			v.RawMatrix().Data[i] = rng.NormFloat64()
		}
		out := mat.NewDense(m, t, nil)
		b.Run(fmt.Sprintf("t=%d", t), func(b *testing.B) {
			c0 := processCPU()
			for b.Loop() {
				if err := op.MulTMul(context.Background(), out, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
		if t > 1 {
			continue
		}
		b.Run(fmt.Sprintf("formed/t=%d", t), func(b *testing.B) {
			c0 := processCPU()
			for b.Loop() {
				if err := fresh.MulTMul(context.Background(), out, v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkMulTMulKept64 times MulTMul with t right-hand sides on blocks
// kept in float64 (Keep64; 20,000 × 2,000, 320 MB kept, d = 54): on the
// rows of the kept blocks (keptRows64, rows) against the panel tiles, which
// pad V to 16 columns (panels), and for t = 1 against forming every block
// (formed): the measurement behind kept64MaxT.
func BenchmarkMulTMulKept64(b *testing.B) {
	const n, m = 20000, 2000
	rng, x, c := keptBenchData(5, n, m)
	op := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{})
	if rows, err := op.Keep64(context.Background(), 1<<30); err != nil || rows < n {
		b.Skipf("kept %d of %d rows (%v): Keep64 needs the panel tiles", rows, n, err)
	}
	fresh := NewOp(Gaussian{Gamma: 0.01}, x, c, Options{})
	defer func(v int) { kept64MaxT = v }(kept64MaxT)
	for _, t := range []int{1, 2, 3, 4, 6, 8} {
		v := mat.NewDense(m, t, nil)
		for i := range v.RawMatrix().Data {
			v.RawMatrix().Data[i] = rng.NormFloat64()
		}
		out := mat.NewDense(m, t, nil)
		for _, path := range []string{"rows", "panels", "formed"} {
			if path == "formed" && t > 1 {
				continue
			}
			b.Run(fmt.Sprintf("%s/t=%d", path, t), func(b *testing.B) {
				kept64MaxT = 0
				if path == "rows" {
					kept64MaxT = t
				}
				o := op
				if path == "formed" {
					o = fresh
				}
				c0 := processCPU()
				for b.Loop() {
					if err := o.MulTMul(context.Background(), out, v); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-c0)/1e6/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// keptBenchData is the data of the kept-block benchmarks: n rows and m
// centers of d = 54 standard normal features, drawn from the PCG stream
// (3, seed), which it returns for the right-hand sides.
func keptBenchData(seed uint64, n, m int) (*rand.Rand, *mat.Dense, *mat.Dense) {
	const d = 54
	rng := rand.New(rand.NewPCG(3, seed))
	x, c := mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	for _, a := range []*mat.Dense{x, c} {
		for i := range a.RawMatrix().Data {
			a.RawMatrix().Data[i] = rng.NormFloat64()
		}
	}
	return rng, x, c
}
