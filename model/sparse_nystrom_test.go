package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// fitDecider is what the Nyström-type estimators offer to these tests.
type fitDecider interface {
	Fit(ctx context.Context, x mat.Matrix, y []float64) error
	DecisionFunction(x mat.Matrix) (*mat.Dense, error)
}

// nystromCases are the estimators that keep sparse X sparse through the
// kernel engine's sparse path: Falkon with each sampler (and the Jacobi
// preconditioner, whose diagonal pass slices rows), Nyström KRR, ridge on
// random Fourier and Nyström features. Falkon's CG runs to a relative
// residual of 1e-13: the sparse and dense kernel values differ by rounding
// (1e-16 relative), which CG amplifies by up to the condition number of
// the preconditioned system, so the two fits agree to 1e-10 only once both
// are converged well below that (at the default tolerance they differ by
// ~1e-9, as two dense fits with different block sizes would). The Jacobi
// case uses λ = 1e-2: its preconditioner leaves the system ill conditioned.
func nystromCases(k kernel.Kernel, task Task) []struct {
	name string
	mk   func() fitDecider
} {
	return []struct {
		name string
		mk   func() fitDecider
	}{
		{"falkon-uniform", func() fitDecider {
			return &Falkon{Kernel: k, Lambda: 1e-4, M: 60, Task: task, Seed: 3, MaxIter: 200, Tol: 1e-13}
		}},
		{"falkon-rls", func() fitDecider {
			return &Falkon{Kernel: k, Lambda: 1e-4, M: 60, Task: task, Seed: 3, MaxIter: 200, Tol: 1e-13, Sampler: approx.RecursiveRLS{}}
		}},
		{"falkon-bless", func() fitDecider {
			return &Falkon{Kernel: k, Lambda: 1e-4, M: 60, Task: task, Seed: 3, MaxIter: 200, Tol: 1e-13, Sampler: approx.BLESS{}}
		}},
		{"falkon-blessr", func() fitDecider {
			return &Falkon{Kernel: k, Lambda: 1e-4, M: 60, Task: task, Seed: 3, MaxIter: 200, Tol: 1e-13, Sampler: approx.BLESSR{}}
		}},
		{"falkon-jacobi", func() fitDecider {
			return &Falkon{Kernel: k, Lambda: 1e-2, M: 60, Task: task, Seed: 3, MaxIter: 200, Tol: 1e-13, Preconditioner: PrecondJacobi}
		}},
		{"nystrom-krr", func() fitDecider {
			return &KRR{Kernel: k, Lambda: 1e-4, Task: task, Seed: 3, Approx: NystromKRR{M: 60}}
		}},
		{"nystrom-krr-rls", func() fitDecider {
			return &KRR{Kernel: k, Lambda: 1e-4, Task: task, Seed: 3, Approx: NystromKRR{M: 60, Sampler: approx.RecursiveRLS{}}}
		}},
		{"rff", func() fitDecider {
			return &KRR{Kernel: k, Lambda: 1e-4, Task: task, Seed: 3, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 100}}}}
		}},
		{"nystrom-features", func() fitDecider {
			return &KRR{Kernel: k, Lambda: 1e-4, Task: task, Seed: 3, Approx: FeatureRidge{Features: NystromFeatures{M: 60}}}
		}},
	}
}

// sparseMatchesDense fits mk() on CSR x and on its dense copy and checks
// that the decision values on the test rows (given as CSR and dense) agree
// to 1e-10 relative to max(1, max |f|).
func sparseMatchesDense(t *testing.T, mk func() fitDecider, x *datasets.CSR, y []float64, xt *datasets.CSR) {
	t.Helper()
	ctx := context.Background()
	sp, de := mk(), mk()
	if err := sp.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(ctx, x.ToDense(), y); err != nil {
		t.Fatal(err)
	}
	want, err := de.DecisionFunction(xt.ToDense())
	if err != nil {
		t.Fatal(err)
	}
	scale := math.Max(1, mat.Norm(want, math.Inf(1)))
	var worst float64
	for _, m := range []fitDecider{sp, de} {
		for _, xx := range []mat.Matrix{xt, xt.ToDense()} {
			got, err := m.DecisionFunction(xx)
			if err != nil {
				t.Fatal(err)
			}
			d := maxAbsDiff(got, want)
			if d > 1e-10*scale {
				t.Fatalf("%T on %T: decision values differ by %g (scale %g)", m, xx, d, scale)
			}
			worst = math.Max(worst, d)
		}
	}
	t.Logf("max |sparse − dense| decision value: %.3g (scale %g)", worst, scale)
}

