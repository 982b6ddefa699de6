package model

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/precond"
	"gonum.org/v1/gonum/mat"
)

var updateFixtures = flag.Bool("update-fixtures", false, "write testdata/vN (N: the current format version) from fixtureCases")

// fixtureData is a training set and test inputs for the format fixtures,
// drawn from PCG(seed, 11): n training rows and 8 test rows of d columns,
// uniform in [−1, 1] (sparse: each entry non-zero with probability 0.15),
// with targets sin(2x₀) + x₁ (regression) or 3 classes by the sign pattern
// of x₀ and x₁ (classification).
type fixtureData struct {
	x, xTest mat.Matrix
	y        []float64
}

func newFixtureData(seed uint64, n, d int, classes, sparse bool) fixtureData {
	rng := rand.New(rand.NewPCG(seed, 11))
	draw := func(rows int) *mat.Dense {
		m := mat.NewDense(rows, d, nil)
		for i := range rows {
			for j := range d {
				if sparse && rng.Float64() >= 0.15 {
					continue
				}
				m.Set(i, j, 2*rng.Float64()-1)
			}
		}
		return m
	}
	x, xt := draw(n), draw(8)
	y := make([]float64, n)
	for i := range y {
		a, b := x.At(i, 0), x.At(i, 1)
		switch {
		case !classes:
			y[i] = math.Sin(2*a) + b
		case a > 0 && b > 0:
			y[i] = 2
		case a > 0 || b > 0:
			y[i] = 1
		}
	}
	fd := fixtureData{x: x, xTest: xt, y: y}
	if sparse {
		fd.x, fd.xTest = fixtureCSR(x), fixtureCSR(xt)
	}
	return fd
}

// fixtureCase is one saved model of testdata/vN: since names the first
// format version that holds it.
type fixtureCase struct {
	name  string
	since int
	est   func() Estimator
	data  fixtureData
}

func fixtureCases() []fixtureCase {
	reg := newFixtureData(1, 60, 3, false, false)
	cls := newFixtureData(2, 60, 3, true, false)
	sp := newFixtureData(3, 60, 30, true, true)
	g := kernel.Gaussian{Gamma: 1.5}
	return []fixtureCase{
		{"krr-exact", 3, func() Estimator { return &KRR{Kernel: g, Lambda: 1e-3} }, reg},
		{"krr-exact-sparse", 3, func() Estimator { return &KRR{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, Task: Classification} }, sp},
		{"krr-nystrom-uniform", 3, func() Estimator { return &KRR{Kernel: g, Lambda: 1e-3, Seed: 2, Approx: NystromKRR{M: 15}} }, reg},
		{"krr-nystrom-bless", 3, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 3, Approx: NystromKRR{M: 15, Sampler: approx.BLESS{Q2: 4}}}
		}, reg},
		{"krr-rls-qr", 3, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 4, Approx: FeatureRidge{Features: NystromFeatures{M: 15, Sampler: approx.RecursiveRLS{Accelerated: true}, Nystrom: approx.Nystrom{Rank: 8, QR: true}}}}
		}, reg},
		{"krr-rff", 3, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 5, Task: Classification, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 20}}}}
		}, cls},
		{"krr-meka", 3, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 6, Approx: &MEKAKRR{Options: meka.Options{Rank: 3, Clusters: 2}}}
		}, reg},
		{"falkon-uniform", 3, func() Estimator { return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 7} }, reg},
		{"falkon-bless", 3, func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 8, Sampler: approx.BLESS{}, Task: Classification}
		}, cls},
		{"svm", 3, func() Estimator { return &SVM{Kernel: g, C: 5, Probability: true, Seed: 9} }, cls},
		{"bkasvm", 3, func() Estimator { return &BKASVM{Kernel: g, C: 5, Clusters: 3, Prediction: LocalPrediction, Seed: 10} }, cls},
		// Version 4: configurations versions 2 and 3 could not carry.
		{"krr-custom-sampler", 4, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 11, Approx: NystromKRR{M: 15, Sampler: fixtureSampler{}}}
		}, reg},
		{"falkon-given-centers", 4, func() Estimator {
			c := mat.DenseCopyOf(reg.x.(*mat.Dense).Slice(0, 12, 0, 3))
			w := make([]float64, 12)
			for i := range w {
				w[i] = 0.5 + float64(i)/24
			}
			return &Falkon{Kernel: g, Lambda: 1e-4, Seed: 12, Centers: c, CenterWeights: w, CenterLambda: 1e-3,
				Preconditioner: PrecondBLESS, Sampler: approx.KMeansCenters{MaxIter: 5}}
		}, reg},
		{"krr-exact-probability", 4, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 13, Task: Classification, Probability: true, Approx: ExactKRR{}}
		}, cls},
		{"bkasvm-probability", 4, func() Estimator {
			return &BKASVM{Kernel: g, C: 5, Clusters: 2, Seed: 14, Probability: true, Prediction: LocalPrediction}
		}, cls},
		{"svm-float32-cache", 4, func() Estimator {
			s := &SVM{Kernel: g, C: 5, CacheFloat32: true}
			s.MemoryLimit = 1 << 30 // by field: survives an embedded options struct
			return s
		}, cls},
		// Version 5: Falkon's float32 storage of X.
		{"falkon-float32-storage", 5, func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 15, Float32Storage: true, Task: Classification}
		}, cls},
		// Version 6: the precision of Falkon's preconditioner factors.
		{"falkon-precond-float32", 6, func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 16, PrecondPrecision: precond.PrecisionFloat32}
		}, reg},
		// Version 7: Falkon's factored passes (off here: the mode is what
		// is saved).
		{"falkon-factor-off", 7, func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 17, Factor: FactorOff}
		}, reg},
		// SVR, saved since version 7, has a fixture from version 8, with
		// version 8's Probability (its Laplace scale).
		{"svr", 8, func() Estimator { return &SVR{Kernel: g, C: 5, Epsilon: 0.05, Probability: true, Seed: 19} }, reg},
		// Version 8: KRR's and Falkon's class weights.
		{"krr-class-weights", 8, func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Task: Classification, ClassWeights: map[float64]float64{0: 0.5, 1: 2}}
		}, cls},
		{"falkon-class-weights", 8, func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 18, Task: Classification, ClassWeights: map[float64]float64{1: 3}}
		}, cls},
		// The one-class SVM, saved since version 8 (a type of its own), has
		// a fixture from version 9; solved to 1e-10 (see refitTolerance).
		{"one-class-svm", 9, func() Estimator { return &OneClassSVM{Kernel: g, Nu: 0.3, Tol: 1e-10} }, cls},
		// Version 9: ν-SVC and ν-SVR, solved to 1e-10.
		{"svm-nu", 9, func() Estimator { return &SVM{Kernel: g, Nu: 0.4, Tol: 1e-10} }, cls},
		{"svr-nu", 9, func() Estimator { return &SVR{Kernel: g, C: 5, Nu: 0.3, Tol: 1e-10} }, reg},
		// Version 10: Falkon's NeverCacheKnm.
		{"falkon-never-cache", 10, func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 15, Seed: 20, NeverCacheKnm: true}
		}, reg},
	}
}

