package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/landmark-ml/landmark/internal/cputime"
)

// BenchmarkMulTMul measures the fused K(X,C)ᵀ(K(X,C)v) of issue 2's benchmark
// (Gaussian, n = 100,000, M = 2,000, γ = 1/d) with each set of inner kernels
// this CPU can run (avx512, avx2, portable Go), and in float32 mode. Flops are
// counted as 2nMd for the distance product plus 4nM for the two products
// with v (exp and the norm terms not counted), as for "landmark bench kernel".
func BenchmarkMulTMul(b *testing.B) {
	const n, m = 100_000, 2_000
	for _, d := range []int{8, 54, 784} {
		r := rand.New(rand.NewPCG(1, uint64(d)))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		dst := mat.NewDense(m, 1, nil)
		type mode struct {
			a   accel
			f32 bool
		}
		modes := []mode{{bestAccel, true}}
		for a := bestAccel; a >= accelPortable; a-- {
			modes = append(modes, mode{a, false})
		}
		for _, md := range modes {
			name := md.a.String()
			if md.f32 {
				name += "-f32"
			}
			b.Run(fmt.Sprintf("d=%d/%s", d, name), func(b *testing.B) {
				defer setAccel(md.a)()
				op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, Options{Float32: md.f32})
				if err := op.MulTMul(context.Background(), dst, v); err != nil { // packs C
					b.Fatal(err)
				}
				b.ResetTimer()
				c0 := processCPU()
				for b.Loop() {
					if err := op.MulTMul(context.Background(), dst, v); err != nil {
						b.Fatal(err)
					}
				}
				flops := float64(n) * m * (2*float64(d) + 4)
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				b.ReportMetric(float64(processCPU()-c0)/1e9/float64(b.N), "cpu-s/op")
			})
		}
	}
}

// processCPU is the CPU time of all this process's threads in ns: on a
// shared machine, the CPU-seconds a multi-threaded benchmark consumed.
func processCPU() int64 { return int64(cputime.Process()) }

// threadCPU is this thread's CPU time in ns (cputime.Thread): on a shared
// machine it counts only the time the benchmark actually ran.
func threadCPU() int64 { return int64(cputime.Thread()) }