// TestNystromSparseMatchesDense: every Nyström-type estimator on the seeded
// synthetic sparse set (datasets.SparseRegression: 400 × 300, 12 non-zeros
// a row, density 0.04, so the engine takes its axpy path) against the dense
// copy, for the Gaussian and Laplacian kernels (RFF: Gaussian only — the
// Laplacian here is the L1 kernel, whose features RFF draws from the Cauchy
// law, so it is included too).
func TestNystromSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	x, y, err := datasets.SparseRegression(400, 300, 12, rng)
	if err != nil {
		t.Fatal(err)
	}
	xt, _, err := datasets.SparseRegression(80, 300, 12, rng)
	if err != nil {
		t.Fatal(err)
	}
	// γ = 1/24: the squared distance of two rows is about 2·12 = 24.
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 1.0 / 24}, kernel.Laplacian{Gamma: 1.0 / 24}} {
		for _, tc := range nystromCases(k, Regression) {
			t.Run(fmt.Sprintf("%v/%s", k, tc.name), func(t *testing.T) { sparseMatchesDense(t, tc.mk, x, y, xt) })
		}
	}
}

// TestNystromSparseSatimage: the same on a satimage subset (600 training,
// 200 test rows, multi-class, features scaled to [−1, 1]; almost every entry
// is non-zero, so the engine expands row blocks to dense).
func TestNystromSparseSatimage(t *testing.T) {
	tr, te := readSatimage(t)
	xs := csrOf(t, mat.DenseCopyOf(tr.X.Slice(0, 600, 0, tr.Dim())))
	ts := csrOf(t, mat.DenseCopyOf(te.X.Slice(0, 200, 0, te.Dim())))
	for _, tc := range nystromCases(kernel.Gaussian{Gamma: 0.5}, Classification) {
		t.Run(tc.name, func(t *testing.T) { sparseMatchesDense(t, tc.mk, xs, tr.Y[:600], ts) })
	}
}

// TestFalkonSparseDeterministic: a sparse Falkon fit gives the same bits
// with GOMAXPROCS 1 and 2.
func TestFalkonSparseDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(71, 72))
	x, y, err := datasets.SparseRegression(700, 400, 10, rng)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var ref *mat.Dense
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.05}, Lambda: 1e-5, M: 80, Seed: 9, Sampler: approx.BLESSR{}}
		if err := m.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		f, err := m.DecisionFunction(x)
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = f
		} else if !mat.Equal(f, ref) {
			t.Fatalf("GOMAXPROCS 2 differs from 1 by %g", maxAbsDiff(f, ref))
		}
	}
}