// fixtureSampler is a sampler defined outside the module (as far as Save
// knows): uniform landmarks.
type fixtureSampler struct{}

func (fixtureSampler) Sample(ctx context.Context, x mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*approx.Landmarks, error) {
	return approx.Uniform{}.Sample(ctx, x, k, m, rng)
}

// Every fixture file of every format version this build reads loads and
// gives the decision values recorded when it was written, to 1e-12 relative
// to the largest magnitude: the coefficients load exactly, but the kernel
// engine's vector code may round differently on another CPU in the last
// bits. Regenerate the current version's files with
//
//	go test ./model -run TestFormatFixtures -update-fixtures
func TestFormatFixtures(t *testing.T) {
	if *updateFixtures {
		writeFixtures(t)
	}
	dirs, err := filepath.Glob("testdata/v[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		v, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "v"))
		if err != nil || v < 3 { // testdata/v2: TestLoadVersion2Files
			continue
		}
		for _, c := range fixtureCases() {
			if c.since > v {
				continue
			}
			t.Run(fmt.Sprintf("v%d/%s", v, c.name), func(t *testing.T) {
				path := filepath.Join(dir, c.name+".lmk")
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got := int(binary.LittleEndian.Uint16(raw[8:])); got != v {
					t.Fatalf("file of version %d in %s", got, dir)
				}
				est, err := LoadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := fixtureValues(est, c.data.xTest)
				if err != nil {
					t.Fatal(err)
				}
				want := readDecision(t, strings.TrimSuffix(path, ".lmk")+".decision")
				closeTo(t, "decision values", got, want, 1e-12)
				checkFixtureRefit(t, v, c, est, want)
			})
		}
	}
}

