package solver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"
	"gonum.org/v1/gonum/mat"
)

// benchSPD is a Gaussian kernel matrix of m random points in 10 dimensions
// (γ = 1/10) plus 1e-5·m·I, FALKON's K_MM + εM·I.
func benchSPD(m int) *mat.Dense {
	r := rand.New(rand.NewPCG(1, uint64(m)))
	x := mat.NewDense(m, 10, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = r.NormFloat64()
	}
	a := mat.NewDense(m, m, nil)
	if err := kernel.NewOp(kernel.Gaussian{Gamma: 0.1}, x, x, kernel.Options{}).Block(context.Background(), a); err != nil {
		panic(err)
	}
	for i := range m {
		for j := range i {
			a.Set(i, j, a.At(j, i))
		}
		a.Set(i, i, a.At(i, i)+1e-5*float64(m))
	}
	return a
}

// benchSizes are the M of the go test benchmarks (gonum takes seconds at
// 2,000); "landmark bench linalg" runs 2,000, 5,000 and 10,000.
// LANDMARK_BENCH_M (comma-separated sizes) replaces them, e.g. 10000 to
// profile the factorizations at the size of issue 25's comparison.
var benchSizes = benchSizesFromEnv()

func benchSizesFromEnv() []int {
	env := os.Getenv("LANDMARK_BENCH_M")
	if env == "" {
		return []int{2000}
	}
	var ms []int
	for _, f := range strings.Split(env, ",") {
		m, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || m < 1 {
			panic(fmt.Sprintf("LANDMARK_BENCH_M: bad size %q", f))
		}
		ms = append(ms, m)
	}
	return ms
}