// TestFalkonSparseColumnsAndPlan: at predict time a non-zero at a column at
// or beyond the training dimension is an error; a CSR that only declares
// more (or fewer) columns is read as d-dimensional and predicts as the
// d-column one. The memory plan counts the CSR arrays, not n·d.
func TestFalkonSparseColumnsAndPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(81, 82))
	const n, d = 300, 50
	x, y, err := datasets.SparseRegression(n, d, 5, rng)
	if err != nil {
		t.Fatal(err)
	}
	m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-4, M: 40, Seed: 1}
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	// A non-zero at column d is a coordinate where every training row is
	// zero: the Gaussian value there is exp(−0.1·1²) times that of the
	// empty row (TestBeyondTrainingDimension checks the general case).
	beyond, _ := datasets.NewCSR(2, d+1, []int{0, 1, 2}, []int32{3, int32(d)}, []float64{1, 1})
	inside, _ := datasets.NewCSR(2, d, []int{0, 1, 1}, []int32{3}, []float64{1})
	got, err := m.DecisionFunction(beyond)
	if err != nil {
		t.Fatalf("non-zero at column %d of a %d-column model: %v", d, d, err)
	}
	base, err := m.DecisionFunction(inside)
	if err != nil {
		t.Fatal(err)
	}
	if got.At(0, 0) != base.At(0, 0) || math.Abs(got.At(1, 0)-math.Exp(-0.1)*base.At(1, 0)) > 1e-15*math.Abs(base.At(1, 0)) {
		t.Fatalf("beyond d: %v, want %v and exp(−0.1)·%v", mat.Col(nil, 0, got), base.At(0, 0), base.At(1, 0))
	}
	narrow, _ := datasets.NewCSR(1, d, []int{0, 2}, []int32{3, 7}, []float64{1, -2})
	wide, _ := datasets.NewCSR(1, d+10, []int{0, 2}, []int32{3, 7}, []float64{1, -2})
	a, err := m.DecisionFunction(narrow)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.DecisionFunction(wide)
	if err != nil {
		t.Fatalf("wider CSR with no non-zero beyond d: %v", err)
	}
	if !mat.Equal(a, b) {
		t.Fatalf("wider CSR predicts %v, %d-column %v", b.At(0, 0), d, a.At(0, 0))
	}
	ps, err := m.Plan(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := m.Plan(x.ToDense(), 1)
	if err != nil {
		t.Fatal(err)
	}
	// CSR: 12 bytes a non-zero (value + int32 index) and 8 a row pointer,
	// plus the n targets; dense: 8·n·d plus the targets.
	if want := int64(12*n*5 + 8*(n+1) + 8*n); ps.Data != want {
		t.Fatalf("sparse plan Data %d, want %d", ps.Data, want)
	}
	if want := int64(8*n*d + 8*n); pd.Data != want {
		t.Fatalf("dense plan Data %d, want %d", pd.Data, want)
	}
}

// readMNISTSubset reads the shared mnist test file as CSR, scales the
// pixels by 1/255, and returns its first 600 rows (for training, with their
// labels, ten classes) and the next 200 (for testing), each rebuilt as a CSR
// of its own non-zeros (density ≈ 0.19). It skips the test in -short mode
// and when mnist is not in the shared datasets.
func readMNISTSubset(t *testing.T) (xs *datasets.CSR, y []float64, ts *datasets.CSR) {
	t.Helper()
	if testing.Short() {
		t.Skip("reads mnist")
	}
	p, ok := datasets.SharedPath("mnist.test.libsvm.gz")
	if !ok {
		t.Skip("mnist not in the shared datasets")
	}
	x, y, err := datasets.ReadLIBSVMSparseFile(context.Background(), p, 784)
	if err != nil {
		t.Fatal(err)
	}
	scale := make([]float64, 784)
	for j := range scale {
		scale[j] = 1.0 / 255
	}
	if x, err = x.ScaleColumns(scale); err != nil {
		t.Fatal(err)
	}
	idx := func(lo, hi int) []int {
		out := make([]int, hi-lo)
		for i := range out {
			out[i] = lo + i
		}
		return out
	}
	xs, ts = csrOf(t, kernel.DenseOf(kernel.SubsetRows(x, idx(0, 600)))), csrOf(t, kernel.DenseOf(kernel.SubsetRows(x, idx(600, 800))))
	return xs, y[:600], ts
}

// TestNystromSparseMNIST: the same on mnist rows (readMNISTSubset: 600
// training, 200 test rows, pixels / 255; density ≈ 0.19, so the engine
// expands row blocks to dense). σ = 5: squared distances between digits
// are about 50–100 on this scale.
func TestNystromSparseMNIST(t *testing.T) {
	xs, y, ts := readMNISTSubset(t)
	for _, tc := range nystromCases(kernel.GaussianSigma(5), Classification) {
		t.Run(tc.name, func(t *testing.T) { sparseMatchesDense(t, tc.mk, xs, y, ts) })
	}
}
