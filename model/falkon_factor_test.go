package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
	"gopkg.in/yaml.v3"
)

// oneHotRegression returns n rows of 3 standard-normal columns followed by
// a one-hot block of 10 and one of 8 columns and 4 binary flags (d = 25,
// 22 two-valued columns), the two-valued part drawn from 20 fixed
// combinations (20 patterns at most), and a smooth target of all columns.
func oneHotRegression(seed uint64, n int) (*mat.Dense, []float64) {
	r := rand.New(rand.NewPCG(seed, 99))
	combos := make([][6]int, 20)
	for c := range combos {
		combos[c] = [6]int{r.IntN(10), r.IntN(8), r.IntN(2), r.IntN(2), r.IntN(2), r.IntN(2)}
	}
	x := mat.NewDense(n, 25, nil)
	y := make([]float64, n)
	for i := range n {
		row := x.RawRowView(i)
		for j := range 3 {
			row[j] = r.NormFloat64()
		}
		c := combos[r.IntN(len(combos))]
		row[3+c[0]] = 1
		row[13+c[1]] = 1
		for f := range 4 {
			row[21+f] = float64(2*c[2+f] - 1)
		}
		y[i] = math.Sin(row[0]) + 0.5*row[1]*row[2] + 0.3*float64(c[0]%3) - 0.2*float64(c[1]%2) + 0.1*row[21] + 0.05*r.NormFloat64()
	}
	return x, y
}

// TestFalkonFactorMatches fits the same Falkon with Factor off and on (the
// Gaussian and the Laplacian, float64 and Float32 passes) and compares the
// coefficients and the predictions on fresh rows. Both fits run the same
// CG on operators equal to rounding (kernel.TestFactoredMatchesOp: 1e-15
// relative in float64); 10 iterations at λ = 1e-3 amplify that by at most
// the preconditioned system's condition number, so 1e-9 relative (measured
// values logged) leaves a wide margin in float64. With Float32 the two
// fits' kernel values differ by up to 1e-6 (float32KernelTol: the factored
// one rounds only the dense columns), so the predictions agree to 1e-4
// relative and the coefficients are not compared; so do those of a factored
// Float32Storage fit (X_D held in float32).
func TestFalkonFactorMatches(t *testing.T) {
	x, y := oneHotRegression(1, 3000)
	xt, _ := oneHotRegression(2, 500)
	ctx := context.Background()
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 0.1}, kernel.Laplacian{Gamma: 0.05}} {
		for _, f32 := range []bool{false, true} {
			var fits [2]*Falkon
			for i, mode := range []FactorMode{FactorOff, FactorOn} {
				m := &Falkon{Kernel: k, Lambda: 1e-3, M: 120, MaxIter: 10, Seed: 3, Float32: f32, Factor: mode}
				if err := m.Fit(ctx, x, y); err != nil {
					t.Fatal(err)
				}
				fits[i] = m
			}
			if f32 {
				// Float32Storage: X_D held in float32 (a *kernel.Dense32),
				// the same passes as Float32 on the rounded values.
				st := &Falkon{Kernel: k, Lambda: 1e-3, M: 120, MaxIter: 10, Seed: 3, Float32Storage: true, Factor: FactorOn}
				if err := st.Fit(ctx, x, y); err != nil {
					t.Fatal(err)
				}
				ps, err := st.DecisionFunction(xt)
				if err != nil {
					t.Fatal(err)
				}
				p0, err := fits[0].DecisionFunction(xt)
				if err != nil {
					t.Fatal(err)
				}
				if e := relDiffM(ps, p0); e > 1e-4 || st.Info().Plan.Factoring == "" {
					t.Errorf("%v Float32Storage factored: predictions %.3g relative from the plain Float32 fit (factoring %q)", k, e, st.Info().Plan.Factoring)
				}
			}
			if p := fits[0].Info().Plan; p.Factoring != "" || p.Factored != 0 {
				t.Fatalf("Factor off planned factoring %q (%d bytes)", p.Factoring, p.Factored)
			}
			if p := fits[1].Info().Plan; p.Factoring != "3 dense + 22 two-valued columns, 20 patterns" || p.Factored == 0 {
				t.Fatalf("Factor on planned factoring %q (%d bytes)", p.Factoring, p.Factored)
			}
			var preds [2]*mat.Dense
			for i, m := range fits {
				var err error
				if preds[i], err = m.DecisionFunction(xt); err != nil {
					t.Fatal(err)
				}
			}
			ep := relDiffM(preds[1], preds[0])
			ec := relDiffM(fits[1].Solution().Coef, fits[0].Solution().Coef)
			t.Logf("%v float32=%v: predictions %.2g, coefficients %.2g relative", k, f32, ep, ec)
			tol := 1e-9
			if f32 {
				tol = 1e-4
			} else if ec > tol {
				t.Errorf("%v: coefficients differ by %.3g relative, above %g", k, ec, tol)
			}
			if ep > tol {
				t.Errorf("%v float32=%v: predictions differ by %.3g relative, above %g", k, f32, ep, tol)
			}
		}
	}
}

