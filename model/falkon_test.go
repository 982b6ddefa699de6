package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/physmem"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

func TestFalkonConformance(t *testing.T) {
	checkConformance(t, func() Estimator {
		return &Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, M: 30}
	}, conformanceRegression(1))
	checkConformance(t, func() Estimator {
		return &Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, M: 30, Task: Classification}
	}, conformanceBinary(2), conformanceMulticlass(3))
}

// With every training point as a center, the Nyström system is
// K(K + λnI)α = Ky, whose solution gives exact KRR's predictions; the
// preconditioner is then H⁻¹ up to ε, so PCG converges in a few iterations.
// Tolerance 1e-6 relative is the issue's; the solve reaches about 1e-10.
func TestFalkonAllCentersEqualsExactKRR(t *testing.T) {
	x, y := krrTestData(61, 150, 4)
	xt, _ := krrTestData(62, 40, 4)
	k := kernel.Gaussian{Gamma: 0.3}
	const lambda = 1e-4
	exact := &KRR{Kernel: k, Lambda: lambda}
	if err := exact.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	want, _ := exact.Predict(xt)
	f := &Falkon{Kernel: k, Lambda: lambda, Centers: x, MaxIter: 100, Tol: 1e-12}
	if err := f.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	got, _ := f.Predict(xt)
	info := f.Info()
	t.Logf("M = n: %d iterations, residual %.2g, status %s", info.Iterations, info.Residual, info.Status)
	if d := maxRelDiff(got, want); d > 1e-6 {
		t.Errorf("Falkon with M = n differs from exact KRR by %g relative", d)
	}
	if info.M != 150 || info.Preconditioner != PrecondFalkon || info.Sampler != "given" || info.Epsilon == 0 {
		t.Errorf("info %+v", info)
	}
}

// The Nyström direct solve and Falkon solve the same system; at convergence
// their predictions agree. The system's condition (λn = 2e-2 against
// eigenvalues of K_nMᵀK_nM up to ~n·M) lets PCG reach 1e-12, so 1e-7
// relative leaves room for the Cholesky side's rounding.
func TestNystromDirectEqualsFalkon(t *testing.T) {
	x, y := krrTestData(71, 400, 3)
	xt, _ := krrTestData(72, 50, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	const lambda = 5e-5
	centers := mat.DenseCopyOf(x.Slice(0, 60, 0, 3))
	direct := &KRR{Kernel: k, Lambda: lambda, Approx: NystromKRR{Centers: centers}}
	if err := direct.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	want, _ := direct.Predict(xt)
	f := &Falkon{Kernel: k, Lambda: lambda, Centers: centers, MaxIter: 300, Tol: 1e-12}
	if err := f.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	got, _ := f.Predict(xt)
	if d := maxRelDiff(got, want); d > 1e-7 {
		t.Errorf("Falkon (%d iterations, %s) differs from the Nyström direct solve by %g", f.Info().Iterations, f.Info().Status, d)
	}
	if info := direct.Info(); info.Backend != "nystrom" || info.Rank != 60 {
		t.Errorf("direct info %+v", info)
	}
	// Every preconditioner solves the same system.
	for _, pc := range []string{PrecondJacobi, PrecondNone} {
		g := &Falkon{Kernel: k, Lambda: lambda, Centers: centers, MaxIter: 3000, Tol: 1e-12, Preconditioner: pc}
		if err := g.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		p, _ := g.Predict(xt)
		if d := maxRelDiff(p, want); d > 1e-6 {
			t.Errorf("%s: differs from the direct solve by %g after %d iterations (%s)", pc, d, g.Info().Iterations, g.Info().Status)
		}
	}
}

// Workers must not change the result: the engine reduces in a fixed order.
func TestFalkonWorkersDeterministic(t *testing.T) {
	x, y := krrTestData(81, 700, 5)
	var ref []float64
	for _, w := range []int{1, 3} {
		f := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.2}, Lambda: 1e-5, M: 80, Resources: Resources{Workers: w}, BlockRows: 64, Seed: 9}
		if err := f.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		p, _ := f.Predict(x)
		if ref == nil {
			ref = p
			continue
		}
		for i := range p {
			if p[i] != ref[i] {
				t.Fatalf("workers=%d changed prediction %d: %v vs %v", w, i, p[i], ref[i])
			}
		}
	}
}

