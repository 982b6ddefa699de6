package examples_test

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Exact KRR against the formula it documents, α = (K + λnI)⁻¹y, solved here
// by gonum's Cholesky on a kernel matrix built entry by entry.
func TestExactKRRMatchesBruteForce(t *testing.T) {
	train, test := smooth(t, 200, 50, false, 1)
	k := kernel.Gaussian{Gamma: 1}
	const lambda = 1e-3
	m := &model.KRR{Kernel: k, Lambda: lambda}
	if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	got, err := m.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}

	n := train.Len()
	a := gram(k, train.X, train.X)
	for i := range n {
		a.Set(i, i, a.At(i, i)+lambda*float64(n))
	}
	var chol mat.Cholesky
	if !chol.Factorize(mat.NewSymDense(n, a.RawMatrix().Data)) {
		t.Fatal("K + λnI not positive definite")
	}
	var alpha mat.VecDense
	if err := chol.SolveVecTo(&alpha, mat.NewVecDense(n, train.Y)); err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(gram(k, test.X, train.X), &alpha)

	// cond(K + λnI) ≤ (n + λn)/λn ≈ 1/λ = 1e3 (k(x, x) = 1), so two Cholesky
	// solves summing in different orders agree to about 1e3·1e-16; 1e-9 leaves
	// room without hiding a wrong system (a λ off by n moves f by ~1e-1).
	d := maxRelDiff(got, want.RawVector().Data)
	t.Logf("exact KRR vs brute force: %.3g", d)
	if d > 1e-9 {
		t.Errorf("exact KRR differs from (K + λnI)⁻¹y by %.3g (relative)", d)
	}
	if info := m.Info(); info.N != n || info.Penalty != lambda*float64(n) {
		t.Errorf("Info: N = %d, Penalty = %g; want %d, %g", info.N, info.Penalty, n, lambda*float64(n))
	}
}

// The Nyström backend with given centers against the system it documents,
// (K_nMᵀK_nM + λnK_MM)α = K_nMᵀy, and FALKON (the same system by
// preconditioned CG, run here to convergence) against both.
func TestNystromAndFalkonSolveTheSameSystem(t *testing.T) {
	train, test := smooth(t, 300, 50, false, 2)
	k := kernel.Gaussian{Gamma: 2}
	const lambda = 1e-4
	idx := make([]int, 25)
	for i := range idx {
		idx[i] = 7 * i
	}
	centers := rows(train.X, idx)

	nys := &model.KRR{Kernel: k, Lambda: lambda, Approx: model.NystromKRR{Centers: centers}}
	if err := nys.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	gotNys, err := nys.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}

	n, mm := train.Len(), len(idx)
	knm := gram(k, train.X, centers)
	var h mat.Dense
	h.Mul(knm.T(), knm)
	kmm := gram(k, centers, centers)
	kmm.Scale(lambda*float64(n), kmm)
	h.Add(&h, kmm)
	var b mat.VecDense
	b.MulVec(knm.T(), mat.NewVecDense(n, train.Y))
	var alpha mat.VecDense
	if err := alpha.SolveVec(&h, &b); err != nil {
		t.Fatal(err)
	}
	var want mat.VecDense
	want.MulVec(gram(k, test.X, centers), &alpha)
	wantY := want.RawVector().Data

	// The M×M system's condition number here is about 1e7 (γ = 2 on
	// [−1, 1]², 25 centers, λn = 0.03), so solvers that factor it differently
	// (Cholesky with jitter vs LU) agree to roughly 1e7·1e-16 in α and
	// better in f; 1e-7 is that bound with margin.
	d := maxRelDiff(gotNys, wantY)
	t.Logf("NystromKRR vs formula: %.3g", d)
	if d > 1e-7 {
		t.Errorf("NystromKRR differs from the Nyström system's solution by %.3g (relative)", d)
	}
	if info := nys.Info(); info.Rank != mm {
		t.Errorf("NystromKRR Info().Rank = %d, want %d centers", info.Rank, mm)
	}

	f := &model.Falkon{Kernel: k, Lambda: lambda, Centers: centers, MaxIter: 200, Tol: 1e-14}
	if err := f.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	gotF, err := f.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}
	// Preconditioned CG on an M = 25 system converges in at most 25 steps in
	// exact arithmetic; 200 steps or a 1e-14 residual leave only round-off,
	// amplified by the condition number as above.
	d = maxRelDiff(gotF, wantY)
	t.Logf("FALKON vs formula: %.3g after %d iterations", d, f.Info().Iterations)
	if d > 1e-6 {
		t.Errorf("FALKON differs from the Nyström system's solution by %.3g (relative); info %+v", d, f.Info().Status)
	}
}

