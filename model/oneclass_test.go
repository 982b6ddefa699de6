package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// oneClassData is n points of a standard 2-D Gaussian followed by k points
// uniform on [−6, 6]², most of them far from the Gaussian's mass. Labels
// are +1 for the first n and −1 for the others (LIBSVM's convention for a
// one-class file: +1 normal).
func oneClassData(n, k int, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 17))
	x := mat.NewDense(n+k, 2, nil)
	y := make([]float64, n+k)
	for i := range n + k {
		if i < n {
			x.Set(i, 0, rng.NormFloat64())
			x.Set(i, 1, rng.NormFloat64())
			y[i] = 1
		} else {
			x.Set(i, 0, 12*rng.Float64()-6)
			x.Set(i, 1, 12*rng.Float64()-6)
			y[i] = -1
		}
	}
	return x, y
}

// TestOneClassSVMSolution checks a fit against what the dual's optimality
// conditions say about it (Schölkopf et al. 2001): the rows with
// 0 < α_i < 1 lie on the boundary, f(x_i) = 0 (to the solver's tolerance
// 1e-8, with the kernel recomputed from the support vectors); Σ α_i = νn;
// at least νn rows are support vectors and at most νn are outliers
// (the ν-property); Info's outlier count equals Predict's −1s on the training
// rows; and the far points are the outliers found.
func TestOneClassSVMSolution(t *testing.T) {
	x, y := oneClassData(300, 15, 1)
	n := len(y)
	for _, nu := range []float64{0.05, 0.2, 0.5} {
		s := &OneClassSVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: nu, Tol: 1e-8}
		if err := s.Fit(context.Background(), x, nil); err != nil {
			t.Fatal(err)
		}
		in := s.Info()
		sv, coef, err := s.SupportVectors()
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, a := range coef {
			sum += a
		}
		if math.Abs(sum-nu*float64(n)) > 1e-9*float64(n) {
			t.Errorf("ν = %g: Σα = %.12g, want νn = %g", nu, sum, nu*float64(n))
		}
		// f at the free support vectors, from K(S, S) computed here.
		m, _ := sv.Dims()
		ks := mat.NewDense(m, m, nil)
		svd := sv.(*mat.Dense)
		kernel.Gaussian{Gamma: 0.5}.Block(ks, svd, svd)
		free := 0
		for i := range m {
			if coef[i] >= 1 {
				continue
			}
			free++
			f := -in.Rho
			for j := range m {
				f += coef[j] * ks.At(i, j)
			}
			if math.Abs(f) > 1e-6 {
				t.Errorf("ν = %g: free support vector %d has f = %g, want 0", nu, i, f)
			}
		}
		if free == 0 {
			t.Errorf("ν = %g: no free support vector, the test checks nothing", nu)
		}
		p, err := s.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		out, farOut := 0, 0
		for i, v := range p {
			if v == -1 {
				out++
				if y[i] < 0 {
					farOut++
				}
			} else if v != 1 {
				t.Fatalf("prediction %g, want ±1", v)
			}
		}
		t.Logf("ν = %g: ρ = %.6g, %d SVs (%d bounded), %d outliers (%d of the 15 far points), obj %.6g",
			nu, in.Rho, in.SV, in.BoundedSV, out, farOut, in.Objective)
		if out != in.Outliers {
			t.Errorf("ν = %g: Predict marks %d training rows outliers, Info says %d", nu, out, in.Outliers)
		}
		if float64(in.SV) < nu*float64(n) || float64(out) > nu*float64(n)+float64(free) {
			t.Errorf("ν = %g: %d SVs and %d outliers, νn = %g", nu, in.SV, out, nu*float64(n))
		}
		// At ν ≥ 0.2 the estimated support holds about 1 − ν of the rows,
		// the standard Gaussian's disc of radius √(2 ln(1/ν)) ≤ 1.8 and a
		// margin: a point beyond radius 3.5 (where the Gaussian has 0.2% of
		// its mass) must fall outside. (At ν = 0.05 the support is wider
		// than the uniform points' spacing and takes some of them in.)
		if nu >= 0.2 {
			for i := 300; i < n; i++ {
				if r := math.Hypot(x.At(i, 0), x.At(i, 1)); r > 3.5 && p[i] != -1 {
					t.Errorf("ν = %g: far point %d (radius %.2f) predicted inlier", nu, i, r)
				}
			}
		}
	}
}

var (
	reRho = regexp.MustCompile(`rho = (\S+)`)
	reNSV = regexp.MustCompile(`nSV = (\d+)`)
)