// relDiffM is ‖a − b‖_F / ‖b‖_F.
func relDiffM(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / mat.Norm(b, 2)
}

// TestFalkonFactorPlan checks the plan of a factored fit: Factored is X_D
// (n·|D| float64), the permutation (4n), the group starts (8(P+1)), T
// (8·P·M) and the centers' dense columns (8·M·|D|), counted in Total; with
// FactorOn a MemoryLimit of Total − 1 refuses the fit with ErrMemory and
// Total accepts it, while FactorAuto under Total − 1 fits unfactored; FactorAuto
// factors this data (22 of 25 columns two-valued: the cost model predicts
// (a + 3b)/(a + 25b) ≈ 0.57 of the time) but not with the polynomial
// kernel, sparse X or a cached K_nM; Fit leaves the struct as it was.
func TestFalkonFactorPlan(t *testing.T) {
	const n, mc = 2000, 100
	x, y := oneHotRegression(3, n)
	m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, M: mc, MaxIter: 3, Seed: 4}
	p, err := m.Plan(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := kernel.DetectSplit(x, 0)
	if !ok || s.Patterns != 20 {
		t.Fatalf("split %v", s)
	}
	want := int64(8*n*3 + 4*n + 8*(s.Patterns+1) + 8*s.Patterns*mc + 8*mc*3)
	if p.Factored != want || p.Factoring == "" {
		t.Fatalf("auto plan: Factored %d (%q), want %d", p.Factored, p.Factoring, want)
	}
	if sum := p.Data + p.Centers + p.Precond + p.Engine + p.Solver + p.Validation + p.Cache + p.Factored; sum != p.Total {
		t.Fatalf("plan parts sum to %d, Total %d", sum, p.Total)
	}
	// Auto under a limit the factored plan exceeds but the plain one
	// does not (20,000 rows, M = 20: X_D, the permutation and the groups'
	// row norms, 36 bytes a row, outweigh the plain engine's blocks of 20
	// centers, which do not grow with n): the fit runs unfactored.
	xl, yl := oneHotRegression(5, 20000)
	auto := &Falkon{Kernel: m.Kernel, Lambda: m.Lambda, M: 20, MaxIter: 2}
	pf, err := auto.Plan(xl, 1)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := (&Falkon{Kernel: m.Kernel, Lambda: m.Lambda, M: 20, Factor: FactorOff}).Plan(xl, 1)
	if err != nil || pf.Factoring == "" || plain.Total >= pf.Total {
		t.Fatalf("n = 20,000, M = 20: plain plan %d bytes (%v), factored %d (%q): the fallback check needs the plain one smaller", plain.Total, err, pf.Total, pf.Factoring)
	}
	auto.MemoryLimit = pf.Total - 1
	if err := auto.Fit(context.Background(), xl, yl); err != nil || auto.Info().Plan.Factoring != "" {
		t.Fatalf("auto under the factored plan's %d bytes: %v, factoring %q; want a plain fit", pf.Total, err, auto.Info().Plan.Factoring)
	}
	m.Factor = FactorOn
	if p2, err := m.Plan(x, 1); err != nil || p2 != p {
		t.Fatalf("FactorOn plan %+v (%v), auto's %+v", p2, err, p)
	}
	before := *m
	m.MemoryLimit = p.Total - 1
	if err := m.Fit(context.Background(), x, y); !errors.Is(err, ErrMemory) {
		t.Fatalf("FactorOn, MemoryLimit %d under the plan's %d: %v, want ErrMemory", m.MemoryLimit, p.Total, err)
	}
	m.MemoryLimit = p.Total
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatalf("MemoryLimit = plan: %v", err)
	}
	if got := m.Info().Plan; got.Factored != want {
		t.Fatalf("fit's plan Factored %d, want %d", got.Factored, want)
	}
	after := *m
	after.fit, after.MemoryLimit = nil, 0
	if !reflect.DeepEqual(before, after) {
		t.Fatal("Fit changed the Falkon's fields")
	}
	for name, c := range map[string]*Falkon{
		"polynomial": {Kernel: kernel.Polynomial{Gamma: 1, Coef0: 1, Degree: 2}, Lambda: 1e-3, M: mc, Factor: FactorOn},
		"cached":     {Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, M: mc, Factor: FactorOn, CacheKnm: true},
		"off":        {Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, M: mc, Factor: FactorOff},
	} {
		p, err := c.Plan(x, 1)
		if err != nil {
			t.Fatal(err)
		}
		if p.Factored != 0 || p.Factoring != "" {
			t.Errorf("%s: planned factoring %q", name, p.Factoring)
		}
	}
	// Mostly dense data: auto declines (4 two-valued of 25), on factors.
	xd := mat.DenseCopyOf(x)
	r := rand.New(rand.NewPCG(5, 6))
	for i := range n {
		for j := 3; j < 21; j++ {
			xd.Set(i, j, r.NormFloat64())
		}
	}
	for mode, wantF := range map[FactorMode]bool{FactorAuto: false, FactorOn: true} {
		c := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, M: mc, Factor: mode}
		p, err := c.Plan(xd, 1)
		if err != nil {
			t.Fatal(err)
		}
		if (p.Factoring != "") != wantF {
			t.Errorf("%v on 21 dense columns of 25: factoring %q", mode, p.Factoring)
		}
	}
	if err := (&Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, M: mc, Factor: 7}).Fit(context.Background(), x, y); !errors.Is(err, ErrInput) {
		t.Fatalf("Factor = 7: %v, want ErrInput", err)
	}
}