// BenchmarkPotrf, BenchmarkLauum, BenchmarkTrsm: ours (engine products)
// beside gonum's Dpotrf, Dlauum and Dtrsm (k = 1,000 right-hand sides), with
// GFLOP/s from M³/3, M³/3 and M²k.
func BenchmarkPotrf(b *testing.B) {
	for _, m := range benchSizes {
		a := benchSPD(m)
		f := mat.NewDense(m, m, nil)
		flops := float64(m) * float64(m) * float64(m) / 3
		b.Run(fmt.Sprintf("M=%d/ours", m), func(b *testing.B) {
			for range b.N {
				f.Copy(a)
				if _, err := CholeskyBlocked(context.Background(), f, CholOptions{}, kernel.Dense{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("M=%d/gonum", m), func(b *testing.B) {
			for range b.N {
				f.Copy(a)
				fr := f.RawMatrix()
				lapackgonum.Implementation{}.Dpotrf(blas.Lower, m, fr.Data, fr.Stride)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// (BenchmarkLauum factors its matrix with CholeskyBlocked, which takes
// seconds at M = 10,000 where gonum's Dpotrf takes a quarter of a minute,
// and copies it back outside the timed region.)
func BenchmarkLauum(b *testing.B) {
	for _, m := range benchSizes {
		l := benchSPD(m)
		if _, err := CholeskyBlocked(context.Background(), l, CholOptions{}, kernel.Dense{}); err != nil {
			b.Fatal(err)
		}
		f := mat.NewDense(m, m, nil)
		flops := float64(m) * float64(m) * float64(m) / 3
		b.Run(fmt.Sprintf("M=%d/ours", m), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				f.Copy(l)
				b.StartTimer()
				if err := Lauum(context.Background(), f, kernel.Dense{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		// The same products without LauumRows: each 512-row block copied
		// to a panel, its rows cleared, then one SyrkLower (Lauum before
		// LauumRows; the same sums), for an A/B in one process.
		b.Run(fmt.Sprintf("M=%d/copy", m), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				f.Copy(l)
				b.StartTimer()
				if err := Lauum(context.Background(), f, withoutLauumRows{kernel.Dense{}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("M=%d/gonum", m), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				f.Copy(l)
				b.StartTimer()
				fr := f.RawMatrix()
				lapackgonum.Implementation{}.Dlauum(blas.Lower, m, fr.Data, fr.Stride)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func BenchmarkTrsm(b *testing.B) {
	const k = 1000
	for _, m := range benchSizes {
		l := benchSPD(m)
		lr := l.RawMatrix()
		lapackgonum.Implementation{}.Dpotrf(blas.Lower, m, lr.Data, lr.Stride)
		t := blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: m, Stride: lr.Stride, Data: lr.Data}
		x := mat.NewDense(m, k, nil)
		flops := float64(m) * float64(m) * k
		b.Run(fmt.Sprintf("M=%d/ours", m), func(b *testing.B) {
			for range b.N {
				if err := blockedSolveL(context.Background(), t, x, false, kernel.Dense{}, defaultWidths); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("M=%d/gonum", m), func(b *testing.B) {
			for range b.N {
				blas64.Trsm(blas.Left, blas.NoTrans, 1, t, x.RawMatrix())
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkPotrf32 and BenchmarkLauum32: the float32 factorizations on
// kernel.DenseF32 beside the float64 ones (BenchmarkPotrf's "ours"), same
// matrix rounded to float32, GFLOP/s from M³/3.
func BenchmarkPotrf32(b *testing.B) {
	for _, m := range benchSizes {
		a := benchSPD(m)
		a32 := make([]float32, m*m)
		for i, v := range a.RawMatrix().Data {
			a32[i] = float32(v)
		}
		f := blas32General(m, make([]float32, m*m))
		flops := float64(m) * float64(m) * float64(m) / 3
		b.Run(fmt.Sprintf("M=%d/potrf32", m), func(b *testing.B) {
			for range b.N {
				copy(f.Data, a32)
				if _, err := CholeskyBlocked32(context.Background(), f, CholOptions{}, kernel.DenseF32{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("M=%d/lauum32", m), func(b *testing.B) {
			for range b.N {
				copy(f.Data, a32)
				if err := Lauum32(context.Background(), f, kernel.DenseF32{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func blas32General(m int, data []float32) blas32.General {
	return blas32.General{Rows: m, Cols: m, Stride: m, Data: data}
}

// BenchmarkFactorPages: potrf, trsm (k = 1,000), lauum, potrf32 and lauum32
// at each benchSizes M on matrices in Go's heap (4 KiB pages: the Go
// runtime does not ask for huge pages) and on the same matrices advised
// MADV_HUGEPAGE (internal/hugemem, as numpy advises its arrays and
// "landmark bench linalg" its own), alternated each round, two workers.
// Each metric is the median over the b.N rounds of GFLOP per process
// CPU-second (the products run on all workers, so CPU time, not wall time,
// on a shared machine); "…-heap" and "…-huge" name the two allocations.
// Example: LANDMARK_BENCH_M=10000 go test ./solver -run '^$' -bench
// FactorPages -benchtime 4x.
func BenchmarkFactorPages(b *testing.B) {
	const k = 1000
	ctx := context.Background()
	for _, m := range benchSizes {
		b.Run(fmt.Sprintf("M=%d", m), func(b *testing.B) {
			a := benchSPD(m)
			l := mat.DenseCopyOf(a)
			if _, err := CholeskyBlocked(ctx, l, CholOptions{}, kernel.Dense{}); err != nil {
				b.Fatal(err)
			}
			a32 := make([]float32, m*m)
			for i, v := range a.RawMatrix().Data {
				a32[i] = float32(v)
			}
			l32 := blas32General(m, slices.Clone(a32))
			if _, err := CholeskyBlocked32(ctx, l32, CholOptions{}, kernel.DenseF32{}); err != nil {
				b.Fatal(err)
			}
			rhs := mat.NewDense(m, k, nil)
			r := rand.New(rand.NewPCG(2, uint64(m)))
			for i := range rhs.RawMatrix().Data {
				rhs.RawMatrix().Data[i] = r.NormFloat64()
			}
			type mats struct {
				name string
				f, x *mat.Dense
				g    blas32.General
			}
			sides := []mats{
				{"heap", mat.NewDense(m, m, nil), mat.NewDense(m, k, nil), blas32General(m, make([]float32, m*m))},
				{"huge", mat.NewDense(m, m, hugemem.Float64s(m*m)), mat.NewDense(m, k, hugemem.Float64s(m*k)), blas32General(m, hugemem.Float32s(m*m))},
			}
			cube := float64(m) * float64(m) * float64(m)
			rates := map[string][]float64{}
			rate := func(name string, flops float64, setup func(), run func() error) {
				setup()
				c0 := cpuSeconds()
				if err := run(); err != nil {
					b.Fatal(err)
				}
				rates[name] = append(rates[name], flops/(cpuSeconds()-c0)/1e9)
			}
			for range b.N {
				for _, s := range sides {
					var ch *Chol
					rate("potrf-"+s.name, cube/3, func() { s.f.Copy(a) }, func() (err error) {
						ch, err = CholeskyBlocked(ctx, s.f, CholOptions{}, kernel.Dense{})
						return err
					})
					rate("trsm-"+s.name, float64(m)*float64(m)*k, func() { s.x.Copy(rhs) }, func() error { return ch.SolveL(s.x, false) })
					rate("lauum-"+s.name, cube/3, func() { s.f.Copy(l) }, func() error { return Lauum(ctx, s.f, kernel.Dense{}) })
					rate("potrf32-"+s.name, cube/3, func() { copy(s.g.Data, a32) }, func() error {
						_, err := CholeskyBlocked32(ctx, s.g, CholOptions{}, kernel.DenseF32{})
						return err
					})
					rate("lauum32-"+s.name, cube/3, func() { copy(s.g.Data, l32.Data) }, func() error { return Lauum32(ctx, s.g, kernel.DenseF32{}) })
				}
			}
			b.StopTimer()
			for name, v := range rates {
				slices.Sort(v)
				b.ReportMetric(v[len(v)/2], "GF/cpu-s:"+name)
			}
		})
	}
}
