package approx

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// levBenchData returns the first n rows of a fixed standardized random
// subset of ijcnn1 (skips when absent), so that every n sees nested data.
func levBenchData(b *testing.B, n int) *mat.Dense {
	b.Helper()
	x := levRealData(b, "ijcnn1.train.libsvm.gz", 40000, 7)
	_, d := x.Dims()
	return x.Slice(0, n, 0, d).(*mat.Dense)
}

// Time versus n of Recursive RLS (fixed size m = 200): O(n·m) kernel
// evaluations and O(n·m²) time, so linear in n. Accelerated beside it.
// Run: go test -run '^$' -bench 'RecursiveRLS' -benchtime 3x ./approx/
func BenchmarkRecursiveRLS(b *testing.B) {
	k := kernel.Gaussian{Gamma: 0.1}
	for _, n := range []int{5000, 10000, 20000, 40000} {
		x := levBenchData(b, n)
		for _, acc := range []bool{false, true} {
			b.Run(fmt.Sprintf("n=%d/accelerated=%v", n, acc), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, err := (RecursiveRLS{Accelerated: acc}).Sample(levCtx, x, k, 200, rand.New(rand.NewPCG(uint64(i), 1))); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// Time versus n of BLESS and BLESS-R at fixed λ (the paper's Figure 2):
// candidate sets have Q1·κ²/λ points whatever n is, so the time depends on n
// only through d_eff(λ) (the dictionary size, which grows with n until it
// saturates) and through κ² = max diag K and BLESS-R's Bernoulli candidate
// draw, both O(n) and cheap.
// Run: go test -run '^$' -bench 'BLESS' -benchtime 3x ./approx/
func BenchmarkBLESS(b *testing.B) {
	k := kernel.Gaussian{Gamma: 0.1}
	for _, lambda := range []float64{1e-2, 1e-3} {
		for _, n := range []int{5000, 10000, 20000, 40000} {
			x := levBenchData(b, n)
			for _, noRepl := range []bool{false, true} {
				b.Run(fmt.Sprintf("lambda=%g/n=%d/%s", lambda, n, blessName(noRepl)), func(b *testing.B) {
					size := 0
					for i := 0; b.Loop(); i++ {
						rng := rand.New(rand.NewPCG(uint64(i), 2))
						var path []PathStep
						var err error
						if noRepl {
							path, err = BLESSR{}.Path(levCtx, x, k, lambda, rng)
						} else {
							path, err = BLESS{}.Path(levCtx, x, k, lambda, rng)
						}
						if err != nil {
							b.Fatal(err)
						}
						size = len(path[len(path)-1].Indices)
					}
					b.ReportMetric(float64(size), "landmarks")
				})
			}
		}
	}
}

// Error and time at equal M = 200 for the leverage-score samplers with
// uniform sampling beside them, on 5,000-point standardized subsets of
// cadata (γ = 0.125, the σ = 2 of DESIGN.md) and ijcnn1 (γ = 0.1): the time
// is sampling plus the standard Nyström fit; errors are relative Frobenius
// (500 sampled rows) and relative spectral (‖K−K̃‖₂/‖K‖₂ on 2,000 points),
// averaged over the b.N seeds and reported as metrics. ExactRLS is left out: its O(n³) eigenvalue pass on
// 5,000 points takes minutes with gonum.
// Run: go test -run '^$' -bench 'SamplerQuality' -benchtime 3x ./approx/
func BenchmarkSamplerQuality(b *testing.B) {
	samplers := []struct {
		name string
		s    Sampler
	}{
		{"uniform", Uniform{}},
		{"rls", RecursiveRLS{}},
		{"rls-accel", RecursiveRLS{Accelerated: true}},
		{"bless", BLESS{}},
		{"bless-r", BLESSR{}},
	}
	for _, data := range []struct {
		file  string
		gamma float64
	}{{"cadata.libsvm.gz", 0.125}, {"ijcnn1.train.libsvm.gz", 0.1}} {
		x := levRealData(b, data.file, 5000, 11)
		k := kernel.Gaussian{Gamma: data.gamma}
		for _, s := range samplers {
			b.Run(fmt.Sprintf("%s/%s", data.file[:6], s.name), func(b *testing.B) {
				var frob, spec float64
				runs := 0
				for i := 0; b.Loop(); i++ {
					lm, err := s.s.Sample(levCtx, x, k, 200, rand.New(rand.NewPCG(uint64(i), 5)))
					if err != nil {
						b.Fatal(err)
					}
					fm, err := Nystrom{}.Fit(levCtx, x, k, lm)
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					rows, err := NewFeatureRows(levCtx, fm, x)
					if err != nil {
						b.Fatal(err)
					}
					f, err := RelFrobeniusError(levCtx, x, k, rows, 500, rand.New(rand.NewPCG(1, 1)))
					if err != nil {
						b.Fatal(err)
					}
					sp, err := SpectralError(levCtx, x, k, rows, 2000, rand.New(rand.NewPCG(1, 1)))
					if err != nil {
						b.Fatal(err)
					}
					frob += f
					spec += sp.Error / sp.Norm
					runs++
					b.StartTimer()
				}
				b.ReportMetric(frob/float64(runs), "rel-frob")
				b.ReportMetric(spec/float64(runs), "rel-spectral")
			})
		}
	}
}