// Validation error is recorded at every iteration and the last entry equals
// the error of the returned model; the progress callback sees the three
// setup steps in order, then the same iterations, and can stop the fit at
// an iteration or during the setup.
func TestFalkonValidationAndProgress(t *testing.T) {
	c := conformanceMulticlass(4)
	var seen []Progress
	f := &Falkon{Kernel: kernel.Gaussian{Gamma: 2}, Lambda: 1e-4, M: 60, Task: Classification, MaxIter: 8, Tol: 1e-14,
		Validation: &ValidationSet{X: c.xTest, Y: conformanceMulticlassLabels(c.xTest)},
		Progress:   func(p Progress) error { seen = append(seen, p); return nil }}
	if err := f.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	info := f.Info()
	if info.Iterations != 8 || len(info.History) != 8 || len(seen) != 3+8 || info.Status != solver.MaxIter {
		t.Fatalf("iterations %d, history %d, callbacks %d, status %s; want 8, 8, 11, max-iter", info.Iterations, len(info.History), len(seen), info.Status)
	}
	for i, step := range []string{StepCenters, StepPreconditioner, StepRHS} {
		if p := seen[i]; p.Stage != StageSetup || p.Step != step || p.Done != i+1 || p.Total != 3 || !math.IsNaN(p.Residual) {
			t.Errorf("setup report %d = %+v, want step %s", i, p, step)
		}
		if i > 0 && seen[i].Elapsed < seen[i-1].Elapsed {
			t.Errorf("setup report %d elapsed %v before the one before it (%v)", i, seen[i].Elapsed, seen[i-1].Elapsed)
		}
	}
	seen = seen[3:]
	pred, _ := f.Predict(c.xTest)
	wrong := 0
	for i, v := range conformanceMulticlassLabels(c.xTest) {
		if pred[i] != v {
			wrong++
		}
	}
	want := float64(wrong) / float64(len(pred))
	if last := info.History[7].ValError; last != want {
		t.Errorf("last recorded validation error %g, the fitted model's %g", last, want)
	}
	for i, h := range info.History {
		if h.Iteration != i+1 || math.IsNaN(h.ValError) || h.Residual <= 0 {
			t.Errorf("history[%d] = %+v", i, h)
		}
		// The callback sees what the history records.
		if p := seen[i]; p.Stage != StageIteration || p.Done != h.Iteration || p.Total != 8 || p.Residual != h.Residual || p.ValError != h.ValError {
			t.Errorf("progress %d = %+v, history %+v", i, p, h)
		}
	}
	// Stop after 3: the fit fails with ErrStopped and the callback's error,
	// and the estimator keeps its model.
	stop := errors.New("enough")
	for _, at := range []struct {
		stage string
		done  int
		calls int
	}{{StageIteration, 3, 3 + 3}, {StageSetup, 2, 2}} {
		calls := 0
		f.Progress = func(p Progress) error {
			calls++
			if p.Stage == at.stage && p.Done == at.done {
				return stop
			}
			return nil
		}
		if err := f.Fit(context.Background(), c.x, c.y); !errors.Is(err, ErrStopped) || !errors.Is(err, stop) {
			t.Fatalf("fit stopped at %s %d: err = %v, want ErrStopped and the callback's error", at.stage, at.done, err)
		}
		if calls != at.calls {
			t.Errorf("stopped at %s %d: %d reports, want %d", at.stage, at.done, calls, at.calls)
		}
		if p2, err := f.Predict(c.xTest); err != nil || !slices.Equal(p2, pred) || f.Info().Iterations != 8 {
			t.Errorf("a stopped fit changed the model (err %v, %d iterations)", err, f.Info().Iterations)
		}
	}
}