// TestOneClassSVMMatchesLIBSVM fits the same rows as svm-train -s 2 (when
// LIBSVM's tools are installed) with tolerance 1e-6 on both sides: the
// optimum is unique in α's objective, so obj must agree to 1e-6 relative
// and ρ to 1e-4 (ρ averages the free variables' gradients, each known to
// the tolerance); the support vectors' count may differ by the
// variables at 0 or 1 within the tolerance, so it is compared to within
// 2; svm-predict's labels on 2,000 new points must agree with ours except
// within |f| < 1e-4 of the boundary.
func TestOneClassSVMMatchesLIBSVM(t *testing.T) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("LIBSVM's svm-train is not installed (Debian: libsvm-tools)")
	}
	x, y := oneClassData(400, 20, 2)
	s := &OneClassSVM{Kernel: kernel.Gaussian{Gamma: 0.8}, Nu: 0.1, Tol: 1e-6}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	in := s.Info()
	dir := t.TempDir()
	tr, model := filepath.Join(dir, "train"), filepath.Join(dir, "model")
	writeLIBSVM(t, tr, x, y)
	out, err := exec.Command("svm-train", "-s", "2", "-n", "0.1", "-g", "0.8", "-e", "1e-6", tr, model).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train: %v\n%s", err, out)
	}
	num := func(re *regexp.Regexp) float64 {
		m := re.FindStringSubmatch(string(out))
		if m == nil {
			t.Fatalf("%v not in svm-train's output:\n%s", re, out)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		return v
	}
	rho, obj, nsv := num(reRho), num(reObj), num(reNSV)
	t.Logf("svm-train -s 2: rho %g obj %g nSV %g; ours %g %g %d", rho, obj, nsv, in.Rho, in.Objective, in.SV)
	if math.Abs(in.Objective-obj) > 1e-6*math.Abs(obj) {
		t.Errorf("objective %.9g, svm-train %.9g", in.Objective, obj)
	}
	if math.Abs(in.Rho-rho) > 1e-4*math.Abs(rho) {
		t.Errorf("ρ = %.9g, svm-train %.9g", in.Rho, rho)
	}
	if math.Abs(float64(in.SV)-nsv) > 2 {
		t.Errorf("%d support vectors, svm-train %g", in.SV, nsv)
	}
	xt, yt := oneClassData(1800, 200, 3)
	te, pred := filepath.Join(dir, "test"), filepath.Join(dir, "pred")
	writeLIBSVM(t, te, xt, yt)
	if out, err := exec.Command("svm-predict", te, model, pred).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(pred)
	if err != nil {
		t.Fatal(err)
	}
	var ref []float64
	for _, f := range strings.Fields(string(raw)) {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			t.Fatal(err)
		}
		ref = append(ref, v)
	}
	if len(ref) != len(yt) {
		t.Fatalf("svm-predict wrote %d labels for %d rows", len(ref), len(yt))
	}
	dec, err := s.DecisionFunction(xt)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.Predict(xt)
	for i := range p {
		if p[i] != ref[i] && math.Abs(dec.At(i, 0)) > 1e-4 {
			t.Errorf("row %d: label %g (f = %g), svm-predict %g", i, p[i], dec.At(i, 0), ref[i])
		}
	}
}

// TestOneClassSVMWeightsRepeatRows: integer weights 0–3 give the model of
// the data with each row repeated that many times (the bounds w_i and
// Σα = ν·Σw are those of the repeated problem with the copies' α summed),
// to the solvers' tolerance 1e-9 on both.
func TestOneClassSVMWeightsRepeatRows(t *testing.T) {
	x, _ := oneClassData(120, 8, 4)
	n, d := x.Dims()
	rng := rand.New(rand.NewPCG(5, 5))
	w := make([]float64, n)
	var rep []float64
	reps := 0
	for i := range w {
		w[i] = float64(rng.IntN(4))
		for range int(w[i]) {
			rep = append(rep, mat.Row(nil, i, x)...)
			reps++
		}
	}
	xr := mat.NewDense(reps, d, rep)
	a := &OneClassSVM{Kernel: kernel.Gaussian{Gamma: 0.7}, Nu: 0.3, Tol: 1e-9}
	b := *a
	if err := a.FitWeighted(context.Background(), x, nil, w); err != nil {
		t.Fatal(err)
	}
	if err := b.Fit(context.Background(), xr, nil); err != nil {
		t.Fatal(err)
	}
	xt, _ := oneClassData(200, 20, 6)
	da, _ := a.DecisionFunction(xt)
	db, _ := b.DecisionFunction(xt)
	for i := range 220 {
		if math.Abs(da.At(i, 0)-db.At(i, 0)) > 1e-6 {
			t.Fatalf("row %d: weighted f = %.10g, repeated rows %.10g", i, da.At(i, 0), db.At(i, 0))
		}
	}
	if math.Abs(a.Info().Objective-b.Info().Objective) > 1e-8*math.Abs(b.Info().Objective) {
		t.Errorf("objective %.12g weighted, %.12g repeated", a.Info().Objective, b.Info().Objective)
	}
	// Sparse rows give the same model as dense ones, to the solver's
	// tolerance (their kernel values round differently, so the SMO paths
	// part at about 1e-16 and end within 1e-9 of the optimum each).
	c := *a
	c.fit = nil
	xs, err := datasets.CSRFromDense(x)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.FitWeighted(context.Background(), xs, nil, w); err != nil {
		t.Fatal(err)
	}
	dc, _ := c.DecisionFunction(xt)
	for i := range 220 {
		if math.Abs(da.At(i, 0)-dc.At(i, 0)) > 1e-7 {
			t.Fatalf("row %d: sparse f = %.12g, dense %.12g", i, dc.At(i, 0), da.At(i, 0))
		}
	}
}