// TestFactorModeText checks the YAML spellings of FactorMode: auto, off,
// on (and an empty value meaning auto) read and write back; anything else
// is an ErrInput naming the value.
func TestFactorModeText(t *testing.T) {
	for text, want := range map[string]FactorMode{"auto": FactorAuto, "off": FactorOff, "on": FactorOn, `""`: FactorAuto} {
		var v struct {
			Factor FactorMode `yaml:"factor"`
		}
		if err := yaml.Unmarshal([]byte("factor: "+text), &v); err != nil || v.Factor != want {
			t.Fatalf("factor: %s read as %v (%v), want %v", text, v.Factor, err, want)
		}
		b, err := yaml.Marshal(v)
		if err != nil || !strings.Contains(string(b), want.String()) {
			t.Fatalf("%v written as %q (%v)", want, b, err)
		}
		var back struct {
			Factor FactorMode `yaml:"factor"`
		}
		if err := yaml.Unmarshal(b, &back); err != nil || back.Factor != want {
			t.Fatalf("%v does not round-trip through %q: %v", want, b, err)
		}
	}
	var v struct {
		Factor FactorMode `yaml:"factor"`
	}
	if err := yaml.Unmarshal([]byte("factor: yes please"), &v); err == nil {
		t.Fatal("factor: yes please accepted")
	}
	var f FactorMode
	if err := f.UnmarshalText([]byte("sometimes")); !errors.Is(err, ErrInput) {
		t.Fatalf("UnmarshalText(sometimes): %v, want ErrInput", err)
	}
}

// TestFalkonFactorCovtype fits the first 20,000 rows of covtype.binary
// (standardized with their own statistics; 10 dense and 44 two-valued
// columns) with M = 1,000 and 10 iterations, factored and not, and checks
// the test errors on the next 5,000 rows agree: the two fits' operators are
// equal to rounding, so at most a handful of the 5,000 borderline test
// points may flip (0.1%: 5 points). Skipped with -short and when the shared
// datasets are absent.
func TestFalkonFactorCovtype(t *testing.T) {
	if testing.Short() {
		t.Skip("two covtype fits of 20,000 rows: a few seconds")
	}
	path, ok := datasets.SharedPath("covtype.binary.libsvm.gz")
	if !ok {
		t.Skip("covtype.binary.libsvm.gz not in the shared datasets")
	}
	ds, err := datasets.ReadFile(path, datasets.ReadOptions{MaxRows: 25000, Dim: 54})
	if err != nil {
		t.Fatal(err)
	}
	var st datasets.Standardizer
	xtr := mat.DenseCopyOf(ds.X.Slice(0, 20000, 0, 54))
	if err := st.Fit(xtr); err != nil {
		t.Fatal(err)
	}
	xtr, err = st.Transform(xtr)
	if err != nil {
		t.Fatal(err)
	}
	xte, err := st.Transform(mat.DenseCopyOf(ds.X.Slice(20000, 25000, 0, 54)))
	if err != nil {
		t.Fatal(err)
	}
	var errs [2]float64
	for i, mode := range []FactorMode{FactorOff, FactorAuto} {
		m := &Falkon{Kernel: kernel.GaussianSigma(1), Lambda: 1e-6, M: 1000, MaxIter: 10, Seed: 1, Task: Classification, Factor: mode}
		if err := m.Fit(context.Background(), xtr, ds.Y[:20000]); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(xte)
		if err != nil {
			t.Fatal(err)
		}
		wrong := 0
		for j, v := range pred {
			if v != ds.Y[20000+j] {
				wrong++
			}
		}
		errs[i] = float64(wrong) / 5000
		t.Logf("factor %v: %q, test error %.4f, solve %v", mode, m.Info().Plan.Factoring, errs[i], m.Info().SolveTime)
		if mode == FactorAuto && m.Info().Plan.Factoring == "" {
			t.Fatal("auto did not factor covtype")
		}
	}
	if math.Abs(errs[0]-errs[1]) > 0.001 {
		t.Fatalf("test errors %.4f (off) and %.4f (factored) differ by more than 0.001", errs[0], errs[1])
	}
}