// Cancelling mid-fit returns context.Canceled at the next iteration, without
// running another one.
func TestFalkonCancel(t *testing.T) {
	x, y := krrTestData(91, 500, 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	f := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-6, M: 50, MaxIter: 50, Tol: 1e-14,
		Progress: func(p Progress) error {
			if p.Stage != StageIteration {
				return nil
			}
			calls++
			if p.Done == 2 {
				cancel()
			}
			return nil
		}}
	if err := f.Fit(ctx, x, y); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if calls != 2 {
		t.Errorf("%d iterations ran, want 2 (cancelled during the second)", calls)
	}
	if _, err := f.Predict(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("after a cancelled fit Predict err = %v, want ErrNotFitted", err)
	}
}

// Warm start: from the converged solution at the same λ nothing is left to
// do; at a nearby λ fewer iterations are needed than from zero.
func TestFalkonWarmStart(t *testing.T) {
	x, y := krrTestData(101, 600, 4)
	k := kernel.Gaussian{Gamma: 0.3}
	a := &Falkon{Kernel: k, Lambda: 1e-4, M: 60, MaxIter: 200, Tol: 1e-10}
	if err := a.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	same := &Falkon{Kernel: k, Lambda: 1e-4, MaxIter: 200, Tol: 1e-8, WarmStart: a.Solution()}
	if err := same.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if it := same.Info().Iterations; it != 0 {
		t.Errorf("warm start from the solution took %d iterations, want 0", it)
	}
	cold := &Falkon{Kernel: k, Lambda: 2e-4, Centers: a.Solution().Centers, MaxIter: 200, Tol: 1e-10}
	warm := &Falkon{Kernel: k, Lambda: 2e-4, MaxIter: 200, Tol: 1e-10, WarmStart: a.Solution()}
	for _, f := range []*Falkon{cold, warm} {
		if err := f.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("λ 1e-4 → 2e-4: cold %d iterations, warm %d", cold.Info().Iterations, warm.Info().Iterations)
	if warm.Info().Iterations >= cold.Info().Iterations {
		t.Errorf("warm start took %d iterations, cold %d", warm.Info().Iterations, cold.Info().Iterations)
	}
	pc, _ := cold.Predict(x)
	pw, _ := warm.Predict(x)
	if d := maxRelDiff(pw, pc); d > 1e-7 {
		t.Errorf("warm and cold solutions differ by %g", d)
	}
}

// The memory plan is computed before allocating and the limit is honoured;
// the K_nM cache is used only when it fits, and gives the same model.
func TestFalkonMemory(t *testing.T) {
	x, y := krrTestData(111, 400, 3)
	base := Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, M: 50, MaxIter: 500, Tol: 1e-12}
	f := base
	if err := f.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	plan := f.Info().Plan
	if p, err := base.Plan(x, 1); err != nil || p != plan {
		t.Errorf("Plan before the fit = %+v, %v; the fit's %+v", p, err, plan)
	}
	// Preconditioner: K_MM and A (2M²) plus the diagonal (M): 8·(5000+50)
	// bytes, plus the factorizations' scratch: at least the packed operands
	// and panel of a rank-50 update, 8·3·64·50 bytes (M rounded up to 64),
	// or the K_MM engine call's scratch when larger.
	if s := plan.Precond - 8*(2*50*50+50); s < 8*3*64*50 || s > 4<<20 || plan.Data != 8*(400*3+400) || plan.Cache != 0 || f.Info().CachedKnm {
		t.Errorf("plan %+v", plan)
	}
	small := base
	small.MemoryLimit = plan.Total - 1
	if err := small.Fit(context.Background(), x, y); !errors.Is(err, ErrMemory) {
		t.Errorf("limit one byte below the plan: err = %v, want ErrMemory", err)
	}
	exact := base
	exact.MemoryLimit = plan.Total
	exact.CacheKnm = true // does not fit: silently not cached
	if err := exact.Fit(context.Background(), x, y); err != nil || exact.Info().CachedKnm {
		t.Errorf("limit = plan with cache requested: err %v, cached %v", err, exact.Info().CachedKnm)
	}
	cached := base
	cached.CacheKnm = true
	if err := cached.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	// The engine keeps K_nM's blocks (Keep64: 8 bytes for each of 400 rows
	// and 8 rows of padding, by M = 50 rounded up to 64 on the SIMD paths);
	// on the portable path K_nM (400 × 50) and its product are formed whole.
	wantCache := int64(8 * (400*50 + 400))
	if kernel.Accel() != "portable" {
		wantCache = 8 * (400 + 8) * 64
	}
	if !cached.Info().CachedKnm || cached.Info().Plan.Cache != wantCache {
		t.Errorf("cache: %v, plan %+v, want %d bytes cached", cached.Info().CachedKnm, cached.Info().Plan, wantCache)
	}
	p1, _ := f.Predict(x)
	p2, _ := cached.Predict(x)
	// Same iterates up to summation order (kept blocks or GEMM vs the
	// engine's fused pass).
	if d := maxRelDiff(p2, p1); d > 1e-8 {
		t.Errorf("cached K_nM changed predictions by %g", d)
	}
}