func TestOneClassSVMRefusals(t *testing.T) {
	x, y := oneClassData(30, 2, 7)
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		s    OneClassSVM
		y    []float64
	}{
		{"nu > 1", OneClassSVM{Nu: 1.5}, nil},
		{"nu < 0", OneClassSVM{Nu: -0.1}, nil},
		{"nu NaN", OneClassSVM{Nu: math.NaN()}, nil},
		{"short y", OneClassSVM{}, y[:5]},
		{"bad gamma", OneClassSVM{Kernel: kernel.Gaussian{Gamma: -1}}, nil},
	} {
		if err := tc.s.Fit(ctx, x, tc.y); !errors.Is(err, ErrInput) && !errors.Is(err, kernel.ErrParam) {
			t.Errorf("%s: err = %v, want ErrInput or kernel.ErrParam", tc.name, err)
		}
	}
	s := &OneClassSVM{}
	if _, err := s.Predict(x); !errors.Is(err, ErrNotFitted) {
		t.Errorf("Predict before Fit: %v", err)
	}
	if err := s.Fit(ctx, x, y); err != nil { // y's values are not used
		t.Fatal(err)
	}
	if _, err := s.PredictProba(x); !errors.Is(err, ErrInput) {
		t.Errorf("PredictProba: err = %v, want ErrInput", err)
	}
	if got := s.Classes(); len(got) != 2 || got[0] != -1 || got[1] != 1 {
		t.Errorf("Classes %v, want [-1 1]", got)
	}
	// ν = 1 puts every α at its bound 1: every row is a support vector.
	all := &OneClassSVM{Nu: 1}
	if err := all.Fit(ctx, x, nil); err != nil {
		t.Fatal(err)
	}
	if in := all.Info(); in.SV != 32 || in.BoundedSV != 32 {
		t.Errorf("ν = 1: %d SVs, %d bounded, want 32 and 32", in.SV, in.BoundedSV)
	}
}

func TestOneClassSVMConformance(t *testing.T) {
	mk := func() Estimator { return &OneClassSVM{Kernel: kernel.Gaussian{Gamma: 1}, Nu: 0.3} }
	checkConformance(t, mk, conformanceOutliers(1))
}

// TestOneClassScoreSamples: ScoreSamples is Σ α_i K(x_i, x) over the
// support vectors and their coefficients (SupportVectors), summed here
// with kernel.Eval, to 1e-12; it is DecisionFunction + ρ; and a loaded
// model gives the same scores bit for bit.
func TestOneClassScoreSamples(t *testing.T) {
	x, _ := nuBlobs(150, 0.5, 33)
	q, _ := nuBlobs(20, 0.5, 34)
	g := kernel.Gaussian{Gamma: 0.7}
	s := &OneClassSVM{Kernel: g, Nu: 0.2}
	if err := s.Fit(context.Background(), x, nil); err != nil {
		t.Fatal(err)
	}
	scores, err := s.ScoreSamples(q)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := s.DecisionFunction(q)
	sv, coef, _ := s.SupportVectors()
	svd := sv.(*mat.Dense)
	for i, got := range scores {
		var want float64
		for j, a := range coef {
			want += a * g.Eval(svd.RawRowView(j), q.RawRowView(i))
		}
		if math.Abs(got-want) > 1e-12 || math.Abs(got-s.Info().Rho-dec.At(i, 0)) > 1e-12 {
			t.Fatalf("row %d: score %.15g, Σα_i K(x_i, x) %.15g; score − ρ %.15g, decision %.15g", i, got, want, got-s.Info().Rho, dec.At(i, 0))
		}
	}
	var buf bytes.Buffer
	if err := Save(&buf, s); err != nil {
		t.Fatal(err)
	}
	back, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	again, err := back.(*OneClassSVM).ScoreSamples(q)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(again, scores) {
		t.Error("a loaded model's scores differ")
	}
	if _, err := (&OneClassSVM{}).ScoreSamples(q); !errors.Is(err, ErrNotFitted) {
		t.Errorf("before Fit: err = %v, want ErrNotFitted", err)
	}
}
