package model

import (
	"context"
	"errors"
	"math"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// TestSigmoidSVMMatchesLIBSVM fits C-SVC with the sigmoid kernel on the
// rows svm-train -s 0 -t 3 gets (when LIBSVM's tools are installed), γ =
// 0.2, c₀ = −0.5, C = 2, tolerance 1e-6 on both sides. The kernel matrix is
// indefinite for these rows (checked: its smallest eigenvalue is
// negative), so the dual is not convex and the solvers must reach the same
// stationary point by the same steps (LIBSVM's working sets, and its τ for
// a pair of non-positive curvature): the objective agrees to 1e-6
// relative, ρ to 1e-4, the support vectors' count to within 2.
func TestSigmoidSVMMatchesLIBSVM(t *testing.T) {
	x, y := nuBlobs(300, 0.4, 13)
	k := kernel.Sigmoid{Gamma: 0.2, Coef0: -0.5}
	kk := mat.NewSymDense(300, nil)
	for i := range 300 {
		for j := i; j < 300; j++ {
			kk.SetSym(i, j, k.Eval(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(kk, false) {
		t.Fatal("eigendecomposition failed")
	}
	if low := eig.Values(nil)[0]; !(low < 0) {
		t.Fatalf("smallest eigenvalue of K %g: the kernel matrix is not indefinite here", low)
	}
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("LIBSVM's svm-train is not installed (Debian: libsvm-tools)")
	}
	dir := t.TempDir()
	tr := filepath.Join(dir, "train")
	writeLIBSVM(t, tr, x, y)
	out, err := exec.Command("svm-train", "-s", "0", "-t", "3", "-g", "0.2", "-r", "-0.5", "-c", "2", "-e", "1e-6", tr, filepath.Join(dir, "model")).CombinedOutput()
	if err != nil {
		t.Fatalf("svm-train -t 3: %v\n%s", err, out)
	}
	num := func(re string) float64 {
		m := regexp.MustCompile(re).FindSubmatch(out)
		if m == nil {
			t.Fatalf("%s not in svm-train's output:\n%s", re, out)
		}
		v, _ := strconv.ParseFloat(string(m[1]), 64)
		return v
	}
	s := &SVM{Kernel: k, C: 2, Tol: 1e-6}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	task := s.Info().Tasks[0]
	obj, rho, nsv := num(`obj = (\S+),`), num(`rho = (\S+)`), num(`Total nSV = (\d+)`)
	t.Logf("svm-train -t 3: obj %g rho %g nSV %g; ours %.9g %.9g %d", obj, rho, nsv, task.Objective, -task.Bias, task.SV)
	if math.Abs(task.Objective-obj) > 1e-6*math.Max(1, math.Abs(obj)) {
		t.Errorf("objective %.9g, svm-train %.9g", task.Objective, obj)
	}
	if math.Abs(-task.Bias-rho) > 1e-4*math.Max(1, math.Abs(rho)) {
		t.Errorf("ρ %.9g, svm-train %.9g", -task.Bias, rho)
	}
	if math.Abs(float64(task.SV)-nsv) > 2 {
		t.Errorf("%d support vectors, svm-train %g", task.SV, nsv)
	}
}

// TestSigmoidIndefiniteSaid: where the sigmoid kernel matrix is indefinite
// beyond what the jitter mends (γ = 2, c₀ = 1 on 200 two-dimensional rows,
// with λ = 1e-9 adding almost nothing to the diagonal), exact KRR and
// FALKON fail with solver.ErrNotPD (ErrInput is not claimed: the data are
// fine) and an error that names the sigmoid kernel and what to try; the
// Gaussian kernel on the same rows fits.
func TestSigmoidIndefiniteSaid(t *testing.T) {
	x, y := nuBlobs(200, 0.5, 14)
	k := kernel.Sigmoid{Gamma: 2, Coef0: 1}
	ctx := context.Background()
	for _, est := range []Estimator{&KRR{Kernel: k, Lambda: 1e-9}, &Falkon{Kernel: k, Lambda: 1e-9, M: 50}} {
		err := est.Fit(ctx, x, y)
		if !errors.Is(err, solver.ErrNotPD) || !strings.Contains(err.Error(), "sigmoid kernel sigmoid(gamma=2, coef0=1) is not positive definite here") {
			t.Errorf("%T: err = %v, want solver.ErrNotPD naming the sigmoid kernel", est, err)
		}
	}
	if err := (&KRR{Kernel: kernel.Gaussian{Gamma: 2}, Lambda: 1e-9}).Fit(ctx, x, y); err != nil {
		t.Errorf("gaussian: %v", err)
	}
}