// FALKON-BLESS: with center weights the weighted preconditioner (eq. 15) is
// chosen, and it converges to the same solution as eq. 14 on the same
// centers (the preconditioner changes the path, not the system).
func TestFalkonWeightedPreconditioner(t *testing.T) {
	x, y := krrTestData(121, 800, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	const lambda = 1e-4
	centers := mat.DenseCopyOf(x.Slice(0, 80, 0, 3))
	w := make([]float64, 80)
	for j := range w {
		w[j] = 0.05 + 0.1*float64(j%7) // positive, uneven, on BLESS's M/n scale
	}
	b := &Falkon{Kernel: k, Lambda: lambda, Centers: centers, CenterWeights: w, MaxIter: 300, Tol: 1e-11}
	if err := b.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	info := b.Info()
	if info.Preconditioner != PrecondBLESS {
		t.Fatalf("preconditioner %q with center weights, want bless", info.Preconditioner)
	}
	u := &Falkon{Kernel: k, Lambda: lambda, Centers: centers, CenterWeights: w, Preconditioner: PrecondFalkon, MaxIter: 300, Tol: 1e-11}
	if err := u.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	pb, _ := b.Predict(x)
	pu, _ := u.Predict(x)
	t.Logf("%d iterations weighted, %d unweighted", info.Iterations, u.Info().Iterations)
	if info.Status != solver.Converged || u.Info().Status != solver.Converged {
		t.Fatalf("status %s / %s", info.Status, u.Info().Status)
	}
	if d := maxRelDiff(pb, pu); d > 1e-7 {
		t.Errorf("weighted and unweighted preconditioners converge to solutions %g apart", d)
	}
	if isBLESS(approx.Uniform{}) || isBLESS(nil) {
		t.Error("isBLESS(Uniform) or isBLESS(nil) is true")
	}
}

func TestFalkonBadConfig(t *testing.T) {
	x, y := krrTestData(131, 40, 2)
	ctx := context.Background()
	k := kernel.Gaussian{Gamma: 1}
	for _, f := range []*Falkon{
		{Kernel: k},
		{Kernel: k, Lambda: -1},
		{Kernel: k, Lambda: 1e-3, M: 41},
		{Kernel: k, Lambda: 1e-3, M: -1},
		{Kernel: k, Lambda: 1e-3, Preconditioner: "magic"},
		{Kernel: k, Lambda: 1e-3, Preconditioner: PrecondBLESS}, // uniform centers have no weights
		{Kernel: k, Lambda: 1e-3, Epsilon: -1},
		{Kernel: k, Lambda: 1e-3, MaxIter: -1},
		{Kernel: k, Lambda: 1e-3, Tol: -1},
		{Kernel: k, Lambda: 1e-3, Centers: mat.NewDense(5, 3, nil)},
		{Kernel: k, Lambda: 1e-3, Centers: mat.NewDense(5, 2, nil), CenterWeights: []float64{1}},
		{Kernel: k, Lambda: 1e-3, CenterLambda: -1},
		{Kernel: k, Lambda: 1e-3, Validation: &ValidationSet{X: mat.NewDense(3, 3, nil), Y: []float64{1, 2, 3}}},
		{Kernel: k, Lambda: 1e-3, Validation: &ValidationSet{X: mat.NewDense(3, 2, nil), Y: []float64{1, 2}}},
		{Kernel: k, Lambda: 1e-3, WarmStart: &KernelExpansion{Kernel: k, Centers: mat.NewDense(5, 2, nil), Coef: mat.NewDense(4, 1, nil)}},
		{Kernel: kernel.Gaussian{Gamma: -1}, Lambda: 1e-3},
	} {
		if err := f.Fit(ctx, x, y); !errors.Is(err, ErrInput) {
			t.Errorf("Fit with %+v: err = %v, want ErrInput", *f, err)
		}
	}
}

// The preconditioner earns its keep on real data: cadata (2,000-point
// subsample, standardized features, Gaussian σ = 2), M = 1,000 centers.
// At λ = 1e-4, FALKON-PCG reaches a relative residual of 1e-6 (preconditioned
// norm) within 30 iterations (measured: 23), while plain CG is still above
// 1e-6 (Euclidean norm; measured 7e-5 after 150) after four times as many.
// At DESIGN.md's λ = 1e-6 PCG needs about 88 iterations on this subsample —
// the preconditioner's quality depends on M against the effective dimension
// at λ — so the test uses 1e-4; docs/performance.md ("Falkon") has the full-size numbers.
// ε = 1e-10 because the default 1e-5 trades the tight-residual convergence
// this test measures for test error at few iterations (measured here with
// 1e-5: residual 1e-3 after 30 iterations; see precond.DefaultEpsilon).
func TestFalkonPreconditionerCadata(t *testing.T) {
	if testing.Short() {
		t.Skip("cadata PCG vs CG in -short mode")
	}
	xtr, ytr, _, _ := cadataSplit(t, 2000, 10, 1)
	k := kernel.Gaussian{Gamma: 0.125}
	pcg := &Falkon{Kernel: k, Lambda: 1e-4, M: 1000, MaxIter: 30, Tol: 1e-6, Seed: 1, Epsilon: 1e-10}
	if err := pcg.Fit(context.Background(), xtr, ytr); err != nil {
		t.Fatal(err)
	}
	pi := pcg.Info()
	if pi.Status != solver.Converged {
		t.Fatalf("FALKON-PCG: status %s after %d iterations, residual %.3g; want 1e-6 within 30", pi.Status, pi.Iterations, pi.Residual)
	}
	cg := &Falkon{Kernel: k, Lambda: 1e-4, Centers: pcg.Solution().Centers, Preconditioner: PrecondNone, MaxIter: 4 * pi.Iterations, Tol: 1e-6}
	if err := cg.Fit(context.Background(), xtr, ytr); err != nil {
		t.Fatal(err)
	}
	ci := cg.Info()
	t.Logf("cadata n=2000 M=1000 λ=1e-4: PCG %d iterations to %.2g; CG %d iterations reach %.2g (%s)", pi.Iterations, pi.Residual, ci.Iterations, ci.Residual, ci.Status)
	if ci.Status == solver.Converged {
		t.Errorf("plain CG reached 1e-6 in %d iterations, PCG needed %d: the preconditioner does not pay", ci.Iterations, pi.Iterations)
	}
}

// With approx.BLESS centers the weighted preconditioner is chosen by default
// (BLESS's weights are its A_h) and the fit reaches the same solution as the
// unweighted preconditioner on the same centers.
func TestFalkonBLESSSampler(t *testing.T) {
	x, y := krrTestData(171, 400, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	b := &Falkon{Kernel: k, Lambda: 1e-4, M: 40, Sampler: approx.BLESS{}, MaxIter: 300, Tol: 1e-11, Epsilon: 1e-10, Seed: 2}
	if err := b.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	info := b.Info()
	if info.Preconditioner != PrecondBLESS || info.Sampler != "approx.BLESS" {
		t.Fatalf("sampler %s, preconditioner %q; want approx.BLESS and bless", info.Sampler, info.Preconditioner)
	}
	// Eq. 15 regularizes with the λ_h of the BLESS step the centers come
	// from: in fixed-size mode the path stops where 3·d_h reaches M = 40,
	// far above the fit's λ on this smooth problem.
	lm, err := approx.BLESS{}.Sample(context.Background(), x, k, 40, rand.New(rand.NewPCG(2, falkonSeedStream)))
	if err != nil {
		t.Fatal(err)
	}
	if info.PrecondLambda != lm.Lambda || !(lm.Lambda > 1e-4) {
		t.Errorf("preconditioner λ %g, BLESS λ_h %g (fit λ 1e-4): want the λ_h, above the fit's λ", info.PrecondLambda, lm.Lambda)
	}
	g := &Falkon{Kernel: k, Lambda: 1e-4, Centers: lm.Points, CenterWeights: lm.Weights, CenterLambda: 0.5, MaxIter: 5}
	if err := g.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if g.Info().PrecondLambda != 0.5 {
		t.Errorf("given centers with CenterLambda 0.5: preconditioner λ %g", g.Info().PrecondLambda)
	}
	u := &Falkon{Kernel: k, Lambda: 1e-4, Centers: b.Solution().Centers, Preconditioner: PrecondFalkon, MaxIter: 300, Tol: 1e-11, Epsilon: 1e-10}
	if err := u.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	pb, _ := b.Predict(x)
	pu, _ := u.Predict(x)
	t.Logf("BLESS: M = %d, %d iterations weighted (%s), %d unweighted (%s)", info.M, info.Iterations, info.Status, u.Info().Iterations, u.Info().Status)
	if d := maxRelDiff(pb, pu); d > 1e-7 {
		t.Errorf("weighted and unweighted preconditioners converge to solutions %g apart", d)
	}
}

// The Patience rule stops at the first iteration that is Patience past the
// best validation error so far, keeps that best iterate, and otherwise follows
// the same iterates as a fit without the rule (its history is the oracle).
func TestFalkonPatience(t *testing.T) {
	c := conformanceMulticlass(4)
	val := &ValidationSet{X: c.xTest, Y: conformanceMulticlassLabels(c.xTest)}
	base := Falkon{Kernel: kernel.Gaussian{Gamma: 2}, Lambda: 1e-6, M: 80, Task: Classification, MaxIter: 30, Tol: 1e-300, Validation: val}
	full := base
	if err := full.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	const patience = 2
	h := full.Info().History
	stop, bestIt, bestErr := 0, 0, math.Inf(1)
	for _, it := range h {
		if it.ValError < bestErr {
			bestErr, bestIt = it.ValError, it.Iteration
		} else if it.Iteration-bestIt >= patience {
			stop = it.Iteration
			break
		}
	}
	if stop == 0 {
		t.Fatalf("no plateau of %d iterations in %d: the test needs one (history %+v)", patience, len(h), h)
	}
	p := base
	p.Patience = patience
	if err := p.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	info := p.Info()
	if info.Iterations != stop || info.Status != solver.Stopped || info.BestIteration != bestIt {
		t.Fatalf("patience fit: %d iterations, status %s, best %d; want %d, stopped, %d", info.Iterations, info.Status, info.BestIteration, stop, bestIt)
	}
	pred, _ := p.Predict(c.xTest)
	wrong := 0
	for i, v := range val.Y {
		if pred[i] != v {
			wrong++
		}
	}
	if got := float64(wrong) / float64(len(pred)); got != bestErr {
		t.Errorf("kept model's validation error %g, best recorded %g (iteration %d)", got, bestErr, bestIt)
	}
	bad := base
	bad.Patience, bad.Validation = 3, nil
	if err := bad.Fit(context.Background(), c.x, c.y); !errors.Is(err, ErrInput) {
		t.Errorf("patience without validation: err = %v, want ErrInput", err)
	}
}

// A limit below the plan is refused before anything of the size of K_MM is
// allocated, and the refusal names the bytes needed (the plan's total).
func TestFalkonMemoryRefusedBeforeAllocating(t *testing.T) {
	const n, d, mc = 3000, 3, 3000 // K_MM alone is 8·3000² = 72 MB
	x, y := krrTestData(113, n, d)
	f := Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, M: mc, MaxIter: 3, Resources: Resources{MemoryLimit: 1 << 20}}
	plan, perr := f.Plan(x, 1)
	if !errors.Is(perr, ErrMemory) {
		t.Fatalf("Plan: err = %v, want ErrMemory", perr)
	}
	// 8·(2M² + M) for K_MM and the factors, plus the factorizations'
	// scratch: the packing buffer of their rank-512 products
	// (kernel.Dense.SyrkPackBytes: B̂'s 3008×512 values on AVX-512, whose
	// SyrkLower reads Â from them, both operands' (3008 + 3000)·512 on the
	// other paths, M rounded up to the 16-row and 8-row tiles, plus the
	// products' other allocations, under 64 KiB) and potrf's panels
	// (512·128 + 128·M values: solver.CholeskyScratchBytes; Lauum on
	// kernel.Dense allocates none), with data and engine scratch on top.
	pack := kernel.Dense{}.SyrkPackBytes(mc, 512)
	if lo, hi := int64(8*3008*512), int64(8*(3008+3000)*512+64<<10); pack < lo || pack > hi {
		t.Errorf("SyrkPackBytes(%d, 512) = %d, want within [%d, %d]", mc, pack, lo, hi)
	}
	if want := int64(8*(2*mc*mc+mc+512*128+128*mc)) + pack; plan.Precond != want || plan.Total <= want {
		t.Errorf("plan %+v, want Precond %d", plan, want)
	}
	want := plan.Total
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := f.Fit(context.Background(), x, y)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("err = %v, want ErrMemory", err)
	}
	if !strings.Contains(err.Error(), formatBytes(want)) {
		t.Errorf("refusal %q does not name the planned %s", err, formatBytes(want))
	}
	// The fit may copy the targets and plan the engine (tens of KB); a tenth
	// of K_MM would mean the refusal came too late.
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*mc*mc/10 {
		t.Errorf("refused fit allocated %d bytes, want ≪ K_MM's %d", got, 8*mc*mc)
	}
}