// BenchmarkExpRow measures the Gaussian row map with the dot product (the
// exp half of a fused pass) on one goroutine: 2,048 values per call, in cache.
func BenchmarkExpRow(b *testing.B) {
	const n = 2048
	r := rand.New(rand.NewPCG(1, 2))
	row, cc, v, src := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range row {
		src[j], cc[j], v[j] = r.NormFloat64()*10, 54+r.NormFloat64()*10, r.NormFloat64()
	}
	for _, a := range accels() {
		b.Run(a.String(), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var s float64
			c0 := threadCPU()
			for b.Loop() {
				copy(row, src)
				switch a {
				case accelAVX512:
					s += expRowDotAVX512(&row[0], &cc[0], &v[0], n, 54, -0.125)
				case accelAVX2:
					s += expRowDotAVX2(&row[0], &cc[0], &v[0], n, 54, -0.125)
				default:
					s += gaussRowDot(row, cc, v, 54, -0.125)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/value")
			b.ReportMetric(float64(threadCPU()-c0)/float64(b.N)/n, "cpu-ns/value")
		})
	}
}

// BenchmarkDistance measures the engine's distance product X·Cᵀ (the linear
// kernel's Block into an n×M matrix, "landmark bench kernel"'s X·Cᵀ column)
// and the fused Gaussian K(X,C)ᵀ(K(X,C)v) at n = 20,000, M = 2,000, with each
// set of inner kernels this CPU can run and in float32 mode, reporting
// GFLOP per CPU-second of the process (the machine is shared: run with
// GOMAXPROCS=1 for the tiles' and blocking's questions). Flops as
// BenchmarkMulTMul: 2nMd, plus 4nM for the fused pass.
func BenchmarkDistance(b *testing.B) {
	const n, m = 20_000, 2_000
	for _, d := range []int{54, 784} {
		r := rand.New(rand.NewPCG(1, uint64(d)))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		dst := mat.NewDense(n, m, nil)
		w := mat.NewDense(m, 1, nil)
		for _, a := range accels() {
			if a == accelPortable {
				continue
			}
			for _, f32 := range []bool{false, true} {
				for _, fused := range []bool{false, true} {
					name := fmt.Sprintf("d=%d/%s", d, a)
					if f32 {
						name += "-f32"
					}
					if fused {
						name += "/fused"
					} else {
						name += "/xct"
					}
					b.Run(name, func(b *testing.B) {
						defer setAccel(a)()
						var k Kernel = Linear{}
						if fused {
							k = Gaussian{Gamma: 1 / float64(d)}
						}
						op := NewOp(k, x, c, Options{Float32: f32})
						call := func() error {
							if fused {
								return op.MulTMul(context.Background(), w, v)
							}
							return op.Block(context.Background(), dst)
						}
						if err := call(); err != nil { // packs C, touches dst
							b.Fatal(err)
						}
						b.ResetTimer()
						c0 := processCPU()
						for b.Loop() {
							if err := call(); err != nil {
								b.Fatal(err)
							}
						}
						flops := 2 * float64(n) * m * float64(d)
						if fused {
							flops += 4 * float64(n) * m
						}
						b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
						b.ReportMetric(flops*float64(b.N)/(float64(processCPU()-c0)/1e9)/1e9, "GFLOP/cpu-s")
					})
				}
			}
		}
	}
}

// BenchmarkFusedBlocks separates the fused Gaussian pass's own cost from
// its distance product on one goroutine locked to its thread: for each set
// of SIMD inner kernels, d = 54 and 784 and M = 2,000, it runs the engine's
// row blocks (autoBlockRows: 64 rows at d = 54, 256 at d = 784) of 8,192
// rows of X through the distance product alone (dots: the tiles and the
// packing of X, what X·Cᵀ does) and through the whole fused block
// (fusedGaussian: the same, then exp with K·v and the four-row update),
// interleaved, and reports each one's best and median rate over the b.N
// rounds in GFLOP of 2nMd per thread-CPU-second (the machine is shared:
// thread CPU time, and the best of several rounds; run with e.g.
// -benchtime 6x). The ratio of the two is the fused pass's overhead over
// its distance product without the worker, scheduling and preparation
// effects of a whole call.
func BenchmarkFusedBlocks(b *testing.B) {
	const n, m = 8192, 2000
	for _, d := range []int{54, 784} {
		r := rand.New(rand.NewPCG(1, uint64(d)))
		x, c, v := randDense(r, n, d), randDense(r, m, d), randDense(r, m, 1)
		for _, a := range accels()[1:] {
			b.Run(fmt.Sprintf("d=%d/%s", d, a), func(b *testing.B) {
				defer setAccel(a)()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				op := NewOp(Gaussian{Gamma: 1 / float64(d)}, x, c, Options{Workers: 1})
				p := op.prepare()
				p.norms(0, p.n) // X's norms, as the products sum them first
				rows := op.BlockRows()
				vp, _ := p.padded(v.RawMatrix())
				w := p.getWork(rows, 1)
				defer putWorks([]*work{w})
				acc := make([]float64, p.mp)
				flops := 2 * float64(n/rows*rows) * m * float64(d)
				var dots, fused []float64
				for b.Loop() {
					for _, f := range []bool{false, true} {
						t0 := threadCPU()
						for r0 := 0; r0+rows <= n; r0 += rows {
							if f {
								p.fusedGaussian(w, r0, r0+rows, p.ng, vp, acc, nil, nil)
							} else {
								p.dots(w, r0, r0+rows)
							}
						}
						rate := flops / float64(threadCPU()-t0)
						if f {
							fused = append(fused, rate)
						} else {
							dots = append(dots, rate)
						}
					}
				}
				slices.Sort(dots)
				slices.Sort(fused)
				b.ReportMetric(dots[len(dots)-1], "dots-best-GFLOP/cpu-s")
				b.ReportMetric(dots[len(dots)/2], "dots-median")
				b.ReportMetric(fused[len(fused)-1], "fused-best-GFLOP/cpu-s")
				b.ReportMetric(fused[len(fused)/2], "fused-median")
			})
		}
	}
}

// BenchmarkAVX2Halves compares the AVX2 distance product on the two
// layouts of packed centers, d×16 panels (gemmAVX2, a plan prepared on
// the portable path) and halves of 8 (gemmHalvesAVX2, plan.half), on two
// goroutines locked to their threads, each taking its own 256-row blocks
// of X (n = 100,000, d = 784, M = 2,000: X streamed from memory, as in
// "landmark bench kernel"), the layouts alternating every four blocks; it
// reports each layout's best and median rate per block in GFLOP of 2·rows·M·d
// per thread-CPU-second over the b.N rounds (run with e.g. -benchtime 16x;
// the machine is shared, hence thread CPU time and interleaving).
func BenchmarkAVX2Halves(b *testing.B) {
	if bestAccel < accelAVX2 {
		b.Skip("no AVX2")
	}
	const n, m, d, rows, phase = 100_000, 2_000, 784, 256, 4
	r := rand.New(rand.NewPCG(1, d))
	x, c := randDense(r, n, d), randDense(r, m, d)
	plans := [2]*plan{}
	for i, a := range []accel{accelPortable, accelAVX2} {
		restore := setAccel(a)
		plans[i] = NewOp(Linear{}, x, c, Options{}).prepare()
		restore()
	}
	defer setAccel(accelAVX2)()
	flops := 2 * float64(rows) * m * d
	var rates [2][]float64
	var mu sync.Mutex
	next := [2]int{0, 1}
	for b.Loop() {
		for i, p := range plans {
			var wg sync.WaitGroup
			for wk := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					w := p.getWork(rows, 0)
					defer putWorks([]*work{w})
					var loc []float64
					for range phase {
						blk := next[wk] % (n / rows)
						next[wk] = blk + 2
						t0 := threadCPU()
						p.dotsAVX2(w, p.x, blk*rows, rows)
						loc = append(loc, flops/float64(threadCPU()-t0))
					}
					mu.Lock()
					rates[i] = append(rates[i], loc...)
					mu.Unlock()
				}()
			}
			wg.Wait()
		}
	}
	for i, name := range []string{"d16", "halves"} {
		slices.Sort(rates[i])
		b.ReportMetric(rates[i][len(rates[i])-1], name+"-best-GFLOP/cpu-s")
		b.ReportMetric(rates[i][len(rates[i])/2], name+"-median")
	}
}