// checkFixtureRefit refits a loaded fixture on its training data. From
// version 4, every fixture refits to the saved model: the decision values
// agree with the recorded ones to refitTolerance (bit for bit on the machine
// and commit that wrote them), except the one with a custom sampler, which
// loads as NotSaved and refuses to refit. A
// version-3 file carries only the uniform sampler: its BLESS and RLS
// configurations load without one (exact KRR, uniform Falkon centers), as
// documented.
func checkFixtureRefit(t *testing.T, v int, c fixtureCase, est Estimator, want []float64) {
	t.Helper()
	if v < 4 {
		switch c.name {
		case "krr-nystrom-bless", "krr-rls-qr":
			if a := est.(*KRR).Approx; a != nil {
				t.Errorf("version-3 %s loaded with backend %#v, want none", c.name, a)
			}
		case "falkon-bless":
			if s := est.(*Falkon).Sampler; s != nil {
				t.Errorf("version-3 falkon loaded with sampler %#v, want none", s)
			}
		}
		return
	}
	err := est.Fit(context.Background(), c.data.x, c.data.y)
	if c.name == "krr-custom-sampler" {
		wantApprox := NystromKRR{M: 15, Sampler: NotSaved{Type: "model.fixtureSampler"}}
		if a := est.(*KRR).Approx; a != wantApprox {
			t.Errorf("custom sampler loaded as %#v, want %#v", a, wantApprox)
		}
		if !errors.Is(err, ErrNotSaved) {
			t.Errorf("refit with a sampler that was not saved: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := fixtureValues(est, c.data.xTest)
	if err != nil {
		t.Fatal(err)
	}
	closeTo(t, "refitted decision values", got, want, refitTolerance(c.name))
}

// fixtureValues returns est's decision values on x, or its predictions for
// an estimator without decision values (SVR).
func fixtureValues(est Estimator, x mat.Matrix) ([]float64, error) {
	if dec, ok := est.(decider); ok {
		dv, err := dec.DecisionFunction(x)
		if err != nil {
			return nil, err
		}
		return dv.RawMatrix().Data, nil
	}
	return est.Predict(x)
}

// refitTolerance is how closely a refit fixture must give the recorded
// decision values, relative to their largest magnitude. Elsewhere than on
// the machine and commit that wrote them, the kernel engine's vector code
// (AVX-512, AVX2, portable: LANDMARK_SIMD) and the solvers' summation
// orders round the last bits differently:
//   - the ridge systems (λn ≥ 6e-3 against kernel entries ≤ 1) amplify that
//     by at most about 1e4, so 1e-9;
//   - Falkon's few CG iterations (λ = 1e-4) amplify it more: refits of
//     the v4–v6 files under LANDMARK_SIMD=avx2 and portable on an AVX-512
//     EPYC (2026-11-26) moved falkon-uniform and falkon-bless by up to
//     3.7e-9, so 1e-7; falkon-factor-off (v7, the same fit) by 2.0e-8
//     (avx2) and 2.1e-8 (portable), and by 6.6e-9 on AVX-512 once the
//     AVX-512 exp's polynomial changed (2026-11-27);
//   - with X stored in float32 or the preconditioner factored in float32,
//     the differences start at float32's ε ≈ 6e-8: falkon-float32-storage
//     moved by 8.2e-7 on the portable path, so 2e-5.
//
// A refit that draws other centers (seed + 100) moves these fixtures'
// decision values by 0.35 to 0.6 relative, far beyond each tolerance.
func refitTolerance(name string) float64 {
	switch name {
	case "falkon-float32-storage", "falkon-precond-float32":
		return 2e-5
	case "falkon-uniform", "falkon-bless", "falkon-given-centers", "falkon-factor-off":
		return 1e-7
	case "one-class-svm", "svm-nu", "svr-nu":
		// Their SMO starts with many variables at a bound, where a
		// rounding difference changes the working pairs: at the default
		// tolerance 1e-3 the one-class fixture written on the AVX2 path
		// refit on the portable path 3.1e-4 away (CI, 2026-11-28). Solved
		// to 1e-10, the paths end within about 1e-8 of the unique optimum.
		return 1e-6
	}
	return 1e-9
}

// closeTo fails unless got and want agree to tol relative to want's largest
// magnitude.
func closeTo(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	var scale, worst float64
	for i := range want {
		scale = math.Max(scale, math.Abs(want[i]))
		worst = math.Max(worst, math.Abs(got[i]-want[i]))
	}
	if worst > tol*scale {
		t.Fatalf("%s differ by %g (scale %g, tolerance %g relative)", what, worst, scale, tol)
	}
}

// writeFixtures fits every fixture case and writes it to testdata/vN with
// its decision values on the test inputs.
func writeFixtures(t *testing.T) {
	dir := filepath.Join("testdata", fmt.Sprintf("v%d", binfmt.Version))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range fixtureCases() {
		est := c.est()
		if err := est.Fit(context.Background(), c.data.x, c.data.y); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		path := filepath.Join(dir, c.name+".lmk")
		if err := SaveFile(path, est); err != nil {
			t.Fatal(err)
		}
		dv, err := fixtureValues(est, c.data.xTest)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, v := range dv {
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64) + "\n")
		}
		if err := os.WriteFile(strings.TrimSuffix(path, ".lmk")+".decision", []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixtureCSR is the CSR form of x (its non-zeros).
func fixtureCSR(x *mat.Dense) *kernel.CSRRows {
	n, d := x.Dims()
	indptr := []int{0}
	var indices []int32
	var values []float64
	for i := range n {
		for j, v := range x.RawRowView(i) {
			if v != 0 {
				indices = append(indices, int32(j))
				values = append(values, v)
			}
		}
		indptr = append(indptr, len(values))
	}
	return kernel.NewCSRRows(d, indptr, indices, values)
}