// With a MemoryLimit and d ≥ autoKeepMinDim the fit keeps K_nM's blocks
// unasked (on the SIMD paths: Keep64), in at most half the room the limit
// leaves: all 300 rows under a roomy limit, some under a tight one; without
// a limit, all of them, or none where 75% of the machine's memory is only
// the plan without them; none at d = autoKeepMinDim − 1 or with NeverCacheKnm
// (which CacheKnm cannot go with), and always within the limit. The kept fit's predictions are the recomputing fit's up to
// summation order (1.1e-14 relative on machine F; bound 1e-11).
func TestFalkonAutoKeep(t *testing.T) {
	ctx := context.Background()
	for _, d := range []int{autoKeepMinDim - 1, autoKeepMinDim} {
		x, y := krrTestData(5, 300, d)
		base := Falkon{Kernel: kernel.Gaussian{Gamma: 0.5 / float64(d)}, Lambda: 1e-4, M: 40, MaxIter: 200, Tol: 1e-12, Seed: 2, BlockRows: 64}
		plain := base
		plain.NeverCacheKnm = true
		if err := plain.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		want := mustPredict(t, &plain, x)
		roomy := base
		roomy.MemoryLimit = 1 << 30
		if err := roomy.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		info := roomy.Info()
		keeps := d >= autoKeepMinDim && kernel.Accel() != "portable"
		// 8 bytes × (300 rows + 8 of padding) × 48 (M = 40 rounded up to
		// the panel width, 16).
		if wantBytes := int64(8 * 308 * 48); keeps && (!info.CachedKnm || info.Plan.Cache != wantBytes) || !keeps && (info.CachedKnm || info.Plan.Cache != 0) {
			t.Errorf("d = %d, 1 GiB limit: cached %v, %d bytes; want kept %v", d, info.CachedKnm, info.Plan.Cache, keeps)
		}
		if diff := maxRelDiff(mustPredict(t, &roomy, x), want); diff > 1e-11 {
			t.Errorf("d = %d: kept fit's predictions differ by %g", d, diff)
		}
		never := roomy
		never.NeverCacheKnm = true
		if err := never.Fit(ctx, x, y); err != nil || never.Info().CachedKnm || never.Info().Plan.Cache != 0 {
			t.Errorf("d = %d, NeverCacheKnm: err %v, cached %v, %d bytes", d, err, never.Info().CachedKnm, never.Info().Plan.Cache)
		}
		both := never
		both.CacheKnm = true
		if err := both.Fit(ctx, x, y); !errors.Is(err, ErrInput) {
			t.Errorf("CacheKnm and NeverCacheKnm: err = %v, want ErrInput", err)
		}
		// Without a MemoryLimit the room is 75% of the process's memory:
		// on this machine all of K_nM; on a machine standing in whose 75%
		// is just the plan without the cache, none.
		unlimited := base
		if err := unlimited.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		if ui := unlimited.Info(); ui.CachedKnm != keeps || ui.Plan.Cache != info.Plan.Cache {
			t.Errorf("d = %d, no limit: cached %v, %d bytes; want %v, %d", d, ui.CachedKnm, ui.Plan.Cache, keeps, info.Plan.Cache)
		}
		if diff := maxRelDiff(mustPredict(t, &unlimited, x), want); diff > 1e-11 {
			t.Errorf("d = %d, no limit: predictions differ by %g", d, diff)
		}
		small := max(plain.Info().Plan.Total, info.Plan.Total-info.Plan.Cache)
		physicalMemory = func() (int64, bool) { return int64(float64(small) / physmem.DefaultShare), true }
		err := unlimited.Fit(ctx, x, y)
		physicalMemory = physmem.Total
		if err != nil || unlimited.Info().CachedKnm || unlimited.Info().Plan.Cache != 0 {
			t.Errorf("d = %d, no limit on a machine of %d bytes: err %v, cached %v, %d bytes", d, small, err, unlimited.Info().CachedKnm, unlimited.Info().Plan.Cache)
		}
		if !keeps {
			continue
		}
		// A limit leaving room for about 100 of the 300 rows (twice their
		// bytes: auto takes half the room) above both plans without them
		// (the kept passes' scratch differs from the fused pass's): whole
		// blocks of 64 rows are kept, one or two of the five.
		tight := base
		tight.MemoryLimit = max(plain.Info().Plan.Total, info.Plan.Total-info.Plan.Cache) + 2*8*100*48
		if err := tight.Fit(ctx, x, y); err != nil {
			t.Fatal(err)
		}
		ti := tight.Info()
		if !ti.CachedKnm || ti.Plan.Cache <= 0 || ti.Plan.Cache >= info.Plan.Cache || ti.Plan.Total > tight.MemoryLimit {
			t.Errorf("tight limit %d: cached %v, %d bytes, plan total %d", tight.MemoryLimit, ti.CachedKnm, ti.Plan.Cache, ti.Plan.Total)
		}
		if diff := maxRelDiff(mustPredict(t, &tight, x), want); diff > 1e-11 {
			t.Errorf("tight limit: predictions differ by %g", diff)
		}
	}
}
