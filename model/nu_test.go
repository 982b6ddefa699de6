package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// nuBlobs is n points of two overlapping 2-D Gaussian classes, labels ±1
// (the first class at (0.8, 0), the second at (−0.8, 0)), a share pos of
// them positive.
func nuBlobs(n int, pos float64, seed uint64) (*mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 23))
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		y[i] = -1
		if rng.Float64() < pos {
			y[i] = 1
		}
		x.Set(i, 0, rng.NormFloat64()+0.8*y[i])
		x.Set(i, 1, rng.NormFloat64())
	}
	return x, y
}

// TestNuSVCIsCSVC checks ν-SVC against the identity LIBSVM's scaling rests
// on (Chang & Lin 2011, Sect. 2.2: a ν-SVC solution with r > 0 is a C-SVC
// solution with C = 1/r): SVM{Nu: ν} and SVM{C: 1/R} fitted on the same
// rows give the same decision values (to 1e-5: both duals solved to 1e-9),
// for a binary and a three-class one-vs-one problem; and the fraction of
// support vectors is at least ν in each sub-problem (Schölkopf et al.'s
// ν-property, "New support vector algorithms", Neural Computation 12, 2000).
func TestNuSVCIsCSVC(t *testing.T) {
	x, y := nuBlobs(300, 0.4, 1)
	x3, y3 := conformanceMulticlass(7).x, conformanceMulticlass(7).y
	for _, c := range []struct {
		name string
		x    *mat.Dense
		y    []float64
		nu   float64
	}{{"binary", x, y, 0.6}, {"binary ν 0.7", x, y, 0.7}, {"three classes", x3, y3, 0.6}} {
		nu := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: c.nu, Tol: 1e-9}
		if err := nu.Fit(context.Background(), c.x, c.y); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		dn, _ := nu.DecisionFunction(c.x)
		for ti, task := range nu.Info().Tasks {
			if !(task.R > 0) {
				t.Fatalf("%s task %d: r = %g", c.name, ti, task.R)
			}
			if float64(task.SV) < c.nu*float64(task.N) {
				t.Errorf("%s task %d: %d support vectors of %d rows, fewer than ν·n = %g", c.name, ti, task.SV, task.N, c.nu*float64(task.N))
			}
			if len(nu.Info().Tasks) > 1 {
				continue // the C differ by task: the identity is checked on one
			}
			csvc := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 1 / task.R, Tol: 1e-9}
			if err := csvc.Fit(context.Background(), c.x, c.y); err != nil {
				t.Fatal(err)
			}
			dc, _ := csvc.DecisionFunction(c.x)
			for i := range c.y {
				if math.Abs(dn.At(i, 0)-dc.At(i, 0)) > 1e-5 {
					t.Fatalf("%s row %d: ν-SVC f = %.9g, C-SVC with C = 1/r = %g: %.9g", c.name, i, dn.At(i, 0), 1/task.R, dc.At(i, 0))
				}
			}
			// ν-SVC's objective, scaled, is ½α'ᵀQα' at α' = α/r; C-SVC's
			// subtracts eᵀα' = νn/r.
			in := csvc.Info().Tasks[0]
			if want := task.Objective - c.nu*float64(task.N)/task.R; math.Abs(in.Objective-want) > 1e-6*math.Abs(want) {
				t.Errorf("%s: C-SVC objective %.10g, ν-SVC's − νn/r %.10g", c.name, in.Objective, want)
			}
		}
	}
}

// TestNuSVRIsEpsSVR: a ν-SVR solution is the ε-SVR solution at the ε it
// found, with the same C (Chang & Lin 2011, Sect. 2.5): SVR{Nu} and
// SVR{Epsilon: Info().Epsilon} give the same predictions (to 1e-5: both
// duals to 1e-9) and objective up to ε·Σ(α + α*) = ε·C·ν·n, the term
// ν-SVR's dual leaves out; at least ν·n rows are support vectors.
func TestNuSVRIsEpsSVR(t *testing.T) {
	x, y := laplaceData(300, 0.3, 3)
	for _, nu := range []float64{0.2, 0.6} {
		s := &SVR{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 5, Nu: nu, Tol: 1e-9}
		if err := s.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		in := s.Info()
		if !(in.Epsilon > 0) {
			t.Fatalf("ν = %g: ε = %g", nu, in.Epsilon)
		}
		if float64(in.SV) < nu*300 {
			t.Errorf("ν = %g: %d support vectors, fewer than ν·n = %g", nu, in.SV, nu*300)
		}
		e := &SVR{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 5, Epsilon: in.Epsilon, Tol: 1e-9}
		if err := e.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		pn, _ := s.Predict(x)
		pe, _ := e.Predict(x)
		for i := range pn {
			if math.Abs(pn[i]-pe[i]) > 1e-5 {
				t.Fatalf("ν = %g row %d: ν-SVR %.9g, ε-SVR at ε = %g: %.9g", nu, i, pn[i], in.Epsilon, pe[i])
			}
		}
		if d := e.Info().Objective - (in.Objective + in.Epsilon*5*nu*300); math.Abs(d) > 1e-6*math.Abs(e.Info().Objective) {
			t.Errorf("ν = %g: ε-SVR objective %.10g, ν-SVR's + ε·Cνn %.10g", nu, e.Info().Objective, in.Objective+in.Epsilon*5*nu*300)
		}
	}
}

