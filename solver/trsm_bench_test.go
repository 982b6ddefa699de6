package solver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/cputime"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// trsmBenchL is an m×m lower-triangular matrix I + E, E strictly lower
// with entries uniform in [−1/(2m), 1/(2m)]: ‖E‖∞ < 1/2, so cond∞(L) < 3
// and the solves' results stay O(1) whatever m (no Cholesky needed to
// set it up, which at m = 10,000 would dominate the benchmark's time).
func trsmBenchL(m int) []float64 {
	r := rand.New(rand.NewPCG(7, uint64(m)))
	l := make([]float64, m*m)
	for i := range m {
		for j := range i {
			l[i*m+j] = (r.Float64() - 0.5) / float64(m)
		}
		l[i*m+i] = 1
	}
	return l
}

// trsmBenchX is m×k right-hand sides uniform in [−1, 1].
func trsmBenchX(m, k int) []float64 {
	r := rand.New(rand.NewPCG(8, uint64(m*k)))
	x := make([]float64, m*k)
	for i := range x {
		x[i] = 2*r.Float64() - 1
	}
	return x
}

// trsmBenchCases are the (M, k) of BenchmarkTrsmBlocked: issue 25's
// M = 10,000 with k = 1,000 (the `landmark bench linalg` row), a smaller
// M, and the FALKON preconditioner's few-column solves (t < solveMinRHS go
// to fewSolveL, 16 and 32 to the blocked path).
var trsmBenchCases = []struct{ m, k int }{
	{10000, 1000}, {4000, 1000}, {10000, 16}, {10000, 32}, {10000, 10}, {10000, 1},
}

// gemmOnly and gemmOnly32 hide kernel.Dense and DenseF32 from rowsPath and
// rowsPath32, so that the solves run every product as a Gemm (the path
// L⁻ᵀX and non-AVX-512 hosts take): BenchmarkTrsmBlocked's "gemm" cases,
// the reference of the "rows" ones.
type gemmOnly struct{ Products }

type gemmOnly32 struct{ Products32 }

// BenchmarkTrsmBlocked times Chol's and Chol32's solves L⁻¹X and L⁻ᵀX
// (GFLOP/s from M²k, and per CPU-second) in float64 and float32 on
// kernel.Dense/DenseF32, the way `landmark bench linalg` and the FALKON
// preconditioner call them: Chol.SolveL; Chol32.SolveL32 (float32
// right-hand sides) from solveMinRHS columns, Chol32.SolveL (float64
// right-hand sides) below. "rows" is the default dispatch, "gemm" the same
// solve with every product a Gemm (gemmOnly). The copy of the right-hand
// sides before each solve is not timed. One case, both paths:
//
//	go test ./solver -run '^$' -bench 'TrsmBlocked/M=10000/k=1000/f64/N' -benchtime 3x
func BenchmarkTrsmBlocked(b *testing.B) {
	ctx := context.Background()
	for _, c := range trsmBenchCases {
		m, k := c.m, c.k
		flops := float64(m) * float64(m) * float64(k)
		for _, prec := range []string{"f64", "f32"} {
			for _, trans := range []bool{false, true} {
				for _, path := range []string{"rows", "gemm"} {
					if path == "gemm" && (k < solveMinRHS || trans) {
						continue // the same code as "rows"
					}
					name := fmt.Sprintf("M=%d/k=%d/%s/%s/%s", m, k, prec, map[bool]string{false: "N", true: "T"}[trans], path)
					b.Run(name, func(b *testing.B) {
						ld := trsmBenchL(m)
						xd := trsmBenchX(m, k)
						x := make([]float64, m*k)
						var solve func() error
						if prec == "f64" {
							c := &Chol{l: blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: ld}, p: kernel.Dense{}}
							if path == "gemm" {
								c.p = gemmOnly{c.p}
							}
							solve = func() error { return c.SolveL(mat.NewDense(m, k, x), trans) }
						} else {
							l32 := make([]float32, m*m)
							for i, v := range ld {
								l32[i] = float32(v)
							}
							c := &Chol32{l: blas32.General{Rows: m, Cols: m, Stride: m, Data: l32}, p: kernel.DenseF32{}}
							if path == "gemm" {
								c.p = gemmOnly32{c.p}
							}
							if k < solveMinRHS {
								solve = func() error {
									return c.SolveL(ctx, blas64.General{Rows: m, Cols: k, Stride: k, Data: x}, trans)
								}
							} else {
								x32 := make([]float32, m*k)
								for i, v := range xd {
									x32[i] = float32(v)
								}
								xd, x = nil, nil
								y := make([]float32, m*k)
								solve = func() error {
									b.StopTimer()
									copy(y, x32)
									b.StartTimer()
									return c.SolveL32(ctx, blas32.General{Rows: m, Cols: k, Stride: k, Data: y}, trans)
								}
							}
						}
						b.ResetTimer()
						cpu0 := cpuSeconds()
						for range b.N {
							if x != nil {
								b.StopTimer()
								copy(x, xd)
								b.StartTimer()
							}
							if err := solve(); err != nil {
								b.Fatal(err)
							}
						}
						cpu := cpuSeconds() - cpu0
						b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
						b.ReportMetric(flops*float64(b.N)/cpu/1e9, "GFLOP/cpu-s")
					})
				}
			}
		}
	}
}

// cpuSeconds is the process's user + system CPU time so far: on a machine
// shared with other jobs, GFLOP per CPU-second compares code paths where
// wall time mostly measures the load (it does include the copies of the
// right-hand sides, a few percent at k = 1,000).
func cpuSeconds() float64 { return cputime.Process().Seconds() }