// One KRR, three approximate backends swapped through KRR.Approx, on the
// same noisy smooth problem, each scored against the noise floor.
func TestKRRBackends(t *testing.T) {
	train, test := smooth(t, 1500, 500, false, 3)
	k := kernel.Gaussian{Gamma: 1}
	const lambda = 1e-5
	exact := &model.KRR{Kernel: k, Lambda: lambda}
	if err := exact.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	pe, err := exact.Predict(test.X)
	if err != nil {
		t.Fatal(err)
	}
	exactRMSE := rmse(t, pe, test.Y)

	backends := []struct {
		name    string
		backend model.KRRApprox
		rank    int
	}{
		{"nystrom", model.NystromKRR{M: 100}, 100},
		{"meka", model.MEKAKRR{Options: meka.Options{Clusters: 4, Rank: 25}}, 0},
		{"features", model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 300}}}, 300},
	}
	for _, b := range backends {
		m := &model.KRR{Kernel: k, Lambda: lambda, Approx: b.backend, Seed: 1}
		if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		p, err := m.Predict(test.X)
		if err != nil {
			t.Fatalf("%s: %v", b.name, err)
		}
		r := rmse(t, p, test.Y)
		info := m.Info()
		t.Logf("%s: backend %q rank %d test RMSE %.4f (exact %.4f)", b.name, info.Backend, info.Rank, r, exactRMSE)
		if !strings.HasPrefix(info.Backend, b.name) {
			t.Errorf("%s: Info().Backend = %q", b.name, info.Backend)
		}
		if b.rank > 0 && info.Rank != b.rank {
			t.Errorf("%s: Info().Rank = %d, want %d", b.name, info.Rank, b.rank)
		}
		// The noise has σ = 0.1, the best any model can do on fresh
		// test points; exact KRR gets within a few percent of it. A
		// backend within 15% of exact KRR still approximates the kernel;
		// a broken one (wrong λ scale, unfitted map, shuffled targets) is
		// at the target's spread, several times more.
		if r > 1.15*exactRMSE {
			t.Errorf("%s: test RMSE %.4f, more than 1.15 × exact KRR's %.4f", b.name, r, exactRMSE)
		}
	}
	if exactRMSE > 0.11 {
		t.Errorf("exact KRR test RMSE %.4f, want ≤ 0.11 (noise σ = 0.1)", exactRMSE)
	}
}

// MEKA's two KRR routes are documented to give the same predictions up to
// round-off: the direct solve (MEKAKRR) and ridge on MEKA's features.
func TestMEKAFeaturesMatchMEKAKRR(t *testing.T) {
	train, test := smooth(t, 600, 100, false, 4)
	k := kernel.Gaussian{Gamma: 1}
	mk := model.MEKAKRR{Options: meka.Options{Clusters: 3, Rank: 20}}
	direct := &model.KRR{Kernel: k, Lambda: 1e-4, Approx: mk, Seed: 5}
	viaFeatures := &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.FeatureRidge{Features: model.MEKAFeatures{MEKA: mk}}, Seed: 5}
	var preds [2][]float64
	for i, m := range []*model.KRR{direct, viaFeatures} {
		if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
			t.Fatal(err)
		}
		p, err := m.Predict(test.X)
		if err != nil {
			t.Fatal(err)
		}
		preds[i] = p
	}
	// "Ridge on these features gives the same predictions as MEKAKRR (up to
	// round-off)" (model.MEKAFeatures); both solve a system of condition
	// about 1/λ = 1e4, so round-off stays below 1e4·1e-16 ≪ 1e-8.
	d := maxRelDiff(preds[1], preds[0])
	t.Logf("MEKA features vs MEKAKRR: %.3g", d)
	if d > 1e-8 {
		t.Errorf("MEKA features vs MEKAKRR differ by %.3g (relative)", d)
	}
}

// Every KRR backend works as its zero value, with defaults that grow with n
// as documented: NystromKRR{} and FeatureRidge{} (Nyström features) on
// min(n, ⌈5√n⌉) uniform centers, RFFFeatures{} with ⌈√n·ln n⌉ features,
// MEKAKRR{} with meka.ScaledDefaults. On a smooth problem each reaches
// exact KRR's test error within 15% (TestKRRBackends' bar).
func TestKRRBackendZeroValues(t *testing.T) {
	train, test := smooth(t, 3000, 500, false, 27)
	n := float64(train.Len())
	k := kernel.Gaussian{Gamma: 1}
	const lambda = 1e-5
	exact := &model.KRR{Kernel: k, Lambda: lambda}
	if err := exact.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	exactRMSE := rmse(t, mustPredict(t, exact, test.X), test.Y)
	nysM := int(math.Min(n, math.Ceil(5*math.Sqrt(n)))) // 274
	rffD := int(math.Ceil(math.Sqrt(n) * math.Log(n)))  // 439
	for _, c := range []struct {
		name    string
		backend model.KRRApprox
		rank    int  // 0: not checked
		atMost  bool // rank is an upper bound (Nyström features drop eigenvalues below a floor)
	}{
		{"NystromKRR{}", model.NystromKRR{}, nysM, false},
		{"FeatureRidge{}", model.FeatureRidge{}, nysM, true},
		{"RFFFeatures{}", model.FeatureRidge{Features: model.RFFFeatures{}}, rffD, false},
		{"MEKAFeatures{}", model.FeatureRidge{Features: model.MEKAFeatures{}}, 0, false},
		{"MEKAKRR{}", model.MEKAKRR{}, 0, false},
	} {
		m := &model.KRR{Kernel: k, Lambda: lambda, Approx: c.backend, Seed: 1}
		start := time.Now()
		if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		r := rmse(t, mustPredict(t, m, test.X), test.Y)
		info := m.Info()
		t.Logf("%s: backend %q rank %d, test RMSE %.4f (exact %.4f), fit %v", c.name, info.Backend, info.Rank, r, exactRMSE, time.Since(start))
		if c.rank > 0 && (info.Rank > c.rank || !c.atMost && info.Rank != c.rank || info.Rank < 1) {
			t.Errorf("%s: rank %d, want the documented default %d (at most: %v)", c.name, info.Rank, c.rank, c.atMost)
		}
		if r > 1.15*exactRMSE {
			t.Errorf("%s: test RMSE %.4f, more than 1.15 × exact KRR's %.4f", c.name, r, exactRMSE)
		}
	}
}