// TestNuMatchesLIBSVM fits the same rows as svm-train -s 1 and -s 4 (when
// LIBSVM's tools are installed) with tolerance 1e-6 on both sides: the
// objectives agree to 1e-6 relative, ρ (and ν-SVC's C = 1/r, ν-SVR's ε =
// −r) to 1e-4, the support vectors' counts to within 2 (variables at a
// bound within the tolerance may differ).
func TestNuMatchesLIBSVM(t *testing.T) {
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("LIBSVM's svm-train is not installed (Debian: libsvm-tools)")
	}
	dir := t.TempDir()
	num := func(re string, out []byte) float64 {
		m := regexp.MustCompile(re).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s not in svm-train's output:\n%s", re, out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	near := func(what string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol*math.Max(1, math.Abs(want)) {
			t.Errorf("%s %.9g, svm-train %.9g", what, got, want)
		}
	}
	x, y := nuBlobs(300, 0.4, 2)
	tr := filepath.Join(dir, "svc")
	writeLIBSVM(t, tr, x, y)
	out, err := exec.Command("svm-train", "-s", "1", "-n", "0.6", "-g", "0.5", "-e", "1e-6", tr, filepath.Join(dir, "svc.model")).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train -s 1: %v\n%s", err, out)
	}
	svc := &SVM{Kernel: kernel.Gaussian{Gamma: 0.5}, Nu: 0.6, Tol: 1e-6}
	if err := svc.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	task := svc.Info().Tasks[0]
	// LIBSVM codes the label +1 as its positive class for labels ±1
	// (whatever the order the rows give them), as Landmark does.
	t.Logf("svm-train -s 1: C %g obj %g rho %g nSV %g; ours %g %g %g %d", num(`C = (\S+)`, out), num(`obj = (\S+),`, out), num(`rho = (\S+)`, out), num(`Total nSV = (\d+)`, out),
		1/task.R, task.Objective, -task.Bias, task.SV)
	near("ν-SVC C = 1/r", 1/task.R, num(`C = (\S+)`, out), 1e-4)
	near("ν-SVC objective", task.Objective, num(`obj = (\S+),`, out), 1e-6)
	near("ν-SVC ρ", -task.Bias, num(`rho = (\S+)`, out), 1e-4)
	if d := float64(task.SV) - num(`Total nSV = (\d+)`, out); math.Abs(d) > 2 {
		t.Errorf("ν-SVC: %d support vectors, svm-train %g", task.SV, num(`Total nSV = (\d+)`, out))
	}

	xr, yr := laplaceData(300, 0.3, 4)
	tr = filepath.Join(dir, "svr")
	writeLIBSVM(t, tr, xr, yr)
	out, err = exec.Command("svm-train", "-s", "4", "-n", "0.4", "-c", "5", "-g", "0.5", "-e", "1e-6", tr, filepath.Join(dir, "svr.model")).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train -s 4: %v\n%s", err, out)
	}
	svr := &SVR{Kernel: kernel.Gaussian{Gamma: 0.5}, C: 5, Nu: 0.4, Tol: 1e-6}
	if err := svr.Fit(context.Background(), xr, yr); err != nil {
		t.Fatal(err)
	}
	in := svr.Info()
	t.Logf("svm-train -s 4: epsilon %g obj %g rho %g nSV %g; ours %g %g %g %d", num(`epsilon = (\S+)`, out), num(`obj = (\S+),`, out), num(`rho = (\S+)`, out), num(`nSV = (\d+)`, out),
		in.Epsilon, in.Objective, -in.Bias, in.SV)
	near("ν-SVR ε", in.Epsilon, num(`epsilon = (\S+)`, out), 1e-4)
	near("ν-SVR objective", in.Objective, num(`obj = (\S+),`, out), 1e-6)
	near("ν-SVR ρ", -in.Bias, num(`rho = (\S+)`, out), 1e-4)
	if d := float64(in.SV) - num(`nSV = (\d+)`, out); math.Abs(d) > 2 {
		t.Errorf("ν-SVR: %d support vectors, svm-train %g", in.SV, num(`nSV = (\d+)`, out))
	}
}

func TestNuRefusals(t *testing.T) {
	x, y := nuBlobs(100, 0.1, 5) // about 10 positive rows: ν = 0.5 needs 25
	ctx := context.Background()
	for _, c := range []struct {
		name string
		s    *SVM
		w    []float64
		want string
	}{
		{"infeasible", &SVM{Nu: 0.5}, nil, "is infeasible"},
		{"with C", &SVM{Nu: 0.1, C: 2}, nil, "ν-SVC has no C"},
		{"nu > 1", &SVM{Nu: 1.5}, nil, "want 0 < ν ≤ 1"},
		{"infeasible by class weight", &SVM{Nu: 0.1, ClassWeights: map[float64]float64{1: 0.1}}, nil, "(weight "},
		{"no bias", &SVM{Nu: 0.1, NoBias: true}, nil, "NoBias does not apply"},
	} {
		w := c.w
		if w != nil {
			for i := range w {
				w[i] = 1
			}
		}
		err := c.s.FitWeighted(ctx, x, y, w)
		if !errors.Is(err, ErrInput) || !regexp.MustCompile(regexp.QuoteMeta(c.want)).MatchString(err.Error()) {
			t.Errorf("%s: err = %v, want ErrInput with %q", c.name, err, c.want)
		}
	}
	xr, yr := laplaceData(50, 0.3, 6)
	for _, s := range []*SVR{{Nu: 0.3, Epsilon: 0.2}, {Nu: 0.3, AbsoluteLoss: true}, {Nu: 2}} {
		if err := s.Fit(ctx, xr, yr); !errors.Is(err, ErrInput) {
			t.Errorf("%+v: err = %v, want ErrInput", *s, err)
		}
	}
}
