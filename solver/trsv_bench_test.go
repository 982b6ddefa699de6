package solver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// BenchmarkFewSolve times the triangular solves with few right-hand sides
// that FALKON's preconditioner applies four times per CG iteration
// (fewSolveL with a float64 factor, fewSolveL32 with a float32 one, x in
// float64) at M = 4,000 and 10,000, t = 1 (regression, binary) and 10
// (mnist's classes), L⁻¹x (N) and L⁻ᵀx (T). The solves are bound by
// reading the factor's lower triangle, n(n+1)/2 entries of 8 or 4 bytes:
// GB/s is that read per wall second, GB/cpu-s per CPU second of the
// process (the machine may be shared). The factor is trsmBenchL's (cond∞ <
// 3). The copy of x before each solve is not timed. One case:
//
//	go test ./solver -run '^$' -bench 'FewSolve/M=10000/t=1/f32' -benchtime 20x
func BenchmarkFewSolve(b *testing.B) {
	ctx := context.Background()
	for _, m := range []int{4000, 10000} {
		var ld []float64
		var l32 []float32
		factors := func() {
			if ld == nil {
				ld = trsmBenchL(m)
				l32 = make([]float32, m*m)
				for i, v := range ld {
					l32[i] = float32(v)
				}
			}
		}
		for _, t := range []int{1, 10} {
			for _, prec := range []string{"f64", "f32"} {
				for _, trans := range []bool{false, true} {
					name := fmt.Sprintf("M=%d/t=%d/%s/%s", m, t, prec, map[bool]string{false: "N", true: "T"}[trans])
					b.Run(name, func(b *testing.B) {
						factors()
						xd := trsmBenchX(m, t)
						x := blas64.General{Rows: m, Cols: t, Stride: t, Data: make([]float64, m*t)}
						solve := func() error {
							return fewSolveL(ctx, blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: m, Data: ld}, x, trans)
						}
						bytes := 8.0
						if prec == "f32" {
							bytes = 4
							solve = func() error {
								return fewSolveL32(ctx, blas32.General{Rows: m, Cols: m, Stride: m, Data: l32}, x, trans)
							}
						}
						read := bytes * float64(m) * float64(m+1) / 2
						b.ResetTimer()
						cpu0 := cpuSeconds()
						for range b.N {
							b.StopTimer()
							copy(x.Data, xd)
							b.StartTimer()
							if err := solve(); err != nil {
								b.Fatal(err)
							}
						}
						cpu := cpuSeconds() - cpu0
						b.ReportMetric(read*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
						b.ReportMetric(read*float64(b.N)/cpu/1e9, "GB/cpu-s")
						b.ReportMetric(float64(m)*float64(m)*float64(t)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
					})
				}
			}
		}
	}
}

// BenchmarkFewSolveL times one triangular solve with one right-hand side at
// FALKON's M = 10,000 (the preconditioner runs four per CG iteration),
// streaming (few) against gonum's trsm.
func BenchmarkFewSolveL(b *testing.B) {
	rng := rand.New(rand.NewPCG(7, 8))
	n := 10000
	l := randLower(rng, n)
	x0 := randRHS(rng, n, 1)
	x := cloneGeneral(x0)
	for _, trans := range []bool{false, true} {
		name := "N"
		if trans {
			name = "T"
		}
		b.Run("few/"+name, func(b *testing.B) {
			for b.Loop() {
				copy(x.Data, x0.Data) // solve the same system each time
				if err := fewSolveL(context.Background(), l, x, trans); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("gonum/"+name, func(b *testing.B) {
			for b.Loop() {
				copy(x.Data, x0.Data)
				blas64.Trsm(blas.Left, bt(trans), 1, l, x)
			}
		})
	}
}
