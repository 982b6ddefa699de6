package kernel

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// BenchmarkL1Tiles measures the Laplacian's 8×16 tile alone (l1Tile: AVX2
// pieces, AVX-512), on packed panels in cache (128 rows × 256 centers), in
// G feature-pairs per thread-CPU second, best of the b.N interleaved rounds
// (run with e.g. -benchtime 30x). The shapes it compared are in
// internal/asml1's package comment.
func BenchmarkL1Tiles(b *testing.B) {
	type cand struct {
		name string
		acc  accel
		f    func(k int, a, bb, c []float64, ldc int)
	}
	cands := []cand{
		{"avx2", accelAVX2, func(k int, a, bb, c []float64, ldc int) { l1Tile(accelAVX2, k, a, bb, c, ldc) }},
		{"avx512", accelAVX512, func(k int, a, bb, c []float64, ldc int) { l1Tile(accelAVX512, k, a, bb, c, ldc) }},
	}
	run := cands[:0]
	for _, cd := range cands {
		if cd.acc <= bestAccel && bestAccel != accelPortable {
			run = append(run, cd)
		}
	}
	if len(run) == 0 {
		b.Skip("no AVX2")
	}
	const rows, cols = 128, 256
	for _, k := range []int{54, 200} {
		r := rand.New(rand.NewPCG(1, uint64(k)))
		a, bp := make([]float64, rows*k), make([]float64, cols*k)
		for i := range a {
			a[i] = r.NormFloat64()
		}
		for i := range bp {
			bp[i] = r.NormFloat64()
		}
		c := make([]float64, rows*cols)
		b.Run(fmt.Sprintf("k=%d", k), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			best := make([]float64, len(run))
			reps := 4000 / k
			for b.Loop() {
				for i, cd := range run {
					t0 := threadCPU()
					for range reps {
						for jp := 0; jp < cols; jp += l1Cols {
							for ip := 0; ip < rows; ip += l1Rows {
								cd.f(k, a[ip*k:], bp[jp*k:], c[ip*cols+jp:], cols)
							}
						}
					}
					if g := float64(reps) * rows * cols * float64(k) / float64(threadCPU()-t0); g > best[i] {
						best[i] = g
					}
				}
			}
			for i, cd := range run {
				b.ReportMetric(best[i], cd.name+"-Gpairs/s")
			}
		})
	}
}
